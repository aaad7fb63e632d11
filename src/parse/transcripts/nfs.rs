//! An NFS server asked from the node: `rpcinfo -p|-s HOST` (rpcbind) and `showmount -e HOST`
//! (nfs-utils): whether it answers, its NFS versions and exports, or the error.

use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::{NfsServerAnswer, NodeFacts};

/// `rpcinfo -p HOST` (`program vers proto port service`) or `rpcinfo -s HOST` (`program
/// version(s) netid(s) service owner`), from rpcbind's rpcinfo: the NFS versions the server
/// registered (program 100003), or the error (`rpcinfo: can't contact portmapper: RPC: Remote
/// system error - Connection refused`).
pub fn parse_rpcinfo(text: &str, server: &str) -> NfsServerAnswer {
    let mut a = NfsServerAnswer {
        server: server.to_string(),
        ..NfsServerAnswer::default()
    };
    let mut table = false;
    for l in text.lines().map(str::trim) {
        if l.starts_with("program vers") || l.starts_with("program version") {
            table = true;
            a.reachable = Some(true);
            continue;
        }
        if l.starts_with("rpcinfo:") || l.contains("RPC: ") {
            a.reachable = Some(false);
            a.error = Some(l.to_string());
            continue;
        }
        let w: Vec<&str> = l.split_whitespace().collect();
        if table && w.len() >= 2 && w[0] == "100003" {
            for v in w[1].split(',') {
                if v.chars().all(|c| c.is_ascii_digit()) && !a.versions.iter().any(|x| x == v) {
                    a.versions.push(v.to_string());
                }
            }
        }
    }
    a
}

/// `showmount -e HOST` (nfs-utils utils/showmount/showmount.c: `Export list for %s:` then
/// `%-*s clients`), or its error (`clnt_create: RPC: Program not registered`, `rpc mount
/// export: RPC: Unable to receive; errno = Connection refused`).
pub fn parse_showmount(text: &str, server: Option<&str>) -> NfsServerAnswer {
    let mut a = NfsServerAnswer {
        server: server.unwrap_or_default().to_string(),
        ..NfsServerAnswer::default()
    };
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(h) = l.strip_prefix("Export list for ") {
            a.server = h.trim_end_matches(':').to_string();
            a.reachable = Some(true);
            continue;
        }
        if l.starts_with("clnt_create:")
            || l.starts_with("rpc mount export:")
            || l.starts_with("showmount:")
            || l.contains("RPC: ")
        {
            a.reachable =
                Some(l.contains("Program not registered") || l.contains("Program unavailable"));
            a.error = Some(l.to_string());
            continue;
        }
        if a.reachable == Some(true) && l.starts_with('/') {
            let (path, clients) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            a.exports
                .push((path.to_string(), clients.trim().to_string()));
        }
    }
    a
}

/// `rpcinfo -p|-s HOST`.
pub const RPCINFO: Reader = Reader {
    kind: Kind::Rpcinfo,
    label: "rpcinfo",
    doc: "`rpcinfo -p HOST`, `rpcinfo -s HOST`: whether the server's rpcbind answers, and the NFS \
          versions it registered",
    samples: &["rpcinfo-p-ltp.txt", "rpcinfo-showmount-refused.txt"],
    recognise: |c| c.prog == "rpcinfo",
    sniff: Some(rpcinfo_sniff),
    read: rpcinfo_read,
};

fn rpcinfo_sniff(s: &Shape) -> bool {
    s.first.starts_with("program vers proto") || s.first.starts_with("program version(s)")
}

fn rpcinfo_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let server = server_asked(p);
    add_server(
        facts,
        parse_rpcinfo(p.text, server.as_deref().unwrap_or("localhost")),
    )
}

/// `showmount -e HOST`.
pub const SHOWMOUNT: Reader = Reader {
    kind: Kind::Showmount,
    label: "showmount -e",
    doc: "`showmount -e HOST`: whether the server's mountd answers, and its exports",
    samples: &["showmount-e.txt", "rpcinfo-showmount-refused.txt"],
    recognise: |c| c.prog == "showmount",
    sniff: Some(showmount_sniff),
    read: showmount_read,
};

fn showmount_sniff(s: &Shape) -> bool {
    s.first.starts_with("Export list for ") || s.first.starts_with("clnt_create: RPC:")
}

fn showmount_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let server = server_asked(p);
    add_server(facts, parse_showmount(p.text, server.as_deref()))
}

/// The server a command asked (its first name that is not an option).
fn server_asked(p: &Part) -> Option<String> {
    p.asked.iter().find(|a| !a.starts_with('-')).cloned()
}

/// A server's answer into the facts, joined to what an earlier answer of the same server said.
fn add_server(facts: &mut NodeFacts, a: NfsServerAnswer) -> Option<Outcome> {
    if a.reachable.is_none() && a.exports.is_empty() {
        return None;
    }
    let shown = format!(
        "NFS server {}: {}",
        a.server,
        match (a.reachable, &a.error) {
            (Some(true), _) if !a.versions.is_empty() =>
                format!("answers, NFS versions {}", a.versions.join(",")),
            (Some(true), _) if !a.exports.is_empty() => format!("{} export(s)", a.exports.len()),
            (Some(true), _) => "answers".into(),
            (_, Some(e)) => e.clone(),
            _ => "no answer".into(),
        }
    );
    match facts.nfs_servers.iter_mut().find(|s| s.server == a.server) {
        Some(s) => {
            if a.reachable.is_some() {
                s.reachable = a.reachable.or(s.reachable);
            }
            s.versions.extend(a.versions);
            s.exports.extend(a.exports);
            if a.error.is_some() {
                s.error = a.error;
            }
        }
        None => facts.nfs_servers.push(a),
    }
    added(shown, &["nfs_servers"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn nfs_servers_answer_or_not() {
        let f = facts_of(fixture!("rpcinfo-p-ltp.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(
            (s.server.as_str(), s.reachable, s.versions.clone()),
            (
                "10.0.0.2",
                Some(true),
                vec!["3".to_string(), "4".to_string()]
            )
        );
        let f = facts_of(fixture!("rpcinfo-showmount-refused.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(s.reachable, Some(false));
        assert!(
            s.error.as_deref().unwrap().contains("Unable to receive"),
            "{s:?}"
        );
        let f = facts_of(fixture!("showmount-e.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(s.reachable, Some(true));
        assert_eq!(s.exports, [("/data/nfs".to_string(), "*".to_string())]);
        let a = parse_rpcinfo("   program version(s) netid(s)                         service     owner\n    100000  2,3,4     local,udp,tcp,udp6,tcp6          portmapper  superuser\n    100003  3,4       udp6,tcp6,udp,tcp                nfs         superuser\n", "srv");
        assert_eq!(a.versions, ["3", "4"]);
    }
}
