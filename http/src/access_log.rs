//! The access log: method, path, status and time, never the query string. Query strings carry
//! secrets a log must not keep: the Engine.IO `sid` (which would let a log reader join that
//! connection), tokens in links (`?token=` of the email links), and whatever a client puts there.

use actix_web::middleware::Logger;

/// `GET /api/bots 200 3.2ms`: `%U` is the path alone, where `%r` would be the request line
/// with its query.
const FORMAT: &str = "%{method}xi %U %s %Dms";

pub fn access_log() -> Logger {
    Logger::new(FORMAT).custom_request_replace("method", |req| req.method().to_string()).exclude("/api/health")
}
