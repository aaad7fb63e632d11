//! Reports → what a person or a program reads. Every report passes through [`redact_report`]
//! first, so no renderer can print a secret.

pub mod json;
pub mod junit;
pub mod node;
pub mod text;

use crate::model::report::{Finding, Report, Step};
use crate::redact::redact;

/// Output formats of `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable report (coloured on a terminal).
    Text,
    /// One JSON document, described by schema/volmnt.schema.json (in the release archive).
    Json,
    /// The same document as YAML.
    Yaml,
    /// JUnit XML, one test case per node and requirement (node check only).
    Junit,
}

/// Whether to colour text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Decide once, from the flag, NO_COLOR (https://no-color.org) and whether stdout is a terminal.
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
                !no_color && !dumb && std::io::stdout().is_terminal()
            }
        }
    }
}

fn redact_in_place(s: &mut String) {
    if let std::borrow::Cow::Owned(r) = redact(s) {
        *s = r;
    }
}

fn redact_steps(steps: &mut [Step]) {
    for s in steps {
        redact_in_place(&mut s.text);
        if let Some(c) = &mut s.command {
            redact_in_place(c);
        }
    }
}

fn redact_finding(f: &mut Finding) {
    redact_in_place(&mut f.summary);
    f.evidence.iter_mut().for_each(redact_in_place);
    for e in &mut f.evidence_detail {
        redact_in_place(&mut e.text);
        if let Some(o) = &mut e.object {
            redact_in_place(o);
        }
    }
    f.reasoning.iter_mut().for_each(redact_in_place);
    redact_steps(&mut f.confirm);
    redact_steps(&mut f.remediation);
    for w in &mut f.withheld {
        redact_in_place(&mut w.text);
        redact_in_place(&mut w.reason);
    }
}

/// Remove secrets from every string a report carries.
pub fn redact_report(r: &mut Report) {
    redact_in_place(&mut r.verdict);
    r.findings.iter_mut().for_each(redact_finding);
    r.blocks.iter_mut().for_each(redact_in_place);
    r.unrecognised.iter_mut().for_each(redact_in_place);
    r.notes.iter_mut().for_each(redact_in_place);
    r.inputs.iter_mut().for_each(redact_in_place);
}

/// The width to wrap text at: `COLUMNS`, else the terminal's, else 100.
pub fn text_width() -> usize {
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
    {
        return c;
    }
    terminal_size::terminal_size()
        .map(|(w, _)| w.0 as usize)
        .unwrap_or(100)
}

/// Render one report.
pub fn render(report: &Report, format: Format, style: text::Style) -> Result<String, String> {
    let mut r = report.clone();
    redact_report(&mut r);
    match format {
        Format::Text => Ok(text::report(&r, style)),
        Format::Json => json::to_json(&r),
        Format::Yaml => json::to_yaml(&r),
        Format::Junit => Err(JUNIT_ONLY.into()),
    }
}

/// `-o junit` is a node-check format; the diagnosis reports have no test cases.
pub const JUNIT_ONLY: &str =
    "-o junit is only for `volmnt node check` (a test case per node and requirement)";

/// Render the reports of `volmnt explain` (one per message) as one document.
pub fn render_many(
    reports: &[Report],
    format: Format,
    style: text::Style,
) -> Result<String, String> {
    let mut rs: Vec<Report> = reports.to_vec();
    rs.iter_mut().for_each(redact_report);
    match format {
        Format::Text => Ok(rs
            .iter()
            .map(|r| text::report(r, style))
            .collect::<Vec<_>>()
            .join("\n")),
        Format::Json => json::to_json(&json::Messages {
            schema_version: crate::model::report::SCHEMA_VERSION,
            messages: &rs,
        }),
        Format::Yaml => json::to_yaml(&json::Messages {
            schema_version: crate::model::report::SCHEMA_VERSION,
            messages: &rs,
        }),
        Format::Junit => Err(JUNIT_ONLY.into()),
    }
}
