//! Message → candidate causes, from two readings of it: the knowledge's patterns (one pass of the
//! pattern scan, matcher.rs, each hit checked against the message's context: filesystem family,
//! mount options, look-alikes), and the message catalogue's format strings (layers.rs: which
//! program printed each layer, and what the innermost layer that says a cause says). How the
//! two are combined is [`classify_layered`]'s comment.

use super::catalogue::{catalogue, FsFamily, LOOKALIKE_GAP};
use super::context::MsgContext;
use super::layers::{split, Layers};
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

/// Candidates for one (normalised) message, best first, at most one per cause: the patterns
/// and the catalogue's layers together ([`classify_layered`]).
pub fn classify(text: &str, ctx: &MsgContext) -> Vec<Candidate> {
    classify_layered(text, ctx).0
}

/// What a cause meaning of the catalogue is worth on its own: the program's own source says the
/// string is printed for this cause.
pub const LAYER_CONFIDENCE: f64 = 0.85;
/// The same, when the message was cut short inside the format (the rest may have said more).
pub const CUT_LAYER_CONFIDENCE: f64 = 0.7;
/// A layer with several cause meanings (the same text in programs that mean different things).
const SHARED_LAYER_CONFIDENCE: f64 = 0.65;
/// A `symptom` layer: its program's symptom cause, a candidate only.
const SYMPTOM_LAYER_CONFIDENCE: f64 = 0.45;
/// How far below a layer's cause a pattern matched only in the layers around it is held.
const OUTER_GAP: f64 = 0.05;
/// The most a pattern that matched only the innermost layer's text alone is worth.
const INNER_ONLY_CONFIDENCE: f64 = 0.5;

/// Candidates for one (normalised) message, and its layers.
///
/// The rule that combines them (tuned on the tune half only):
/// 1. the patterns read the whole message and, again, the innermost layer's text alone (from
///    its start: a pattern written for mount's own line sees it as it was printed);
/// 2. the innermost layer whose format string means a cause is a candidate at
///    [`LAYER_CONFIDENCE`] ([`CUT_LAYER_CONFIDENCE`] when the message was cut inside it;
///    several causes for the same text: each at [`SHARED_LAYER_CONFIDENCE`]);
/// 3. a pattern whose match lies only in the layers around that layer (it ends before the
///    layer starts) may not beat it: it is held [`OUTER_GAP`] below; a pattern matched in the
///    layer or inside it keeps its confidence (it carries context the format does not: the
///    filesystem family, look-alikes), and the same cause from both keeps the higher;
/// 4. with no cause layer, the innermost `symptom` layer offers its program's symptom cause at
///    [`SYMPTOM_LAYER_CONFIDENCE`] (a symptom cause stays a symptom), and only when the patterns
///    named nothing.
pub fn classify_layered(text: &str, ctx: &MsgContext) -> (Vec<Candidate>, Layers) {
    let cat = catalogue();
    let mut best = classify_patterns(text, ctx);
    let layers = split(text);
    // 1. The innermost layer's text alone, read from its start (a pattern anchored on mount's
    // own line), offered beside the whole message's answers, never above them; a pattern's
    // veto still reads the whole message.
    // The innermost layer: the deepest, and of messages as deep the first (mount.nfs' first
    // line says why; `an incorrect mount option was specified` after it is its trailer).
    let deepest = layers.layers.iter().map(|l| l.depth).max();
    if let Some(inner) = layers.layers.iter().find(|l| Some(l.depth) == deepest) {
        let from = inner.span.0;
        if from > 0 {
            let cap = best
                .iter()
                .filter(|c| !c.symptom)
                .map(|c| c.confidence)
                .fold(INNER_ONLY_CONFIDENCE + LOOKALIKE_GAP, f64::min)
                - LOOKALIKE_GAP;
            for mut c in classify_patterns_in(&text[from..], text, ctx) {
                if best.iter().any(|b| b.cause == c.cause) {
                    continue;
                }
                c.at = (c.at.0 + from, c.at.1 + from);
                c.confidence = c.confidence.min(cap);
                best.push(c);
            }
        }
    }
    // 4. A symptom layer speaks only when the patterns found nothing: a symptom says that
    // something failed, not why, and the patterns' reading carries its context (strerror's
    // "Software caused connection abort" is errno's symptom; the patterns' csi_call_failed
    // knows it came back from a CSI driver, and its suspects are the ones to offer).
    // A cause meaning that is itself a symptom cause (kubelet's `unmounted volumes=%v, ...: %w`
    // means mount_timeout, which says only that a volume is stuck) is a symptom too.
    // The causes whose own patterns matched here but were vetoed by the words around them
    // (`not:`): the knowledge says this text is not that cause, so no format string's
    // meaning brings it back.
    let vetoed = vetoed_causes(text);
    let decision = layers
        .decision()
        .map(|mut d| {
            d.causes.retain(|c| !vetoed.contains(c));
            d.by_symptom |= d.causes.iter().all(|&c| cat.causes[c].symptom);
            d
        })
        .filter(|d| !d.causes.is_empty())
        .filter(|d| !d.by_symptom || best.is_empty());
    if let Some(d) = decision {
        let layer = &layers.layers[d.layer];
        let quote = quote_around(text, layer.span.0, layer.span.1);
        let mut conf = if d.by_symptom {
            SYMPTOM_LAYER_CONFIDENCE
        } else if d.shared {
            SHARED_LAYER_CONFIDENCE
        } else if d.cut {
            CUT_LAYER_CONFIDENCE
        } else {
            LAYER_CONFIDENCE
        };
        // The best pattern that read this layer or one inside it, naming a cause.
        let inside = best
            .iter()
            .filter(|c| !c.symptom && c.at.1 > layer.span.0)
            .map(|c| (c.cause, c.confidence))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match inside {
            // 3. The patterns read the same words with their context (look-alikes, the
            // filesystem family): they lead, and a cause the format string means that they did
            // not name is offered beside them.
            Some((_, p)) => {
                conf = conf.min(p - LOOKALIKE_GAP);
            }
            None if !d.by_symptom => {
                // Patterns only in the layers around it do not beat it.
                for c in best.iter_mut() {
                    if !d.causes.contains(&c.cause) && c.confidence >= conf {
                        c.confidence = conf - OUTER_GAP;
                    }
                }
            }
            None => {}
        }
        for &cause in &d.causes {
            // A cause the patterns named keeps their confidence (they are calibrated against
            // its look-alikes).
            if inside.is_some() && best.iter().any(|c| c.cause == cause) {
                continue;
            }
            merge_in(
                &mut best,
                Candidate {
                    cause,
                    confidence: conf,
                    symptom: cat.causes[cause].symptom,
                    quote: quote.clone(),
                    at: layer.span,
                    lookalike_of: None,
                },
            );
        }
        // 3. Whoever read the layer (the format string, or the patterns that matched in it),
        // a pattern matched only in the layers around it does not beat its cause: ceph-csi's
        // `failed to connect to cluster: %w` around mount.nfs' `access denied by server` is
        // nfs_access_denied, not storage_backend_unreachable.
        if !d.by_symptom {
            let decided = best
                .iter()
                .filter(|c| d.causes.contains(&c.cause))
                .map(|c| c.confidence)
                .fold(0.0, f64::max);
            for c in best.iter_mut() {
                if !d.causes.contains(&c.cause) && c.at.1 <= layer.span.0 && c.confidence >= decided
                {
                    c.confidence = decided - OUTER_GAP;
                }
            }
        }
    }
    best.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    (best, layers)
}

