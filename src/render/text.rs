//! The readable report. First line: the verdict. Then the pod and node, a ranked table, and per
//! cause its explanation, evidence, how to confirm it and what to run. Plain when not coloured.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, ContentArrangement, Table};
use owo_colors::OwoColorize;

use crate::model::report::{ActsAt, Finding, Report, Status, Step, StepKind};

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
    fn magenta(&self, s: &str) -> String {
        if self.on {
            s.magenta().bold().to_string()
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
    /// Style each line of a block on its own (escapes never span a line break).
    fn each_line(&self, block: &str, f: impl Fn(&str) -> String) -> String {
        block.lines().map(|l| f(l) + "\n").collect()
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

/// How a text report is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    /// `-v`: also the reasoning lines (which filesystem family, from where).
    pub verbose: bool,
    /// Wrap prose at this many columns (the terminal's width, or 100).
    pub width: usize,
}

impl Style {
    pub fn plain() -> Style {
        Style {
            color: false,
            verbose: false,
            width: 100,
        }
    }
}

pub fn report(r: &Report, style: Style) -> String {
    let p = Paint { on: style.color };
    let w = style.width.clamp(60, 200);
    let mut out = String::new();
    let mark = match r.status {
        Status::Ok => p.green("OK"),
        Status::Stuck => p.red("STUCK"),
        Status::Inconclusive => p.yellow("INCONCLUSIVE"),
        Status::Partial => p.yellow("PARTIAL"),
    };
    out.push_str(&format!("{mark} {}\n", p.bold(&r.verdict)));
    // What could not be read comes first: everything below is built without it.
    if !r.denied.is_empty() {
        out.push_str(&format!(
            "  {}\n",
            p.yellow("Not allowed to read (the diagnosis below is built without these):")
        ));
        for d in &r.denied {
            out.push_str(&format!("    • {d}\n"));
        }
        out.push_str(&wrap(
            "The ClusterRole volmnt-reader in deploy/rbac.yaml grants every read volmnt makes; bind it to this user (kubectl create clusterrolebinding volmnt-reader --clusterrole volmnt-reader --user NAME).",
            w - 4,
            "    ",
        ));
    }
    header(r, &p, w, style.verbose, &mut out);
    for b in &r.blocks {
        out.push_str(&format!("  {} {b}\n", p.dim(&format!("{:<8}", "Blocks"))));
    }
    if r.findings.len() > 1 {
        out.push('\n');
        out.push_str(&ranking_table(&r.findings, w));
        out.push('\n');
        // The differential: the check that settles each candidate still standing, cheapest
        // first, unless the evidence already settled the first one.
        if r.findings[0].settled_by.is_none() {
            let mut checks: Vec<(&str, &Step)> = r
                .findings
                .iter()
                .filter_map(|f| f.first_step().map(|s| (f.cause.as_str(), s)))
                .collect();
            checks.sort_by_key(|(_, s)| s.cost());
            let mut seen = std::collections::HashSet::new();
            checks.retain(|(_, s)| seen.insert(s.command.clone()));
            if checks.len() > 1 {
                out.push_str(&format!(
                    "{}\n",
                    p.bold("To tell them apart (cheapest first)")
                ));
                for (cause, s) in checks {
                    out.push_str(&bullet(&format!("{cause}: {}", s.text), w, "  • ", "    "));
                    if let Some(c) = &s.command {
                        out.push_str(&format!("    {}\n", p.cmd(&format!("$ {c}"))));
                    }
                }
            }
        }
    }
    // A step several findings share (restarting the pod, a lookup) is printed once.
    let mut shown = std::collections::HashSet::new();
    let mut suspect_first: std::collections::HashMap<String, usize> = Default::default();
    for (i, f) in r.findings.iter().enumerate() {
        out.push('\n');
        // A suspect gets one paragraph: its check is in the list above, and why it is a
        // suspect is said once for those that share it.
        let detailed = i < DETAILED && f.suspect.is_none();
        let mut f = std::borrow::Cow::Borrowed(f);
        if let Some(why) = f.suspect.clone() {
            match suspect_first.get(&why) {
                Some(n) => {
                    let line = format!("a suspect, for the reason given under {n}.");
                    let g = f.to_mut();
                    for e in g.evidence.iter_mut().filter(|e| e.ends_with(why.as_str())) {
                        *e = line.clone();
                    }
                }
                None => {
                    suspect_first.insert(why, i + 1);
                }
            }
        }
        finding(i + 1, &f, detailed, &p, style, w, &mut shown, &mut out);
    }
    if !r.ruled_out.is_empty() {
        if style.verbose {
            out.push_str(&format!("\n{}\n", p.bold("Ruled out")));
            for x in &r.ruled_out {
                out.push_str(&bullet(
                    &format!("{} [{}], because {}", x.title, x.cause, x.because),
                    w,
                    "  • ",
                    "    ",
                ));
            }
        } else {
            let ids: Vec<&str> = r.ruled_out.iter().map(|x| x.cause.as_str()).collect();
            out.push_str(&p.dim(&format!(
                "\nRuled out by the evidence: {} (-v says why)\n",
                ids.join(", ")
            )));
        }
    }
    if !r.unrecognised.is_empty() {
        out.push_str(&format!(
            "\n{}\n",
            p.bold("Other failure messages (no rule matched; shown so nothing is hidden)")
        ));
        for u in &r.unrecognised {
            out.push_str(&bullet(u, w, "  • ", "    "));
        }
    }
    // The one-line footers (what was not gathered, what was read) share one blank line.
    let mut footer_started = false;
    if !r.unavailable.is_empty() {
        // What the diagnosis is built without: one line, the reasons with -v.
        if style.verbose {
            out.push_str(&format!("\n{}\n", p.bold("Not gathered")));
            for u in &r.unavailable {
                out.push_str(&bullet(u, w, "  • ", "    "));
            }
        } else {
            let what: Vec<&str> = r
                .unavailable
                .iter()
                .map(|u| u.split_once(": ").map_or(u.as_str(), |(w, _)| w))
                .collect();
            out.push('\n');
            footer_started = true;
            out.push_str(&p.each_line(
                &bullet(
                    &format!("Not gathered (-v says why): {}", what.join("; ")),
                    w,
                    "",
                    "  ",
                ),
                |l| p.yellow(l),
            ));
        }
    }
    if !r.notes.is_empty() {
        if style.verbose {
            out.push_str(&format!("\n{}\n", p.bold("Notes")));
            for n in &r.notes {
                out.push_str(&bullet(n, w, "  • ", "    "));
            }
        } else {
            if !footer_started {
                out.push('\n');
                footer_started = true;
            }
            for n in &r.notes {
                out.push_str(&bullet(&format!("Note: {n}"), w, "", "  "));
            }
        }
    }
    if !r.inputs.is_empty() {
        // What was read, one paragraph (one line per input with -v).
        if style.verbose {
            out.push_str(&format!("\n{}\n", p.dim("Read")));
            for i in &r.inputs {
                out.push_str(&p.each_line(&bullet(i, w, "  ", "    "), |l| p.dim(l)));
            }
        } else {
            // Where each input came from; what it was read as is in -v.
            let mut labels: Vec<&str> = Vec::new();
            for i in &r.inputs {
                let l = i.split_once(": ").map_or(i.as_str(), |(l, _)| l);
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
            if !footer_started {
                out.push('\n');
            }
            let line = format!("Read: {} (-v: what each was read as)", labels.join(", "));
            out.push_str(&p.each_line(&bullet(&line, w, "", "  "), |l| p.dim(l)));
        }
    }
    out
}

fn header(r: &Report, p: &Paint, w: usize, verbose: bool, out: &mut String) {
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
        if let Some(t) = &s.stuck_for {
            v.push_str(&format!("  waiting for {t}"));
        }
        lines.push(("Pod".into(), v));
    }
    // The owner is in the steps that need it (who recreates the pod); -v shows it here too.
    if let Some(c) = s.controller.as_ref().filter(|_| verbose) {
        lines.push(("Owner".into(), c.clone()));
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
        let first = format!("  {} ", p.dim(&format!("{k:<8}")));
        out.push_str(&bullet(&v, w, &first, "           "));
    }
}

fn ranking_table(findings: &[Finding], width: usize) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width.min(100) as u16)
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

#[allow(clippy::too_many_arguments)]
fn finding(
    n: usize,
    f: &Finding,
    detailed: bool,
    p: &Paint,
    style: Style,
    w: usize,
    shown: &mut std::collections::HashSet<(String, Option<String>)>,
    out: &mut String,
) {
    let mark = format!("{n}. ");
    let plain = format!("{}  [{} · {:.0}%]", f.title, f.cause, f.confidence * 100.0);
    if mark.chars().count() + plain.chars().count() <= w {
        out.push_str(&format!(
            "{} {}  {}\n",
            p.bold(&format!("{n}.")),
            p.bold(&f.title),
            p.dim(&format!("[{} · {:.0}%]", f.cause, f.confidence * 100.0))
        ));
    } else {
        let rest = " ".repeat(mark.len());
        out.push_str(&p.each_line(&bullet(&plain, w, &mark, &rest), |l| p.bold(l)));
    }
    out.push_str(&wrap(&f.summary, w - 3, "   "));
    if !f.consequences.is_empty() {
        out.push_str(&wrap(
            &format!(
                "It also explains: {} (folded here, not a separate cause)",
                f.consequences.join(", ")
            ),
            w - 3,
            "   ",
        ));
    }
    if !f.evidence.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Evidence")));
        // Four lines of evidence make the case; the rest are in -v and -o json.
        let shown = match (detailed, style.verbose) {
            (_, true) => f.evidence.len(),
            (true, false) => 3,
            (false, false) => 2,
        };
        for (i, e) in f.evidence.iter().take(shown).enumerate() {
            // A quote longer than three lines is cut here; -v and -o json keep it whole.
            let e = if style.verbose || e.chars().count() <= 3 * (w - 7) {
                e.clone()
            } else {
                let cut: String = e.chars().take(3 * (w - 7) - 12).collect();
                format!("{cut}…\"")
            };
            out.push_str(&bullet(&e, w, "     • ", "       "));
            // -v: which code printed the quoted message, one line under it.
            let by = f
                .evidence_detail
                .get(i)
                .map(|d| printed_by_line(&d.printed_by))
                .unwrap_or_default();
            if style.verbose && !by.is_empty() {
                out.push_str(&p.each_line(&bullet(&by, w, "       ", "         "), |l| p.dim(l)));
            }
        }
        if f.evidence.len() > shown {
            out.push_str(&format!(
                "     {}\n",
                p.dim(&format!(
                    "(+{} more: -v or -o json)",
                    f.evidence.len() - shown
                ))
            ));
        }
    }
    if style.verbose && !f.reasoning.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Reasoning")));
        for r in &f.reasoning {
            out.push_str(&bullet(r, w, "     • ", "       "));
        }
    }
    if detailed && !f.confirm.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Confirm")));
        steps(&f.confirm, false, p, w, shown, out);
    }
    // A suspect's fix waits for its check (in "To tell them apart"); -o json has it.
    if !f.remediation.is_empty() && f.suspect.is_none() {
        out.push_str(&format!("   {}\n", p.bold("Fix")));
        steps(&f.remediation, true, p, w, shown, out);
    }
    if detailed && !f.withheld.is_empty() {
        out.push_str(&format!("   {}\n", p.bold("Not offered")));
        for s in &f.withheld {
            out.push_str(&bullet(
                &format!("{}: not offered because {}", s.text, s.reason),
                w,
                "     • ",
                "       ",
            ));
        }
    }
}

