//! Message → candidate causes. One pass of the pattern scan (matcher.rs) over the message, then
//! each hit is checked against the message's context (filesystem family, mount options).

use super::catalogue::{catalogue, FsFamily, LOOKALIKE_GAP};
use super::context::MsgContext;
use super::matcher::scan;
/// Messages are classified normalised; where `normalize` was first defined, kept for callers.
pub use super::text::normalize;

/// A cause a message points at, with the text that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Index into the catalogue's causes.
    pub cause: usize,
    pub confidence: f64,
    /// The message says *that* a volume is stuck, not *why*.
    pub symptom: bool,
    /// The part of the message that matched, with some context around it.
    pub quote: String,
    /// Byte range of the match in the normalised message.
    pub at: (usize, usize),
    /// Offered as a look-alike of this cause (the same words fit both), not matched itself.
    pub lookalike_of: Option<usize>,
}

impl Candidate {
    pub fn cause_id(&self) -> &'static str {
        &catalogue().causes[self.cause].id
    }
}

/// Candidates for one (normalised) message, best first, at most one per cause.
pub fn classify(text: &str, ctx: &MsgContext) -> Vec<Candidate> {
    let cat = catalogue();
    let scan = scan();
    let mut best: Vec<Candidate> = Vec::new();
    for &hit in scan.matches(text).hits() {
        let p = &cat.patterns[hit.pattern];
        let d = &p.def;
        if let Some(fs) = &d.fs {
            if !fs.contains(&ctx.fs) {
                continue;
            }
        }
        if let Some(not_fs) = &d.not_fs {
            if not_fs.contains(&ctx.fs) {
                continue;
            }
        }
        if scan.veto(hit.pattern).is_some_and(|n| n.is_match(text)) {
            continue;
        }
        if d.unusual_options && ctx.unusual_options.is_empty() {
            continue;
        }
        // A cause already found at this confidence or above keeps its quote: do not search
        // the message again for this pattern's.
        if best
            .iter()
            .any(|c| c.cause == p.cause && c.confidence >= d.confidence)
        {
            continue;
        }
        let (quote, at) = scan
            .find(text, hit)
            .map(|(start, end)| (quote_around(text, start, end), (start, end)))
            .unwrap_or_default();
        let cand = Candidate {
            cause: p.cause,
            confidence: d.confidence,
            // A structural family (a cause marked `symptom`) never names a cause by itself.
            symptom: d.symptom || cat.causes[p.cause].symptom,
            quote,
            at,
            lookalike_of: None,
        };
        let lookalikes: Vec<Candidate> = d
            .also
            .iter()
            .filter_map(|id| cat.cause_index(id))
            .map(|i| Candidate {
                cause: i,
                confidence: (d.confidence - LOOKALIKE_GAP).max(0.0),
                symptom: cat.causes[i].symptom,
                quote: cand.quote.clone(),
                at: cand.at,
                lookalike_of: Some(p.cause),
            })
            .collect();
        for cand in std::iter::once(cand).chain(lookalikes) {
            match best.iter_mut().find(|c| c.cause == cand.cause) {
                Some(c) if c.confidence < cand.confidence => *c = cand,
                Some(_) => {}
                None => best.push(cand),
            }
        }
    }
    // A family known from context that contradicts a cause's own family lowers it: an NFS
    // message cannot be an RBD lock.
    for c in &mut best {
        if let Some(f) = cat.causes[c.cause].fs {
            if ctx.fs != FsFamily::Unknown && f != ctx.fs {
                c.confidence *= 0.5;
            }
        }
    }
    best.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    best
}

/// The matched text with up to ~100 characters either side, cut at char boundaries.
fn quote_around(text: &str, start: usize, end: usize) -> String {
    const SIDE: usize = 100;
    let mut s = start.saturating_sub(SIDE);
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    let mut e = (end + SIDE).min(text.len());
    while !text.is_char_boundary(e) {
        e += 1;
    }
    let mut q = String::new();
    if s > 0 {
        q.push('…');
    }
    q.push_str(text[s..e].trim());
    if e < text.len() {
        q.push('…');
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::context::{context_for, Hints};

    fn top(msg: &str) -> Vec<(&'static str, f64)> {
        let n = normalize(msg);
        let ctx = context_for(&n, &Hints::default());
        classify(&n, &ctx)
            .into_iter()
            .map(|c| (c.cause_id(), c.confidence))
            .collect()
    }

    #[test]
    fn the_same_mount_output_means_different_things_by_fstype() {
        let out = "Output: mount: wrong fs type, bad option, bad superblock on SRC, missing codepage or helper program, or other error";
        let nfs = format!("MountVolume.SetUp failed for volume \"v\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/export /var/lib/kubelet/pods/a/volumes/kubernetes.io~nfs/v {}", out.replace("SRC", "10.0.0.5:/export"));
        let ext4 = format!("MountVolume.MountDevice failed for volume \"v\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 -o defaults /dev/rbd0 /var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/p-image-i {}", out.replace("SRC", "/dev/rbd0"));
        let cifs = format!("MountVolume.SetUp failed for volume \"v\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t cifs //srv/share /var/lib/kubelet/pods/a/volumes/kubernetes.io~csi/v/mount {}", out.replace("SRC", "//srv/share"));
        assert_eq!(top(&nfs)[0].0, "nfs_client_missing");
        assert_eq!(top(&ext4)[0].0, "block_fs_corrupt_or_unformatted");
        assert_eq!(top(&cifs)[0].0, "fs_helper_missing");
        assert!(!top(&ext4).iter().any(|(c, _)| *c == "nfs_client_missing"));
    }

    #[test]
    fn quotes_are_cut_at_char_boundaries() {
        let t = format!(
            "{}é rbd: image x is locked by other nodes {}",
            "é".repeat(80),
            "ü".repeat(80)
        );
        let q = quote_around(&t, 162, 190);
        assert!(q.starts_with('…') && q.ends_with('…'));
    }
}