/// The causes of the patterns that match `text` and whose veto matches it too.
fn vetoed_causes(text: &str) -> Vec<usize> {
    let cat = catalogue();
    let scan = scan();
    scan.matches(text)
        .hits()
        .iter()
        .filter(|hit| scan.veto(hit.pattern).is_some_and(|n| n.is_match(text)))
        .map(|hit| cat.patterns[hit.pattern].cause)
        .collect()
}

/// Add a candidate, keeping one per cause: the higher confidence, and a matched cause over a
/// look-alike offered beside another.
fn merge_in(best: &mut Vec<Candidate>, c: Candidate) {
    match best.iter_mut().find(|b| b.cause == c.cause) {
        Some(b) if c.confidence > b.confidence => *b = c,
        Some(b) if b.lookalike_of.is_some() && c.lookalike_of.is_none() => {
            b.lookalike_of = None;
            b.symptom &= c.symptom;
        }
        Some(_) => {}
        None => best.push(c),
    }
}

/// The pattern classifier alone: candidates for one (normalised) message, best first, at most
/// one per cause.
pub fn classify_patterns(text: &str, ctx: &MsgContext) -> Vec<Candidate> {
    classify_patterns_in(text, text, ctx)
}

/// The patterns over `text`, a part of the message `whole`: a pattern's veto (`not:`) reads
/// the whole message, since it is knowledge about what the words around mean (Ceph's own
/// `(13) Permission denied` is cephx refusing, never the node's permissions).
fn classify_patterns_in(text: &str, whole: &str, ctx: &MsgContext) -> Vec<Candidate> {
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
        if scan.veto(hit.pattern).is_some_and(|n| n.is_match(whole)) {
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
