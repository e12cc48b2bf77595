//! Engine.IO's HTTP entry: query validation (the 400 rules), the connection limits on a new
//! session, and dispatch to a transport.

use actix_web::{http::Method, web, HttpRequest, HttpResponse};

use super::engine::{bad_request, EngineServer};
use super::transport::polling;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransportKind {
    Polling,
    WebSocket,
}

pub(crate) struct Query {
    pub transport: TransportKind,
    pub sid: Option<String>,
}

/// Validates `EIO`, `transport` and `sid`; `None` means HTTP 400.
pub(crate) fn parse_query(qs: &str) -> Option<Query> {
    let mut eio = None;
    let mut transport = None;
    let mut sid = None;
    for (k, v) in url::form_urlencoded::parse(qs.as_bytes()) {
        match &*k {
            "EIO" => eio = Some(v.into_owned()),
            "transport" => transport = Some(v.into_owned()),
            "sid" => sid = Some(v.into_owned()),
            _ => {}
        }
    }
    if eio.as_deref() != Some("4") {
        return None;
    }
    let transport = match transport.as_deref() {
        Some("polling") => TransportKind::Polling,
        Some("websocket") => TransportKind::WebSocket,
        _ => return None,
    };
    Some(Query { transport, sid })
}

impl EngineServer {
    /// Handles any request under the mount path.
    pub async fn handle(&self, req: HttpRequest, body: web::Payload) -> HttpResponse {
        let Some(query) = parse_query(req.query_string()) else {
            return bad_request("Bad request");
        };
        if query.sid.is_none() && req.method() == Method::GET {
            if let Some(refused) = self.refusal(&req) {
                return refused;
            }
        }
        match query.transport {
            TransportKind::Polling => {
                if req.method() == Method::GET {
                    polling::get(self, query.sid).await
                } else if req.method() == Method::POST {
                    match query.sid {
                        Some(sid) => polling::post(self, &sid, body).await,
                        None => bad_request("Bad handshake method"),
                    }
                } else if req.method() == Method::OPTIONS {
                    HttpResponse::NoContent().finish()
                } else {
                    bad_request("Bad handshake method")
                }
            }
            // A real upgrade never gets here: the server hands it to the WebSocket transport
            // with its connection (`realtime::server`). This is a plain request naming it.
            TransportKind::WebSocket => {
                if req.method() != Method::GET {
                    return bad_request("Bad handshake method");
                }
                bad_request("Bad request")
            }
        }
    }

    /// Mounts this server at `path` (e.g. `/engine.io/`), with and without the trailing slash.
    pub fn mount(self, cfg: &mut web::ServiceConfig, path: &str) {
        let trimmed = path.trim_end_matches('/').to_owned();
        for p in [format!("{trimmed}/"), trimmed] {
            if p.is_empty() {
                continue;
            }
            let srv = self.clone();
            cfg.service(web::resource(p).route(web::route().to(
                move |req: HttpRequest, body: web::Payload| {
                    let srv = srv.clone();
                    async move { srv.handle(req, body).await }
                },
            )));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn query_rules() {
        assert!(parse_query("EIO=4&transport=polling").is_some());
        assert!(parse_query("EIO=4&transport=websocket&sid=abc").is_some());
        assert!(parse_query("transport=polling").is_none());
        assert!(parse_query("EIO=abc&transport=polling").is_none());
        assert!(parse_query("EIO=3&transport=polling").is_none());
        assert!(parse_query("EIO=4").is_none());
        assert!(parse_query("EIO=4&transport=abc").is_none());
        assert!(parse_query("%%%&&==").is_none());
        let q = parse_query("EIO=4&transport=polling&sid=a%2Bb&t=x").unwrap();
        assert_eq!(q.sid.as_deref(), Some("a+b"));
        assert_eq!(q.transport, TransportKind::Polling);
    }
}
