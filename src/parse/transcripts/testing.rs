//! What the readers' unit tests share: a transcript file cut at its prompts, read whole as
//! `doctor --from-file` reads it, and the real captures under `fixtures/node/`.

use regex::Regex;

use super::{apply, kind_of_command, shows_text, sniff};
use crate::model::NodeFacts;

/// A transcript file's parts: (the prompt's command, its output); a file without a prompt is
/// one part without a command.
pub(crate) fn parts(text: &str) -> Vec<(Option<String>, String)> {
    let prompt = Regex::new(r"^(?:\[[^\]]*\]\s?[#$]|[#$])\s*(\S.*)$").unwrap();
    let mut out: Vec<(Option<String>, String)> = Vec::new();
    for l in text.lines() {
        if let Some(c) = prompt.captures(l) {
            out.push((Some(c[1].to_string()), String::new()));
            continue;
        }
        if out.is_empty() {
            out.push((None, String::new()));
        }
        let body = &mut out.last_mut().unwrap().1;
        body.push_str(l);
        body.push('\n');
    }
    out
}

/// Read every part of a transcript into one set of facts, as `doctor --from-file` does.
pub(crate) fn facts_of(text: &str) -> NodeFacts {
    let mut f = NodeFacts::default();
    for (cmd, body) in parts(text) {
        let kind = match &cmd {
            Some(c) => kind_of_command(c).or_else(|| shows_text(c).then(|| sniff(&body)).flatten()),
            None => sniff(&body),
        };
        let kind = kind.unwrap_or_else(|| panic!("not recognised: {cmd:?}\n{body}"));
        apply(kind, cmd.as_deref(), &body, &mut f, "test")
            .unwrap_or_else(|| panic!("{kind:?} read nothing from {cmd:?}\n{body}"));
    }
    f
}

/// A real capture under `fixtures/node/` (the path from the crate's root, so that every reader's
/// tests name the same file the same way).
macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/node/",
            $name
        ))
    };
}
pub(crate) use fixture;
