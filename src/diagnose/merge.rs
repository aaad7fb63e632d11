//! From classified messages to findings under construction: each message's candidates raise
//! their cause's accumulator and add its quote; a message no pattern matched supports a finding
//! about the same volume; then symptoms are folded under the cause they are a symptom of, and
//! consequences under their root, instead of being ranked as rivals.

use super::catalogue::catalogue;
use super::classify::classify_layered;
use super::context::{context_for, Hints, MsgContext};
use super::findings::{Acc, Accs};
use super::messages::Msg;
use super::text::{clip, normalize};
use crate::model::report::Evidence;
use crate::model::Origin;
use crate::parse::looks_like_failure;

/// A failure message no pattern matched, kept until every message has been seen.
pub(super) struct Unmatched {
    label: String,
    msg: Evidence,
    text: String,
    ctx: MsgContext,
}

pub(super) fn classify_into(
    m: &Msg,
    hints: &Hints,
    accs: &mut Accs,
    unmatched: &mut Vec<Unmatched>,
) {
    let text = normalize(&crate::parse::mount_error::unescape(&m.text)).into_owned();
    if text.is_empty() {
        return;
    }
    let ctx = context_for(&text, hints);
    let (cands, layers) = classify_layered(&text, &ctx);
    let printed_by = layers.printed_by();
    let label = if m.count > 1 {
        format!("{} ×{}", m.label, m.count)
    } else {
        m.label.clone()
    };
    let time = match (&m.time, m.count) {
        // A log line repeated (a retried operation): the first time, and how many there were.
        (Some(t), n) if n > 1 && m.origin == Origin::KubeletLog => Some(format!("{t}, x{n}")),
        (Some(t), _) => Some(t.clone()),
        (None, n) if n > 1 => Some(format!("x{n}")),
        _ => None,
    };
    let quote = |q: String| Evidence {
        source: m.source.clone(),
        object: m.object.clone(),
        time: time.clone(),
        text: q,
        quoted: true,
        printed_by: printed_by.clone(),
    };
    if cands.is_empty() {
        // "Successfully assigned ..." is not a failure; only unmatched failures are reported.
        if looks_like_failure(&text) {
            unmatched.push(Unmatched {
                label,
                msg: quote(head_of(&text)),
                text,
                ctx,
            });
        }
        return;
    }
    let origin_kind = match m.origin {
        Origin::KubeletLog => "kubelet log",
        Origin::Raw => "message",
        Origin::Api => "objects",
        _ => "events",
    };
    let head = head_of(&text);
    // Mount's output is shown on its own line (see steps::context_evidence).
    let output_at = text.find(" Output:").or_else(|| text.find("Output:"));
    for c in cands {
        let pos = match accs.list.iter().position(|a| a.cause == c.cause) {
            Some(p) => p,
            None => {
                accs.list.push(Acc {
                    cause: c.cause,
                    confidence: c.confidence,
                    symptom: c.symptom,
                    lookalike_of: c.lookalike_of,
                    ..Acc::default()
                });
                accs.list.len() - 1
            }
        };
        let a = &mut accs.list[pos];
        if c.lookalike_of.is_none() {
            a.lookalike_of = None;
        }
        a.symptom &= c.symptom;
        a.origins.insert(origin_kind);
        if let Some(age) = m.age_secs {
            a.min_age = Some(a.min_age.map_or(age, |x| x.min(age)));
        }
        if let Some(t) = m.last_seen {
            a.last_seen = Some(a.last_seen.map_or(t, |x| x.max(t)));
        }
        let in_head = c.at.1 <= head.len();
        let in_output = output_at.is_some_and(|o| c.at.0 >= o);
        let q = if in_head || in_output {
            head.clone()
        } else {
            c.quote.clone()
        };
        let e = quote(q);
        if !a.evidence.contains(&e) {
            a.add(e);
        }
        if a.ctx.is_none() || c.confidence > a.confidence {
            a.ctx = Some(ctx.clone());
        }
        if c.confidence > a.confidence {
            a.confidence = c.confidence;
        }
    }
}

