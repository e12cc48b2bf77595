//! Pieces the harness's binaries and micro-benchmarks share.

pub mod external;
pub mod synthetic;
