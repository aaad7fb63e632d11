//! `volmnt node check|gc`: what a node can mount. Being built (issue: node check); until then
//! the commands say so and exit 2.

use clap::{Args, Subcommand};

use crate::cli::Global;
use crate::error::{Error, ExitCode, Result};

#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Check nodes' mount prerequisites (not built yet)
    Check(NodeCheckArgs),
}

#[derive(Debug, Args)]
pub struct NodeCheckArgs {
    /// Node names
    pub nodes: Vec<String>,
}

pub fn run(_c: &NodeCommand, _g: &Global) -> Result<ExitCode> {
    Err(Error::Usage("`volmnt node check` is not built yet".into()))
}
