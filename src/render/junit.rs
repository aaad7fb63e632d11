//! `-o junit`: JUnit XML as CI systems read it (GitLab, Jenkins, GitHub test reporters,
//! Azure Pipelines): `<testsuites>` → `<testsuite>` → `<testcase>` with `<failure>`, `<error>` or
//! `<skipped>`. The element and attribute names are those of the de-facto schema Ant's JUnit
//! task wrote and every reader accepts (name, classname, time, tests, failures, errors, skipped).

use std::fmt::Write;

/// How one test case ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Passed,
    /// The check ran and what was required is missing.
    Failed {
        message: String,
        text: String,
    },
    /// The check could not run (node unreachable, probe failed).
    Error {
        message: String,
        text: String,
    },
    /// Not checked, on purpose.
    Skipped {
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    /// e.g. `volmnt.node-check.node1`
    pub classname: String,
    /// e.g. `nfs`
    pub name: String,
    /// Seconds.
    pub time: f64,
    pub outcome: Outcome,
    /// Shown by most readers under the case.
    pub system_out: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub name: String,
    /// Seconds.
    pub time: f64,
    pub cases: Vec<TestCase>,
    /// `<property name=.. value=..>` entries (transport, timestamp, ...).
    pub properties: Vec<(String, String)>,
}

/// Escape text for XML content and attribute values; characters XML 1.0 cannot carry at all
/// (most C0 controls) become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn counts(s: &Suite) -> (usize, usize, usize) {
    let mut f = 0;
    let mut e = 0;
    let mut k = 0;
    for c in &s.cases {
        match c.outcome {
            Outcome::Failed { .. } => f += 1,
            Outcome::Error { .. } => e += 1,
            Outcome::Skipped { .. } => k += 1,
            Outcome::Passed => {}
        }
    }
    (f, e, k)
}

/// The whole document.
pub fn render(suites: &[Suite]) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (mut tf, mut te, mut ts, mut tt) = (0, 0, 0, 0usize);
    let mut time = 0.0;
    for s in suites {
        let (f, e, k) = counts(s);
        tf += f;
        te += e;
        ts += k;
        tt += s.cases.len();
        time += s.time;
    }
    let _ = writeln!(
        x,
        "<testsuites name=\"volmnt node check\" tests=\"{tt}\" failures=\"{tf}\" errors=\"{te}\" skipped=\"{ts}\" time=\"{time:.3}\">"
    );
    for s in suites {
        let (f, e, k) = counts(s);
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{k}\" time=\"{:.3}\">",
            escape(&s.name),
            s.cases.len(),
            s.time
        );
        if !s.properties.is_empty() {
            x.push_str("    <properties>\n");
            for (n, v) in &s.properties {
                let _ = writeln!(
                    x,
                    "      <property name=\"{}\" value=\"{}\"/>",
                    escape(n),
                    escape(v)
                );
            }
            x.push_str("    </properties>\n");
        }
        for c in &s.cases {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                escape(&c.classname),
                escape(&c.name),
                c.time
            );
            if c.outcome == Outcome::Passed && c.system_out.is_none() {
                x.push_str("/>\n");
                continue;
            }
            x.push_str(">\n");
            match &c.outcome {
                Outcome::Passed => {}
                Outcome::Failed { message, text } => {
                    let _ = writeln!(
                        x,
                        "      <failure message=\"{}\" type=\"requirement\">{}</failure>",
                        escape(message),
                        escape(text)
                    );
                }
                Outcome::Error { message, text } => {
                    let _ = writeln!(
                        x,
                        "      <error message=\"{}\" type=\"unreachable\">{}</error>",
                        escape(message),
                        escape(text)
                    );
                }
                Outcome::Skipped { message } => {
                    let _ = writeln!(x, "      <skipped message=\"{}\"/>", escape(message));
                }
            }
            if let Some(out) = &c.system_out {
                let _ = writeln!(x, "      <system-out>{}</system-out>", escape(out));
            }
            x.push_str("    </testcase>\n");
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_escapes() {
        let s = Suite {
            name: "node1".into(),
            time: 1.5,
            properties: vec![("transport".into(), "exec".into())],
            cases: vec![
                TestCase {
                    classname: "volmnt.node-check.node1".into(),
                    name: "nfs".into(),
                    time: 1.5,
                    outcome: Outcome::Passed,
                    system_out: None,
                },
                TestCase {
                    classname: "volmnt.node-check.node1".into(),
                    name: "rbd".into(),
                    time: 1.5,
                    outcome: Outcome::Failed {
                        message: "no <rbd> & \"modprobe\"".into(),
                        text: "bell\u{7}".into(),
                    },
                    system_out: None,
                },
            ],
        };
        let x = render(&[s]);
        assert!(
            x.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""),
            "{x}"
        );
        assert!(
            x.contains("message=\"no &lt;rbd&gt; &amp; &quot;modprobe&quot;\""),
            "{x}"
        );
        assert!(x.contains("bell\u{FFFD}"));
        assert!(x.contains(
            "<testcase classname=\"volmnt.node-check.node1\" name=\"nfs\" time=\"1.500\"/>"
        ));
        assert!(x.contains("<property name=\"transport\" value=\"exec\"/>"));
    }
}
