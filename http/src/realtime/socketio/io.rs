//! The Socket.IO server: its namespaces, and the Engine.IO server it runs on. Each Engine.IO
//! connection gets a `client::SioConn`, which finds namespaces through `Namespaces`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use serde_json::Value;

use super::client::{Namespaces, Router};
use super::handler::ConnectHandler;
use super::namespace::{BroadcastOperator, Namespace};
use super::socket::{ConnectError, Socket};
use crate::realtime::engineio::{EngineConfig, EngineServer};
use crate::realtime::recovery::RecoveryConfig;

struct ServerInner {
    connect_timeout: Duration,
    namespaces: RwLock<HashMap<String, Namespace>>,
    engine: EngineServer,
}

/// A Socket.IO server. Cheap to clone; mount it with [`crate::realtime::configure`].
#[derive(Clone)]
pub struct SocketIo {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for SocketIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SocketIo").finish()
    }
}

impl SocketIo {
    /// A server with the given Engine.IO settings and connect timeout.
    pub fn new(engine: EngineConfig, connect_timeout: Duration) -> Self {
        let inner = Arc::new_cyclic(|weak: &Weak<ServerInner>| {
            let server: Weak<dyn Namespaces> = weak.clone();
            ServerInner {
                connect_timeout,
                namespaces: RwLock::new(HashMap::new()),
                engine: EngineServer::new(engine, Arc::new(Router::new(server))),
            }
        });
        SocketIo { inner }
    }

    /// A server configured from the `[realtime]` settings, telling callers apart by the
    /// trusted proxies' X-Forwarded-For (`trusted_proxies`).
    pub fn from_settings(settings: &parley_config::Settings) -> Self {
        let engine = EngineConfig { client_ip: crate::client_ip::ClientIp::from_settings(settings), ..EngineConfig::from(&settings.realtime) };
        SocketIo::new(engine, Duration::from_millis(settings.realtime.connect_timeout_ms))
    }

    /// Adds (or replaces) namespace `path`. `on_connect` gets the socket and the CONNECT `auth`
    /// JSON (`{}` when absent); it registers the socket's handlers and may refuse the connection.
    /// Emits made before it returns go out after the CONNECT reply.
    pub fn ns<F, Fut>(&self, path: &str, on_connect: F) -> Namespace
    where
        F: Fn(Socket, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ConnectError>> + Send + 'static,
    {
        self.add_ns(path, None, on_connect)
    }

    /// Like [`SocketIo::ns`], with connection state recovery on.
    pub fn ns_with_recovery<F, Fut>(&self, path: &str, recovery: RecoveryConfig, on_connect: F) -> Namespace
    where
        F: Fn(Socket, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ConnectError>> + Send + 'static,
    {
        self.add_ns(path, Some(recovery), on_connect)
    }

    fn add_ns<F, Fut>(&self, path: &str, recovery: Option<RecoveryConfig>, on_connect: F) -> Namespace
    where
        F: Fn(Socket, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), ConnectError>> + Send + 'static,
    {
        let path = normalize(path);
        let handler: ConnectHandler = Arc::new(move |s, auth| Box::pin(on_connect(s, auth)));
        let ns = Namespace::new(path.clone(), handler, recovery);
        if let Ok(mut map) = self.inner.namespaces.write() {
            map.insert(path, ns.clone());
        }
        ns
    }

    /// Namespace `path`, if defined.
    pub fn of(&self, path: &str) -> Option<Namespace> {
        self.inner.namespaces.read().ok()?.get(&normalize(path)).cloned()
    }

    /// Broadcast to `room` of the main namespace (a no-op if `/` is not defined).
    pub fn to(&self, room: impl Into<String>) -> Option<BroadcastOperator> {
        self.of("/").map(|ns| ns.to(room))
    }

    /// The underlying Engine.IO server (to mount elsewhere, or for stats).
    pub fn engine(&self) -> &EngineServer {
        &self.inner.engine
    }
}

fn normalize(path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

impl Namespaces for ServerInner {
    fn namespace(&self, path: &str) -> Option<Namespace> {
        self.namespaces.read().ok()?.get(path).cloned()
    }

    fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }
}
