//! dm-multipath: the topology `multipath -ll` prints and the settings of `multipathd show config`
//! or /etc/multipath.conf (multipath-tools, cited beside each parser).

use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape};
use crate::model::{MultipathInfo, MultipathMap, NodeFacts};

static MPATH_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    // multipath-tools libmultipath/print.c snprint_multipath_style: `[%A: ]%n[ (%w)] %d %s`
    // (alias, wwid when it differs, dm device, vendor,product); RHEL 5's older layout has
    // `[size=...]` on the same line and no dm name.
    Regex::new(r"^(?:(?:create|reload|switchpg|rename|reject|grow|shrink|unchanged|remove|replace|resize): )?(\S+)(?: \(([^)]+)\))?(?: (dm-\d+|\[\w+\]:\S+))?(?: (\S.*?))?\s*$")
        .expect("static regex")
});

/// `multipath -ll` / `-l` topology (multipath-tools libmultipath/print.c
/// snprint_multipath_topology__: the map line `%n (%w) %d %s`, `size=... features=...`, then per
/// path group `|-+- policy=...` and per path `` | `- H:C:T:L dev maj:min ...``), and RHEL 5's
/// older `\_` layout.
pub fn parse_multipath_ll(text: &str) -> Vec<MultipathMap> {
    static PATH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[\s|`\\_-]*(?:[|`]-|\\_)\s*(\d+:\d+:\d+(?::\d+)?)\s+(\S+)\s+\d+:\d+")
            .expect("static regex")
    });
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut out: Vec<MultipathMap> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        if let Some(c) = PATH.captures(l) {
            if let Some(m) = out.last_mut() {
                m.paths.push(c[2].to_string());
            }
            continue;
        }
        let t = l.trim_start();
        if t.starts_with("size=")
            || t.starts_with("[size=")
            || t.starts_with("|-+-")
            || t.starts_with("`-+-")
            || t.starts_with("\\_")
            || l.starts_with(' ')
        {
            continue;
        }
        // A map header is followed by its size line (or carries `[size=` itself).
        let next_is_size = lines.get(i + 1).is_some_and(|n| {
            n.trim_start().starts_with("size=") || n.trim_start().starts_with("[size=")
        });
        if !next_is_size && !l.contains("[size=") {
            continue;
        }
        let head = l.split(" [size=").next().unwrap_or(l);
        if let Some(c) = MPATH_HEADER.captures(head) {
            let (vendor, product) = match c.get(4).map(|m| m.as_str()) {
                Some(vp) => match vp.split_once(',') {
                    Some((v, p)) => (Some(v.trim().to_string()), Some(p.trim().to_string())),
                    None => (Some(vp.trim().to_string()), None),
                },
                None => (None, None),
            };
            let name = c[1].to_string();
            let wwid = c.get(2).map(|m| m.as_str().to_string()).or_else(|| {
                // Without user_friendly_names the name is the WWID.
                name.chars()
                    .all(|ch| ch.is_ascii_hexdigit())
                    .then(|| name.clone())
            });
            out.push(MultipathMap {
                name,
                wwid,
                dm: c.get(3).map(|m| m.as_str().to_string()),
                vendor,
                product,
                paths: Vec::new(),
            });
        }
    }
    out
}

/// `multipathd show config` or /etc/multipath.conf (multipath.conf(5), multipath-tools
/// multipath/multipath.conf.5.in): `find_multipaths` from `defaults`, and the `blacklist`
/// section's entries as written (`devnode "..."`, `wwid "..."`, `device { vendor ... product
/// ... }` as one line).
pub fn parse_multipath_conf(text: &str) -> (Option<String>, Vec<String>) {
    let mut find = None;
    let mut blacklist = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut device: Vec<String> = Vec::new();
    for raw in text.lines() {
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if let Some(name) = l.strip_suffix('{') {
            stack.push(name.trim().to_string());
            continue;
        }
        if l == "}" {
            if stack.last().map(String::as_str) == Some("device")
                && stack.get(stack.len().wrapping_sub(2)).map(String::as_str) == Some("blacklist")
                && !device.is_empty()
            {
                blacklist.push(format!("device {}", device.join(" ")));
            }
            if stack.last().map(String::as_str) == Some("device") {
                device.clear();
            }
            stack.pop();
            continue;
        }
        let section: Vec<&str> = stack.iter().map(String::as_str).collect();
        match section.as_slice() {
            ["defaults"] | [] => {
                if let Some(v) = l.strip_prefix("find_multipaths") {
                    find = Some(v.trim().trim_matches('"').to_string());
                }
            }
            ["blacklist"] => blacklist.push(l.to_string()),
            ["blacklist", "device"] => device.push(l.to_string()),
            _ => {}
        }
    }
    (find, blacklist)
}

/// A multipath.conf's settings into the facts' (`find_multipaths` when it is set, the blacklist
/// entries added).
pub fn add_conf(mp: &mut MultipathInfo, find: Option<String>, blacklist: Vec<String>) {
    if find.is_some() {
        mp.find_multipaths = find;
    }
    mp.blacklist.extend(blacklist);
}

/// `multipath -ll` / `-l`.
pub const MULTIPATH: Reader = Reader {
    kind: Kind::Multipath,
    label: "multipath -ll",
    doc: "`multipath -ll` / `-l`: the maps, each with its WWID, dm device, vendor, product and \
          path devices",
    samples: &[
        "multipath-ll-rhel6.txt",
        "multipath-ll-nvme-foreign.txt",
        "multipath-ll-rhel5.txt",
    ],
    recognise: |c| c.prog == "multipath",
    sniff: Some(multipath_sniff),
    read: multipath_read,
};

