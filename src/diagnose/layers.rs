//! A message split into the layers that printed it, outermost first: the kubelet's
//! `MountVolume.SetUp failed for volume "x" : ` wraps a CSI driver's gRPC status (`rpc error:
//! code = Internal desc = `), which wraps the driver's `mount failed: %v ... Output: %s`, which
//! wraps mount(8)'s line, which may quote the kernel. A layer is the span a format string of the
//! catalogue matched (format_match.rs); what its wrapping verb captured is searched for the next
//! layer (or, for a format with no such verb, what follows it). Text before a layer that no
//! format string matched is an unknown layer: it is counted, and never hides the known one
//! inside it. The innermost layer whose meaning is a cause decides; with none, the innermost
//! `symptom` layer stands for its program's symptom cause. Pure.

use super::format_catalogue::{formats, Means};
use super::format_match::{matches, FormatMatch, MsgKey};
pub use crate::model::report::PrintedBy;

/// What one layer means: the meanings of the format strings that matched it.
#[derive(Debug, Clone, PartialEq)]
pub enum LayerMeaning {
    /// Printed when one of these causes is the cause (more than one when the same text is
    /// printed by several programs that say different things). `shared`: another program
    /// prints the same text without naming this cause (a symptom, another cause), so the text
    /// alone cannot tell them apart.
    Causes { causes: Vec<usize>, shared: bool },
    /// Says that something failed: its program's symptom cause (`None`: not a cause id).
    Symptom(Option<usize>),
    /// Carries a layer below.
    Wraps,
}

/// One layer of a message.
#[derive(Debug, Clone)]
pub struct Layer {
    /// The format strings that matched it, best first: the same span and the same literal
    /// text (the same string in several programs) are all named.
    pub formats: Vec<usize>,
    /// Byte range in the message.
    pub span: (usize, usize),
    /// The message ended before the format's last literal.
    pub cut: bool,
    /// The format ends in a literal, and the same line goes on with a word right after it
    /// (`access denied` of `access denied by serve...`): the words may be the start of a longer
    /// string that printed them (one cut short, or not in the catalogue), so what the format
    /// means is less sure.
    pub continues: bool,
    pub meaning: LayerMeaning,
    /// How deep it is: a layer inside another's wrapping verb (or after a `wraps` format with
    /// none, kubelet's `PREFIX for volume "X" : ERR`) is one deeper; a message that merely
    /// follows another (the next line of a kernel log) is as deep as it.
    pub depth: usize,
}

/// Text that says something and that no format string matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// The layer it is inside (`None`: it is the outermost).
    pub inside: Option<usize>,
    /// Byte range in the message.
    pub span: (usize, usize),
}

/// A message's layers, outermost first, and its unknown ones.
#[derive(Debug, Clone, Default)]
pub struct Layers {
    pub layers: Vec<Layer>,
    pub unknown: Vec<Unknown>,
}

/// Which layer decides, and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub layer: usize,
    pub causes: Vec<usize>,
    /// Decided by a `symptom` layer (its program's symptom cause), not by a cause meaning.
    pub by_symptom: bool,
    /// Other programs print the same text without meaning these causes.
    pub shared: bool,
    /// The deciding layer was cut short, or its line goes on past it ([`Layer::continues`]).
    pub cut: bool,
}

/// Words that decorate a message without being one (an event's or a log's frame).
const FRAME_WORDS: &[&str] = &[
    "warning",
    "normal",
    "kubelet",
    "failedmount",
    "failedattachvolume",
    "failedmapvolume",
    "error",
    "err",
    "msg",
    "level",
    "info",
    "for",
    "volume",
    "pod",
    "the",
    "and",
    "node",
    "from",
    "failed",
    "with",
    "events",
    "type",
    "reason",
    "age",
    "message",
    "unable",
    "uid",
];

