//! Which format strings of the message catalogue printed (parts of) a message: one
//! Aho-Corasick pass finds every format's anchor (its first specific literal) in the message's
//! key form (format_text.rs), and each candidate is verified by finding its other literals in
//! order around the anchor, each gap admitting what its verb prints (`%d` digits, `%q` a quoted
//! string). No regex per format. A message cut short (`...`, `…`, or simply ending) matches when
//! every literal up to the cut matches and the anchor was whole. Pure.

use super::format_catalogue::{formats, Format, FormatCatalogue};
use super::format_text::{push_key, Gap};

/// A message in key form, with where each key byte was in the message.
pub struct MsgKey {
    pub key: Vec<u8>,
    /// For each key byte, its byte offset in the message.
    pub at: Vec<u32>,
    /// The message said it was cut (`...`, `…`): stripped from `key`.
    pub marked_cut: bool,
    /// The message's length, for spans that run to its end.
    pub text_len: usize,
}

impl MsgKey {
    pub fn new(text: &str) -> MsgKey {
        let mut key = Vec::with_capacity(text.len());
        let mut at = Vec::with_capacity(text.len());
        push_key(text, 0, &mut key, Some(&mut at));
        let mut marked_cut = false;
        while key.ends_with(b"...") {
            key.truncate(key.len() - 3);
            at.truncate(key.len());
            marked_cut = true;
        }
        MsgKey {
            key,
            at,
            marked_cut,
            text_len: text.len(),
        }
    }

    /// A key range as a range of the message's bytes.
    pub fn text_range(&self, (s, e): (usize, usize)) -> (usize, usize) {
        let start = self.at.get(s).map_or(self.text_len, |&a| a as usize);
        let end = if e == 0 {
            start
        } else {
            // One past the last byte: the next char boundary after it.
            self.at
                .get(e)
                .map_or(self.text_len, |&a| a as usize)
                .max(start)
        };
        (start, end)
    }
}

/// Longest gap a verb in the middle of a format is allowed to fill, in key bytes: a nested
/// error fits; words of another message far away do not.
pub const MAX_GAP: usize = 600;
/// At most this many occurrences of a literal are tried for one gap.
const TRIES: usize = 8;
/// At most this many candidate verifications per message (a pathological input cannot make
/// matching quadratic).
const MAX_VERIFY: usize = 20_000;

/// One format that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatMatch {
    /// Index into the catalogue's formats.
    pub format: usize,
    /// Key range from its first to its last matched literal.
    pub start: usize,
    pub end: usize,
    /// Key bytes of its literals that matched: "more literal text wins".
    pub literal_len: usize,
    /// The message ended (or said it was cut) before its last literal.
    pub cut: bool,
    /// What its wrapping verb captured (key range): the last gap of anything that matched
    /// (its trailing verb runs to the end of the message); `None` when it has none, and what
    /// follows it is then what it wraps (kubelet's `PREFIX for volume "X" : ERR`).
    pub wrap: Option<(usize, usize)>,
    /// The match begins where the format does (no verb before its first literal): a message
    /// of its own, which does not start in the middle of another's words.
    pub starts_format: bool,
}

fn find(hay: &[u8], needle: &[u8], from: usize, to: usize) -> Option<usize> {
    let to = to.min(hay.len());
    if from > to || to - from < needle.len() {
        return None;
    }
    memchr::memmem::find(&hay[from..to], needle).map(|p| p + from)
}

fn rfind(hay: &[u8], needle: &[u8], from: usize, to: usize) -> Option<usize> {
    let to = to.min(hay.len());
    if from > to || to - from < needle.len() {
        return None;
    }
    memchr::memmem::rfind(&hay[from..to], needle).map(|p| p + from)
}

/// Whether the tail of a message (from the end of the last literal matched) can be the start
/// of `gap` + `lit`: the message was cut there. Behind a verb of anything, a message that says
/// it was cut (`...`) may end anywhere in the gap; one that simply ends must end right after
/// the last literal or inside the next one (3 of its bytes at least, or all of a shorter one):
/// else `mount volume %s to %s timeout after %ds` would match any message holding
/// `MountVolume` and a `to` (the rest "cut"), as would every format with a gap of anything.
fn cut_fits(tail: &[u8], gap: Option<Gap>, lit: &[u8], marked: bool) -> bool {
    match gap {
        None => lit.starts_with(tail),
        Some(Gap::Any) => {
            tail.len() <= MAX_GAP
                && (marked
                    || tail.is_empty()
                    || (lit.len().min(3)..lit.len()).any(|k| k > 0 && tail.ends_with(&lit[..k])))
        }
        Some(g) => {
            g.admits_start(tail)
                || (1..=tail.len()).any(|k| g.admits(&tail[..k]) && lit.starts_with(&tail[k..]))
        }
    }
}

