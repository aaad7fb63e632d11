//! The operating system: os-release(5) (`/etc/os-release`, `/usr/lib/os-release`), and the
//! one-line names of `/etc/redhat-release`, `hostnamectl`'s `Operating System:` and a Node's
//! `osImage` asked for by jsonpath.

use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::{NodeFacts, OsRelease};

static OS_RELEASE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Z][A-Z0-9_]*=\S").expect("static regex"));

/// Parse `/etc/os-release` (os-release(5): `KEY=value`, value optionally quoted).
pub fn parse_os_release(text: &str) -> OsRelease {
    let mut os = OsRelease::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = os_release_value(v.trim());
        let slot = match k.trim() {
            "ID" => &mut os.id,
            "ID_LIKE" => &mut os.id_like,
            "VERSION_ID" => &mut os.version_id,
            "PRETTY_NAME" => &mut os.pretty_name,
            "NAME" => &mut os.name,
            _ => continue,
        };
        if !v.is_empty() {
            *slot = Some(v);
        }
    }
    os
}

fn os_release_value(v: &str) -> String {
    let quoted = |q: char| v.len() >= 2 && v.starts_with(q) && v.ends_with(q);
    if quoted('\'') {
        return v[1..v.len() - 1].to_string();
    }
    if quoted('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    v.to_string()
}

/// os-release(5) and the one-line names of an OS.
pub const READER: Reader = Reader {
    kind: Kind::OsRelease,
    label: "os-release",
    doc:
        "`/etc/os-release` (or `/etc/redhat-release`), `hostnamectl`, or a Node's `osImage` asked \
          for by jsonpath: the OS's id, version and name",
    samples: &["os-release-debian12.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        "hostnamectl" => true,
        "kubectl" | "oc" => {
            c.has("get")
                && c.args.iter().any(|a| a.starts_with("node") || a == "no")
                && c.line.contains("osImage")
        }
        _ => c.reads(|p, name| name == "os-release" || p.ends_with("/etc/redhat-release")),
    }
}

fn sniff(s: &Shape) -> bool {
    let os_keys = s.count(|l| {
        l.starts_with("ID=")
            || l.starts_with("NAME=")
            || l.starts_with("PRETTY_NAME=")
            || l.starts_with("VERSION_ID=")
            || l.starts_with("ID_LIKE=")
    });
    os_keys >= 2
        && s.lines
            .iter()
            .all(|l| OS_RELEASE_LINE.is_match(l) || l.trim_start().starts_with('#'))
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let text = p.text;
    let os = parse_os_release(text);
    if os.id.is_some() || os.pretty_name.is_some() || os.name.is_some() {
        let shown = os
            .pretty_name
            .clone()
            .or(os.name.clone())
            .or(os.id.clone())
            .unwrap_or_default();
        facts.os = os;
        added(format!("OS {shown}"), &["os"])
    } else {
        // `/etc/redhat-release`, `hostnamectl`'s `Operating System:`, or a Node's osImage.
        let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        let name = line
            .strip_prefix("Operating System:")
            .map(str::trim)
            .or_else(|| {
                text.lines()
                    .find_map(|l| l.trim().strip_prefix("Operating System:"))
                    .map(str::trim)
            })
            .unwrap_or(line);
        if name.len() > 120 || name.contains('=') {
            return None;
        }
        facts.os.pretty_name = Some(name.to_string());
        added(format!("OS {name}"), &["os"])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture, parts};
    use crate::parse::transcripts::{sniff, Kind};

    #[test]
    fn os_release_of_debian_12() {
        let f = facts_of(fixture!("os-release-debian12.txt"));
        assert_eq!(f.os.id.as_deref(), Some("debian"));
        assert_eq!(
            f.os.pretty_name.as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        let body = parts(fixture!("os-release-debian12.txt")).remove(0).1;
        assert_eq!(sniff(&body), Some(Kind::OsRelease));
    }

    #[test]
    fn os_release_quoting() {
        let os = parse_os_release(
            "# c\nNAME='Alpine Linux'\nID=alpine\nPRETTY_NAME=\"a \\\"q\\\" b\"\nID_LIKE=\"rhel fedora\"\n",
        );
        assert_eq!(os.name.as_deref(), Some("Alpine Linux"));
        assert_eq!(os.pretty_name.as_deref(), Some("a \"q\" b"));
        assert_eq!(os.id_like.as_deref(), Some("rhel fedora"));
    }
}
