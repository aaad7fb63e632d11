//! `volmnt rbd status|unlock`: who holds an RBD image (locks and watchers, each mapped to a
//! node and the pods there that use the image), and releasing the holders that are provably
//! stale, only after confirmation. The logic is in `collect::rbd`; this is flags and output.

use std::collections::BTreeSet;
use std::time::SystemTime;

use serde::Serialize;

use crate::cli::rbd::{CephArgs, RbdCommand, RbdStatusArgs, RbdUnlockArgs, Target};
use crate::cli::Global;
use crate::collect::cluster::Cluster;
use crate::collect::rbd::{
    self, host_of, Ceph, Confirmation, Flags, Holder, HolderKind, ImageSpec, KubeView, Outcome,
    Plan, Verdict, Where,
};
use crate::error::{Error, ExitCode, Result};
use crate::render::Format;

pub fn run(c: &RbdCommand, g: &Global) -> Result<ExitCode> {
    let rt = super::runtime()?;
    match c {
        RbdCommand::Status(a) => rt.block_on(status(a, g)),
        RbdCommand::Unlock(a) => rt.block_on(unlock(a, g)),
    }
}

/// What status and unlock both read.
#[derive(Serialize)]
struct Situation {
    /// The version of the document's shape (schema/volmnt.schema.json, rbd_status/rbd_unlock).
    schema_version: u32,
    image: ImageSpec,
    /// Where the image name came from, when --pod/--pvc found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    found_from: Option<String>,
    /// ceph-csi's clusterID of the PV, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster_id: Option<String>,
    /// Why holders could not be judged, when the Kubernetes API could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    kubernetes_unavailable: Option<String>,
    holders: Vec<Holder>,
    #[serde(skip)]
    ceph: Ceph,
}

async fn situation(target: &Target, ca: &CephArgs, g: &Global) -> Result<Situation> {
    let cluster = Cluster::connect(&super::connect_options(g, target.namespace.clone())).await;
    let need_cluster = |why: &str| -> Result<&Cluster> {
        cluster
            .as_ref()
            .map_err(|e| Error::Unreachable(format!("{why} needs the Kubernetes API: {e}")))
    };
    let (image, cluster_id, found_from) = match &target.image {
        Some(s) => (
            ImageSpec::parse(s).ok_or_else(|| {
                Error::Usage(format!(
                    "{s:?} is not an image spec: use pool/image or pool/namespace/image (letters, digits, ._-+:=)"
                ))
            })?,
            None,
            None,
        ),
        None => {
            let c = need_cluster(if target.pod.is_some() { "--pod" } else { "--pvc" })?;
            let ns = c.namespace.clone();
            c.require_namespace(&ns).await?;
            let (i, id, from) =
                rbd::image_of_claim_or_pod(c, &ns, target.pod.as_deref(), target.pvc.as_deref())
                    .await?;
            (i, id, Some(from))
        }
    };
    let place = match &ca.toolbox {
        None => Where::Local,
        Some(t) => {
            let (ns, pod) = t
                .split_once('/')
                .filter(|(n, p)| !n.is_empty() && !p.is_empty() && !p.contains('/'))
                .ok_or_else(|| {
                    Error::Usage(format!("--toolbox {t:?}: give it as NAMESPACE/POD"))
                })?;
            Where::Toolbox {
                cluster: Box::new(need_cluster("--toolbox")?.clone()),
                namespace: ns.to_string(),
                pod: pod.to_string(),
            }
        }
    };
    let ceph = Ceph {
        place,
        conf: ca.ceph_conf.clone(),
        id: ca.id.clone(),
        keyring: ca.keyring.clone(),
        timeout: ca.ceph_timeout,
        fence: rbd::Fence::default(),
    };
    let (locks, watchers) = ceph.holders_of(&image).await?;
    let hosts: BTreeSet<String> = locks
        .iter()
        .map(|l| &l.address)
        .chain(watchers.iter().map(|w| &w.address))
        .filter_map(|a| host_of(a))
        .collect();
    let view = if locks.is_empty() && watchers.is_empty() {
        KubeView::Unavailable("not needed: no holders".into())
    } else {
        match &cluster {
            Ok(c) => rbd::kube_view(c, &image, &hosts).await,
            Err(e) => KubeView::Unavailable(e.to_string()),
        }
    };
    let holders = rbd::holders(&locks, &watchers, &view, SystemTime::now());
    let kubernetes_unavailable = match &view {
        KubeView::Unavailable(why) if !holders.is_empty() => Some(why.clone()),
        _ => None,
    };
    Ok(Situation {
        schema_version: crate::model::report::SCHEMA_VERSION,
        image,
        found_from,
        cluster_id,
        kubernetes_unavailable,
        holders,
        ceph,
    })
}

