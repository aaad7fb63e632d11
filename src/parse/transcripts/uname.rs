//! The kernel release: `uname -r`, `uname -a` (coreutils src/uname.c) and `/proc/version`
//! (linux init/version.c).

use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::NodeFacts;

static KERNEL_RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    // `uname -r`: 3.10.0-957.el7.x86_64, 5.15.0-1019-aws, 6.18.44-fc-v669, 5.15.136-flatcar.
    Regex::new(r"^\d+\.\d+(?:\.\d+)?[-+_.][0-9A-Za-z._+-]*[A-Za-z][0-9A-Za-z._+-]*$")
        .expect("static regex")
});

static UNAME_A: LazyLock<Regex> = LazyLock::new(|| {
    // coreutils src/uname.c prints, for -a: kernel-name nodename kernel-release kernel-version
    // machine [processor] [hardware-platform] operating-system ("unknown" ones left out).
    Regex::new(r"^(Linux) (\S+) (\d+\.\d+\S*) (#.*?) (x86_64|aarch64|arm64|armv\d\w*|i[3-6]86|ppc64le|ppc64|s390x|riscv64|mips\w*|loongarch64)(?: .*)?$")
        .expect("static regex")
});

static PROC_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    // /proc/version (linux init/version.c): `Linux version RELEASE (builder) ...`.
    Regex::new(r"^Linux version (\S+) ").expect("static regex")
});

/// `uname -r`, `uname -a` or `/proc/version`: (kernel release, host name, machine).
pub fn parse_uname(text: &str) -> Option<(String, Option<String>, Option<String>)> {
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(c) = UNAME_A.captures(l) {
            return Some((
                c[3].to_string(),
                Some(c[2].to_string()),
                Some(c[5].to_string()),
            ));
        }
        if let Some(c) = PROC_VERSION.captures(l) {
            return Some((c[1].to_string(), None, None));
        }
        // `uname -r`: the release alone; `uname -rm` / `-nr`: a few words, one of them it.
        let ws: Vec<&str> = l.split_whitespace().collect();
        if ws.len() <= 3 {
            if let Some(r) = ws.iter().find(|w| KERNEL_RELEASE.is_match(w)) {
                return Some((r.to_string(), None, None));
            }
            // `uname -r` of a kernel without a suffix: 6.1.0
            if ws.len() == 1
                && ws[0].split('.').count() >= 2
                && ws[0]
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            {
                return Some((ws[0].to_string(), None, None));
            }
        }
    }
    None
}

/// `uname -r|-a` and `/proc/version`.
pub const READER: Reader = Reader {
    kind: Kind::Uname,
    label: "uname",
    doc: "`uname -r`, `uname -a`, `/proc/version`: the kernel release; from `uname -a` also the \
          host name and machine, when no other source gave them",
    samples: &["uname-r.txt", "uname-a.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    c.prog == "uname" || c.reads(|p, _| p == "/proc/version")
}

fn sniff(s: &Shape) -> bool {
    (s.n() == 1 && KERNEL_RELEASE.is_match(s.first))
        || UNAME_A.is_match(s.first)
        || PROC_VERSION.is_match(s.first)
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (rel, host, arch) = parse_uname(p.text)?;
    facts.kernel = Some(rel.clone());
    facts.kernel_source = Some("uname".into());
    if facts.hostname.is_none() {
        facts.hostname = host;
    }
    if facts.arch.is_none() {
        facts.arch = arch;
    }
    added(format!("kernel {rel}"), &["kernel"])
}

#[cfg(test)]
mod tests {
    use crate::parse::transcripts::testing::{facts_of, fixture};
    use crate::parse::transcripts::{sniff, Kind};

    #[test]
    fn uname_release_host_and_machine() {
        let f = facts_of(fixture!("uname-r.txt"));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        assert_eq!(f.provenance["kernel"], "test");
        let f = facts_of(fixture!("uname-a.txt"));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        assert_eq!(f.hostname.as_deref(), Some("vm"));
        assert_eq!(f.arch.as_deref(), Some("x86_64"));
        for (rel, ok) in [
            ("3.10.0-957.el7.x86_64", true),
            ("5.15.136-flatcar", true),
            ("6.2.0-1016-azure", true),
            ("1.27", false),
        ] {
            assert_eq!(sniff(rel) == Some(Kind::Uname), ok, "{rel}");
        }
    }
}
