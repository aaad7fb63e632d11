//! Services and kernel settings: `systemctl status|is-active` / `service X status` (systemd) and
//! `sysctl` (procps) or `/proc/sys/...`.

use super::command::Command;
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape};
use crate::model::{IscsiInfo, MultipathInfo, NodeFacts};

/// `systemctl status UNIT...` (systemd src/systemctl/systemctl-show.c: a `● UNIT - Description`
/// line, then `Active: active (running) since ...`; `Unit %s could not be found.`), `systemctl
/// is-active` (`active`/`inactive`/`failed` per unit) and `service X status`: unit → running.
pub fn parse_systemctl(text: &str, asked: &[String]) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut unit: Option<String> = None;
    let bare: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // `systemctl is-active a b`: one word per unit.
    if !asked.is_empty()
        && bare.len() == asked.len()
        && bare.iter().all(|l| {
            matches!(
                *l,
                "active" | "inactive" | "failed" | "activating" | "deactivating" | "unknown"
            )
        })
    {
        return asked
            .iter()
            .zip(bare)
            .map(|(u, s)| (unit_name(u), s == "active"))
            .collect();
    }
    for l in text.lines().map(str::trim) {
        if let Some(rest) = l
            .strip_prefix('●')
            .or_else(|| l.strip_prefix('○'))
            .or_else(|| l.strip_prefix('×'))
            .or_else(|| l.strip_prefix('*'))
        {
            unit = rest.split_whitespace().next().map(unit_name);
            continue;
        }
        if let Some(u) = l
            .strip_prefix("Unit ")
            .and_then(|r| r.strip_suffix(" could not be found."))
        {
            out.push((unit_name(u), false));
            continue;
        }
        if let Some(a) = l.strip_prefix("Active: ") {
            let u = unit.clone().or_else(|| asked.first().map(|a| unit_name(a)));
            if let Some(u) = u {
                out.push((u, a.starts_with("active")));
            }
        }
    }
    out
}

fn unit_name(u: &str) -> String {
    u.trim()
        .trim_end_matches(".service")
        .trim_end_matches(".socket")
        .to_string()
}

/// `sysctl KEY` (procps sysctl.c: `%s = %s`) or the bare value of `/proc/sys/...`.
pub fn parse_sysctl(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(" = ").or_else(|| l.split_once('='))?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .filter(|(k, _)| k.contains('.') && !k.contains(' '))
        .collect()
}

/// `systemctl status|is-active`, `service X status`.
pub const SYSTEMCTL: Reader = Reader {
    kind: Kind::Systemctl,
    label: "systemctl status",
    doc: "`systemctl status UNIT`, `systemctl is-active UNIT`, `service UNIT status`: whether \
          rpc-statd, rpcbind, iscsid, multipathd and the kubelet run; or systemd not running",
    samples: &[
        "systemctl-status-kubelet.txt",
        "systemctl-status-rpc-statd.txt",
    ],
    recognise: systemctl_recognise,
    sniff: Some(systemctl_sniff),
    read: systemctl_read,
};

fn systemctl_recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        "systemctl" => matches!(c.subcommand(), Some("status" | "is-active")),
        "service" => c.has("status"),
        _ => false,
    }
}

fn systemctl_sniff(s: &Shape) -> bool {
    s.lines
        .iter()
        .any(|l| l.trim_start().starts_with("Active: "))
        && s.lines
            .iter()
            .any(|l| l.trim_start().starts_with("Loaded: "))
}

fn systemctl_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let units = parse_systemctl(p.text, &p.asked);
    if units.is_empty() {
        if p.text.contains("System has not been booted with systemd") {
            facts.add_unavailable(format!(
                "services: {}: systemd is not running (no unit states)",
                p.source
            ));
            return noted("systemd not running".into(), &["services"]);
        }
        return None;
    }
    let mut said = Vec::new();
    for (u, running) in units {
        match u.as_str() {
            "rpc-statd" | "nfs-lock" | "rpc.statd" | "statd" => {
                facts.rpc_statd_running = Some(running)
            }
            "rpcbind" => facts.rpcbind_running = Some(running),
            "iscsid" => {
                facts
                    .iscsi
                    .get_or_insert_with(IscsiInfo::default)
                    .iscsid_running = Some(running)
            }
            "multipathd" => {
                facts
                    .multipath
                    .get_or_insert_with(MultipathInfo::default)
                    .running = Some(running)
            }
            "kubelet"
            | "k3s"
            | "k3s-agent"
            | "rke2-server"
            | "rke2-agent"
            | "snap.microk8s.daemon-kubelite"
            | "k0sworker" => facts.kubelet_running = Some(running),
            _ => {}
        }
        said.push(format!(
            "{u} {}",
            if running { "running" } else { "not running" }
        ));
    }
    added(said.join(", "), &["services"])
}

/// `sysctl kernel.dmesg_restrict`, `/proc/sys/kernel/dmesg_restrict`.
pub const SYSCTL: Reader = Reader {
    kind: Kind::Sysctl,
    label: "sysctl",
    doc: "`sysctl kernel.dmesg_restrict`, `/proc/sys/kernel/dmesg_restrict`: whether dmesg needs \
          CAP_SYSLOG",
    samples: &["sysctl-dmesg-restrict.txt"],
    recognise: |c| c.prog == "sysctl" || c.reads(|p, _| p == "/proc/sys/kernel/dmesg_restrict"),
    sniff: Some(sysctl_sniff),
    read: sysctl_read,
};

fn sysctl_sniff(s: &Shape) -> bool {
    s.first.starts_with("kernel.") && s.first.contains(" = ")
}

fn sysctl_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let mut kv = parse_sysctl(p.text);
    if kv.is_empty() {
        // `cat /proc/sys/kernel/dmesg_restrict`: the value alone.
        let v = p.text.trim();
        if (v == "0" || v == "1") && p.cmd.is_some_and(|c| c.contains("dmesg_restrict")) {
            kv.push(("kernel.dmesg_restrict".into(), v.into()));
        }
    }
    let v = kv.iter().find(|(k, _)| k == "kernel.dmesg_restrict")?;
    let restricted = v.1 != "0";
    facts.dmesg_restrict = Some(restricted);
    added(
        format!("kernel.dmesg_restrict = {}", v.1),
        &["dmesg_restrict"],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn services_and_sysctl() {
        let f = facts_of(fixture!("systemctl-status-kubelet.txt"));
        assert_eq!(f.kubelet_running, Some(true));
        let f = facts_of(fixture!("systemctl-status-rpc-statd.txt"));
        assert!(f.unavailable[0].contains("systemd is not running"));
        assert_eq!(parse_systemctl("● rpc-statd.service - NFS status monitor for NFSv2/3 locking.\n     Loaded: loaded (/lib/systemd/system/rpc-statd.service; static)\n     Active: inactive (dead)\n", &["rpc-statd".into()]), [("rpc-statd".to_string(), false)]);
        assert_eq!(
            parse_systemctl(
                "Unit iscsid.service could not be found.\n",
                &["iscsid".into()]
            ),
            [("iscsid".to_string(), false)]
        );
        assert_eq!(
            parse_systemctl("active\ninactive\n", &["rpcbind".into(), "iscsid".into()]),
            [("rpcbind".to_string(), true), ("iscsid".to_string(), false)]
        );
        let f = facts_of(fixture!("sysctl-dmesg-restrict.txt"));
        assert_eq!(f.dmesg_restrict, Some(true));
    }
}
