//! `volmnt explain MESSAGE...`: classify raw messages, one report each.

use std::io::Read;

use crate::cli::{ExplainArgs, Global};
use crate::diagnose::{self, Options};
use crate::error::{Error, ExitCode, Result};
use crate::render;

/// Largest message read from stdin.
const MAX_STDIN: u64 = 16 << 20;

pub fn run(args: &ExplainArgs, global: &Global) -> Result<ExitCode> {
    let opts = Options {
        node_os: args.node_os.clone(),
        invocation: global.invocation.clone(),
        now: None,
    };
    if args.messages.iter().filter(|m| *m == "-").count() > 1 {
        return Err(Error::Usage("`-` (stdin) can be given only once".into()));
    }
    let mut reports = Vec::new();
    for (i, m) in args.messages.iter().enumerate() {
        let (label, text) = if m == "-" {
            let mut buf = Vec::new();
            std::io::stdin()
                .take(MAX_STDIN + 1)
                .read_to_end(&mut buf)
                .map_err(|e| Error::io("reading stdin", e))?;
            if buf.len() as u64 > MAX_STDIN {
                return Err(Error::input(
                    "stdin",
                    "is larger than 16 MiB; one message is expected",
                ));
            }
            (
                "stdin".to_string(),
                crate::collect::offline::decode("stdin", buf)?,
            )
        } else {
            if m.trim().is_empty() {
                return Err(Error::input(format!("message {}", i + 1), "is empty"));
            }
            (format!("message {}", i + 1), m.clone())
        };
        reports.push(diagnose::explain(&label, &text, &opts));
    }
    let out = render::render_many(&reports, global.output, super::text_style(global))
        .map_err(Error::Output)?;
    super::emit(&out)?;
    let refs: Vec<&diagnose::Report> = reports.iter().collect();
    Ok(super::exit_for(&refs))
}