fn multipath_sniff(s: &Shape) -> bool {
    s.lines
        .iter()
        .any(|l| l.trim_start().starts_with("size=") && l.contains("features="))
        || s.lines
            .iter()
            .any(|l| l.contains("[size=") && l.contains("[features="))
}

fn multipath_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let maps = parse_multipath_ll(p.text);
    if maps.is_empty() {
        // `multipath -ll` that printed nothing (or only its own warnings): no map at all. Said
        // only for the command itself, never for a part guessed by its shape.
        let quiet = p.cmd.is_some()
            && p.text.lines().all(|l| {
                l.trim().is_empty()
                    || l.contains("DM multipath kernel driver not loaded")
                    || l.trim_start().starts_with('|')
            });
        if !quiet {
            return None;
        }
        facts
            .multipath
            .get_or_insert_with(MultipathInfo::default)
            .listed = true;
        p.mark(facts, &["multipath"]);
        return noted("multipath -ll: no map".into(), &["multipath"]);
    }
    let n = maps.len();
    let mp = facts.multipath.get_or_insert_with(MultipathInfo::default);
    mp.maps.extend(maps);
    mp.listed = true;
    added(format!("{n} multipath map(s)"), &["multipath"])
}

/// `multipathd show config`, /etc/multipath.conf.
pub const MULTIPATH_CONF: Reader = Reader {
    kind: Kind::MultipathConf,
    label: "multipath config",
    doc: "`multipathd show config`, `/etc/multipath.conf`, `/etc/multipath/conf.d/*`: \
          find_multipaths and the blacklist",
    samples: &["multipath-conf-longhorn.txt"],
    recognise: conf_recognise,
    sniff: Some(conf_sniff),
    read: conf_read,
};

fn conf_recognise(c: &Command) -> bool {
    (c.prog == "multipathd" && c.line.contains("config"))
        || c.reads(|p, name| {
            // A conf.d path that is also /proc/*/cmdline or ends in iscsi/initiatorname.iscsi
            // has always been read as the kubelet's or the initiator's (their readers come
            // later in READERS, as the sniff order wants).
            p.ends_with("/etc/multipath.conf")
                || (p.contains("/etc/multipath/conf.d/")
                    && !(p.starts_with("/proc/") && name == "cmdline")
                    && !p.ends_with("iscsi/initiatorname.iscsi"))
        })
}

fn conf_sniff(s: &Shape) -> bool {
    s.lines.iter().any(|l| {
        let t = l.trim_start();
        [
            "defaults",
            "blacklist",
            "blacklist_exceptions",
            "devices",
            "multipaths",
        ]
        .iter()
        .any(|s| {
            t.strip_prefix(s)
                .is_some_and(|r| r.trim_start().starts_with('{'))
        })
    })
}

fn conf_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (find, blacklist) = parse_multipath_conf(p.text);
    if find.is_none() && blacklist.is_empty() && !p.text.contains('{') {
        return None;
    }
    let shown = find.clone();
    let n = blacklist.len();
    add_conf(
        facts.multipath.get_or_insert_with(MultipathInfo::default),
        find,
        blacklist,
    );
    added(
        format!(
            "find_multipaths {}, {n} blacklist entr{}",
            shown.as_deref().unwrap_or("(not set)"),
            if n == 1 { "y" } else { "ies" }
        ),
        &["multipath"],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn multipath_maps_and_settings() {
        let f = facts_of(fixture!("multipath-ll-rhel6.txt"));
        let m = &f.multipath.as_ref().unwrap().maps[0];
        assert_eq!(m.name, "3600d0230000000000e13955cc3757800");
        assert_eq!(m.wwid.as_deref(), Some("3600d0230000000000e13955cc3757800"));
        assert_eq!(m.dm.as_deref(), Some("dm-1"));
        assert_eq!(
            (m.vendor.as_deref(), m.product.as_deref()),
            (Some("WINSYS"), Some("SF2372"))
        );
        assert_eq!(m.paths, ["sdb", "sdf"]);
        let f = facts_of(fixture!("multipath-ll-nvme-foreign.txt"));
        assert_eq!(
            f.multipath.as_ref().unwrap().maps[0].paths,
            ["nvme4c38n1", "nvme4c39n1"]
        );
        let f = facts_of(fixture!("multipath-ll-rhel5.txt"));
        let m = &f.multipath.as_ref().unwrap().maps[0];
        assert_eq!(
            (m.name.as_str(), m.wwid.as_deref()),
            ("mpath1", Some("3600d0230003228bc000339414edb8101"))
        );
        assert_eq!(m.paths, ["sdb", "sdc"]);
        let f = facts_of(fixture!("multipath-conf-longhorn.txt"));
        let mp = f.multipath.unwrap();
        assert_eq!(mp.find_multipaths.as_deref(), Some("yes"));
        assert_eq!(mp.blacklist, ["devnode \"^sd[a-z0-9]+\""]);
        let (_, bl) = parse_multipath_conf("blacklist {\n    wwid 26353900f02796769\n    device {\n        vendor \"IBM\"\n        product \"3S42\"\n    }\n}\n");
        assert_eq!(
            bl,
            [
                "wwid 26353900f02796769",
                "device vendor \"IBM\" product \"3S42\""
            ]
        );
    }
}