/// `printed by: kubelet v1.36.2 pkg/…/operation_generator.go:483 → grpc-go … → mount.nfs …`:
/// the format strings of a quoted message, outermost first; format strings that match the same
/// span (the same text in several programs or lines) are joined with ` / `. Empty when none is known.
pub fn printed_by_line(by: &[crate::model::report::PrintedBy]) -> String {
    if by.is_empty() {
        return String::new();
    }
    let mut line = String::from("printed by: ");
    for (i, b) in by.iter().enumerate() {
        if i > 0 {
            line.push_str(if by[i - 1].layer_index == b.layer_index {
                " / "
            } else {
                " → "
            });
        }
        line.push_str(&format!("{} {} {}", b.program, b.version, b.at));
    }
    line
}

fn steps(
    list: &[Step],
    numbered: bool,
    p: &Paint,
    w: usize,
    shown: &mut std::collections::HashSet<(String, Option<String>)>,
    out: &mut String,
) {
    let mut n = 0;
    let mut repeated = 0;
    for s in list {
        // The same command is the same step, whatever its text says.
        let key = match &s.command {
            Some(c) => (String::new(), Some(c.clone())),
            None => (s.text.clone(), None),
        };
        if !shown.insert(key) {
            repeated += 1;
            continue;
        }
        let tag = match s.kind {
            StepKind::Destructive => format!(
                " {}",
                p.red(&format!(
                    "[DESTRUCTIVE: {}]",
                    s.destroys.as_deref().unwrap_or("can destroy data")
                ))
            ),
            StepKind::Backup => format!(" {}", p.green("[backup]")),
            _ if s.needs_confirmation => format!(
                " {}",
                p.yellow("[only after confirming the above: can do harm if wrong]")
            ),
            _ => String::new(),
        };
        let at = where_tag(s, p);
        // Alternatives for one OS family each sit under the step they belong to.
        if s.os_family.is_some() {
            out.push_str(&bullet(
                &format!("{}{tag}", s.text),
                w,
                "          - ",
                "            ",
            ));
            if let Some(c) = &s.command {
                out.push_str(&format!("            {}\n", p.cmd(&format!("$ {c}"))));
            }
            continue;
        }
        n += 1;
        let bullet_mark = if numbered {
            format!("     {n}) ")
        } else {
            "     • ".to_string()
        };
        out.push_str(&bullet(
            &format!("{at} {}{tag}", s.text),
            w,
            &bullet_mark,
            "        ",
        ));
        // Commands are never wrapped: each `$` line is pasted as is.
        if let Some(c) = &s.command {
            out.push_str(&format!("        {}\n", p.cmd(&format!("$ {c}"))));
        }
    }
    if repeated > 0 {
        out.push_str(&format!(
            "     {}\n",
            p.dim(&format!("(+{repeated} step(s) as above)"))
        ));
    }
}

/// Who acts where, before each step: on the pod's node, in the cluster (the Kubernetes API), or
/// on the storage system itself (the array, the NFS server, Ceph, the cloud's API), which is
/// often another team's and is marked to stand out.
fn where_tag(s: &Step, p: &Paint) -> String {
    match s.acts_at {
        ActsAt::Node => p.dim("[node]"),
        ActsAt::Cluster => p.dim("[cluster]"),
        ActsAt::Storage => p.magenta("[storage]"),
    }
}

/// One bulleted paragraph: the first line starts with `first`, the rest with `rest`.
fn bullet(text: &str, width: usize, first: &str, rest: &str) -> String {
    let body = wrap(text, width.saturating_sub(rest.len()).max(20), rest);
    match body.strip_prefix(rest) {
        Some(b) => format!("{first}{b}"),
        None => body,
    }
}

/// Wrap a paragraph at `width`, indenting each line. A word longer than the width (a path, a
/// quoted command) stays whole.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}
