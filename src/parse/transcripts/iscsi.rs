//! iSCSI: the sessions `iscsiadm -m session` lists and the initiator name file (open-iscsi).

use std::sync::LazyLock;

use regex::Regex;

use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::{IscsiInfo, NodeFacts};

static ISCSI_SESSION: LazyLock<Regex> = LazyLock::new(|| {
    // open-iscsi usr/session_info.c session_info_print_flat: `%s: [%u] %s:%d,%d %s (%s)`, the
    // address in brackets when it is IPv6 (the README's older example has no colon after the driver).
    Regex::new(
        r"^(\S+?):? \[(\d+)\] (\[[^\]]+\]|[^\s\[\]]+?):(\d+),(-?\d+) (\S+)(?: \((\S+)\))?\s*$",
    )
    .expect("static regex")
});

/// `iscsiadm -m session`: (portal `addr:port`, target IQN) per session; `Some(vec![])` for
/// "iscsiadm: No active sessions." (open-iscsi usr/iscsiadm.c).
pub fn parse_iscsi_sessions(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut seen = false;
    for l in text.lines().map(str::trim) {
        if l.contains("No active sessions") {
            seen = true;
        }
        if let Some(c) = ISCSI_SESSION.captures(l) {
            seen = true;
            out.push((format!("{}:{}", &c[3], &c[4]), c[6].to_string()));
        }
    }
    seen.then_some(out)
}

/// /etc/iscsi/initiatorname.iscsi: `InitiatorName=iqn...` (`Some("")` when the file has no
/// name); `Err` when `cat` said the file does not exist.
pub fn parse_initiatorname(text: &str) -> Result<String, String> {
    for l in text.lines().map(str::trim) {
        if let Some(v) = l.strip_prefix("InitiatorName=") {
            return Ok(v.trim().to_string());
        }
        if l.contains("No such file or directory") {
            return Err(l.to_string());
        }
    }
    Ok(String::new())
}

/// `iscsiadm -m session`.
pub const SESSIONS: Reader = Reader {
    kind: Kind::Iscsi,
    label: "iscsiadm -m session",
    doc: "`iscsiadm -m session`: each session's portal and target IQN (none: `No active \
          sessions.`)",
    samples: &["iscsiadm-session-readme.txt"],
    recognise: |c| c.prog == "iscsiadm" && c.line.contains("session"),
    sniff: Some(sessions_sniff),
    read: sessions_read,
};

fn sessions_sniff(s: &Shape) -> bool {
    s.most(s.count(|l| ISCSI_SESSION.is_match(l))) || s.first == "iscsiadm: No active sessions."
}

fn sessions_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let sessions = parse_iscsi_sessions(p.text)?;
    let n = sessions.len();
    let i = facts.iscsi.get_or_insert_with(IscsiInfo::default);
    i.sessions.extend(sessions);
    added(format!("{n} iSCSI session(s)"), &["iscsi"])
}

/// /etc/iscsi/initiatorname.iscsi.
pub const INITIATOR_NAME: Reader = Reader {
    kind: Kind::InitiatorName,
    label: "initiatorname.iscsi",
    doc: "`/etc/iscsi/initiatorname.iscsi`: the initiator's name, empty, or the file missing",
    samples: &[],
    recognise: |c| c.reads(|p, _| p.ends_with("iscsi/initiatorname.iscsi")),
    sniff: Some(initiator_sniff),
    read: initiator_read,
};

fn initiator_sniff(s: &Shape) -> bool {
    s.first.starts_with("InitiatorName=") || (s.n() == 1 && s.first.starts_with("## DO NOT EDIT"))
}

fn initiator_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let r = parse_initiatorname(p.text);
    let i = facts.iscsi.get_or_insert_with(IscsiInfo::default);
    let said = match r {
        Ok(name) => {
            i.initiator_file_present = Some(true);
            let s = if name.is_empty() {
                "initiator name empty".to_string()
            } else {
                format!("initiator {name}")
            };
            i.initiator_name = Some(name);
            s
        }
        Err(e) => {
            i.initiator_file_present = Some(false);
            format!("no initiator name file ({e})")
        }
    };
    added(said, &["iscsi"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn iscsi_sessions_and_initiator() {
        let f = facts_of(fixture!("iscsiadm-session-readme.txt"));
        let i = f.iscsi.unwrap();
        assert_eq!(i.sessions.len(), 2);
        assert_eq!(
            i.sessions[0],
            (
                "10.15.84.19:3260".into(),
                "iqn.1992-08.com.netapp:sn.33615311".into()
            )
        );
        // today's layout (open-iscsi usr/session_info.c), IPv6 in brackets
        let s = parse_iscsi_sessions("tcp: [21] 127.0.0.1:3260,1 iqn.2009-10.com.redhat:storage-1 (non-flash)\ntcp: [2] [fe80::1]:3260,1 iqn.x:y (non-flash)\n").unwrap();
        assert_eq!(s[1].0, "[fe80::1]:3260");
        assert_eq!(
            parse_iscsi_sessions("iscsiadm: No active sessions.\n"),
            Some(vec![])
        );
        assert_eq!(
            parse_initiatorname(
                "## DO NOT EDIT\nInitiatorName=iqn.1993-08.org.debian:01:5ac3b2f4\n"
            ),
            Ok("iqn.1993-08.org.debian:01:5ac3b2f4".into())
        );
        assert!(parse_initiatorname(
            "cat: /etc/iscsi/initiatorname.iscsi: No such file or directory\n"
        )
        .is_err());
    }
}
