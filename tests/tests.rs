//! All integration tests, compiled into one binary.

#[macro_use]
mod util;
mod variants;

mod adversarial;
mod completions;
mod corpus;
mod doctor;
mod explain;
mod output;
