//! Parley's front door: the REST API under `/api`, sign-in, the built web apps, and the
//! Engine.IO/Socket.IO endpoint. `app::Application` is the one app factory.

pub mod access_log;
pub mod app;
pub mod auth;
pub mod chart_range;
pub mod client_ip;
pub mod cli;
pub mod demo;
pub mod domain;
pub mod embedding;
pub mod error;
pub mod limits;
pub mod live;
pub mod mail;
pub mod notify;
pub mod payments;
pub mod openapi;
pub mod quota;
pub mod realtime;
pub mod reports;
pub mod routes;
pub mod state;
pub mod uploads;
pub mod views;
pub mod visitor_guard;
pub mod web;

/// Locks a mutex whose guarded value stays consistent even if a holder panicked.
pub(crate) fn realtime_lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
