//! volmnt: why is this pod stuck in ContainerCreating because of a volume, and what to run.
//!
//! Flow: `cli` → `commands` → `collect` (the only I/O) → [`model::Case`] → `diagnose` (pure)
//! → [`diagnose::Report`] → `render`.

pub mod cli;
pub mod collect;
pub mod commands;
pub mod diagnose;
pub mod error;
pub mod model;
pub mod parse;
pub mod redact;
pub mod render;
pub mod sink;
