//! `node check` as text (a verdict line, then each node) and as JUnit (a suite per node, a case
//! per requirement). Prints what `diagnose::node_check` decided; decides nothing.

use std::time::Duration;

use super::junit;
use crate::model::node::{human_duration, NodeCheck, Requirement, Severity};

fn req_list(r: &[Requirement]) -> String {
    r.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
}

fn paint(s: &str, color: bool, code: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

pub fn text(doc: &NodeCheck, color: bool) -> String {
    let mut out = String::new();
    let s = &doc.summary;
    let head = match doc.status {
        "pass" if doc.required.is_empty() => {
            format!("{} {} node(s) checked", paint("OK", color, "32"), s.checked)
        }
        "pass" => format!(
            "{} every node ({}) has {}",
            paint("PASS", color, "32"),
            s.checked,
            req_list(&doc.required)
        ),
        "fail" => format!(
            "{} {} of {} node(s) cannot mount what is required ({}){}",
            paint("FAIL", color, "31"),
            s.failed,
            s.checked,
            req_list(&doc.required),
            if s.unreachable > 0 {
                format!("; {} could not be probed", s.unreachable)
            } else {
                String::new()
            }
        ),
        "problem" => format!(
            "{} {} of {} node(s) have errors in their mount tables{}",
            paint("PROBLEM", color, "31"),
            s.problems,
            s.checked,
            if doc.required.is_empty() {
                String::new()
            } else {
                format!(" (every node has {})", req_list(&doc.required))
            }
        ),
        _ => format!(
            "{} {} of {} node(s) could not be probed",
            paint("UNREACHABLE", color, "33"),
            s.unreachable,
            s.checked
        ),
    };
    out.push_str(&format!(
        "{head} (via {}, {})\n",
        doc.transport.name(),
        human_duration(Duration::from_millis(doc.elapsed_ms))
    ));
    for n in &doc.nodes {
        out.push('\n');
        let took = human_duration(Duration::from_millis(n.elapsed_ms));
        let Some(r) = &n.report else {
            out.push_str(&format!(
                "{}  {}  [{took}]\n  {}\n",
                n.name(),
                paint("UNREACHABLE", color, "33"),
                n.error.as_deref().unwrap_or("")
            ));
            continue;
        };
        let status = match n.status {
            "pass" if doc.required.is_empty() => paint("checked", color, "32"),
            "pass" => paint("PASS", color, "32"),
            "problem" => paint("PROBLEM", color, "31"),
            _ => paint("FAIL", color, "31"),
        };
        let about: Vec<String> = [
            r.os.clone(),
            r.kernel.clone().map(|k| format!("kernel {k}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        out.push_str(&format!(
            "{}  {status}  {}[{took}]\n",
            n.name(),
            if about.is_empty() {
                String::new()
            } else {
                format!("{}  ", about.join(", "))
            }
        ));
        for q in &r.requirements {
            let mark = if q.ok {
                paint("ok", color, "32")
            } else {
                paint("MISSING", color, "31")
            };
            out.push_str(&format!(
                "  require {}: {mark}  {}\n",
                q.requirement, q.detail
            ));
            let fix = q
                .install
                .as_ref()
                .and_then(|i| i.command.as_deref().or(i.advice.as_deref()));
            if let Some(fix) = fix.filter(|f| !q.detail.contains(*f)) {
                out.push_str(&format!("      fix: {fix}\n"));
            }
        }
        let can: Vec<&str> = r
            .capabilities
            .iter()
            .filter(|c| c.ok)
            .map(|c| c.volume.as_str())
            .collect();
        out.push_str(&format!(
            "  can mount: {}\n",
            if can.is_empty() {
                "-".to_string()
            } else {
                can.join(", ")
            },
        ));
        // Each type it cannot mount, grouped by why: a missing helper (a package installs it)
        // is told apart from a filesystem the kernel lacks or modules it cannot load.
        let mut why: Vec<(String, Vec<&str>)> = Vec::new();
        for c in r.capabilities.iter().filter(|c| !c.ok) {
            let w = if c.why_not.is_empty() {
                c.reason.clone()
            } else {
                c.why_not.join("; ")
            };
            match why.iter_mut().find(|(x, _)| *x == w) {
                Some((_, v)) => v.push(c.volume.as_str()),
                None => why.push((w, vec![c.volume.as_str()])),
            }
        }
        for (w, types) in &why {
            out.push_str(&format!("  cannot mount {}: {w}\n", types.join(", ")));
        }
        for i in &r.issues {
            let sev = match i.severity {
                Severity::Error => paint("error", color, "31"),
                Severity::Warning => paint("warning", color, "33"),
            };
            out.push_str(&format!("  {sev}: {}\n", i.detail));
            if let Some(fix) = &i.fix {
                out.push_str(&format!("      fix: {fix}\n"));
            }
        }
        for e in &r.probe_errors {
            out.push_str(&format!("  probe: {e}\n"));
        }
        for note in r.notes.iter().chain(&n.notes) {
            out.push_str(&format!("  note: {note}\n"));
        }
        if n.labelled {
            out.push_str(&format!(
                "  labelled: {} labels volmnt.io/mount.*\n",
                n.labels.len()
            ));
        }
    }
    out
}

/// `-o junit`: a suite per node; a case per requirement (or one `probe` case when nothing is
/// required). A node not reached gives an `<error>` in each of its cases.
pub fn junit_suites(doc: &NodeCheck) -> Vec<junit::Suite> {
    doc.nodes
        .iter()
        .map(|n| {
            let name = n.node.clone().unwrap_or_else(|| n.target.clone());
            let classname = format!("volmnt.node-check.{name}");
            let time = n.elapsed_ms as f64 / 1000.0;
            let case = |case: &str, outcome: junit::Outcome| junit::TestCase {
                classname: classname.clone(),
                name: case.to_string(),
                time,
                outcome,
                system_out: None,
            };
            let cases = match &n.report {
                None => {
                    let err = n.error.clone().unwrap_or_default();
                    let names: Vec<&str> = if doc.required.is_empty() {
                        vec!["probe"]
                    } else {
                        doc.required.iter().map(|r| r.as_str()).collect()
                    };
                    names
                        .into_iter()
                        .map(|r| {
                            case(
                                r,
                                junit::Outcome::Error {
                                    message: if err.starts_with("not checked") {
                                        format!("{name} was not checked")
                                    } else {
                                        format!("{name} could not be probed")
                                    },
                                    text: err.clone(),
                                },
                            )
                        })
                        .collect()
                }
                Some(r) if r.requirements.is_empty() => {
                    vec![case("probe", junit::Outcome::Passed)]
                }
                Some(r) => r
                    .requirements
                    .iter()
                    .map(|q| {
                        let outcome = if q.ok {
                            junit::Outcome::Passed
                        } else {
                            // What the node lacks decides the fix: a kernel first, then
                            // the helper's package.
                            let fix = q
                                .fix
                                .clone()
                                .map(|f| format!("\nfix: {f}"))
                                .unwrap_or_default();
                            junit::Outcome::Failed {
                                message: format!("{name} cannot mount {}", q.requirement),
                                text: format!("{}{fix}", q.detail),
                            }
                        };
                        case(q.requirement.as_str(), outcome)
                    })
                    .collect(),
            };
            let mut properties = vec![
                ("transport".to_string(), doc.transport.name().to_string()),
                ("target".to_string(), n.target.clone()),
            ];
            if let Some(os) = n.report.as_ref().and_then(|r| r.os.clone()) {
                properties.push(("os".into(), os));
            }
            junit::Suite {
                name,
                time,
                cases,
                properties,
            }
        })
        .collect()
}
