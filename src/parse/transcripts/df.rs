//! How full each filesystem is: `df` in its layouts (coreutils src/df.c), blocks or inodes.

use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::{DfEntry, NodeFacts};

/// `df` in its layouts (coreutils src/df.c: `Filesystem ... Use% Mounted on`, `-i`: `IUse%`,
/// `-T` adds `Type`; a long device name on its own line with the numbers on the next, as df
/// prints without `-P`).
pub fn parse_df(text: &str) -> Vec<DfEntry> {
    let mut out = Vec::new();
    let mut lines = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty());
    let Some(header) = lines.find(|l| l.starts_with("Filesystem")) else {
        return out;
    };
    let inodes = header.contains("IUse%") || header.contains("Inodes");
    let h: Vec<&str> = header.split_whitespace().collect();
    let pct_i = h
        .iter()
        .position(|c| c.ends_with("Use%") || *c == "Capacity");
    let mut pending: Option<String> = None;
    for l in lines {
        let mut w: Vec<&str> = l.split_whitespace().collect();
        if w.len() == 1 && !l.starts_with(' ') {
            pending = Some(w[0].to_string());
            continue;
        }
        let fs = match pending.take() {
            Some(p) if l.starts_with(' ') => p,
            _ => {
                if w.is_empty() {
                    continue;
                }
                w.remove(0).to_string()
            }
        };
        // The percentage is the cell under `Use%` (`-` when df cannot say), the mount point what
        // follows it; else the first cell ending in `%`.
        let at_header = pct_i
            .map(|i| i.saturating_sub(1))
            .filter(|&i| w.get(i).is_some_and(|c| c.ends_with('%') || *c == "-"));
        let Some(pi) = at_header.or_else(|| w.iter().position(|c| c.ends_with('%'))) else {
            continue;
        };
        let mounted_on = w[pi + 1..].join(" ");
        if mounted_on.is_empty() {
            continue;
        }
        out.push(DfEntry {
            filesystem: fs,
            mounted_on,
            use_percent: w[pi].trim_end_matches('%').parse().ok(),
            inodes,
        });
    }
    out
}

/// `df` in its layouts.
pub const READER: Reader = Reader {
    kind: Kind::Df,
    label: "df",
    doc: "`df`, `df -h`, `df -i`, `df -T`, `df -P`: how full each filesystem is, in blocks or \
          inodes",
    samples: &["df-h.txt", "df-i.txt"],
    recognise: |c| c.prog == "df",
    sniff: Some(sniff),
    read,
};

fn sniff(s: &Shape) -> bool {
    s.header().first() == Some(&"Filesystem") && s.first.contains("Mounted on")
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let rows = parse_df(p.text);
    if rows.is_empty() {
        return None;
    }
    let n = rows.len();
    facts.df.extend(rows);
    added(format!("{n} filesystem(s)"), &["df"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn df_use_and_inodes() {
        let f = facts_of(fixture!("df-h.txt"));
        assert_eq!(f.df.len(), 3);
        assert_eq!(f.df[1].mounted_on, "/var/lib/kubelet");
        assert_eq!(f.df[1].use_percent, Some(33));
        assert!(!f.df[0].inodes);
        let f = facts_of(fixture!("df-i.txt"));
        assert_eq!(f.df[0].use_percent, Some(3));
        assert!(f.df[0].inodes);
        // df -P (the probe's), a wrapped device name, a `-` percentage
        let d = parse_df("Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/vda         264212084 33061960  62223928      35% /var/lib/kubelet\n/dev/mapper/vg-very-long-logical-volume\n                  1000 990 10 99% /data\n");
        assert_eq!(
            (d[0].use_percent, d[1].use_percent, d[1].filesystem.as_str()),
            (
                Some(35),
                Some(99),
                "/dev/mapper/vg-very-long-logical-volume"
            )
        );
        let d = parse_df("Filesystem Inodes IUsed IFree IUse% Mounted on\nbtrfs - - - - /srv\n");
        assert_eq!((d[0].use_percent, d[0].mounted_on.as_str()), (None, "/srv"));
    }
}
