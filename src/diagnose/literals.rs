//! The words a pattern cannot match without: for each catalogue regex, a set of literals one of
//! which every match contains (ASCII, compared ignoring ASCII case). A message that has none of
//! a pattern's literals cannot match it, so most of the catalogue is ruled out by one
//! Aho-Corasick pass before any regex runs. Beyond that one set, the whole of what a pattern
//! needs ([`Need`]: this literal and that one, or one of these) is checked against the literals
//! the pass found before the pattern is tried: `format of disk \S+ failed` is not tried on a
//! message that has ` failed` but not `format of disk `.
//!
//! The answer must never rule out a pattern that matches: everything here errs towards "no
//! requirement" (the pattern is then always tried). Case-insensitive letters are classes in the
//! regex's syntax tree; a class that is one ASCII letter in both cases (with the Unicode forms
//! that fold to it, the Kelvin sign for `k` and the long s for `s`) counts as that letter, and
//! the text is searched with those two forms mapped to their letters ([`fold_to_ascii`]).

use regex_syntax::hir::{Class, Hir, HirKind};

/// Literals shorter than this are too common to rule anything out.
const MIN_LITERAL: usize = 3;

/// The literals one of which every match of `pattern` contains, lowercased; `Ok(None)` when no
/// useful set is known (the pattern must always be tried); an error when it is no regex.
pub fn required_literals(pattern: &str) -> Result<Option<Vec<String>>, String> {
    Ok(literal_needs(pattern)?.one_of())
}

/// What every match of `pattern` needs in literals (lowercased); [`Need::NOTHING`] when nothing
/// useful is known; an error when it is no regex.
pub fn literal_needs(pattern: &str) -> Result<Need, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())?;
    Ok(need(&hir))
}

/// What a text must contain for a pattern to match in it: a literal (`L`: the literal, or its
/// index), all of some needs, or one of them. Only literals of at least [`MIN_LITERAL`] bytes
/// appear; `All` of nothing is no need at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need<L = String> {
    Lit(L),
    All(Vec<Need<L>>),
    Any(Vec<Need<L>>),
}

impl<L> Need<L> {
    /// Nothing known: the pattern may match any text.
    pub const NOTHING: Need<L> = Need::All(Vec::new());

    fn is_nothing(&self) -> bool {
        matches!(self, Need::All(v) if v.is_empty())
    }

    /// Whether a text holding the literals `found` says it holds may match.
    pub fn holds(&self, found: &impl Fn(&L) -> bool) -> bool {
        match self {
            Need::Lit(l) => found(l),
            Need::All(v) => v.iter().all(|n| n.holds(found)),
            Need::Any(v) => v.iter().any(|n| n.holds(found)),
        }
    }

    /// The same need with each literal replaced by `f` of it (its index, say).
    pub fn map<M>(self, f: &mut impl FnMut(L) -> M) -> Need<M> {
        match self {
            Need::Lit(l) => Need::Lit(f(l)),
            Need::All(v) => Need::All(v.into_iter().map(|n| n.map(f)).collect()),
            Need::Any(v) => Need::Any(v.into_iter().map(|n| n.map(f)).collect()),
        }
    }

    /// All of `parts`, without the parts that need nothing and with nested `All`s flattened.
    fn all(parts: Vec<Need<L>>) -> Need<L> {
        Need::joined(parts, true)
    }

    /// One of `parts`: nothing when one of them needs nothing (or there are none).
    fn any(parts: Vec<Need<L>>) -> Need<L> {
        if parts.is_empty() || parts.iter().any(Need::is_nothing) {
            return Need::NOTHING;
        }
        Need::joined(parts, false)
    }

    /// `parts` as one `All` (or one `Any`), the parts that are themselves an `All` (an `Any`)
    /// flattened into it (an empty `All`, nothing, then disappears); a single part stands alone.
    fn joined(parts: Vec<Need<L>>, all: bool) -> Need<L> {
        let mut v = Vec::new();
        for p in parts {
            match p {
                Need::All(inner) if all => v.extend(inner),
                Need::Any(inner) if !all => v.extend(inner),
                p => v.push(p),
            }
        }
        match (v.len(), all) {
            (1, _) => v.pop().expect("one part"),
            (_, true) => Need::All(v),
            (_, false) => Need::Any(v),
        }
    }
}

