//! `volmnt node check|gc`: what nodes can mount, checked in parallel (over SSH, through a
//! short-lived pod, or on this machine), as a CI preflight with `--require`, and the cleanup of
//! probe pods left behind.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::cli::node::{NodeCheckArgs, NodeCommand, NodeGcArgs, Progress, Via};
use crate::cli::Global;
use crate::collect::cluster::Cluster;
use crate::collect::node::daemonset;
use crate::collect::node::exec::{self, ProbePods};
use crate::collect::node::fleet::{self, FleetOptions};
use crate::collect::node::ssh;
use crate::diagnose::node_check;
use crate::error::{Error, ExitCode, Result};
use crate::model::node::{NodeCheck, NodeResult, Transport};
use crate::render::Format;

pub fn run(c: &NodeCommand, g: &Global) -> Result<ExitCode> {
    match c {
        NodeCommand::Check(a) => run_check(a, g),
        NodeCommand::Gc(a) => run_gc(a, g),
    }
}

// ---------------------------------------------------------------------------------------------
// node check
// ---------------------------------------------------------------------------------------------

fn pick_transport(a: &NodeCheckArgs) -> Result<Transport> {
    if a.local {
        return Ok(Transport::Local);
    }
    if a.ssh {
        if a.nodes.is_empty() && !a.all {
            return Err(Error::Usage(
                "--ssh needs destinations (`volmnt node check --ssh [user@]host ...`) or --all"
                    .into(),
            ));
        }
        return Ok(Transport::Ssh);
    }
    if a.nodes.is_empty() && !a.all {
        return Err(Error::Usage(
            "name the nodes to check (`volmnt node check NODE...`), or --all, or --local for this machine"
                .into(),
        ));
    }
    Ok(Transport::Exec)
}

fn validate(a: &NodeCheckArgs, transport: Transport) -> Result<()> {
    for o in &a.ssh_option {
        ssh::validate_option(o).map_err(Error::Usage)?;
    }
    if !a.ssh_option.is_empty() && transport != Transport::Ssh {
        return Err(Error::Usage("--ssh-option is only for --ssh".into()));
    }
    if let Some(u) = &a.ssh_user {
        ssh::validate_destination(&format!("{u}@h"))
            .map_err(|_| Error::Usage(format!("--ssh-user {u:?} is not a user name")))?;
    }
    if transport == Transport::Ssh {
        for d in &a.nodes {
            ssh::validate_destination(d).map_err(Error::Usage)?;
        }
    }
    if transport == Transport::Exec {
        for n in &a.nodes {
            if !is_node_name(n) {
                return Err(Error::Usage(format!(
                    "{n:?} is not a node name (Kubernetes names are lower-case letters, digits, `-` and `.`); \
                     `kubectl get nodes` lists them, and --ssh takes host names and addresses"
                )));
            }
        }
    }
    if a.label
        && ((transport == Transport::Local && a.node_name.is_none())
            || (transport == Transport::Ssh && !a.all))
    {
        return Err(Error::Usage(
            "--label writes Node labels, so it needs node names: use it with --exec, with --ssh --all, or with --local --node-name NAME".into(),
        ));
    }
    if let Some(n) = &a.node_name {
        if !is_node_name(n) {
            return Err(Error::Usage(format!(
                "--node-name {n:?} is not a node name"
            )));
        }
    }
    Ok(())
}

/// A Kubernetes object name as Node names are (RFC 1123 DNS subdomain).
fn is_node_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 253
        && n.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

pub fn run_check(a: &NodeCheckArgs, g: &Global) -> Result<ExitCode> {
    let Some(every) = a.every else {
        return run_check_once(a, g);
    };
    // The long-running DaemonSet: check, label, print, sleep; a failed round is logged and the
    // next one tried; SIGTERM between rounds ends it with 0.
    loop {
        if let Err(e) = run_check_once(a, g) {
            if e.exit_code() == ExitCode::Usage {
                return Err(e);
            }
            eprintln!("volmnt: {e}");
        }
        let rt = super::runtime()?;
        let stop = rt.block_on(async {
            tokio::select! {
                _ = tokio::time::sleep(every) => false,
                _ = super::interrupted() => true,
            }
        });
        if stop {
            return Ok(ExitCode::Ok);
        }
    }
}

