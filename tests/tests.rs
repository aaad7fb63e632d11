//! All integration tests, compiled into one binary.

#[macro_use]
mod util;
mod support;
mod variants;
mod views;

mod adversarial;
mod advice;
mod advice_kinds;
mod architecture;
mod bounds;
mod cases;
mod chart;
mod cluster_evidence;
mod completion_live;
mod completions;
mod corpus;
mod docs;
mod doctor;
mod explain;
mod fake_api;
mod fleet;
mod formats;
mod install;
mod live;
mod man;
mod metamorphic;
mod node_check;
mod node_daemonset;
mod node_evidence;
mod node_probe;
mod output;
mod rbac;
mod rbd;
mod real;
mod real_captures;
mod safety;
mod secrets;
mod watch;