impl Need {
    /// A literal of at least the minimum length, or nothing.
    fn lit(l: String) -> Need {
        if l.len() < MIN_LITERAL {
            Need::NOTHING
        } else {
            Need::Lit(l)
        }
    }

    /// A set of literals one of which every match contains, the one that rules out most alone
    /// ([`better`]), sorted; `None` when there is none.
    pub fn one_of(&self) -> Option<Vec<String>> {
        let mut set = self.one_set()?;
        set.sort();
        set.dedup();
        Some(set)
    }

    fn one_set(&self) -> Option<Vec<String>> {
        match self {
            Need::Lit(l) => Some(vec![l.clone()]),
            Need::Any(v) => {
                let mut all = Vec::new();
                for n in v {
                    all.extend(n.one_set()?);
                }
                Some(all)
            }
            Need::All(v) => {
                let mut best: Option<Vec<String>> = None;
                for set in v.iter().filter_map(Need::one_set) {
                    if better(&set, best.as_deref()) {
                        best = Some(set);
                    }
                }
                best
            }
        }
    }
}

/// The ASCII text (lowercased) an item of a concatenation always is: a literal, or a
/// one-letter case class; `None` for anything else, which breaks a run of text.
fn piece(h: &Hir) -> Option<String> {
    match h.kind() {
        HirKind::Literal(l) if l.0.is_ascii() => {
            Some(String::from_utf8_lossy(&l.0).to_ascii_lowercase())
        }
        HirKind::Class(c) => one_ascii_char(c).map(|b| (b as char).to_string()),
        _ => None,
    }
}

/// The characters outside ASCII that Unicode simple case folding maps to an ASCII letter, and
/// that letter (CaseFolding.txt, status C/S: KELVIN SIGN and LATIN SMALL LETTER LONG S). A
/// case-insensitive `k` or `s` matches them; [`fold_to_ascii`] maps them before the literals
/// are searched, so a required literal is found whichever form the text uses.
pub const FOLDS_TO_ASCII: [(char, u8); 2] = [('\u{212A}', b'k'), ('\u{17F}', b's')];

/// The text with [`FOLDS_TO_ASCII`] replaced by their ASCII letters.
pub fn fold_to_ascii(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() || !text.contains(['\u{212A}', '\u{17F}']) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.replace('\u{212A}', "k").replace('\u{17F}', "s"))
}

/// The ASCII character a class stands for when it is one character in its ASCII cases, plus
/// only the non-ASCII forms that fold to it ([`FOLDS_TO_ASCII`]); `None` for any other class.
fn one_ascii_char(c: &Class) -> Option<u8> {
    let mut found: Option<u8> = None;
    let mut folded: Vec<u8> = Vec::new();
    let mut add = |ch: u32| -> bool {
        if ch >= 0x80 {
            return match FOLDS_TO_ASCII.iter().find(|(c, _)| *c as u32 == ch) {
                Some((_, b)) => {
                    folded.push(*b);
                    true
                }
                None => false,
            };
        }
        let b = (ch as u8).to_ascii_lowercase();
        match found {
            None => {
                found = Some(b);
                true
            }
            Some(f) => f == b,
        }
    };
    let all = match c {
        Class::Unicode(u) => u.ranges().iter().all(|r| {
            (r.end() as u32) - (r.start() as u32) <= 4
                && (r.start() as u32..=r.end() as u32).all(&mut add)
        }),
        Class::Bytes(b) => b
            .ranges()
            .iter()
            .all(|r| r.end() - r.start() <= 4 && (r.start()..=r.end()).all(|ch| add(ch as u32))),
    };
    let found = found.filter(|_| all)?;
    // A folded form must fold to the class's own letter.
    folded.iter().all(|&b| b == found).then_some(found)
}