fn emit_doc<T: Serialize>(g: &Global, doc: &T, text: impl FnOnce() -> String) -> Result<()> {
    let out = match g.output {
        Format::Json => crate::render::json::to_json(doc),
        Format::Yaml => crate::render::json::to_yaml(doc),
        Format::Text => Ok(text()),
        Format::Junit => Err(crate::render::JUNIT_ONLY.to_string()),
    }
    .map_err(Error::Output)?;
    super::emit(&out)
}

async fn status(a: &RbdStatusArgs, g: &Global) -> Result<ExitCode> {
    let s = situation(&a.target, &a.ceph, g).await?;
    emit_doc(g, &s, || status_text(&s))?;
    Ok(status_exit(&s.holders))
}

fn status_exit(holders: &[Holder]) -> ExitCode {
    if holders.iter().any(|h| h.verdict == Verdict::Stale) {
        ExitCode::Problem
    } else if holders.iter().any(|h| h.verdict == Verdict::Unknown) {
        ExitCode::Unreachable
    } else {
        ExitCode::Ok
    }
}

fn holder_lines(out: &mut String, i: usize, h: &Holder) {
    out.push_str(&format!(
        "  {}. {}  [{}]\n",
        i + 1,
        h.describe(),
        h.verdict.word().to_uppercase()
    ));
    let node = match (&h.node, &h.host) {
        (Some(n), Some(host)) => format!("node {n} ({host})"),
        (None, Some(host)) if h.verdict == Verdict::Stale => format!("no node has {host}"),
        (None, Some(host)) => format!("node of {host} not known"),
        _ => "node unknown".into(),
    };
    let pods = if h.pods.is_empty() {
        String::new()
    } else {
        format!(
            "; pods using the image there: {}",
            h.pods
                .iter()
                .map(|p| format!("{} via {}", p.label(), p.via))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    out.push_str(&format!("     {node}{pods}\n"));
    out.push_str(&format!("     why: {}\n", h.reason));
}

fn header(s: &Situation) -> String {
    let mut out = format!("IMAGE {}", s.image);
    if let Some(f) = &s.found_from {
        out.push_str(&format!("  (from {f})"));
    }
    if let Some(id) = &s.cluster_id {
        out.push_str(&format!("  clusterID {id}"));
    }
    out.push('\n');
    out.push_str(&format!("  Ceph read on {}\n", s.ceph.place_label()));
    if let Some(why) = &s.kubernetes_unavailable {
        out.push_str(&format!(
            "  Kubernetes API not read ({why}): holders cannot be judged\n"
        ));
    }
    out
}

fn status_text(s: &Situation) -> String {
    let mut out = header(s);
    let locks: Vec<(usize, &Holder)> = s
        .holders
        .iter()
        .enumerate()
        .filter(|(_, h)| matches!(h.kind, HolderKind::Lock { .. }))
        .collect();
    let watchers: Vec<(usize, &Holder)> = s
        .holders
        .iter()
        .enumerate()
        .filter(|(_, h)| matches!(h.kind, HolderKind::Watcher { .. }))
        .collect();
    out.push_str(&format!("LOCKS ({})\n", locks.len()));
    for (i, h) in locks {
        holder_lines(&mut out, i, h);
    }
    out.push_str(&format!("WATCHERS ({})\n", watchers.len()));
    for (i, h) in watchers {
        holder_lines(&mut out, i, h);
    }
    if s.holders.is_empty() {
        out.push_str("Nothing holds the image.\n");
    } else if s.holders.iter().any(|h| h.verdict != Verdict::Live) {
        out.push_str(&format!(
            "NEXT  volmnt rbd unlock {} --dry-run   (shows what would be run, and why)\n",
            s.image
        ));
    }
    out
}

#[derive(Serialize)]
struct UnlockDoc<'a> {
    #[serde(flatten)]
    situation: &'a Situation,
    plan: &'a Plan,
    /// Each step's command as it is (or would be) run.
    commands: Vec<String>,
    /// `dry-run`, `not-confirmed`, `nothing-to-do`, `executed`.
    result: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    outcomes: Vec<Outcome>,
}

fn plan_text(s: &Situation, plan: &Plan, commands: &[String]) -> String {
    let mut out = header(s);
    if s.holders.is_empty() {
        out.push_str("Nothing holds the image: nothing to do.\n");
        return out;
    }
    out.push_str(&format!(
        "PLAN{}\n",
        if plan.dry_run {
            " (dry run: nothing will be changed)"
        } else {
            ""
        }
    ));
    if plan.steps.is_empty() {
        out.push_str("  nothing to run\n");
    }
    for (i, (step, cmd)) in plan.steps.iter().zip(commands).enumerate() {
        let h = &s.holders[step.holder];
        out.push_str(&format!("  {}. $ {cmd}\n", i + 1));
        out.push_str(&format!("     for: {}\n", h.describe()));
        out.push_str(&format!("     why: {}\n", step.why));
        out.push_str(&format!("     note: {}\n", step.effect));
    }
    if !plan.refused.is_empty() {
        out.push_str("REFUSED (left as they are)\n");
        for r in &plan.refused {
            out.push_str(&format!(
                "  - {}: {}\n",
                s.holders[r.holder].describe(),
                r.why
            ));
        }
    }
    out
}

async fn unlock(a: &RbdUnlockArgs, g: &Global) -> Result<ExitCode> {
    let mut s = situation(&a.target, &a.ceph, g).await?;
    // Clusters before Pacific say `blacklist`: the plan's commands use the monitors' word.
    if !s.holders.is_empty() {
        s.ceph.detect_fence().await;
    }
    let plan = rbd::plan(
        &s.image,
        &s.holders,
        Flags {
            force: a.force,
            dry_run: a.dry_run,
            no_blocklist: a.no_blocklist,
            fence: s.ceph.fence,
        },
    );
    let commands: Vec<String> = plan
        .steps
        .iter()
        .map(|st| {
            let (tool, args) = st.action.command_for(plan.fence);
            s.ceph.display(tool, &args)
        })
        .collect();
    let refused = !plan.refused.is_empty();
    let text_out = g.output == Format::Text;
    let doc = |result, outcomes| UnlockDoc {
        situation: &s,
        plan: &plan,
        commands: commands.clone(),
        result,
        outcomes,
    };
    if text_out {
        super::emit(&plan_text(&s, &plan, &commands))?;
    }
    let finish =
        |result: &'static str, outcomes: Vec<Outcome>, code: ExitCode| -> Result<ExitCode> {
            if !text_out {
                emit_doc(g, &doc(result, outcomes), String::new)?;
            }
            Ok(code)
        };
    let if_refused = if refused {
        ExitCode::Problem
    } else {
        ExitCode::Ok
    };
    if plan.steps.is_empty() {
        return finish("nothing-to-do", vec![], if_refused);
    }
    if plan.dry_run {
        if text_out {
            super::emit(&format!(
                "Dry run: nothing was changed. To run it: volmnt rbd unlock {}{} (it asks for confirmation first; --yes skips the question)\n",
                s.image,
                if a.force { " --force" } else { "" }
            ))?;
        }
        return finish("dry-run", vec![], if_refused);
    }
    let confirmation = match Confirmation::by_yes_flag(a.yes, &plan) {
        Some(c) => Some(c),
        None => Confirmation::typed_on_terminal(&plan)?,
    };
    let Some(confirmation) = confirmation else {
        if text_out {
            super::emit("Not confirmed: nothing was run.\n")?;
        }
        return finish("not-confirmed", vec![], ExitCode::Problem);
    };
    let outcomes = rbd::execute(&s.ceph, &plan, confirmation).await?;
    if text_out {
        let mut out = String::from("RESULT\n");
        for (i, o) in outcomes.iter().enumerate() {
            out.push_str(&format!(
                "  {}. {} (exit {}): {}{}\n",
                i + 1,
                if o.verified { "done" } else { "NOT DONE" },
                o.exit_code,
                o.detail,
                if o.stderr.is_empty() || o.verified {
                    String::new()
                } else {
                    format!("; stderr: {}", o.stderr)
                }
            ));
        }
        super::emit(&out)?;
    }
    let all_ok = outcomes.iter().all(|o| o.verified);
    let code = if all_ok && !refused {
        ExitCode::Ok
    } else {
        ExitCode::Problem
    };
    finish("executed", outcomes, code)
}
