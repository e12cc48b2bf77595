//! The HTTP server for an app with live endpoints: actix-web for every request, except WebSocket
//! upgrades under a mounted Engine.IO path, which get their connection handed over whole.
//!
//! Why not actix-web's own WebSocket route: a connection it upgrades keeps the HTTP dispatcher's
//! 8 KB read and 8 KB write buffers for life, and each frame crosses two more channels and tasks.
//! Taking the socket at the upgrade leaves an idle WebSocket with no buffer at all (heaptrack,
//! 4,000 idle sockets: 16 KB of buffers, 4 KB of request head and a 4 KB task each before).

use std::fmt;
use std::io;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_codec::{Framed, FramedParts};
use bytes::BytesMut;
use actix_http::body::MessageBody;
use actix_http::{h1, HttpService, Request, Response};
use actix_server::ServerBuilder;
use actix_service::{fn_factory, fn_service, map_config, IntoServiceFactory, ServiceFactory, ServiceFactoryExt as _};
use actix_web::dev::AppConfig;
use actix_web::rt::net::TcpStream;

use super::engineio::engine::Refusal;
use super::engineio::transport::ws;
use super::engineio::EngineServer;
use super::SocketIo;

/// Engine.IO servers by the path they are mounted at, for the upgrade requests.
#[derive(Clone, Default)]
pub struct LiveMounts(Arc<Vec<(String, EngineServer)>>);

impl fmt::Debug for LiveMounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(p, _)| p)).finish()
    }
}

impl LiveMounts {
    pub fn new() -> Self {
        LiveMounts::default()
    }

    /// Adds an Engine.IO server at `path` (as given to [`EngineServer::mount`]).
    pub fn engine(self, path: &str, srv: EngineServer) -> Self {
        let mut list: Vec<_> = self.0.iter().cloned().collect();
        list.push((path.trim_end_matches('/').to_owned(), srv));
        LiveMounts(Arc::new(list))
    }

    /// Adds a Socket.IO server at `/socket.io/` (as [`super::configure`] mounts it).
    pub fn socket_io(self, io: &SocketIo) -> Self {
        self.engine("/socket.io/", io.engine().clone())
    }

    fn find(&self, path: &str) -> Option<&EngineServer> {
        let trimmed = path.trim_end_matches('/');
        self.0.iter().find(|(p, _)| p == trimmed).map(|(_, srv)| srv)
    }

    /// Takes the socket from the HTTP dispatcher and serves it on a task of its own.
    ///
    /// Why a task of its own: the dispatcher's task is sized for the whole HTTP state machine
    /// (4 KB), and its codec and write buffer would live as long as the WebSocket. The
    /// dispatcher's read buffer is shared with the request head's header values (they are
    /// slices of it), so the bytes after the head are copied out and the request is dropped
    /// once the handshake is answered (`ws::serve`): an idle WebSocket then holds none of them.
    fn upgrade(&self, req: Request, framed: Framed<TcpStream, h1::Codec>) {
        let FramedParts { io, read_buf, .. } = framed.into_parts();
        let pending = if read_buf.is_empty() { BytesMut::new() } else { BytesMut::from(&read_buf[..]) };
        drop(read_buf);
        match self.find(req.path()).cloned() {
            Some(srv) => {
                actix_web::rt::spawn(ws::serve(Box::new(ws::Upgrade { srv, req, io, pending })));
            }
            None => {
                actix_web::rt::spawn(async move {
                    let mut io = io;
                    ws::refuse(&mut io, Refusal::bad_request("Bad request")).await;
                });
            }
        }
    }
}

/// An actix server on `listeners` with `workers` threads, serving the app `factory` builds and
/// the WebSockets of `mounts`. Call `.run()` on it (after any other builder setting).
pub fn http_server<F, I, S, B>(
    listeners: Vec<TcpListener>,
    workers: usize,
    mounts: LiveMounts,
    factory: F,
) -> io::Result<ServerBuilder>
where
    F: Fn() -> I + Send + Clone + 'static,
    I: IntoServiceFactory<S, Request>,
    S: ServiceFactory<Request, Config = AppConfig> + 'static,
    S::Error: Into<actix_web::Error> + 'static,
    S::InitError: fmt::Debug,
    S::Response: Into<Response<B>> + 'static,
    <S::Service as actix_service::Service<Request>>::Future: 'static,
    S::Service: 'static,
    B: MessageBody + 'static,
{
    let mut builder = ServerBuilder::default().workers(workers.max(1));
    for listener in listeners {
        let addr = listener.local_addr()?;
        let factory = factory.clone();
        let mounts = mounts.clone();
        builder = builder.listen(format!("parley-http-{addr}"), listener, move || {
            let mounts = mounts.clone();
            let upgrade = fn_factory(move || {
                let mounts = mounts.clone();
                async move {
                    Ok::<_, ()>(fn_service(move |(req, framed): (Request, Framed<TcpStream, h1::Codec>)| {
                        mounts.upgrade(req, framed);
                        std::future::ready(Ok::<_, std::convert::Infallible>(()))
                    }))
                }
            });
            let app = factory().into_factory().map_err(|err| err.into().error_response());
            HttpService::build()
                // actix-web's HttpServer defaults: a client still sending a body we refused
                // (413, 429) gets a second to finish before the socket closes, instead of a reset.
                .keep_alive(actix_http::KeepAlive::default())
                .client_request_timeout(Duration::from_secs(5))
                .client_disconnect_timeout(Duration::from_secs(1))
                .h1_allow_half_closed(true)
                // Live events are small frames that must leave at once, not wait for Nagle's
                // algorithm to gather them.
                .tcp_nodelay(true)
                .local_addr(addr)
                .upgrade(upgrade)
                .finish(map_config(app, |_| AppConfig::default()))
                .tcp()
        })?;
    }
    Ok(builder)
}