/// Whether a piece of a message says something of its own (three words that are not names,
/// quotes, numbers or an event's frame), rather than joining two layers (` for volume "x" : `).
pub fn says_something(s: &str) -> bool {
    let mut in_quote = false;
    let mut words = 0;
    let mut cur = String::new();
    let mut flush = |w: &mut String| {
        if w.len() >= 3
            && w.chars().all(|c| c.is_ascii_alphabetic())
            && !FRAME_WORDS.contains(&w.to_ascii_lowercase().as_str())
        {
            words += 1;
        }
        w.clear();
    };
    let mut prev = ' ';
    for c in s.chars() {
        if c == '"' && prev != '\\' {
            in_quote = !in_quote;
            flush(&mut cur);
        } else if in_quote {
        } else if c.is_whitespace()
            || matches!(c, ':' | ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '=')
        {
            flush(&mut cur);
        } else if c.is_ascii_alphabetic() || !cur.is_empty() {
            cur.push(c);
        }
        prev = c;
    }
    flush(&mut cur);
    words >= 3
}

/// The best match starting first in key range `(ks, ke)`, and those equal to it. Inside
/// another layer (`inner`), a format that is a message of its own does not start in the middle
/// of words: `multipath device not found` is not what printed `registered multipath device not
/// found`.
fn first_in<'a>(
    found: &'a [FormatMatch],
    key: &[u8],
    (ks, ke): (usize, usize),
    inner: bool,
) -> Vec<&'a FormatMatch> {
    let glued = |m: &FormatMatch| {
        inner && m.starts_format && m.start > ks && key[m.start - 1].is_ascii_alphanumeric()
    };
    let inside: Vec<&FormatMatch> = found
        .iter()
        .filter(|m| m.start >= ks && m.start < ke && m.end <= ke && !glued(m))
        .collect();
    let Some(start) = inside.iter().map(|m| m.start).min() else {
        return Vec::new();
    };
    // The formats that start first, and those that start inside what they matched: two
    // readings of the same words, of which the one with more literal text wins (an optional
    // prefix's `: ` must not let libmount's `mount: %s: mount failed: %m` start before, and
    // so beat, mount-utils' `mount failed: %v Mounting command: %s ... Output: %s`).
    let first_end = inside
        .iter()
        .filter(|m| m.start == start)
        .max_by_key(|m| (m.literal_len, std::cmp::Reverse(m.end)))
        .map_or(start, |m| m.end);
    let rivals: Vec<&FormatMatch> = inside
        .into_iter()
        .filter(|m| m.start == start || m.start < first_end)
        .collect();
    let best = rivals.iter().map(|m| m.literal_len).max().unwrap_or(0);
    let Some(at) = rivals
        .iter()
        .filter(|m| m.literal_len == best)
        .map(|m| m.start)
        .min()
    else {
        return Vec::new();
    };
    rivals
        .into_iter()
        .filter(|m| m.literal_len == best && m.start == at)
        .collect()
}

fn meaning_of(group: &[&FormatMatch]) -> LayerMeaning {
    let fc = formats();
    let mut causes: Vec<usize> = Vec::new();
    let mut symptom = None;
    let mut any_symptom = false;
    let mut wraps = false;
    for m in group {
        let f = fc.format(m.format);
        match f.means {
            Means::Cause(c) => {
                if !causes.contains(&c) {
                    causes.push(c);
                }
            }
            Means::Symptom => {
                if !any_symptom {
                    any_symptom = true;
                    symptom = fc.family_of(&f).symptom_cause;
                }
            }
            Means::Wraps => wraps = true,
        }
    }
    if !causes.is_empty() {
        LayerMeaning::Causes {
            shared: causes.len() > 1 || any_symptom || wraps,
            causes,
        }
    } else if any_symptom {
        LayerMeaning::Symptom(symptom)
    } else {
        LayerMeaning::Wraps
    }
}

