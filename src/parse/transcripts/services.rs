//! Services and kernel settings: `systemctl status|is-active` / `service X status` (systemd) and
//! `sysctl` (procps) or `/proc/sys/...`.

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
