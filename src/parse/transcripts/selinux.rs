//! SELinux's mode: `getenforce`, `sestatus`, /etc/selinux/config.

use super::command::Command;
use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::NodeFacts;

/// `getenforce` (`Enforcing`/`Permissive`/`Disabled`), `sestatus` (`SELinux status: enabled`,
/// `Current mode: enforcing`), /etc/selinux/config (`SELINUX=enforcing`).
pub fn parse_selinux(text: &str) -> Option<(String, &'static str)> {
    let mut status_disabled = false;
    for l in text.lines().map(str::trim) {
        match l {
            "Enforcing" | "Permissive" | "Disabled" => {
                return Some((l.to_ascii_lowercase(), "getenforce"))
            }
            _ => {}
        }
        if let Some(v) = l.strip_prefix("Current mode:") {
            return Some((v.trim().to_ascii_lowercase(), "sestatus"));
        }
        if let Some(v) = l.strip_prefix("SELinux status:") {
            status_disabled = v.trim() == "disabled";
        }
        if let Some(v) = l.strip_prefix("SELINUX=") {
            return Some((v.trim().to_ascii_lowercase(), "config"));
        }
    }
    status_disabled.then(|| ("disabled".to_string(), "sestatus"))
}

/// `getenforce`, `sestatus`, /etc/selinux/config.
pub const READER: Reader = Reader {
    kind: Kind::Selinux,
    label: "SELinux mode",
    doc:
        "`getenforce`, `sestatus`, `/etc/selinux/config`: SELinux's mode, and which of them said it",
    samples: &["getenforce-sestatus.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    c.is(&["getenforce", "sestatus"])
        || c.reads(|p, _| {
            // A path that also names kubelet.service has always been read as the kubelet's
            // (its reader comes later in READERS, as the sniff order wants).
            p.ends_with("/etc/selinux/config") && !p.contains("kubelet.service")
        })
}

fn sniff(s: &Shape) -> bool {
    (s.n() == 1 && matches!(s.first, "Enforcing" | "Permissive" | "Disabled"))
        || s.first.starts_with("SELinux status:")
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (mode, src) = parse_selinux(p.text)?;
    facts.selinux = Some(mode.clone());
    facts.selinux_source = Some(src.to_string());
    added(format!("SELinux {mode}"), &["selinux"])
}

#[cfg(test)]
mod tests {
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn selinux_from_getenforce_and_sestatus() {
        let f = facts_of(fixture!("getenforce-sestatus.txt"));
        assert_eq!(f.selinux.as_deref(), Some("enforcing"));
        assert_eq!(f.selinux_source.as_deref(), Some("sestatus"));
    }
}
