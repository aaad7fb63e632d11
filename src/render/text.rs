//! The readable report. First line: the verdict. Then the pod and node, a ranked table, and per
//! cause its explanation, evidence, how to confirm it and what to run. Plain when not coloured.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, ContentArrangement, Table};
use owo_colors::OwoColorize;

use crate::diagnose::{Finding, Report, Status, Step};

/// Applies a style only when colour is on.
struct Paint {
    on: bool,
}

impl Paint {
    fn bold(&self, s: &str) -> String {
        if self.on {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    fn red(&self, s: &str) -> String {
        if self.on {
            s.red().bold().to_string()
        } else {
            s.to_string()
        }
    }
    fn green(&self, s: &str) -> String {
        if self.on {
            s.green().bold().to_string()
        } else {
            s.to_string()
        }
    }
    fn yellow(&self, s: &str) -> String {
        if self.on {
            s.yellow().to_string()
        } else {
            s.to_string()
        }
    }
    fn dim(&self, s: &str) -> String {
        if self.on {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
    fn cmd(&self, s: &str) -> String {
        if self.on {
            s.cyan().to_string()
        } else {
            s.to_string()
        }
    }
}

/// How many findings get their full detail; the rest get one paragraph.
const DETAILED: usize = 2;

pub fn report(r: &Report, color: bool) -> String {
    let p = Paint { on: color };
    let mut out = String::new();
    let mark = match (r.status, r.top().map(|f| f.cause.as_str())) {
        (Status::Ok, _) => p.green("OK"),
        (_, Some("unknown")) => p.yellow("??"),
        _ => p.red("STUCK"),
    };
    out.push_str(&format!("{mark} {}\n", p.bold(&r.verdict)));
    header(r, &p, &mut out);
    if r.findings.len() > 1 {
        out.push('\n');
        out.push_str(&ranking_table(&r.findings));
        out.push('\n');
    }
    for (i, f) in r.findings.iter().enumerate() {
        out.push('\n');
        finding(i + 1, f, i < DETAILED, &p, &mut out);
    }
    if !r.unrecognised.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            p.bold("Other failure messages (no rule matched; shown so nothing is hidden)")
        ));
        for u in &r.unrecognised {
            out.push_str(&format!("  • {u}\n"));
        }
    }
    if !r.notes.is_empty() {
        out.push_str(&format!("\n{}\n", p.bold("Notes")));
        for n in &r.notes {
            out.push_str(&format!("  • {n}\n"));
        }
    }
    if !r.inputs.is_empty() {
        out.push_str(&format!("\n{}\n", p.dim("Read")));
        for i in &r.inputs {
            out.push_str(&format!("  {}\n", p.dim(i)));
        }
    }
    out
}

fn header(r: &Report, p: &Paint, out: &mut String) {
    let s = &r.subject;
    if s.kind != "pod" {
        return;
    }
    let mut lines: Vec<(String, String)> = Vec::new();
    if let Some(n) = &s.name {
        let mut v = match &s.namespace {
            Some(ns) => format!("{ns}/{n}"),
            None => n.clone(),
        };
        let state: Vec<&str> = [s.phase.as_deref(), s.waiting_reason.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !state.is_empty() {
            v.push_str(&format!("  ({})", state.join(", ")));
        }
        lines.push(("Pod".into(), v));
    }
    if let Some(node) = &s.node {
        let os = match (&r.node_os.os_image, r.node_os.family.as_str()) {
            (Some(img), fam) => format!("  OS: {img} [{fam}]"),
            (None, _) => "  OS: not known".to_string(),
        };
        lines.push(("Node".into(), format!("{node}{os}")));
    }
    if !s.volumes.is_empty() {
        lines.push(("Volumes".into(), s.volumes.join(", ")));
    }
    for (k, v) in lines {
        out.push_str(&format!("  {} {v}\n", p.dim(&format!("{k:<8}"))));
    }
}

fn ranking_table(findings: &[Finding]) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(100)
        .set_header(vec!["#", "likely cause", "confidence", "id"]);
    for (i, f) in findings.iter().enumerate() {
        t.add_row(vec![
            Cell::new(i + 1),
            Cell::new(&f.title),
            Cell::new(format!("{:.0}%", f.confidence * 100.0)),
            Cell::new(&f.cause),
        ]);
    }
    t.to_string()
}

fn finding(n: usize, f: &Finding, detailed: bool, p: &Paint, out: &mut String) {
    out.push_str(&format!(
        "{} {}  {}\n",
        p.bold(&format!("{n}.")),
        p.bold(&f.title),
        p.dim(&format!("[{} · {:.0}%]", f.cause, f.confidence * 100.0))
    ));
    out.push_str(&wrap(&f.summary, 96, "   "));
    if !f.evidence.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Evidence")));
        let shown = if detailed { f.evidence.len() } else { 2 };
        for e in f.evidence.iter().take(shown) {
            out.push_str(&format!("     • {e}\n"));
        }
        if f.evidence.len() > shown {
            out.push_str(&format!(
                "     {}\n",
                p.dim(&format!(
                    "(+{} more, see -o json)",
                    f.evidence.len() - shown
                ))
            ));
        }
    }
    if detailed && !f.confirm.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Confirm")));
        steps(&f.confirm, false, p, out);
    }
    if !f.remediation.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Fix")));
        steps(&f.remediation, true, p, out);
    }
}

fn steps(list: &[Step], numbered: bool, p: &Paint, out: &mut String) {
    let mut n = 0;
    for s in list {
        let warn = if s.needs_confirmation {
            format!(
                " {}",
                p.yellow("[only after confirming the above: can do harm if wrong]")
            )
        } else {
            String::new()
        };
        // Alternatives for one OS family each sit under the step they belong to.
        if s.os_family.is_some() {
            out.push_str(&format!("          - {}{warn}\n", s.text));
            if let Some(c) = &s.command {
                out.push_str(&format!("            {}\n", p.cmd(&format!("$ {c}"))));
            }
            continue;
        }
        n += 1;
        let bullet = if numbered {
            format!("{n})")
        } else {
            "•".to_string()
        };
        out.push_str(&format!("     {bullet} {}{warn}\n", s.text));
        if let Some(c) = &s.command {
            out.push_str(&format!("        {}\n", p.cmd(&format!("$ {c}"))));
        }
    }
}

/// Wrap a paragraph at `width`, indenting each line.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + w.len() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}
