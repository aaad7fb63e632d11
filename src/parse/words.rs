//! Is one of a few words in a text, ASCII case-insensitively? The question every line of a big
//! kubelet log is asked (is it about a volume, is it a failure), so it has to cost about what a
//! case-sensitive literal search costs.
//!
//! The text is folded to lowercase (ASCII letters only, every other byte kept) into a small
//! buffer, a block at a time, and searched there for the lowercase words with Aho-Corasick's
//! packed (SIMD, Teddy) searcher; a case-insensitive automaton has no such searcher and walks
//! its DFA byte by byte, about five times slower on a kubelet log. Because only
//! `A`-`Z` are changed and every word is written without an uppercase ASCII letter, a word
//! occurs in the folded text exactly where it occurs ASCII-case-insensitively in the text, for
//! any bytes (non-ASCII ones are compared as they are).

use aho_corasick::packed;
use regex::Regex;

/// Bytes folded and searched at a time.
const BLOCK: usize = 4096;

thread_local! {
    /// Where a block is folded: reused, so a search allocates and zeroes nothing.
    static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A set of words, searched ASCII case-insensitively.
#[derive(Debug)]
pub struct Words {
    searcher: packed::Searcher,
    /// Length of the longest word: consecutive blocks overlap by one less, so a word that
    /// straddles two blocks is whole in one of them.
    longest: usize,
}

impl Words {
    /// `words` must not contain uppercase ASCII letters (they would never match) and must not
    /// be empty.
    pub fn new(words: &[&str]) -> Words {
        assert!(
            words
                .iter()
                .all(|w| !w.is_empty() && !w.bytes().any(|b| b.is_ascii_uppercase())),
            "words are non-empty and written in lowercase"
        );
        let longest = words.iter().map(|w| w.len()).max().expect("some words");
        assert!(longest <= BLOCK / 2, "words are short");
        let searcher = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(words)
            .build()
            .expect("a few words (at most 128)");
        Words { searcher, longest }
    }

    /// True when one of the words is in `text`, ignoring ASCII case: the same answer as an
    /// `ascii_case_insensitive` Aho-Corasick automaton of the words, faster.
    pub fn in_text(&self, text: &[u8]) -> bool {
        FOLDED.with_borrow_mut(|buf| {
            let step = BLOCK - (self.longest - 1);
            let mut start = 0;
            loop {
                let end = (start + BLOCK).min(text.len());
                buf.clear();
                buf.extend_from_slice(&text[start..end]);
                fold_ascii_in_place(buf);
                if self.searcher.find(&buf[..]).is_some() {
                    return true;
                }
                if end == text.len() {
                    return false;
                }
                start += step;
            }
        })
    }
}

/// Words matched like the regex `(?i)word|word|...`: the same answer as that regex, which folds
/// case the Unicode way. On ASCII text that is ASCII case folding, so [`Words`] answers; text
/// with other characters (where `ſ` is an `s` and the Kelvin sign a `k`) goes to the regex,
/// compiled the first time it is needed.
#[derive(Debug)]
pub struct WordSet {
    list: &'static [&'static str],
    words: Words,
    regex: std::sync::OnceLock<Regex>,
}

impl WordSet {
    pub fn new(list: &'static [&'static str]) -> WordSet {
        WordSet {
            list,
            words: Words::new(list),
            regex: std::sync::OnceLock::new(),
        }
    }

    /// `(?i)` followed by the words, escaped, as alternatives.
    pub fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            let alternatives: Vec<String> = self.list.iter().map(|w| regex::escape(w)).collect();
            Regex::new(&format!("(?i){}", alternatives.join("|"))).expect("escaped words")
        })
    }

    /// True when [`WordSet::regex`] matches `text`.
    pub fn is_match(&self, text: &str) -> bool {
        if text.is_ascii() {
            self.words.in_text(text.as_bytes())
        } else {
            self.regex().is_match(text)
        }
    }

    /// True when one of the words is in `text` ignoring ASCII case only (see [`Words`]).
    pub fn in_text_ascii_case(&self, text: &[u8]) -> bool {
        self.words.in_text(text)
    }

    /// The words, searched ignoring ASCII case only.
    pub fn ascii_case(&self) -> &Words {
        &self.words
    }
}

impl Words {
    /// Whether one of these words is in `text` and, when one is, whether one of `then`'s is
    /// too: the answers of `self.in_text(text)` and `then.in_text(text)`, folding `text` once.
    pub fn in_text_then(&self, then: &Words, text: &[u8]) -> (bool, bool) {
        if text.len() > BLOCK {
            let first = self.in_text(text);
            return (first, first && then.in_text(text));
        }
        FOLDED.with_borrow_mut(|buf| {
            buf.clear();
            buf.extend_from_slice(text);
            fold_ascii_in_place(buf);
            let first = self.searcher.find(&buf[..]).is_some();
            (first, first && then.searcher.find(&buf[..]).is_some())
        })
    }
}