fn run_check_once(a: &NodeCheckArgs, g: &Global) -> Result<ExitCode> {
    let transport = pick_transport(a)?;
    validate(a, transport)?;
    let rt = super::runtime()?;
    let started = Instant::now();
    let opts = fleet_options(a, g, transport);
    let pods = ProbePods::default();
    let dsets = daemonset::ProbeDaemonSets::default();
    let cluster_slot: Arc<Mutex<Option<Cluster>>> = Arc::new(Mutex::new(None));
    // Collect: connect when the transport needs the cluster, then probe every node.
    let work = async {
        let cluster = if transport == Transport::Exec || a.all || a.label {
            let c = Cluster::connect(&super::connect_options(g, Some(a.namespace.clone())))
                .await
                .map_err(|e| match (transport, a.exec) {
                    (Transport::Exec, false) => Error::Unreachable(format!(
                        "{e}; checking named nodes goes through the cluster (--exec) by default: \
                         use --ssh [user@]host to reach them over SSH, or --local on the node itself"
                    )),
                    _ => e,
                })?;
            if let Ok(mut slot) = cluster_slot.lock() {
                *slot = Some(c.clone());
            }
            Some(c)
        } else {
            None
        };
        fleet::check_all(&opts, cluster.as_ref(), pods.clone(), dsets.clone()).await
    };
    let outcome = rt.block_on(async {
        tokio::select! {
            r = work => Ok(r),
            sig = super::interrupted() => {
                eprintln!("\nvolmnt: {sig}: stopping; deleting the probe pods first");
                Err(sig)
            }
        }
    });
    // Whatever happened, no probe pod outlives the command (the normal path has deleted them
    // already; this catches cancelled ones).
    let cluster = cluster_slot.lock().ok().and_then(|c| c.clone());
    if let Some(cluster) = &cluster {
        let failed = rt.block_on(exec::cleanup(
            &cluster.client(),
            &pods,
            g.conn.request_timeout,
        ));
        for f in &failed {
            eprintln!("volmnt: could not delete probe pod {f}; `volmnt node gc` removes it");
        }
        let failed = rt.block_on(daemonset::cleanup(
            &cluster.client(),
            &dsets,
            g.conn.request_timeout,
        ));
        for f in &failed {
            eprintln!("volmnt: could not delete probe DaemonSet {f}; `volmnt node gc` removes it");
        }
    }
    let checked = match outcome {
        Ok(Ok(r)) => r,
        // Nothing could be checked (no rights to list or read the nodes, no probe namespace,
        // no cluster): every node asked for is reported as not checked, so a CI preflight
        // reads a failure per node instead of an empty report. A usage error stays one.
        Ok(Err(e)) if e.exit_code() == ExitCode::Unreachable => {
            eprintln!("volmnt: {e}");
            not_checked(a, transport, &e)
        }
        Ok(Err(e)) => return Err(e),
        Err(sig) => {
            drop(rt);
            // 128 + the signal number, as shells report it: SIGINT 2, SIGTERM 15.
            std::process::exit(if sig == "terminated" { 143 } else { 130 });
        }
    };
    // Diagnose: judge each node's output, then the whole check.
    let evaluated: Vec<NodeResult> = checked
        .into_iter()
        .map(|c| node_check::evaluate(c, &a.require))
        .collect();
    let mut doc = node_check::document(evaluated, &a.require, transport, started.elapsed());
    if a.label {
        if let Some(cluster) = &cluster {
            rt.block_on(crate::sink::labels::write_labels(
                &cluster.client(),
                &mut doc,
            ));
        }
    }
    // Render.
    let out = match g.output {
        Format::Json => crate::render::json::to_json(&doc),
        Format::Yaml => crate::render::json::to_yaml(&doc),
        Format::Junit => Ok(crate::render::junit::render(
            &crate::render::node::junit_suites(&doc),
        )),
        Format::Text => Ok(crate::render::node::text(&doc, g.color.enabled())),
    }
    .map_err(Error::Output)?;
    super::emit(&out)?;
    Ok(exit_code(&doc))
}

/// What `--all` is reported as when the node list itself could not be read.
pub const EVERY_NODE: &str = "(every node)";

