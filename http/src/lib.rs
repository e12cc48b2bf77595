//! Parley's front door: the REST API under `/api`, sign-in, the built web apps, and (with the
//! real-time issue) the Socket.IO endpoint. `app::Application` is the one app factory.

pub mod app;
pub mod auth;
pub mod domain;
pub mod error;
pub mod routes;
pub mod state;
pub mod uploads;
pub mod views;
pub mod web;
