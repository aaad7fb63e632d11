//! Which of the catalogue's patterns a message matches, fast: the literals each pattern requires
//! rule most of them out in one pass, and the rest are tried one by one, each with its own small
//! lazy DFA compiled when first needed. The classifier's machinery, over the catalogue's plain
//! data (the patterns, and the literal needs build.rs or the loader worked out for them).

use std::collections::BTreeMap;
use std::sync::{LazyLock, OnceLock};

use regex::Regex;
#[cfg(test)]
use regex::{RegexSet, RegexSetBuilder};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::pool::Pool;
#[cfg(test)]
use regex_automata::PatternSet;
use regex_automata::{Anchored, Input, MatchKind};

use super::catalogue::{catalogue, Catalogue};
use super::literals::{literal_needs, Need};

/// Which of many regexes match a text: the answer of `RegexSet::matches`, without building a
/// `RegexSet` or one DFA of all patterns (building either was most of every run's start-up, and
/// one DFA of all patterns determinizes a state per combination of partial matches: slow on
/// many distinct messages). The literals each pattern requires rule most patterns out in one
/// pass ([`Prefilter`]); the rest are tried one by one, each compiled when first needed.
pub struct PatternScan {
    patterns: Vec<String>,
    /// The DFA of all patterns at once, and the `RegexSet`: what the tests compare with.
    #[cfg(test)]
    all: OnceLock<AllAtOnce>,
    #[cfg(test)]
    fallback: OnceLock<RegexSet>,
    prefilter: Prefilter,
    /// Each pattern's veto (`not:`), compiled only when the scan says its pattern matched, so
    /// start-up compiles none.
    vetoes: Vec<Option<String>>,
    veto_regexes: Vec<OnceLock<Regex>>,
}

#[cfg(test)]
struct AllAtOnce {
    dfa: DFA,
    caches: Pool<Cache, CacheFn>,
}

/// On ASCII text, the patterns a message can match are first narrowed by the literals each one
/// requires ([`super::literals`]), found with one Aho-Corasick pass; each remaining pattern is
/// then tried alone with its own small lazy DFA. One DFA of all patterns must build a state per
/// combination of partial matches, which on a log of a thousand distinct messages is most of
/// the diagnosis time; a pattern alone has few states, and they are reused across messages.
struct Prefilter {
    literals: aho_corasick::AhoCorasick,
    /// For each literal, the patterns whose set of literals (one of which every match
    /// contains) holds it.
    literal_patterns: Vec<Vec<usize>>,
    /// For each pattern, all it needs in literals (by index): a pattern one of whose literals
    /// was found is tried only when the others it needs were found too.
    needs: Vec<Need<usize>>,
    /// Patterns with no required literal: always tried.
    always: Vec<usize>,
    /// Each pattern's ASCII-only DFA, for ASCII text.
    singles: Vec<OnceLock<Single>>,
    /// Each pattern as a regex: confirms it on non-ASCII text, and finds where it matched.
    regexes: Vec<OnceLock<Regex>>,
}

/// One pattern's forward lazy DFA, and its caches (one per thread that uses it at once); its
/// reverse DFA, built when a match's start is first asked for.
struct Single {
    dfa: DFA,
    caches: Pool<Cache, CacheFn>,
    /// Whether the DFAs are the Unicode form (the pattern has a non-ASCII literal).
    unicode: bool,
    reverse: OnceLock<(DFA, Pool<Cache, CacheFn>)>,
}

impl Prefilter {
    /// `by_pattern`: what each pattern needs in literals ([`Catalogue::needs`]).
    fn new(by_pattern: Vec<Need>) -> Result<Prefilter, String> {
        let count = by_pattern.len();
        let mut literals: Vec<String> = Vec::new();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut id_of = |l: String| {
            *index.entry(l.clone()).or_insert_with(|| {
                literals.push(l);
                literals.len() - 1
            })
        };
        let mut literal_patterns: Vec<Vec<usize>> = Vec::new();
        let mut needs = Vec::new();
        let mut always = Vec::new();
        for (i, need) in by_pattern.into_iter().enumerate() {
            match need.one_of() {
                None => always.push(i),
                Some(set) => {
                    for l in set {
                        let id = id_of(l);
                        if literal_patterns.len() <= id {
                            literal_patterns.resize(id + 1, Vec::new());
                        }
                        literal_patterns[id].push(i);
                    }
                }
            }
            needs.push(need.map(&mut id_of));
        }
        literal_patterns.resize(literals.len(), Vec::new());
        // The text is searched lowercased (`matches`): an automaton of the lowercase literals
        // alone builds faster and is smaller than one that ignores case.
        let literals = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .build(&literals)
            .map_err(|e| e.to_string())?;
        Ok(Prefilter {
            literals,
            literal_patterns,
            needs,
            always,
            singles: (0..count).map(|_| OnceLock::new()).collect(),
            regexes: (0..count).map(|_| OnceLock::new()).collect(),
        })
    }

