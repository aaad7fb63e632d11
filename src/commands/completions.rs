//! `volmnt completions SHELL`: the completion script on stdout.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::{ExitCode, Result};

/// The script for `shell`, as committed in completions/.
pub fn script(shell: clap_complete::Shell) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "volmnt", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

pub fn run(args: &CompletionsArgs) -> Result<ExitCode> {
    super::emit(&script(args.shell))?;
    Ok(ExitCode::Ok)
}
