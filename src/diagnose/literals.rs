//! The words a pattern cannot match without: for each catalogue regex, a set of literals one of
//! which every match contains (ASCII, compared ignoring ASCII case). A message that has none of
//! a pattern's literals cannot match it, so most of the catalogue is ruled out by one
//! Aho-Corasick pass before any regex runs.
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
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())?;
    Ok(required(&hir).and_then(useful))
}

fn useful(mut set: Vec<String>) -> Option<Vec<String>> {
    if set.is_empty() || set.iter().any(|s| s.len() < MIN_LITERAL) {
        return None;
    }
    set.sort();
    set.dedup();
    Some(set)
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
    if !text.contains(['\u{212A}', '\u{17F}']) {
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

/// A set of literals one of which every match of `h` contains.
fn required(h: &Hir) -> Option<Vec<String>> {
    match h.kind() {
        HirKind::Literal(l) => {
            let s = std::str::from_utf8(&l.0).ok()?;
            s.is_ascii().then(|| vec![s.to_ascii_lowercase()])
        }
        HirKind::Class(c) => one_ascii_char(c).map(|b| vec![(b as char).to_string()]),
        HirKind::Capture(c) => required(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        HirKind::Alternation(alts) => {
            let mut all = Vec::new();
            for a in alts {
                all.extend(required(a)?);
            }
            Some(all)
        }
        HirKind::Concat(items) => {
            let mut best: Option<Vec<String>> = None;
            let mut consider = |set: Vec<String>| {
                if better(&set, best.as_deref()) {
                    best = Some(set);
                }
            };
            let mut run = String::new();
            for item in items {
                match piece(item) {
                    Some(text) => run.push_str(&text),
                    None => {
                        if !run.is_empty() {
                            consider(vec![std::mem::take(&mut run)]);
                        }
                        if let Some(set) = required(item) {
                            consider(set);
                        }
                    }
                }
            }
            if !run.is_empty() {
                consider(vec![run]);
            }
            best
        }
        _ => None,
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
