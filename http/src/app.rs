//! The one app factory, used by `parley serve` and by every test: it opens the store, builds
//! the shared state and binds the server (port 0 picks a free port).

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::middleware::{Compress, DefaultHeaders};
use actix_web::{web, App};
use parley_config::Settings;
use parley_store::Store;

use std::time::Duration;

use parley_engine::chat::{Engine, EngineSettings};
use parley_engine::chat::ServerEvent;
use parley_engine::ingest::Trainer;
use parley_engine::knowledge_brain::KnowledgeBrain;
use parley_engine::retrieval::{IndexCache, IndexOptions};

use crate::auth::oauth::PendingFlows;
use crate::auth::{password, TokenKeys};
use crate::error::{json_config, path_config, query_config};
use crate::state::AppState;
use crate::{routes, web as static_web};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] parley_config::ConfigError),
    #[error("database: {0}")]
    Store(#[from] parley_store::StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    #[error("{0}")]
    Other(String),
}

/// HTTP workers: as configured, or one per core but one, which is left to the message writer
/// (on 2 cores one event loop relays more, at a lower latency, than two that hop between each
/// other's sessions).
fn worker_threads(configured: usize) -> usize {
    if configured > 0 {
        return configured;
    }
    std::thread::available_parallelism().map_or(1, usize::from).saturating_sub(1).max(1)
}

/// The live engine (with the knowledge brain: retrieval + the configured answerer) and the
/// trainer, sharing one embedding model.
fn build_engine(settings: &Settings, store: &Store) -> Result<(Engine, Trainer), StartError> {
    // Logs whether retrieval is hybrid or BM25 only (no model files).
    let embedder = parley_engine::retrieval::load_embedder(&settings.embeddings);
    let cache = Arc::new(IndexCache::new(embedder.clone(), IndexOptions::default(), 2_000_000));
    let answerer = parley_engine::answer::from_settings(&settings.llm).map_err(|e| StartError::Other(format!("llm: {e}")))?;
    let brain = KnowledgeBrain::new(store.clone(), cache, answerer);
    let engine = Engine::new(
        store.clone(),
        Arc::new(brain),
        EngineSettings {
            reply_timeout: Duration::from_secs(settings.llm.timeout_secs.saturating_add(15)),
            arbiters: settings.realtime.arbiters,
            session_mailbox: settings.realtime.session_mailbox,
        },
    );
    let live = engine.clone();
    let mut trainer = Trainer::new(store.clone(), settings).with_events(Arc::new(move |event| {
        let bot_id = crate::views::events::training_bot(&event).to_owned();
        live.tell_bot(&bot_id, ServerEvent::Training { event });
    }));
    if let Some(embedder) = embedder {
        trainer = trainer.with_embedder(embedder);
    }
    Ok((engine, trainer))
}

pub struct Application {
    port: u16,
    server: Server,
    state: web::Data<AppState>,
}

impl Application {
    pub async fn build(settings: Settings) -> Result<Application, StartError> {
        let secret = parley_config::ensure_jwt_secret(&settings)?;
        let store = Store::open(&settings).await?;
        // Conversations left with someone no longer able to take them (a team change whose
        // requeue a crash cut off) wait in the queue again before anyone is served.
        match store.requeue_orphaned_sessions().await {
            Ok(0) => {}
            Ok(n) => tracing::info!("{n} conversations held by former agents are back in the support queue"),
            Err(e) => tracing::warn!("could not return former agents' conversations to the queue: {e}"),
        }
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(15))
            .build()
            .map_err(|e| StartError::Other(format!("http client: {e}")))?;
        let hasher = password::Hasher::from_settings(&settings.auth);
        let dummy_hash = hasher
            .hash(&uuid::Uuid::new_v4().to_string())
            .await
            .map_err(|e| StartError::Other(e.message))?;
        let (engine, trainer) = build_engine(&settings, &store)?;
        let demo_bot = if settings.demo_bot {
            let bot = crate::demo::ensure(&store, &trainer).await.map_err(StartError::Other)?;
            crate::demo::seat_operators(&store, &bot, &settings.demo_operators).await;
            Some(bot)
        } else {
            None
        };
        let listener = TcpListener::bind(&settings.addr)
            .map_err(|source| StartError::Bind { addr: settings.addr.clone(), source })?;
        let port = listener.local_addr().map_err(|e| StartError::Other(e.to_string()))?.port();
        // Sources a crash left half-trained are trained again (or failed with a reason).
        let resume = trainer.clone();
        actix_web::rt::spawn(async move {
            match resume.resume_unfinished().await {
                Ok(summary) => tracing::info!("training resumed after start-up: {summary:?}"),
                Err(e) => tracing::error!("resuming unfinished training: {e}"),
            }
        });
        // Links in mail name the port actually bound when the address asked for any (port 0).
        let public_base = if settings.public_url.is_empty() {
            let host = settings.addr.rsplit_once(':').map(|(h, _)| h).unwrap_or("127.0.0.1");
            format!("http://{host}:{port}")
        } else {
            settings.public_base_url()
        };
        let mail = crate::mail::Outbox::new(store.clone(), &public_base);
        let transport = crate::mail::Transport::from_settings(&settings).map_err(StartError::Other)?;
        crate::mail::spawn_sender(&mail, transport, &settings);
        let visitor_limiter = crate::limits::VisitorLimiter::new(settings.realtime.visitor_messages_per_minute, Duration::from_secs(60));
        let (state_auth, state_realtime) = (settings.auth.clone(), settings.realtime.clone());
        let client_ip = crate::client_ip::ClientIp::from_settings(&settings);
        let state = web::Data::from(Arc::new(AppState {
            engine,
            trainer,
            tokens: TokenKeys::new(&secret, settings.auth.token_ttl_hours),
            two_factor_seal: crate::auth::totp::SecretSeal::new(&secret),
            store,
            settings,
            oauth_flows: PendingFlows::default(),
            http,
            dummy_hash,
            hasher,
            auth_throttle: crate::auth::throttle::AuthThrottle::from_settings(&state_auth),
            visitor_limiter,
            client_ip,
            new_conversations: crate::limits::NewConversations::from_settings(&state_realtime),
            first_messages: Default::default(),
            mail,
            demo_bot,
        }));
        crate::reports::spawn_weekly_reports(state.clone());
        crate::payments::spawn_plan_settler(state.clone());
        let io = crate::live::socket_server(state.clone());
        let settings_workers = state.settings.workers;
        let server_state = state.clone();
        let mounts = crate::realtime::LiveMounts::new().socket_io(&io);
        let server = crate::realtime::http_server(vec![listener], worker_threads(settings_workers), mounts, move || {
            let state = server_state.clone();
            App::new()
                .app_data(state.clone())
                .app_data(json_config(1024 * 1024))
                .app_data(query_config())
                .app_data(path_config())
                .wrap(
                    DefaultHeaders::new()
                        .add(("X-Content-Type-Options", "nosniff"))
                        .add(("Referrer-Policy", "strict-origin-when-cross-origin")),
                )
                .wrap(Compress::default())
                .wrap(crate::access_log::access_log())
                .configure(|cfg| crate::realtime::configure(cfg, io.clone()))
                .configure(routes::configure)
                .configure(|cfg| static_web::configure(cfg, &state))
        })
        .map_err(|source| StartError::Bind { addr: format!("port {port}"), source })?
        .shutdown_timeout(5)
        .run();
        Ok(Application { port, server, state })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn store(&self) -> &Store {
        &self.state.store
    }

    /// The shared state, for tests that drive background work (a weekly report round) directly.
    pub fn state(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    pub fn server_handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
