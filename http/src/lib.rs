//! Parley's front door.

pub mod realtime;