    /// The patterns that match `text`, each with the end of its first match when the DFA found
    /// it (ASCII text).
    fn matches(&self, patterns: &[String], text: &str) -> Vec<Hit> {
        // The literals found, as a bit set.
        let mut found = vec![0u64; self.literal_patterns.len().div_ceil(64)];
        let lower = super::literals::fold_to_ascii(text).to_ascii_lowercase();
        for m in self.literals.find_overlapping_iter(&lower) {
            let id = m.pattern().as_usize();
            found[id / 64] |= 1 << (id % 64);
        }
        let mut candidates = self.always.clone();
        for (w, &word) in found.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let id = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                candidates.extend_from_slice(&self.literal_patterns[id]);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let has = |&id: &usize| found[id / 64] & (1 << (id % 64)) != 0;
        candidates.retain(|&i| self.needs[i].holds(&has));
        if text.is_ascii() {
            // The whole first match, not only whether there is one: the end is what finding
            // it again would cost a second pass for ([`PatternScan::find`]).
            candidates
                .into_iter()
                .filter_map(|i| {
                    let end = self.single(patterns, i).end(text)?;
                    Some(Hit {
                        pattern: i,
                        end: Some(end),
                    })
                })
                .collect()
        } else {
            // Unicode classes and word boundaries: the pattern as the regex crate runs it.
            candidates
                .into_iter()
                .filter(|&i| self.regex(patterns, i).is_match(text))
                .map(|i| Hit {
                    pattern: i,
                    end: None,
                })
                .collect()
        }
    }

    fn regex(&self, patterns: &[String], i: usize) -> &Regex {
        self.regexes[i].get_or_init(|| Regex::new(&patterns[i]).expect("checked when loaded"))
    }

    fn single(&self, patterns: &[String], i: usize) -> &Single {
        self.singles[i].get_or_init(|| {
            // Only ASCII text reaches a single pattern, where ASCII classes, case folding and
            // word boundaries answer as the Unicode ones do: the NFA of `\w`, `\S` or `(?i)` is
            // then a few states instead of a UTF-8 automaton, and its DFA has few states too.
            let build = |unicode: bool| single_dfa(&patterns[i], unicode, false).ok();
            // A pattern with a non-ASCII literal has no ASCII-only form.
            let (dfa, unicode) = build(false)
                .map(|d| (d, false))
                .or_else(|| build(true).map(|d| (d, true)))
                .expect("the DFA of all patterns was built");
            Single {
                caches: pool_of(&dfa),
                dfa,
                unicode,
                reverse: OnceLock::new(),
            }
        })
    }
}

/// One pattern's lazy DFA, without capture states: forward (leftmost-first), or `reverse` (all
/// matches, as the regex crate's reverse search after a forward one is); with `unicode` false,
/// ASCII classes, case folding and word boundaries.
fn single_dfa(pattern: &str, unicode: bool, reverse: bool) -> Result<DFA, String> {
    let config = DFA::config().unicode_word_boundary(unicode);
    DFA::builder()
        .configure(if reverse {
            config.match_kind(MatchKind::All)
        } else {
            config
        })
        .syntax(
            regex_automata::util::syntax::Config::new()
                .unicode(unicode)
                .utf8(unicode),
        )
        .thompson(
            thompson::Config::new()
                .which_captures(thompson::WhichCaptures::None)
                .utf8(unicode)
                .reverse(reverse),
        )
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// A pool of caches for `dfa`.
fn pool_of(dfa: &DFA) -> Pool<Cache, CacheFn> {
    let for_cache = dfa.clone();
    let create: CacheFn = Box::new(move || for_cache.create_cache());
    Pool::new(create)
}

impl Single {
    /// Where the pattern's first (leftmost-first) match in ASCII `text` ends.
    fn end(&self, text: &str) -> Option<usize> {
        let found = self
            .dfa
            .try_search_fwd(&mut self.caches.get(), &Input::new(text));
        // The DFA quits only on non-ASCII bytes next to a Unicode \b, which ASCII text has not.
        found.expect("ASCII text").map(|m| m.offset())
    }

    /// Where the first match that ends at `end` starts: the leftmost start from which the
    /// pattern matches up to `end`, found by the reversed pattern searching backwards from
    /// there (what the regex crate's own lazy DFA does after its forward search).
    fn start(&self, pattern: &str, text: &str, end: usize) -> usize {
        let (dfa, caches) = self.reverse.get_or_init(|| {
            let dfa = single_dfa(pattern, self.unicode, true).expect("the forward DFA was built");
            let caches = pool_of(&dfa);
            (dfa, caches)
        });
        let input = Input::new(text).range(..end).anchored(Anchored::Yes);
        let found = dfa.try_search_rev(&mut caches.get(), &input);
        found
            .expect("ASCII text")
            .expect("the match that ends here starts somewhere")
            .offset()
    }
}

type CacheFn =
    Box<dyn Fn() -> Cache + Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>;

/// A pattern that matches a text, and where its first match ends when the scan learnt it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub pattern: usize,
    end: Option<usize>,
}