/// The message up to where the mount command starts: the part a person reads first.
fn head_of(text: &str) -> String {
    let end = ["Mounting command:", "Mounting arguments:", "Output:"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    clip(text[..end].trim(), 300)
}

/// A failure message with no detail of its own ("mount failed: exit status 32" cut short) that
/// names a volume a finding is about supports that finding instead of standing alone.
pub(super) fn attach_unmatched(accs: &mut Accs, unmatched: Vec<Unmatched>) -> Vec<String> {
    let mut rest = Vec::new();
    for u in unmatched {
        let volume = u.ctx.error.volume.as_deref();
        let target = volume.and_then(|v| {
            accs.list.iter_mut().filter(|a| !a.symptom).find(|a| {
                a.ctx
                    .as_ref()
                    .and_then(|c| c.error.volume.as_deref())
                    .is_some_and(|av| av == v)
            })
        });
        match target {
            Some(a) => {
                let mut e = u.msg;
                e.text = format!("{}\" (same volume; no detail in this one", e.text);
                a.add(e);
            }
            None => rest.push(format!("{}: {}", u.label, clip(&u.text, 400))),
        }
    }
    rest
}

/// Suspects are offered because nothing explained the symptom; once the evidence settles or
/// supports a cause (0.5 or more), those still unsupported have nothing more to say.
pub(super) fn drop_suspects_once_explained(accs: &mut Accs) {
    let explained = accs
        .list
        .iter()
        .any(|a| a.ruled_out.is_none() && a.suspect.is_none() && !a.symptom && a.confidence >= 0.5);
    if explained {
        accs.list.retain(|a| a.suspect.is_none());
    }
}

/// Messages that only say "timed out waiting for volumes" support the real cause when one is
/// known; alone they stay as a finding of their own (an inconclusive one).
pub(super) fn fold_symptoms(accs: &mut Accs) {
    // A cause the evidence ruled out explains nothing: symptoms stay on their own then. Nor
    // does a suspect nothing supports: it is a candidate to check, not an explanation.
    if !accs
        .list
        .iter()
        .any(|a| !a.symptom && a.ruled_out.is_none() && a.suspect.is_none())
    {
        return;
    }
    let (symptoms, mut causes): (Vec<Acc>, Vec<Acc>) = accs.list.drain(..).partition(|a| a.symptom);
    causes.sort_by(|a, b| {
        (a.ruled_out.is_some() || a.suspect.is_some())
            .cmp(&(b.ruled_out.is_some() || b.suspect.is_some()))
            .then(b.confidence.total_cmp(&a.confidence))
    });
    if let Some(top) = causes.first_mut() {
        // One is enough to show the pod is waiting on this; the others only repeat it, and
        // are counted by what they say (the symptom cause's own title), never as something
        // they do not say.
        const SHOWN: usize = 1;
        let cat = catalogue();
        let mut shown = 0;
        let mut more: Vec<String> = Vec::new();
        for s in symptoms {
            let n = s.evidence.len();
            let take = SHOWN.saturating_sub(shown).min(n);
            for e in s.evidence.into_iter().take(take) {
                let mut e = e;
                e.source = format!("symptom, {}", e.source);
                top.add(e);
            }
            shown += take;
            if n > take {
                more.push(format!(
                    "{} that {}",
                    n - take,
                    cat.causes[s.cause].title.to_lowercase()
                ));
            }
        }
        if !more.is_empty() {
            top.fact(format!("symptom messages too: {}", more.join("; ")));
        }
    }
    accs.list = causes;
}

/// A finding that is a consequence of another one found too (an attach timeout while the
/// volume is still attached elsewhere) is folded under it, not ranked as its rival.
pub(super) fn fold_consequences(accs: &mut Accs) {
    let cat = catalogue();
    loop {
        // A suspect neither folds under a finding nor takes one under it: nothing said it.
        let pair = accs.list.iter().enumerate().find_map(|(i, a)| {
            if a.suspect.is_some() {
                return None;
            }
            let def = &cat.causes[a.cause];
            def.consequence_of.iter().find_map(|root| {
                let ri = cat.cause_index(root)?;
                let j = accs
                    .list
                    .iter()
                    .position(|b| b.cause == ri && b.ruled_out.is_none() && b.suspect.is_none())?;
                (j != i).then_some((i, j))
            })
        });
        let Some((i, j)) = pair else { break };
        let folded = accs.list.remove(i);
        let j = if i < j { j - 1 } else { j };
        let root = &mut accs.list[j];
        let id = cat.causes[folded.cause].id.clone();
        if !root.consequences.contains(&id) {
            root.consequences.push(id.clone());
        }
        for mut e in folded.evidence.into_iter().take(2) {
            e.source = format!("consequence ({id}), {}", e.source);
            root.add(e);
        }
        root.origins.extend(folded.origins);
    }
}
