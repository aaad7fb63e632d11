//! Installed packages: `dpkg -s` / `dpkg -l` (dpkg src/query/main.c), `rpm -q` / `rpm -qa`
//! (rpm lib/query.c), `apk info` / `apk list` (apk-tools): name → version, or not installed.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::NodeFacts;

/// Split `name-version-release[.arch]` (rpm's NVRA, apk's `name-ver-rN`) at its last two dashes.
fn split_nvr(s: &str) -> Option<(String, String)> {
    let mut parts = s.rsplitn(3, '-');
    let rel = parts.next()?;
    let ver = parts.next()?;
    let name = parts.next()?;
    if name.is_empty() || !ver.chars().next()?.is_ascii_digit() {
        return None;
    }
    Some((name.to_string(), format!("{ver}-{rel}")))
}

static DPKG_NOT_INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    // dpkg src/query/main.c: `package '%s' is not installed and no information is available`,
    // `no packages found matching %s`.
    Regex::new(
        r"dpkg-query: (?:package '([^']+)' is not installed|no packages found matching (\S+))",
    )
    .expect("static regex")
});

static RPM_NOT_INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    // rpm lib/query.c: `package %s is not installed`.
    Regex::new(r"^package (\S+) is not installed").expect("static regex")
});

/// Package queries → name → version (`None`: not installed). dpkg -s (the status stanza:
/// `Package:`, `Status: install ok installed`, `Version:`), dpkg -l (`ii  name  version ...`;
/// other states are not installed), rpm -q / -qa (NVRA), apk info / list.
pub fn parse_packages(
    text: &str,
    prog: &str,
    asked: &[String],
) -> BTreeMap<String, Option<String>> {
    let mut out = BTreeMap::new();
    let mut stanza: (Option<String>, Option<String>, Option<bool>) = (None, None, None);
    let flush = |s: &mut (Option<String>, Option<String>, Option<bool>),
                 out: &mut BTreeMap<String, Option<String>>| {
        if let Some(name) = s.0.take() {
            let installed = s.2.take().unwrap_or(true);
            let version = s.1.take();
            out.insert(
                name,
                if installed {
                    version.or(Some(String::new()))
                } else {
                    None
                },
            );
        }
        *s = (None, None, None);
    };
    for l in text.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(c) = DPKG_NOT_INSTALLED.captures(l) {
            let n = c.get(1).or(c.get(2)).map(|m| m.as_str()).unwrap_or("");
            out.insert(n.to_string(), None);
            continue;
        }
        if let Some(c) = RPM_NOT_INSTALLED.captures(l.trim()) {
            out.insert(c[1].to_string(), None);
            continue;
        }
        match prog {
            "dpkg" | "dpkg-query" => {
                if let Some(v) = l.strip_prefix("Package: ") {
                    flush(&mut stanza, &mut out);
                    stanza.0 = Some(v.trim().to_string());
                } else if let Some(v) = l.strip_prefix("Status: ") {
                    stanza.2 =
                        Some(v.trim().ends_with(" installed") && !v.contains("not-installed"));
                } else if let Some(v) = l.strip_prefix("Version: ") {
                    stanza.1 = Some(v.trim().to_string());
                } else {
                    // dpkg -l rows: `ii  name[:arch]  version  arch  description`.
                    let w: Vec<&str> = l.split_whitespace().collect();
                    if w.len() >= 3
                        && w[0].len() >= 2
                        && w[0].len() <= 3
                        && w[0].chars().all(|c| c.is_ascii_alphabetic())
                        && !l.starts_with("Desired")
                    {
                        let name = w[1].split(':').next().unwrap_or(w[1]).to_string();
                        let installed = w[0].starts_with("ii") || w[0].starts_with("hi");
                        out.insert(name, installed.then(|| w[2].to_string()));
                    }
                }
            }
            "rpm" => {
                let t = l.trim();
                if t.is_empty() || t.contains(' ') {
                    continue;
                }
                // NVRA: strip the arch.
                let nvr = t
                    .rsplit_once('.')
                    .filter(|(_, a)| {
                        matches!(
                            *a,
                            "x86_64"
                                | "noarch"
                                | "aarch64"
                                | "i686"
                                | "ppc64le"
                                | "s390x"
                                | "armv7hl"
                        )
                    })
                    .map_or(t, |(a, _)| a);
                if let Some((n, v)) = split_nvr(nvr) {
                    out.insert(n, Some(v));
                }
            }
            "apk" => {
                let t = l.trim();
                if t.is_empty() {
                    continue;
                }
                // `apk info -e NAME` prints the name; `apk info NAME` prints `NAME-VER-rN
                // description:`; `apk list -I` prints `NAME-VER-rN ARCH {ORIGIN} (LICENSE)
                // [installed]`.
                let first = t.split_whitespace().next().unwrap_or(t);
                if asked.iter().any(|a| a == first) && !t.contains(' ') {
                    out.insert(first.to_string(), Some(String::new()));
                } else if t.ends_with("description:")
                    || t.contains("[installed]")
                    || t.contains(" {")
                {
                    if let Some((n, v)) = split_nvr(first) {
                        out.insert(n, Some(v));
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut stanza, &mut out);
    // `apk info -e` prints nothing for a package that is not there.
    if prog == "apk" {
        for a in asked
            .iter()
            .filter(|a| !a.starts_with('-') && !matches!(a.as_str(), "info" | "list"))
        {
            out.entry(a.clone()).or_insert(None);
        }
    }
    out.retain(|k, _| !k.is_empty());
    out
}

/// The probe's `[apk-installed]` section: `name version` per line (from apk's installed
/// database; every name listed is installed).
pub fn parse_name_version(text: &str) -> BTreeMap<String, Option<String>> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(n, v)| (n.to_string(), Some(v.trim().to_string())))
        .collect()
}

/// `dpkg -s|-l`, `rpm -q|-qa`, `apk info|list`.
pub const READER: Reader = Reader {
    kind: Kind::Packages,
    label: "package query",
    doc: "`dpkg -s|-l`, `rpm -q|-qa`, `apk info|list`: each package's version, or not installed",
    samples: &["dpkg-s-util-linux.txt", "dpkg-l.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        "dpkg" | "dpkg-query" => true,
        "rpm" => c.args.iter().any(|a| a.starts_with("-q")),
        "apk" => matches!(c.args.first().map(String::as_str), Some("info" | "list")),
        _ => false,
    }
}

fn sniff(s: &Shape) -> bool {
    (s.first.starts_with("Package: ") && s.lines.iter().any(|l| l.starts_with("Status: ")))
        || s.first
            .starts_with("Desired=Unknown/Install/Remove/Purge/Hold")
        || s.first.starts_with("dpkg-query: ")
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let text = p.text;
    let prog = if p.prog.is_empty() {
        if text.contains("Package: ") || text.contains("Desired=") || text.contains("dpkg-query") {
            "dpkg"
        } else {
            "rpm"
        }
    } else {
        p.prog.as_str()
    };
    let pk = parse_packages(text, prog, &p.asked);
    if pk.is_empty() {
        return None;
    }
    let n = pk.len();
    let missing = pk.values().filter(|v| v.is_none()).count();
    facts.packages.extend(pk);
    added(
        format!("{n} package(s), {missing} not installed"),
        &["packages"],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn packages_from_dpkg_rpm_and_apk() {
        let f = facts_of(fixture!("dpkg-s-util-linux.txt"));
        assert_eq!(
            f.packages["util-linux"].as_deref(),
            Some("2.38.1-5+deb12u3")
        );
        assert_eq!(f.packages["nfs-common"], None);
        let f = facts_of(fixture!("dpkg-l.txt"));
        assert_eq!(f.packages["mount"].as_deref(), Some("2.38.1-5+deb12u3"));
        assert_eq!(f.packages["open-iscsi"], None);
        let p = parse_packages(
            "rpm-plugin-selinux-4.14.2-26.el8_1.x86_64\npython3-libselinux-2.9-2.1.el8.x86_64\n",
            "rpm",
            &[],
        );
        assert_eq!(p["python3-libselinux"].as_deref(), Some("2.9-2.1.el8"));
        let p = parse_packages("package nfs-utils is not installed\n", "rpm", &[]);
        assert_eq!(p["nfs-utils"], None);
        let p = parse_packages(
            "nfs-utils-2.6.4-r1 x86_64 {nfs-utils} (GPL-2.0-only) [installed]\n",
            "apk",
            &[],
        );
        assert_eq!(p["nfs-utils"].as_deref(), Some("2.6.4-r1"));
        let p = parse_packages("", "apk", &["open-iscsi".into()]);
        assert_eq!(p["open-iscsi"], None);
    }
}
