//! The findings under construction, ranked and made into the report's findings: those the
//! evidence ruled out listed apart, the rest ordered (what a fact settled first, then by
//! confidence), each with its evidence, its explanation for this case, and its steps through the
//! safety check.

use super::catalogue::{self, catalogue};
use super::findings::{Acc, Accs, MAX_EVIDENCE};
use super::options::Options;
use super::safety;
use super::steps;
use super::text::{clip, normalize};
use crate::model::report::{Evidence, Finding, NodeOs, RuledOut, Step, StepKind, Withheld};
use crate::model::Case;

/// A cause kept beside the one a fact settled comes after it: its confidence is put just under
/// that cause's (chains too: the order is settled in a few passes).
fn keep_after(list: &mut [Acc]) {
    for _ in 0..list.len() {
        let mut changed = false;
        for i in 0..list.len() {
            let cap = list[i]
                .after
                .iter()
                .filter_map(|c| {
                    list.iter()
                        .find(|b| b.cause == *c && b.ruled_out.is_none())
                        .map(|b| b.confidence)
                })
                .fold(f64::INFINITY, f64::min);
            if cap.is_finite() && list[i].confidence > cap - 0.01 {
                list[i].confidence = (cap - 0.01).max(0.0);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Merge, rank, and turn each accumulator into a finding; every step passes the safety check.
pub(super) fn finish(
    accs: Accs,
    case: &Case,
    os: &NodeOs,
    opts: &Options,
    live: &safety::Live,
    ruled_out: &mut Vec<RuledOut>,
) -> Vec<Finding> {
    let cat = catalogue();
    let (out, mut list): (Vec<Acc>, Vec<Acc>) =
        accs.list.into_iter().partition(|a| a.ruled_out.is_some());
    let mut ruled: Vec<&Acc> = out.iter().collect();
    ruled.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.cause.cmp(&b.cause))
    });
    ruled_out.extend(ruled.into_iter().map(|a| RuledOut {
        cause: cat.causes[a.cause].id.clone(),
        title: cat.causes[a.cause].title.clone(),
        because: a.ruled_out.clone().unwrap_or_default(),
    }));
    for a in &mut list {
        // Independent kinds of input agreeing make a cause more likely.
        let extra = a.origins.len().saturating_sub(1) as f64;
        a.confidence = (a.confidence + 0.04 * extra).min(0.99);
    }
    keep_after(&mut list);
    // What the node's or the cluster's facts settled comes first, then by confidence.
    list.sort_by(|a, b| {
        b.settled_by
            .is_some()
            .cmp(&a.settled_by.is_some())
            .then(b.confidence.total_cmp(&a.confidence))
            .then(a.cause.cmp(&b.cause))
    });
    list.into_iter()
        .map(|a| {
            let def = &cat.causes[a.cause];
            let vars = steps::vars_for(case, &a);
            let fs = a.ctx.as_ref().map(|c| c.fs).unwrap_or_default();
            let (mut evidence, mut reasoning) = (Vec::new(), Vec::new());
            if let Some(ctx) = &a.ctx {
                let (e, r) = steps::context_evidence(ctx);
                evidence.extend(e);
                reasoning.extend(r);
            }
            evidence.extend(a.evidence.iter().map(|e| {
                let mut e = e.clone();
                e.text = clip(&e.text, 600);
                e
            }));
            if let Some(why) = &a.suspect {
                evidence.push(Evidence::fact(
                    "knowledge",
                    format!("a suspect: no message or fact names it yet. {why}"),
                ));
            }
            if let Some(of) = a.lookalike_of {
                evidence.push(Evidence::fact(
                    "knowledge",
                    format!(
                        "the same words are printed for: {} ({}); the Confirm steps tell the two apart",
                        cat.causes[of].title, cat.causes[of].id
                    ),
                ));
            }
            let (confirm, remediation, withheld) =
                vetted_steps(def, &vars, os, fs, opts, case, live);
            Finding {
                cause: def.id.clone(),
                title: def.title.clone(),
                confidence: (a.confidence * 100.0).round() / 100.0,
                summary: steps::fill(&normalize(steps::explain_for(def, &vars)), &vars),
                evidence: evidence.iter().map(Evidence::line).collect(),
                evidence_detail: evidence,
                reasoning,
                confirm,
                remediation,
                withheld,
                root: root_of(def, &vars),
                at_fault: a
                    .headline
                    .clone()
                    .or_else(|| super::at_fault::wording(&def.id, &vars)),
                consequences: a.consequences.clone(),
                volume: vars.get("volume").cloned(),
                settled_by: a.settled_by.clone(),
                suspect: a.suspect.clone(),
            }
        })
        .collect()
}

/// A cause's steps for this case, through the safety check.
fn vetted_steps(
    def: &catalogue::CauseDef,
    vars: &steps::Vars,
    os: &NodeOs,
    fs: catalogue::FsFamily,
    opts: &Options,
    case: &Case,
    live: &safety::Live,
) -> (Vec<Step>, Vec<Step>, Vec<Withheld>) {
    let cx = |confirm| steps::StepCtx {
        fs,
        invocation: &opts.invocation,
        confirm,
    };
    let denied: Vec<crate::model::Denied> = case.denied.clone();
    let (confirm, mut withheld) = safety::vet(
        steps::render_steps(&def.confirm, vars, os, &cx(true)),
        live,
        case,
        &denied,
        false,
    );
    let checked = confirm
        .iter()
        .any(|s| s.kind == StepKind::Check && s.command.is_some());
    let (remediation, w2) = safety::vet(
        steps::render_steps(&def.remediation, vars, os, &cx(false)),
        live,
        case,
        &denied,
        checked,
    );
    withheld.extend(w2);
    (confirm, remediation, withheld)
}

pub(super) fn unknown_finding(
    case: &Case,
    os: &NodeOs,
    unrecognised: &[String],
    stuck: bool,
    opts: &Options,
    live: &safety::Live,
) -> Finding {
    let cat = catalogue();
    let def = cat.cause("unknown").expect("catalogue has unknown");
    let acc = Acc::default();
    let vars = steps::vars_for(case, &acc);
    let mut evidence: Vec<Evidence> = unrecognised
        .iter()
        .take(MAX_EVIDENCE)
        .map(|u| Evidence::fact("message", u.clone()))
        .collect();
    if evidence.is_empty() && stuck {
        evidence.push(Evidence::fact(
            "objects",
            "the pod is waiting (ContainerCreating/Pending) but the input has no failure message",
        ));
    }
    let (confirm, remediation, withheld) =
        vetted_steps(def, &vars, os, Default::default(), opts, case, live);
    Finding {
        cause: def.id.clone(),
        title: def.title.clone(),
        confidence: 0.1,
        summary: steps::fill(&normalize(&def.explain), &vars),
        evidence: evidence.iter().map(Evidence::line).collect(),
        evidence_detail: evidence,
        reasoning: Vec::new(),
        confirm,
        remediation,
        root: root_of(def, &vars),
        at_fault: None,
        withheld,
        consequences: Vec::new(),
        volume: None,
        settled_by: None,
        suspect: None,
    }
}

/// The object at the root of a cause in this case, or the cause id.
fn root_of(def: &catalogue::CauseDef, vars: &steps::Vars) -> String {
    def.root
        .as_deref()
        .and_then(|t| steps::fill_command(t, vars).ok())
        .unwrap_or_else(|| def.id.clone())
}
