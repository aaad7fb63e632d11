//! Talos Linux has no shell: what an operator pastes from a Talos node is `talosctl` output.
//! `talosctl -n NODE dmesg` prints each kernel line as `NODE: FACILITY: PRIORITY: [TIME]: MSG`
//! (siderolabs/talos cmd/talosctl/cmd/talos/dmesg.go; its logging guide shows `172.20.1.2:
//! kern:    info: [2021-11-10T10:09:37.662764956Z]: ...`), `talosctl version` names the
//! server's `Tag: vX.Y.Z`, `talosctl services` lists machined, apid and trustd. Any of them says
//! the node runs Talos, so its steps are given with talosctl, never with a shell.

use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::kernel_log::is_storage_kernel_line;
use super::reader::{added, Kind, Outcome, Part, Reader, Shape, MAX_KERNEL_LINES};
use crate::model::NodeFacts;

/// `NODE: kern:    info: [2024-05-01T10:00:00.123456789Z]: MSG`: the message captured.
static TALOS_DMESG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\S+: +[a-z0-9]+: +[a-z]+: \[\d{4}-\d\d-\d\dT[0-9:.]+Z\]: (.*)$")
        .expect("static regex")
});

/// `talosctl version`'s server part: `Tag:         v1.7.6`.
static TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*Tag:\s+(v\d+\.\d+\S*)\s*$").expect("static regex"));

/// `talosctl ...` output, which only a Talos node gives.
pub const READER: Reader = Reader {
    kind: Kind::Talos,
    label: "talosctl",
    doc:
        "`talosctl` output (`dmesg`, `version`, `services`, ...): the node runs Talos (its version \
          from `talosctl version`), and from `talosctl dmesg` the kernel's lines about storage",
    samples: &["talosctl-dmesg.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    c.prog == "talosctl"
}

fn sniff(s: &Shape) -> bool {
    s.most(s.count(|l| TALOS_DMESG.is_match(l.trim_end())))
        || (s.header().starts_with(&["NODE", "SERVICE", "STATE"])
            && s.lines.iter().any(|l| l.contains(" machined ")))
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let text = p.text;
    // The server's tag follows `Server:` (the client's comes first).
    let server = text.find("Server:").map(|i| &text[i..]).unwrap_or("");
    let version = server
        .lines()
        .find_map(|l| TAG.captures(l).map(|c| c[1].to_string()));
    let mut families: Vec<&'static str> = Vec::new();
    if facts
        .os
        .pretty_name
        .as_deref()
        .is_none_or(|n| !n.starts_with("Talos"))
        || version.is_some()
    {
        // os-release's PRETTY_NAME on Talos is "Talos (vX.Y.Z)" (pkg/machinery/version).
        facts.os.pretty_name = Some(match &version {
            Some(v) => format!("Talos ({v})"),
            None => "Talos".to_string(),
        });
        facts.os.id = Some("talos".into());
        families.push("os");
    }
    let mut n = 0;
    for l in text.lines() {
        let Some(c) = TALOS_DMESG.captures(l.trim_end()) else {
            continue;
        };
        let msg = c[1].to_string();
        if is_storage_kernel_line(&msg) && !facts.kernel_log.contains(&msg) {
            facts.kernel_log.push(msg);
            n += 1;
        }
    }
    if n > 0 {
        if facts.kernel_log.len() > MAX_KERNEL_LINES {
            let extra = facts.kernel_log.len() - MAX_KERNEL_LINES;
            facts.kernel_log.drain(..extra);
        }
        facts.log_sources.push(format!("kernel: {}", p.source));
        families.push("kernel_log");
    }
    if families.is_empty() {
        return None;
    }
    let os = facts.os.pretty_name.clone().unwrap_or_default();
    added(
        format!("{os} (talosctl), {n} kernel log line(s) about storage"),
        &families,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};
    use crate::parse::transcripts::{apply, sniff as sniff_any, Kind};

    #[test]
    fn talosctl_output_says_the_node_runs_talos() {
        let f = facts_of(fixture!("talosctl-dmesg.txt"));
        assert_eq!(f.os.pretty_name.as_deref(), Some("Talos"));
        assert!(
            f.kernel_log
                .iter()
                .any(|l| l.starts_with("XFS (sdb): Filesystem has duplicate UUID")),
            "{:?}",
            f.kernel_log
        );
        // `talosctl version` names the server's release.
        let mut f = NodeFacts::default();
        apply(
            Kind::Talos,
            Some("talosctl -n 10.5.0.2 version"),
            "Client:\n\tTag:         v1.8.0\nServer:\n\tNODE:        10.5.0.2\n\tTag:         v1.7.6\n",
            &mut f,
            "t",
        )
        .unwrap();
        assert_eq!(f.os.pretty_name.as_deref(), Some("Talos (v1.7.6)"));
        // Pasted without its prompt, talosctl dmesg is still known by its lines.
        assert_eq!(
            sniff_any("172.20.1.2: kern:    info: [2021-11-10T10:09:37.662764956Z]: XFS (sdb): Mounting V5 Filesystem\n"),
            Some(Kind::Talos)
        );
    }
}