/// Whether the line goes on with a word at byte `at` (after spaces, not after a line break).
fn goes_on(text: &str, at: usize) -> bool {
    let before = &text[..at.min(text.len())];
    let gap = &before[before.trim_end().len()..];
    !gap.contains('\n')
        && text[at.min(text.len())..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
}

/// Where a program's layer stands on the way of a volume to a pod, from the top: what wraps
/// what.
fn rank(layer: &str) -> u8 {
    match layer {
        "kubelet" | "controller" => 0,
        "sidecar" => 1,
        "grpc" => 2,
        "driver" => 3,
        "mount" | "tool" => 4,
        "storage" => 5,
        _ => 6,
    }
}

/// Split a (normalised) message into its layers.
pub fn split(text: &str) -> Layers {
    let key = MsgKey::new(text);
    if key.key.is_empty() {
        return Layers::default();
    }
    let found = matches(&key);
    let mut out = Layers::default();
    let (mut ks, mut ke) = (0, key.key.len());
    let fc = formats();
    let mut depth = 0;
    loop {
        let mut group = first_in(&found, &key.key, (ks, ke), depth > 0);
        let inside = out.layers.len().checked_sub(1);
        let Some(first) = group.first().copied() else {
            let (s, e) = key.text_range((ks, ke));
            if s < e && says_something(&text[s..e]) {
                out.unknown.push(Unknown {
                    inside,
                    span: (s, e),
                });
            }
            break;
        };
        if first.start > ks {
            let (s, e) = key.text_range((ks, first.start));
            if s < e && says_something(&text[s..e]) {
                out.unknown.push(Unknown {
                    inside,
                    span: (s, e),
                });
            }
        }
        // A layer is printed by a program below the one around it: of equal candidates, those
        // of a lower layer than the enclosing one (mount.nfs quotes strerror's "Permission
        // denied", not another mount's).
        if let Some(outer) = out.layers.last() {
            let r = rank(fc.family_of(&fc.format(outer.formats[0])).layer);
            if group
                .iter()
                .any(|m| rank(fc.family_of(&fc.format(m.format)).layer) > r)
            {
                group.retain(|m| rank(fc.family_of(&fc.format(m.format)).layer) > r);
            }
        }
        // Behind a gRPC status, a driver's status string before the same text logged.
        let behind_grpc = out
            .layers
            .last()
            .and_then(|l| l.formats.first())
            .is_some_and(|&f| fc.family_of(&fc.format(f)).layer == "grpc");
        if behind_grpc {
            group.sort_by_key(|m| !fc.format(m.format).grpc);
        }
        let meaning = meaning_of(&group);
        let span = key.text_range((first.start, first.end));
        let wraps_what_follows = first.wrap.is_none() && meaning == LayerMeaning::Wraps;
        out.layers.push(Layer {
            formats: group.iter().map(|m| m.format).collect(),
            span,
            cut: group.iter().all(|m| m.cut),
            continues: first.wrap.is_none()
                && fc.format(first.format).trailing.is_none()
                && goes_on(text, span.1),
            meaning,
            depth,
        });
        // What it wraps: its wrapping verb's capture, or (a `wraps` format with no such verb)
        // what follows it; else what follows is a message of its own, as deep as this one.
        let (ns, ne) = match first.wrap {
            Some((s, e)) => {
                depth += 1;
                (s, e.min(ke))
            }
            None => {
                if wraps_what_follows {
                    depth += 1;
                }
                (first.end, ke)
            }
        };
        if ns >= ne || (ns, ne) == (ks, ke) || ns < ks {
            break;
        }
        (ks, ke) = (ns, ne);
    }
    out
}

impl Layers {
    /// The innermost layer whose meaning is a cause (of messages as deep, the first: a
    /// kernel's first line says why, the next ones what followed); with none, the innermost
    /// `symptom` layer (its program's symptom cause).
    pub fn decision(&self) -> Option<Decision> {
        let deepest = |want: &dyn Fn(&LayerMeaning) -> Option<Vec<usize>>| {
            let mut best: Option<(usize, Vec<usize>)> = None;
            for (i, l) in self.layers.iter().enumerate() {
                if let Some(c) = want(&l.meaning) {
                    if best
                        .as_ref()
                        .is_none_or(|(b, _)| l.depth > self.layers[*b].depth)
                    {
                        best = Some((i, c));
                    }
                }
            }
            best
        };
        if let Some((i, causes)) = deepest(&|m| match m {
            LayerMeaning::Causes { causes, .. } => Some(causes.clone()),
            _ => None,
        }) {
            return Some(Decision {
                layer: i,
                shared: matches!(
                    self.layers[i].meaning,
                    LayerMeaning::Causes { shared: true, .. }
                ),
                causes,
                by_symptom: false,
                cut: self.layers[i].cut || self.layers[i].continues,
            });
        }
        deepest(&|m| match m {
            LayerMeaning::Symptom(Some(c)) => Some(vec![*c]),
            _ => None,
        })
        .map(|(i, causes)| Decision {
            layer: i,
            causes,
            by_symptom: true,
            shared: false,
            cut: self.layers[i].cut,
        })
    }

    /// Every layer has a format string (and there is at least one).
    pub fn all_known(&self) -> bool {
        !self.layers.is_empty() && self.unknown.is_empty()
    }

    /// The format strings that printed the message, outermost first.
    pub fn printed_by(&self) -> Vec<PrintedBy> {
        let fc = formats();
        let mut out: Vec<PrintedBy> = Vec::new();
        for (li, l) in self.layers.iter().enumerate() {
            for &fi in &l.formats {
                let f = fc.format(fi);
                let fam = fc.family_of(&f);
                let p = PrintedBy {
                    program: fam.program.to_string(),
                    version: fam.version.to_string(),
                    at: f.at.to_string(),
                    layer: fam.layer.to_string(),
                    means: f.means_id.to_string(),
                    layer_index: li,
                };
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The program of the layer around an unknown one (`-` when it is the outermost).
    pub fn program_around(&self, u: &Unknown) -> &'static str {
        let fc = formats();
        u.inside
            .and_then(|i| self.layers.get(i))
            .and_then(|l| l.formats.first())
            .map_or("-", |&f| fc.family_of(&fc.format(f)).program)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::catalogue::catalogue;

    fn programs(l: &Layers) -> Vec<&'static str> {
        let fc = formats();
        l.layers
            .iter()
            .map(|x| fc.family_of(&fc.format(x.formats[0])).program)
            .collect()
    }

    #[test]
    fn kubelet_wraps_grpc_wraps_mount_wraps_the_helper() {
        let l = split("MountVolume.SetUp failed for volume \"pvc-1\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.1:/x /var/lib/kubelet/pods/u/volumes/kubernetes.io~csi/pvc-1/mount Output: mount.nfs: access denied by server while mounting 10.0.0.1:/x");
        let p = programs(&l);
        assert_eq!(p.first(), Some(&"kubelet"), "{p:?}");
        assert!(p.contains(&"grpc-go"), "{p:?}");
        assert_eq!(p.last(), Some(&"mount.nfs"), "{p:?}");
        let d = l.decision().expect("a layer decides");
        assert_eq!(
            catalogue().causes[d.causes[0]].id,
            "nfs_access_denied",
            "{:?}",
            l.printed_by()
        );
        assert!(l.all_known(), "{:?}", l.unknown);
    }

    #[test]
    fn an_unknown_layer_around_a_known_one_does_not_hide_it() {
        let l = split("frobnicator reconcile loop gave up on volume pvc-9 after retries: mount.nfs: access denied by server while mounting 10.0.0.1:/x");
        let d = l.decision().expect("the known layer decides");
        assert_eq!(catalogue().causes[d.causes[0]].id, "nfs_access_denied");
        assert_eq!(l.unknown.len(), 1);
        assert_eq!(l.program_around(&l.unknown[0]), "-");
    }

    #[test]
    fn joining_words_are_not_a_layer() {
        assert!(!says_something(" for volume \"pvc-1\" : "));
        assert!(says_something("frobnicator reconcile loop gave up"));
    }
}