/// Every node asked for, not checked, each with the reason: the nodes named, or one entry
/// standing for every node when `--all` could not even list them.
fn not_checked(
    a: &NodeCheckArgs,
    transport: Transport,
    e: &Error,
) -> Vec<crate::model::node::Checked> {
    use crate::model::node::{Checked, ProbeTarget};
    let targets: Vec<ProbeTarget> = if a.local {
        vec![ProbeTarget {
            node: a.node_name.clone(),
            address: "local".into(),
        }]
    } else if a.nodes.is_empty() {
        vec![ProbeTarget {
            node: None,
            address: EVERY_NODE.into(),
        }]
    } else {
        a.nodes
            .iter()
            .map(|n| ProbeTarget {
                node: (transport == Transport::Exec).then(|| n.clone()),
                address: n.clone(),
            })
            .collect()
    };
    let why = format!("not checked: {e}");
    targets
        .into_iter()
        .map(|target| Checked {
            target,
            elapsed: std::time::Duration::ZERO,
            run: Err(Error::Unreachable(why.clone())),
            pods_on_node: None,
            exec: transport == Transport::Exec,
        })
        .collect()
}

/// The check's status as an exit code (the contract in `node check --help`).
fn exit_code(doc: &NodeCheck) -> ExitCode {
    match doc.status {
        "fail" | "problem" => ExitCode::Problem,
        "unreachable" => ExitCode::Unreachable,
        _ => ExitCode::Ok,
    }
}

/// The command line as the fleet collector needs it.
fn fleet_options(a: &NodeCheckArgs, g: &Global, transport: Transport) -> FleetOptions {
    FleetOptions {
        transport,
        via_daemonset: a.via == Via::Daemonset,
        all: a.all,
        nodes: a.nodes.clone(),
        node_name: a.node_name.clone(),
        root: a.root.clone(),
        host_proc: a.host_proc,
        image: a.image.clone(),
        timeout: a.timeout,
        connect_timeout: a.connect_timeout,
        ssh_options: a.ssh_option.clone(),
        ssh_user: a.ssh_user.clone(),
        concurrency: usize::from(a.concurrency),
        progress: match a.progress {
            Progress::Always => true,
            Progress::Never => false,
            Progress::Auto => std::io::stderr().is_terminal(),
        },
        label: a.label,
        request_timeout: g.conn.request_timeout,
    }
}

// ---------------------------------------------------------------------------------------------
// node gc
// ---------------------------------------------------------------------------------------------

pub fn run_gc(a: &NodeGcArgs, g: &Global) -> Result<ExitCode> {
    let rt = super::runtime()?;
    let deleted = rt.block_on(async {
        let cluster =
            Cluster::connect(&super::connect_options(g, Some(a.namespace.clone()))).await?;
        let ns = (!a.all_namespaces).then(|| cluster.namespace.clone());
        if let Some(ns) = &ns {
            cluster.require_namespace(ns).await?;
        }
        // DaemonSets first: deleting them takes their pods along.
        let dsets = daemonset::gc(
            &cluster.client(),
            ns.as_deref(),
            a.min_age,
            g.conn.request_timeout,
        )
        .await?;
        let pods = exec::gc(
            &cluster.client(),
            ns.as_deref(),
            a.min_age,
            g.conn.request_timeout,
        )
        .await?;
        Ok::<_, Error>((pods, dsets))
    })?;
    let (deleted, deleted_ds) = deleted;
    let doc = serde_json::json!({ "deleted": deleted, "deleted_daemonsets": deleted_ds });
    let out = match g.output {
        Format::Json => crate::render::json::to_json(&doc),
        Format::Yaml => crate::render::json::to_yaml(&doc),
        Format::Junit => Err(crate::render::JUNIT_ONLY.to_string()),
        Format::Text if deleted.is_empty() && deleted_ds.is_empty() => {
            Ok("no probe pods or DaemonSets to delete\n".to_string())
        }
        Format::Text => Ok(deleted_ds
            .iter()
            .map(|d| format!("deleted DaemonSet {d} (and its pods)\n"))
            .chain(deleted.iter().map(|p| format!("deleted pod {p}\n")))
            .collect()),
    }
    .map_err(Error::Output)?;
    super::emit(&out)?;
    Ok(ExitCode::Ok)
}

// ---------------------------------------------------------------------------------------------
// From probe output to the verdict: parse::probe reads it, diagnose::node_check judges it
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_dns_subdomains() {
        for ok in ["node1", "ip-10-0-0-7.ec2.internal", "a"] {
            assert!(is_node_name(ok), "{ok}");
        }
        for bad in ["node1; touch x", "$(id)", "Node1", "-n", "a..b", "", "a_b"] {
            assert!(!is_node_name(bad), "{bad}");
        }
    }
}