/// Verify format `fi` with its anchor found at key offset `a`.
fn verify(fc: &FormatCatalogue, fi: usize, key: &MsgKey, a: usize) -> Option<FormatMatch> {
    let f: Format = fc.format(fi);
    let k = &key.key;
    let lits = fc.literals(&f);
    let n = lits.len();
    let mut pos: Vec<Option<(usize, usize)>> = vec![None; n];
    pos[f.anchor] = Some((a, a + lits[f.anchor].key.len()));
    // Before the anchor: the nearest occurrence of each literal, backwards.
    let mut next_start = a;
    for i in (0..f.anchor).rev() {
        let lit = lits[i].key;
        let gap = lits[i + 1].gap_before;
        let found = match gap {
            None => (next_start >= lit.len() && &k[next_start - lit.len()..next_start] == lit)
                .then(|| next_start - lit.len()),
            Some(g) => {
                let lo = next_start.saturating_sub(MAX_GAP + lit.len());
                let mut hi = next_start;
                let mut hit = None;
                for _ in 0..TRIES {
                    let Some(s) = rfind(k, lit, lo, hi) else {
                        break;
                    };
                    if g.admits(&k[s + lit.len()..next_start]) {
                        hit = Some(s);
                        break;
                    }
                    hi = s + lit.len() - 1;
                }
                hit
            }
        };
        match found {
            Some(s) => {
                pos[i] = Some((s, s + lit.len()));
                next_start = s;
            }
            // A prefix left out (the message quoted without its log prefix): the literals
            // before it are the prefix's too.
            None if lits[i].optional => break,
            None => return None,
        }
    }
    // After it: the first occurrence of each, forwards.
    let mut prev_end = a + lits[f.anchor].key.len();
    let mut cut = false;
    let mut wrap = None;
    for i in f.anchor + 1..n {
        let lit = lits[i].key;
        let gap = lits[i].gap_before;
        let found = match gap {
            None => k[prev_end..].starts_with(lit).then_some(prev_end),
            Some(g) => {
                let hi = prev_end + MAX_GAP + lit.len();
                let mut lo = prev_end;
                let mut hit = None;
                for _ in 0..TRIES {
                    let Some(s) = find(k, lit, lo, hi) else { break };
                    if g.admits(&k[prev_end..s]) {
                        hit = Some(s);
                        break;
                    }
                    lo = s + 1;
                }
                hit
            }
        };
        match found {
            Some(s) => {
                if gap == Some(Gap::Any) {
                    wrap = Some((prev_end, s));
                }
                pos[i] = Some((s, s + lit.len()));
                prev_end = s + lit.len();
            }
            None => {
                if !cut_fits(&k[prev_end..], gap, lit, key.marked_cut) {
                    return None;
                }
                cut = true;
                if gap == Some(Gap::Any) {
                    wrap = Some((prev_end, k.len()));
                }
                break;
            }
        }
    }
    if !cut && f.trailing == Some(Gap::Any) {
        wrap = Some((prev_end, k.len()));
    } else if !cut
        && prev_end < k.len()
        && f.trailing
            .is_some_and(|g| !g.admits_start(&k[prev_end..prev_end + 1]))
    {
        // A trailing number that is not there: this is not the format.
        return None;
    }
    let first = pos.iter().position(Option::is_some)?;
    let start = pos[first].map(|p| p.0)?;
    let starts_format = first == 0 && lits[0].gap_before.is_none();
    let literal_len = pos.iter().flatten().map(|(s, e)| e - s).sum();
    Some(FormatMatch {
        format: fi,
        start,
        end: prev_end,
        literal_len,
        cut: cut || (key.marked_cut && f.trailing.is_some() && prev_end >= k.len()),
        wrap,
        starts_format,
    })
}

/// Every format that matches somewhere in the message, each at its leftmost verified place per
/// anchor occurrence.
pub fn matches(key: &MsgKey) -> Vec<FormatMatch> {
    let fc = formats();
    let mut out: Vec<FormatMatch> = Vec::new();
    let mut budget = MAX_VERIFY;
    fc.anchors_in(&key.key, |fi, start| {
        if budget == 0 {
            return;
        }
        budget -= 1;
        if let Some(found) = verify(fc, fi, key, start) {
            if !out
                .iter()
                .any(|o| o.format == found.format && o.start == found.start)
            {
                out.push(found);
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(text: &str) -> Vec<String> {
        let fc = formats();
        let key = MsgKey::new(text);
        matches(&key)
            .iter()
            .map(|m| {
                let f = fc.format(m.format);
                format!("{} {}", fc.family_of(&f).file, f.at)
            })
            .collect()
    }

    #[test]
    fn a_kubelet_event_finds_its_layers() {
        let m = matched("MountVolume.SetUp failed for volume \"pvc-1\" : rpc error: code = Internal desc = mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.0.0.1:/x /var/lib/kubelet/pods/u/volumes/kubernetes.io~csi/pvc-1/mount\nOutput: mount.nfs: access denied by server while mounting 10.0.0.1:/x");
        let joined = m.join("\n");
        assert!(
            joined.contains("kubelet pkg/volume/util/operationexecutor/operation_generator.go"),
            "{joined}"
        );
        assert!(
            joined.contains("grpc-go internal/status/status.go:202"),
            "{joined}"
        );
        assert!(joined.contains("nfs-utils"), "{joined}");
    }

    #[test]
    fn a_number_verb_needs_a_number() {
        // util-linux / mount-utils "exit status %d" is too generic to anchor; a format with a
        // %d after its anchor must find digits there.
        let key = MsgKey::new("mount error(13): Permission denied");
        assert!(!matches(&key).is_empty());
    }

    #[test]
    fn a_message_cut_short_matches_up_to_the_cut() {
        let fc = formats();
        let full = "mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs a:/b /c Output: x";
        let cut = "mount failed: exit status 32 Mounting command: mount Mounting arg...";
        let f = |t: &str| {
            matches(&MsgKey::new(t))
                .into_iter()
                .filter(|m| {
                    fc.format(m.format)
                        .text
                        .starts_with("mount failed: %v Mounting command")
                })
                .map(|m| m.cut)
                .collect::<Vec<_>>()
        };
        assert_eq!(f(full).first(), Some(&false));
        assert_eq!(f(cut).first(), Some(&true));
    }
}
