//! Pure parsers for everything an operator can paste or save. No I/O here.

pub mod describe;
pub mod describe_node;
pub mod events;
pub mod identity;
pub mod klog;
pub mod list_items;
pub mod mount_error;
pub mod mountinfo;
pub mod objects;
pub mod plugin_log;
pub mod probe;
pub mod rbd;
pub mod tables;
pub mod transcripts;
pub mod words;

/// Words that make a message a failure report even when no pattern names its cause, matched
/// case-insensitively (`(?i)fail|error|...`; see [`words::WordSet`]).
pub static FAILURE_WORDS: std::sync::LazyLock<words::WordSet> = std::sync::LazyLock::new(|| {
    words::WordSet::new(&[
        "fail",
        "error",
        "denied",
        "timed out",
        "timeout",
        "not found",
        "locked",
        "busy",
        "cannot",
        "unable",
        "refused",
        "no such",
        "not ready",
        "still being used",
        "stale",
        "exit status",
        "invalid",
        "not permitted",
        "can't",
        "couldn't",
        // mount(8), the scheduler and the NFS client say it without the words above
        // (`mount: unknown filesystem type 'aznfs'`, `1 node(s) had volume node affinity
        // conflict`, `pod has unbound immediate PersistentVolumeClaims`, `nfs: server x not
        // responding`, `wrong fs type, bad option, bad superblock`).
        "unknown filesystem",
        "affinity conflict",
        "unbound",
        "didn't find",
        "not responding",
        "unsupported",
        "not supported",
        "bad superblock",
        "not running",
    ])
});

pub fn looks_like_failure(text: &str) -> bool {
    FAILURE_WORDS.is_match(text)
}

/// The last non-empty line of a tool's stderr: its reason (`Connection refused`, `Permission
/// denied (publickey)`, `Host key verification failed.`).
pub fn last_line(s: &str) -> Option<&str> {
    s.lines().map(str::trim).rfind(|l| !l.is_empty())
}

/// The candidates closest to a name that was not found (a typo's likely intent), best first, at
/// most three: those within a small edit distance (a third of the name, between 2 and 4), and those
/// that contain the name or are contained in it.
pub fn closest<'a>(want: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (want.chars().count() / 3).clamp(2, 4);
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter(|c| *c != want)
        .filter_map(|c| {
            let d = edit_distance(want, c, limit);
            let near = d <= limit;
            let contains = want.len() >= 3 && (c.contains(want) || want.contains(c));
            (near || contains).then_some((if near { d } else { limit + 1 }, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Levenshtein distance, giving up (returning `limit + 1`) once it must exceed `limit`.
fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_words_are_the_regex_they_always_were() {
        assert_eq!(
            FAILURE_WORDS.regex().as_str(),
            r"(?i)fail|error|denied|timed out|timeout|not found|locked|busy|cannot|unable|refused|no such|not ready|still being used|stale|exit status|invalid|not permitted|can't|couldn't|unknown filesystem|affinity conflict|unbound|didn't find|not responding|unsupported|not supported|bad superblock|not running"
        );
    }

    #[test]
    fn closest_names_are_the_likely_typos() {
        let names = [
            "shop",
            "shop-staging",
            "kube-system",
            "monitoring",
            "default",
        ];
        assert_eq!(closest("shp", names), vec!["shop"]);
        assert_eq!(closest("monitorng", names), vec!["monitoring"]);
        assert_eq!(closest("staging", names), vec!["shop-staging"]);
        assert!(closest("zzzzzz", names).is_empty());
        assert_eq!(edit_distance("kitten", "sitting", 5), 3);
    }
}
