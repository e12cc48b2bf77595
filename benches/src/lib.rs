//! Pieces the harness's binaries and micro-benchmarks share.

pub mod did_you_mean;
pub mod external;
pub mod synthetic;
