//! `volmnt rbd status|unlock`: who holds an RBD image. Being built (issue: rbd); until then the
//! commands say so and exit 2.

use clap::{Args, Subcommand};

use crate::cli::Global;
use crate::error::{Error, ExitCode, Result};

#[derive(Debug, Subcommand)]
pub enum RbdCommand {
    /// List an image's locks and watchers (not built yet)
    Status(RbdStatusArgs),
}

#[derive(Debug, Args)]
pub struct RbdStatusArgs {
    /// pool/image
    pub image: Option<String>,
}

pub fn run(_c: &RbdCommand, _g: &Global) -> Result<ExitCode> {
    Err(Error::Usage("`volmnt rbd` is not built yet".into()))
}