/// What every match of `h` needs.
fn need(h: &Hir) -> Need {
    match h.kind() {
        HirKind::Literal(l) => match std::str::from_utf8(&l.0) {
            Ok(s) if s.is_ascii() => Need::lit(s.to_ascii_lowercase()),
            _ => Need::NOTHING,
        },
        HirKind::Class(c) => {
            one_ascii_char(c).map_or(Need::NOTHING, |b| Need::lit((b as char).to_string()))
        }
        HirKind::Capture(c) => need(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => need(&r.sub),
        HirKind::Alternation(alts) => Need::any(alts.iter().map(need).collect()),
        HirKind::Concat(items) => {
            // Each run of plain text, and what each other item needs.
            let mut parts = Vec::new();
            let mut run = String::new();
            for item in items {
                match piece(item) {
                    Some(text) => run.push_str(&text),
                    None => {
                        if !run.is_empty() {
                            parts.push(Need::lit(std::mem::take(&mut run)));
                        }
                        parts.push(need(item));
                    }
                }
            }
            if !run.is_empty() {
                parts.push(Need::lit(run));
            }
            Need::all(parts)
        }
        _ => Need::NOTHING,
    }
}

/// Whether `a` rules out more than `b`: its shortest literal is longer (ties: fewer literals).
fn better(a: &[String], b: Option<&[String]>) -> bool {
    let shortest = |s: &[String]| s.iter().map(String::len).min().unwrap_or(0);
    match b {
        None => true,
        Some(b) => {
            let (la, lb) = (shortest(a), shortest(b));
            la > lb || (la == lb && a.len() < b.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(p: &str) -> Option<Vec<String>> {
        required_literals(p).unwrap()
    }

    #[test]
    fn a_pattern_that_is_no_regex_is_an_error() {
        assert!(required_literals("(mount").is_err());
    }

    #[test]
    fn the_longest_literal_of_a_concatenation() {
        assert_eq!(
            lits(r"(?i)mount(ing)? failed: exit status 32"),
            Some(vec![" failed: exit status 32".into()])
        );
        assert_eq!(
            lits(r"(?i)rbd: image \S+ is locked"),
            Some(vec!["rbd: image ".into()])
        );
    }

    #[test]
    fn alternations_give_one_of_several() {
        assert_eq!(
            lits(r"(?i)(no such file|not found) for nfs"),
            Some(vec![" for nfs".into()])
        );
        assert_eq!(
            lits(r"(?i)(no such file|cannot find)"),
            Some(vec!["cannot find".into(), "no such file".into()])
        );
        // One alternative without a literal: nothing is required.
        assert_eq!(lits(r"(?i)(ENOENT|\d+)"), None);
    }

    #[test]
    fn optional_parts_and_short_words_require_nothing() {
        assert_eq!(lits(r"(?i)(mount failed)?"), None);
        assert_eq!(lits(r"(?i)(mount failed)*x"), None);
        assert_eq!(lits(r"\d+ ms"), Some(vec![" ms".into()]));
        assert_eq!(lits(r"\d+ s"), None);
        assert_eq!(lits(r"(?i)(EIO|ok)"), None);
        // Repeated at least once: required.
        assert_eq!(
            lits(r"(?i)(mount failed)+"),
            Some(vec!["mount failed".into()])
        );
    }

    #[test]
    fn case_insensitive_letters_with_unicode_folds_count_as_ascii() {
        // (?i)k is [Kk\u{212A}], (?i)s is [Ss\u{17F}].
        assert_eq!(lits(r"(?i)disk"), Some(vec!["disk".into()]));
        assert_eq!(lits(r"[Dd]isk"), Some(vec!["disk".into()]));
        // A class of many letters is no literal.
        assert_eq!(lits(r"[a-z]isk"), Some(vec!["isk".into()]));
        // Non-ASCII literal text is not used, nor a class with other non-ASCII members.
        assert_eq!(lits(r"é"), None);
        assert_eq!(lits(r"[eé]tat"), Some(vec!["tat".into()]));
        assert_eq!(fold_to_ascii("DIS\u{212A} bu\u{17F}y"), "DISk busy");
    }

    fn need(p: &str) -> Need {
        literal_needs(p).unwrap()
    }

    fn lit(l: &str) -> Need {
        Need::Lit(l.into())
    }

    #[test]
    fn a_concatenation_needs_all_its_parts() {
        assert_eq!(
            need(r"(?i)mount(ing)? failed: exit status 32"),
            Need::All(vec![lit("mount"), lit(" failed: exit status 32")])
        );
        assert_eq!(
            need(r"(?i)rbd: image \S+ is locked"),
            Need::All(vec![lit("rbd: image "), lit(" is locked")])
        );
        // Nested concatenations are one conjunction; short words and optional parts need
        // nothing.
        assert_eq!(
            need(r"(?i)(format of (disk)) \S+ ok (failed)?"),
            Need::All(vec![lit("format of "), lit("disk"), lit(" ok ")])
        );
        assert_eq!(need(r"\d+ s"), Need::NOTHING);
    }

    #[test]
    fn an_alternation_needs_one_alternative() {
        assert_eq!(
            need(r"(?i)format of disk \S+ failed|mkfs\.\w+ failed|failed to format"),
            Need::Any(vec![
                Need::All(vec![lit("format of disk "), lit(" failed")]),
                Need::All(vec![lit("mkfs."), lit(" failed")]),
                lit("failed to format"),
            ])
        );
        // One alternative that needs nothing: the alternation needs nothing.
        assert_eq!(need(r"(?i)(ENOENT|\d+) in /dev"), lit(" in /dev"));
        assert_eq!(need(r"(?i)(EIO|ok)"), Need::NOTHING);
        // The set one of which is in every match: each alternative's best, together.
        assert_eq!(
            need(r"(?i)format of disk \S+ failed|mkfs\.\w+ failed|failed to format").one_of(),
            Some(vec![
                " failed".into(),
                "failed to format".into(),
                "format of disk ".into()
            ])
        );
    }

    #[test]
    fn a_need_holds_when_its_literals_are_found() {
        let n = need(r"(?i)format of disk \S+ failed|mkfs\.\w+ failed|failed to format");
        let holds = |found: &[&str]| n.holds(&|l: &String| found.contains(&l.as_str()));
        assert!(!holds(&[" failed"]));
        assert!(!holds(&["format of disk "]));
        assert!(holds(&["format of disk ", " failed"]));
        assert!(holds(&["mkfs.", " failed"]));
        assert!(holds(&["failed to format"]));
        // Nothing known: holds on any text.
        assert!(Need::<String>::NOTHING.holds(&|_| false));
        // By index, as the catalogue keeps it.
        let mut ids = Vec::new();
        let by_id = n.clone().map(&mut |l| {
            ids.push(l);
            ids.len() - 1
        });
        assert!(by_id.holds(&|&i| ids[i] == "failed to format"));
        assert!(!by_id.holds(&|&i| ids[i] == "mkfs."));
    }

    #[test]
    fn every_match_holds_its_need() {
        // The property itself, on patterns of the catalogue's kinds and texts that match them:
        // the literals found in the text satisfy the need.
        let cases = [
            (
                r"(?i)mount(ing)? failed: exit status 32",
                "MOUNTING FAILED: Exit status 32",
            ),
            (
                r"(?i)format of disk \S+ failed|mkfs\.\w+ failed|failed to format",
                "mkfs.xfs FAILED",
            ),
            (
                r"(?i)an operation with the given Volume ID \S+ already exists|operation (is )?(already )?(pending|in progress) for volume",
                "Operation already in progress for volume x",
            ),
            (r"(?i)avc: *denied|apparmor=.DENIED.", "AVC:  denied"),
            (r"(?i)\bdisk\b.*busy", "DIS\u{212A} is bu\u{17F}y"),
            (r"(?i)(foo|bar)baz(qux)?", "BARBAZ"),
        ];
        for (p, t) in cases {
            let re = regex::Regex::new(p).unwrap();
            assert!(re.is_match(t), "{p} {t}");
            let lower = fold_to_ascii(t).to_ascii_lowercase();
            assert!(
                need(p).holds(&|l: &String| lower.contains(l.as_str())),
                "{p}: {:?}",
                need(p)
            );
        }
    }

    #[test]
    fn every_match_contains_a_required_literal() {
        // The property itself, on patterns of the catalogue's kinds and texts that match them.
        let cases = [
            (
                r"(?i)mount(ing)? failed: exit status 32",
                "MOUNTING FAILED: Exit status 32",
            ),
            (
                r"(?i)(no such file|cannot find) .*mount\.nfs",
                "Cannot find /sbin/mount.nfs",
            ),
            (r"(?i)\bdisk\b.*busy", "DISK \u{212A} is busy"),
            (r"(?i)disk is busy", "DI\u{17F}\u{212A} is bu\u{17F}y"),
            (r"(?i)(foo|bar)baz(qux)?", "BARBAZ"),
        ];
        for (p, t) in cases {
            let re = regex::Regex::new(p).unwrap();
            assert!(re.is_match(t), "{p} {t}");
            let set = lits(p).unwrap();
            let lower = fold_to_ascii(t).to_ascii_lowercase();
            assert!(
                set.iter().any(|l| lower.contains(l.as_str())),
                "{p}: {set:?}"
            );
        }
    }
}