/// The patterns that match, in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternMatches(Vec<Hit>);

impl PatternMatches {
    /// The patterns' indices.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().map(|h| h.pattern)
    }

    pub fn hits(&self) -> &[Hit] {
        &self.0
    }
}

impl std::fmt::Debug for PatternScan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternScan")
            .field("patterns", &self.patterns.len())
            .finish_non_exhaustive()
    }
}

/// The lazy DFA's cache may grow to this (the default 2 MiB is outgrown on varied input, and
/// the cache is cleared again and again).
#[cfg(test)]
const SCAN_CACHE: usize = 32 << 20;

impl PatternScan {
    pub fn new(patterns: Vec<String>) -> Result<PatternScan, String> {
        let needs = patterns
            .iter()
            .map(|p| literal_needs(p).map_err(|e| format!("{p}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let vetoes = vec![None; patterns.len()];
        Self::with_needs(patterns, needs, vetoes)
    }

    /// The catalogue's patterns, with the literal needs and the vetoes it loaded.
    pub fn of(cat: &Catalogue) -> Result<PatternScan, String> {
        let patterns = cat.patterns.iter().map(|p| p.def.regex.clone()).collect();
        let vetoes = cat.patterns.iter().map(|p| p.def.not.clone()).collect();
        Self::with_needs(patterns, cat.needs.clone(), vetoes)
    }

    /// The same, with the literal needs of the patterns already known (by index).
    fn with_needs(
        patterns: Vec<String>,
        needs: Vec<Need>,
        vetoes: Vec<Option<String>>,
    ) -> Result<PatternScan, String> {
        let prefilter = Prefilter::new(needs)?;
        Ok(PatternScan {
            #[cfg(test)]
            all: OnceLock::new(),
            #[cfg(test)]
            fallback: OnceLock::new(),
            prefilter,
            veto_regexes: (0..patterns.len()).map(|_| OnceLock::new()).collect(),
            vetoes,
            patterns,
        })
    }

    /// Pattern `i`'s veto, if it has one (checked when the catalogue was loaded), compiled on
    /// first use.
    pub fn veto(&self, i: usize) -> Option<&Regex> {
        let veto = self.vetoes[i].as_ref()?;
        Some(self.veto_regexes[i].get_or_init(|| Regex::new(veto).expect("checked when loaded")))
    }

    /// The DFA of all patterns (each pattern was checked when loaded; the catalogue's tests
    /// build this one).
    #[cfg(test)]
    fn all(&self) -> &AllAtOnce {
        self.all.get_or_init(|| {
            let dfa = Self::build_all(&self.patterns).expect("the patterns were checked");
            let for_cache = dfa.clone();
            let create: CacheFn = Box::new(move || for_cache.create_cache());
            AllAtOnce {
                dfa,
                caches: Pool::new(create),
            }
        })
    }

    #[cfg(test)]
    fn build_all(patterns: &[String]) -> Result<DFA, String> {
        DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(MatchKind::All)
                    .unicode_word_boundary(true)
                    .cache_capacity(SCAN_CACHE),
            )
            .thompson(
                thompson::Config::new()
                    .which_captures(thompson::WhichCaptures::None)
                    .nfa_size_limit(Some(SCAN_CACHE)),
            )
            .build_many(patterns)
            .map_err(|e| e.to_string())
    }

    /// Pattern `i` as a regex (checked when the catalogue was loaded), compiled on first use.
    pub fn regex(&self, i: usize) -> &Regex {
        self.prefilter.regex(&self.patterns, i)
    }

    /// The patterns that match somewhere in `text`.
    pub fn matches(&self, text: &str) -> PatternMatches {
        PatternMatches(self.prefilter.matches(&self.patterns, text))
    }

    /// Where `hit`'s pattern first matches in `text` (the text it was found in), as
    /// `Regex::find` says: from the end the scan found, only the start is searched for.
    pub fn find(&self, text: &str, hit: Hit) -> Option<(usize, usize)> {
        let i = hit.pattern;
        match hit.end {
            Some(end) => {
                let start =
                    self.prefilter
                        .single(&self.patterns, i)
                        .start(&self.patterns[i], text, end);
                Some((start, end))
            }
            None => self.regex(i).find(text).map(|m| (m.start(), m.end())),
        }
    }

    /// [`PatternScan::matches`] by the DFA of all patterns at once (the tests' reference).
    #[cfg(test)]
    fn matches_all_at_once(&self, text: &str) -> Vec<usize> {
        let all = self.all();
        let mut set = PatternSet::new(all.dfa.pattern_len());
        let found = {
            let mut cache = all.caches.get();
            all.dfa
                .try_which_overlapping_matches(&mut cache, &Input::new(text), &mut set)
        };
        match found {
            Ok(()) => set.iter().map(|p| p.as_usize()).collect(),
            Err(_) => self.fallback().matches(text).iter().collect(),
        }
    }

    /// The same patterns as a `RegexSet` (what answers when the DFA cannot).
    #[cfg(test)]
    pub fn fallback(&self) -> &RegexSet {
        self.fallback.get_or_init(|| {
            RegexSetBuilder::new(&self.patterns)
                .dfa_size_limit(SCAN_CACHE)
                .size_limit(SCAN_CACHE)
                .build()
                .expect("the DFA of the same patterns was built")
        })
    }
}

static SCAN: LazyLock<PatternScan> = LazyLock::new(|| {
    // The catalogue checked every pattern when it loaded them.
    PatternScan::of(catalogue()).expect("the embedded catalogue's patterns are valid")
});

/// The pattern scan of the embedded catalogue.
pub fn scan() -> &'static PatternScan {
    &SCAN
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::catalogue::KNOWLEDGE_YAML;

    #[test]
    fn the_pattern_scan_answers_like_a_regex_set() {
        let s = scan();
        let set = s.fallback();
        let corpus = include_str!("../../fixtures/corpus/real-mount-failures.yaml");
        let world = include_str!("../../fixtures/corpus/world.yaml");
        let mut texts: Vec<String> = corpus
            .lines()
            .chain(world.lines())
            .map(str::to_string)
            .collect();
        texts.push(corpus.to_string());
        texts.push(world.to_string());
        // The same texts in other cases: the literals are found ignoring ASCII case.
        for t in corpus.lines().chain(world.lines()).step_by(3) {
            texts.push(t.to_ascii_uppercase());
        }
        // Non-ASCII next to a Unicode \b: the DFA stops there and the RegexSet answers.
        for t in corpus.lines().take(200) {
            texts.push(t.replace(' ', " é "));
            texts.push(format!("É{t}ü"));
            texts.push(t.replace("EBUSY", "éEBUSYé").replace("EIO", "ÉEIO"));
        }
        // The Unicode forms that case-fold to `k` and `s`: a (?i) pattern matches them.
        for t in corpus.lines().chain(world.lines()).step_by(5) {
            texts.push(t.replace('k', "\u{212A}").replace('s', "\u{17F}"));
        }
        texts.push("device or resource busy: EBUSY".into());
        texts.push("ÉEBUSY and \u{17f}tale".into());
        let mut hits = 0;
        for t in &texts {
            let want: Vec<usize> = set.matches(t).iter().collect();
            hits += want.len();
            assert_eq!(s.matches(t).iter().collect::<Vec<_>>(), want, "{t:?}");
            // Both ways: the literals and single DFAs (ASCII), all patterns at once (any text).
            let at_once: Vec<usize> = s.matches_all_at_once(t);
            assert_eq!(at_once, want, "{t:?}");
        }
        assert!(hits > 300, "the texts match patterns ({hits})");
        // The literals rule out most patterns before any regex runs: few are always tried.
        let always = s.prefilter.always.len();
        assert!(
            always * 10 < s.patterns.len(),
            "{always} of {} patterns have no required literal",
            s.patterns.len()
        );
        // And the DFA did stop on some of them, so the fallback answered.
        let stops = |t: &str| {
            let all = s.all();
            let mut set = PatternSet::new(all.dfa.pattern_len());
            let mut cache = all.dfa.create_cache();
            all.dfa
                .try_which_overlapping_matches(&mut cache, &Input::new(t), &mut set)
                .is_err()
        };
        assert!(stops("ÉEBUSY and \u{17f}tale"));
        assert!(!stops("device or resource busy: EBUSY"));
    }

    /// The needs build.rs worked out make the same prefilter as those worked out when the YAML
    /// itself is loaded.
    #[test]
    fn the_build_time_needs_make_the_same_prefilter() {
        let from_yaml = PatternScan::of(&Catalogue::from_yaml(KNOWLEDGE_YAML).unwrap()).unwrap();
        let built = scan();
        assert_eq!(from_yaml.prefilter.needs, built.prefilter.needs);
        assert_eq!(from_yaml.prefilter.always, built.prefilter.always);
    }
}
