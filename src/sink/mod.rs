//! Outputs that a cluster reads, beside the renderers that a person reads: the diagnosis as an
//! Event on the pod (events.rs), Prometheus metrics and health endpoints (metrics.rs, http.rs),
//! and the Lease that decides which replica may write (lease.rs). The engine never writes; a
//! sink is handed a report and decides nothing about it.

pub mod events;
pub mod http;
pub mod labels;
pub mod lease;
pub mod metrics;
