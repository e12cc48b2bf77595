//! HTTP long-polling transport: GET pulls queued packets, POST pushes packets.

use actix_web::{web, HttpResponse};
use futures_util::StreamExt as _;
use tokio::sync::oneshot;

use super::super::packet::{decode_payload, encode_payload};
use super::super::engine::{bad_request, EngineServer};
use super::super::CloseReason;

fn text(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=UTF-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(body)
}

/// GET: the handshake (no sid) or a poll.
pub(crate) async fn get(srv: &EngineServer, sid: Option<String>) -> HttpResponse {
    let Some(sid) = sid else {
        return handshake(srv);
    };
    let Some(session) = srv.lookup(&sid) else {
        return bad_request("Session ID unknown");
    };
    let (tx, rx) = oneshot::channel();
    session.poll(tx);
    // The session is not kept alive by a waiting GET: if it goes, the answer is dropped.
    drop(session);
    match rx.await {
        Ok(Ok(body)) => text(body),
        _ => bad_request("Bad request"),
    }
}

fn handshake(srv: &EngineServer) -> HttpResponse {
    let (_, open) = srv.open_session(None);
    text(encode_payload(&[open]))
}

/// POST: packets from the client; `ok` on success.
pub(crate) async fn post(srv: &EngineServer, sid: &str, mut body: web::Payload) -> HttpResponse {
    let Some(session) = srv.lookup(sid) else {
        return bad_request("Session ID unknown");
    };
    let max = srv.cfg.max_payload;
    let mut buf = web::BytesMut::new();
    while let Some(chunk) = body.next().await {
        let Ok(chunk) = chunk else {
            session.close(CloseReason::TransportError);
            return bad_request("Bad request");
        };
        if buf.len() + chunk.len() > max {
            session.close(CloseReason::PayloadTooLarge);
            return HttpResponse::PayloadTooLarge().finish();
        }
        buf.extend_from_slice(&chunk);
    }
    let packets = std::str::from_utf8(&buf)
        .ok()
        .and_then(|s| decode_payload(s).ok());
    let Some(packets) = packets else {
        session.close(CloseReason::ParseError);
        return bad_request("Bad request");
    };
    match session.post(packets) {
        Ok(()) => text("ok".to_owned()),
        Err(_) => bad_request("Bad request"),
    }
}
