//! WebSocket transport through actix-ws: a reader task feeding the session actor and a writer
//! task draining a bounded queue (a client that cannot keep up gets disconnected).

use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::{web, HttpRequest, HttpResponse};
use tokio::sync::mpsc;

use super::super::packet::Packet;
use super::super::engine::{bad_request, EngineServer};
use super::super::session::{AttachWs, WsFrame, WsGone, WsPacket};
use super::super::CloseReason;

/// Frames buffered between the session actor and the socket writer.
pub const WS_QUEUE: usize = 1024;

static NEXT_WS_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) async fn open(
    srv: &EngineServer,
    req: &HttpRequest,
    body: web::Payload,
    sid: Option<String>,
) -> HttpResponse {
    // Check the session before accepting the upgrade.
    let existing = match &sid {
        Some(sid) => match srv.lookup(sid) {
            Some(addr) => Some(addr),
            None => return bad_request("Session ID unknown"),
        },
        None => None,
    };
    let (response, session, stream) = match actix_ws::handle(req, body) {
        Ok(parts) => parts,
        Err(_) => return bad_request("Bad request"),
    };
    let stream = stream
        .max_frame_size(srv.cfg.max_payload.max(1024))
        .aggregate_continuations()
        .max_continuation_size(srv.cfg.max_payload.max(1024));
    let id = NEXT_WS_ID.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel::<WsFrame>(WS_QUEUE);

    let addr = match existing {
        Some(addr) => {
            let accepted = addr
                .send(AttachWs { id, tx: tx.clone() })
                .await
                .unwrap_or(false);
            if !accepted {
                actix_web::rt::spawn(async move {
                    let _ = session.close(None).await;
                });
                return response;
            }
            addr
        }
        None => srv.open_session(Some((id, tx.clone()))).1,
    };
    drop(tx);

    // Writer: keeps frame order; ends on Close or when the session drops its sender.
    let mut writer = session.clone();
    actix_web::rt::spawn(async move {
        let mut rx = rx;
        while let Some(frame) = rx.recv().await {
            let res = match frame {
                WsFrame::Text(t) => writer.text(t).await,
                WsFrame::Binary(b) => writer.binary(b).await,
                WsFrame::Close => break,
            };
            if res.is_err() {
                break;
            }
        }
        let _ = writer.close(None).await;
    });

    // Reader: decodes frames and feeds the actor in order.
    let mut pong_session = session;
    actix_web::rt::spawn(async move {
        let mut stream = stream;
        let reason = loop {
            let Some(msg) = stream.recv().await else {
                break CloseReason::TransportClose;
            };
            let packet = match msg {
                Ok(actix_ws::AggregatedMessage::Text(t)) => match Packet::decode_text(&t) {
                    Ok(p) => p,
                    Err(_) => break CloseReason::ParseError,
                },
                Ok(actix_ws::AggregatedMessage::Binary(b)) => Packet::Binary(b),
                Ok(actix_ws::AggregatedMessage::Ping(p)) => {
                    let _ = pong_session.pong(&p).await;
                    continue;
                }
                Ok(actix_ws::AggregatedMessage::Pong(_)) => continue,
                Ok(actix_ws::AggregatedMessage::Close(_)) => break CloseReason::TransportClose,
                Err(actix_ws::ProtocolError::Overflow) => break CloseReason::PayloadTooLarge,
                Err(_) => break CloseReason::TransportError,
            };
            if !addr.connected() {
                break CloseReason::TransportClose;
            }
            addr.do_send(WsPacket { id, packet });
        };
        addr.do_send(WsGone { id, reason });
        let _ = pong_session.close(None).await;
    });

    response
}
