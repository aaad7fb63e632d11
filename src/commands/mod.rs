//! One module per subcommand: collect → diagnose → render, and the outcome as an exit code.

pub mod completions;
pub mod doctor;
pub mod explain;
pub mod node;
pub mod rbd;

use std::io::Write;

use crate::cli::{Cli, Command, DoctorCommand};
use crate::error::{Error, ExitCode, Result};

/// Run the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Explain(a) => explain::run(a, &cli.global),
        Command::Doctor(DoctorCommand::Pod(a)) => doctor::run_pod(a, &cli.global),
        Command::Doctor(DoctorCommand::Namespace(a)) => doctor::run_namespace(a, &cli.global),
        Command::Node(c) => node::run(c, &cli.global),
        Command::Rbd(c) => rbd::run(c, &cli.global),
        Command::Completions(a) => completions::run(a),
    }
}

/// Write a rendered document to stdout. A closed pipe (`| head`) is not an error worth a message.
pub fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Output(e.to_string())),
    }
}