/// `A`-`Z` lowered, every other byte as it is.
pub fn fold_ascii_in_place(bytes: &mut [u8]) {
    // Branch-free, so the compiler vectorises it.
    for b in bytes {
        *b |= u8::from(b.wrapping_sub(b'A') < 26) << 5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::AhoCorasick;

    const WORDS: &[&str] = &["volume", "rbd", "timed out", "can't", "still being used"];

    fn reference(text: &[u8]) -> bool {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(WORDS)
            .unwrap()
            .is_match(text)
    }

    #[test]
    fn word_set_answers_like_its_regex() {
        static LIST: &[&str] = &["fail", "timed out", "busy", "disk", "can't", "no such"];
        let set = WordSet::new(LIST);
        let plain = Regex::new(r"(?i)fail|timed out|busy|disk|can't|no such").unwrap();
        assert_eq!(set.regex().as_str(), plain.as_str());
        for t in [
            "",
            "FAILED",
            "Timed Out",
            "timed  out",
            "BUSY",
            "bu\u{17f}y",
            "DI\u{17f}\u{212a}",
            "di\u{17f}k",
            "no \u{17f}uch file",
            "Can't",
            "can\u{2019}t",
            "café disk",
            "café",
            "ok",
            "\u{212a}",
        ] {
            assert_eq!(set.is_match(t), plain.is_match(t), "{t:?}");
        }
        assert!(
            set.is_match("bu\u{17f}y"),
            "the Unicode case folding of the regex"
        );
        assert!(!set.in_text_ascii_case("bu\u{17f}y".as_bytes()));
    }

    #[test]
    fn fold_changes_only_ascii_uppercase() {
        let src: Vec<u8> = (0u8..=255).collect();
        let mut dst = src.clone();
        fold_ascii_in_place(&mut dst);
        for (s, d) in src.iter().zip(&dst) {
            assert_eq!(*d, s.to_ascii_lowercase(), "byte {s:#x}");
        }
    }

    #[test]
    fn same_answer_as_a_case_insensitive_automaton() {
        let w = Words::new(WORDS);
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"VOLUME".to_vec(),
            b"MountVolume.SetUp".to_vec(),
            b"xRbD".to_vec(),
            b"rb d".to_vec(),
            b"TIMED OUT".to_vec(),
            b"timed\0out".to_vec(),
            b"timed\x00OUT".to_vec(),
            b"CAN'T".to_vec(),
            b"can\x07t".to_vec(),
            "ſtill being uſed, \u{212A}".as_bytes().to_vec(),
            "Still Being Used é".as_bytes().to_vec(),
            b"volum".to_vec(),
            vec![0xff, b'R', b'B', b'D', 0xfe],
        ];
        // A word across every block boundary, and none at all, in long texts.
        for at in [
            0,
            1,
            BLOCK - 17,
            BLOCK - 16,
            BLOCK - 15,
            BLOCK - 3,
            BLOCK - 1,
            BLOCK,
            3 * BLOCK - 40,
        ] {
            for word in ["Still Being Used", "RBD", "can't"] {
                let mut t = vec![b'x'; 4 * BLOCK];
                t[at..at + word.len()].copy_from_slice(word.as_bytes());
                cases.push(t.clone());
                t.truncate(at + word.len());
                cases.push(t.clone());
                t.truncate(at + word.len() - 1);
                cases.push(t);
            }
        }
        cases.push(vec![b'x'; 5 * BLOCK + 7]);
        // Pseudo-random texts over an alphabet that makes the words likely.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in [3usize, 10, 40, 300, 2500, 7000] {
            for _ in 0..200 {
                let t: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        b"VvOoLlUuMmEeRrBbDd TtIiSs'Nn\0\xc5"[(seed % 30) as usize]
                    })
                    .collect();
                cases.push(t);
            }
        }
        let then = Words::new(&["mount", "'t"]);
        let then_reference = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["mount", "'t"])
            .unwrap();
        for t in &cases {
            assert_eq!(
                w.in_text(t),
                reference(t),
                "{:?}",
                String::from_utf8_lossy(t)
            );
            let first = reference(t);
            assert_eq!(
                w.in_text_then(&then, t),
                (first, first && then_reference.is_match(t)),
                "{:?}",
                String::from_utf8_lossy(t)
            );
        }
    }
}
