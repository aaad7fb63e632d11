//! The findings under construction: one accumulator per cause, which the classified messages,
//! the correlation rules and the differential raise, rule out or add evidence to, before they
//! are merged, ranked and turned into the report's findings.

use std::collections::{BTreeMap, BTreeSet};

use super::catalogue::catalogue;
use super::context::MsgContext;
use crate::model::report::Evidence;

/// The findings under construction, one per cause.
#[derive(Debug, Clone, Default)]
pub struct Acc {
    pub cause: usize,
    pub confidence: f64,
    pub symptom: bool,
    pub evidence: Vec<Evidence>,
    /// Distinct kinds of input that point here (events, kubelet log, rbd, objects).
    pub origins: BTreeSet<&'static str>,
    /// Findings folded under this one as its consequences (cause ids).
    pub consequences: Vec<String>,
    /// The newest time one of its messages was seen (Unix seconds), when known.
    pub last_seen: Option<i64>,
    /// The age of its newest message in an input that gives ages, not times.
    pub min_age: Option<i64>,
    /// Why the evidence rules this cause out (the objects as they are now, the node, a newer
    /// failure at a later stage): it leaves the ranking and is listed apart.
    pub ruled_out: Option<String>,
    /// The fact of the node or the cluster that settled it among its look-alikes, quoted.
    pub settled_by: Option<String>,
    /// Causes this one is listed after (cause indices): a fact settled one of them and kept
    /// this one as true too, but second (the helper missing on a kernel without the
    /// filesystem).
    pub after: Vec<usize>,
    /// Kinds of evidence from the objects as they are now (set by rules): a finding with some
    /// is not weakened for its messages' age.
    pub from_objects: bool,
    /// Context of the strongest message, for filling in names.
    pub ctx: Option<MsgContext>,
    /// Names for the command templates (`image`, `lock_id`, ...), set by rules.
    pub vars: BTreeMap<&'static str, String>,
    /// Only offered as a look-alike of this cause (no message matched it directly).
    pub lookalike_of: Option<usize>,
    /// Only offered as a suspect behind a symptom nothing explains (knowledge.yaml
    /// `suspects:`), with why; cleared when a fact supports or settles it.
    pub suspect: Option<String>,
    /// What is wrong, with the objects at fault named (`PersistentVolumeClaim shop/data cannot
    /// bind because StorageClass fast does not exist`), set by a rule that read it off the
    /// objects; the verdict's first clause (diagnose::at_fault words the others).
    pub headline: Option<String>,
}

/// Most evidence lines one finding keeps (the rest only repeat them).
pub const MAX_EVIDENCE: usize = 8;

impl Acc {
    /// Add a piece of evidence once (the same text twice says nothing more).
    pub fn add(&mut self, e: Evidence) {
        if self.evidence.len() < MAX_EVIDENCE && !self.evidence.iter().any(|x| x.text == e.text) {
            self.evidence.push(e);
        }
    }

    /// Add a fact read off the objects, the rbd CLI or the node (few, and each one counts:
    /// not capped like the quotes).
    pub fn fact(&mut self, text: impl Into<String>) {
        self.fact_from("objects", text);
    }

    pub fn fact_from(&mut self, source: &str, text: impl Into<String>) {
        self.from_objects = true;
        let e = Evidence::fact(source, text);
        if !self.evidence.iter().any(|x| x.text == e.text) {
            self.evidence.push(e);
        }
    }

    /// The evidence contradicts this cause: it leaves the ranking, and the report says why.
    /// Nothing raises it again.
    pub fn rule_out(&mut self, because: impl Into<String>) {
        if self.ruled_out.is_none() {
            self.ruled_out = Some(because.into());
        }
    }

    /// Whether a piece of evidence with this text is already there.
    pub fn has_evidence(&self, text: &str) -> bool {
        self.evidence.iter().any(|e| e.text == text)
    }
}

/// All findings under construction, keyed by cause id.
#[derive(Debug, Default)]
pub struct Accs {
    pub list: Vec<Acc>,
}

impl Accs {
    pub fn get(&mut self, id: &str) -> Option<&mut Acc> {
        let idx = catalogue().cause_index(id)?;
        self.list.iter_mut().find(|a| a.cause == idx)
    }

    pub fn has(&self, id: &str) -> bool {
        catalogue()
            .cause_index(id)
            .is_some_and(|i| self.list.iter().any(|a| a.cause == i))
    }

    /// The finding for `id`, created at `confidence` when absent (raised to it when lower).
    pub fn entry(&mut self, id: &str, confidence: f64) -> &mut Acc {
        let idx = catalogue()
            .cause_index(id)
            .unwrap_or_else(|| panic!("rule names unknown cause {id}"));
        let pos = match self.list.iter().position(|a| a.cause == idx) {
            Some(p) => p,
            None => {
                self.list.push(Acc {
                    cause: idx,
                    confidence,
                    ..Acc::default()
                });
                self.list.len() - 1
            }
        };
        let a = &mut self.list[pos];
        if a.confidence < confidence {
            a.confidence = confidence;
        }
        a.symptom = false;
        a
    }
}
