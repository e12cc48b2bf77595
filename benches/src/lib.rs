//! Pieces the harness's binaries and micro-benchmarks share.

pub mod synthetic;
