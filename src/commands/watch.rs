//! `volmnt watch`: the collector hands out one case per changed stuck pod, the engine diagnoses
//! it, and the sinks write what a cluster reads (an Event on the pod, metrics). Only the
//! replica holding the Lease writes Events.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use crate::cli::{Global, WatchArgs};
use crate::collect::cluster::Cluster;
use crate::collect::watch::{Collector, Update, WatchOptions};
use crate::diagnose::{self, Options};
use crate::error::{Error, ExitCode, Result};
use crate::render::Format;
use crate::sink::events::{EventSink, Outcome, PodRef};
use crate::sink::lease::{Change, Elector, Leadership, LeaseConfig};
use crate::sink::metrics::{Metrics, StuckLabels};

/// One log line on stderr: text with a UTC timestamp, or a JSON object per line with `-o json`.
fn logger(format: Format) -> Arc<dyn Fn(String) + Send + Sync> {
    Arc::new(move |msg: String| {
        let t = k8s_openapi::jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let line = match format {
            Format::Json => serde_json::json!({ "time": t, "msg": msg }).to_string(),
            _ => format!("{t} volmnt watch: {msg}"),
        };
        eprintln!("{line}");
    })
}

fn identity(args: &WatchArgs) -> String {
    if let Some(i) = &args.identity {
        return i.clone();
    }
    let base = std::env::var("POD_NAME")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "volmnt".into());
    format!("{base}_{}", std::process::id())
}

pub fn run(args: &WatchArgs, global: &Global) -> Result<ExitCode> {
    if args.renew_deadline >= args.lease_duration {
        return Err(Error::Usage(
            "--renew-deadline must be shorter than --lease-duration (a leader must stop writing before others may take over)".into(),
        ));
    }
    if args.retry_period >= args.renew_deadline {
        return Err(Error::Usage(
            "--retry-period must be shorter than --renew-deadline".into(),
        ));
    }
    let log = logger(global.output);
    let rt = super::runtime()?;
    rt.block_on(async {
        let mut conn = super::connect_options(global, args.namespace.first().cloned());
        conn.long_lived = true;
        let cluster = Cluster::connect(&conn).await?;
        let namespaces = if args.all_namespaces {
            None
        } else if args.namespace.is_empty() {
            Some(vec![cluster.namespace.clone()])
        } else {
            Some(args.namespace.clone())
        };
        // A misspelt namespace watches nothing, silently, for ever: refuse it at the start.
        for ns in namespaces.iter().flatten() {
            cluster.require_namespace(ns).await?;
        }
        let metrics = Arc::new(Metrics::new());
        let bound = crate::sink::http::serve(args.listen, metrics.clone())
            .await
            .map_err(|e| {
                Error::Unreachable(format!("cannot listen on {} (--listen): {e}", args.listen))
            })?;
        let me = identity(args);
        log(format!(
            "watching {} ({}) for pods stuck on volumes for {} or more{}; /metrics /healthz /readyz on http://{bound}{}",
            match &namespaces {
                None => "all namespaces".to_string(),
                Some(v) => format!("namespace(s) {}", v.join(", ")),
            },
            cluster.target,
            crate::model::node::human_duration(args.min_age),
            args.selector
                .as_ref()
                .map(|s| format!(" with labels {s}"))
                .unwrap_or_default(),
            if args.dry_run {
                "; DRY RUN: nothing is written"
            } else {
                ""
            }
        ));

        // Leader election (none in a dry run: it writes nothing, the Lease included).
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (mut leadership, elector) = if args.dry_run || !args.leader_elect {
            (Leadership::always(), None)
        } else {
            let cfg = LeaseConfig {
                namespace: args
                    .lease_namespace
                    .clone()
                    .or_else(|| {
                        std::env::var("POD_NAMESPACE")
                            .ok()
                            .filter(|s| !s.is_empty())
                    })
                    .unwrap_or_else(|| cluster.namespace.clone()),
                name: args.lease_name.clone(),
                identity: me.clone(),
                lease_duration: args.lease_duration,
                renew_deadline: args.renew_deadline,
                retry_period: args.retry_period,
            };
            log(format!(
                "leader election: Lease {}/{} as {me}",
                cfg.namespace, cfg.name
            ));
            let (elector, leadership) = Elector::new(cluster.client(), cfg);
            let log2 = log.clone();
            let handle = tokio::spawn(elector.run(
                async {
                    let _ = stop_rx.await;
                },
                move |c| {
                    log2(match c {
                        Change::Acquired => "became the leader: writing Events".into(),
                        Change::Lost(why) => format!("stopped leading ({why}): not writing Events"),
                        Change::Follower(h) => format!("following {h} (the leader writes Events)"),
                    })
                },
            ));
            (leadership, Some(handle))
        };
        metrics.set_leader(leadership.is_leader());

        let opts = WatchOptions {
            namespaces,
            label_selector: args.selector.clone(),
            min_age: args.min_age,
            resync: args.resync,
            page_size: crate::collect::cluster::PAGE,
            read_secrets: args.read_secrets,
        };
        let mut collector = Collector::start(&cluster, opts, log.clone());
        let sink = EventSink::new(cluster.client(), me, args.event_refresh, args.dry_run);
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let outcome = loop {
            tokio::select! {
                updates = collector.next() => {
                    let leader = leadership.is_leader();
                    handle(updates, &sink, &metrics, leader, args.concurrency as usize, global.conn.request_timeout, &log).await;
                    refresh(&metrics, &mut collector, &cluster);
                }
                became = leadership.changed() => {
                    metrics.set_leader(became);
                    if became {
                        // Whatever the previous leader had not written yet.
                        collector.mark_all();
                    }
                }
                _ = tick.tick() => refresh(&metrics, &mut collector, &cluster),
                sig = super::interrupted() => break sig,
            }
        };
        log(format!("{outcome}: stopping"));
        let _ = stop_tx.send(());
        if let Some(h) = elector {
            let _ = tokio::time::timeout(args.renew_deadline, h).await;
        }
        Ok::<_, Error>(ExitCode::Ok)
    })
}

/// The watch's health and the request counts, into the metrics.
fn refresh(metrics: &Metrics, collector: &mut Collector, cluster: &Cluster) {
    let s = collector.stats();
    metrics.set_synced(s.synced);
    metrics.set_young(s.young);
    metrics.set_watch_failing(&s.cached, s.failing);
    metrics.set_cached(s.cached);
    metrics.set_watch_stats(s.restarts, s.errors);
    metrics.set_api_requests(cluster.requests_by_verb());
}

/// Diagnose each changed pod and hand the report to the sinks.
async fn handle(
    updates: Vec<Update>,
    sink: &EventSink,
    metrics: &Metrics,
    leader: bool,
    concurrency: usize,
    request_timeout: Duration,
    log: &Arc<dyn Fn(String) + Send + Sync>,
) {
    futures::stream::iter(updates)
        .for_each_concurrent(concurrency, |u| async move {
            match u {
                Update::Stuck {
                    key,
                    uid,
                    node,
                    case,
                    since,
                } => {
                    // As `doctor pod` reads it live: ages measured from now.
                    let opts = Options {
                        now: Some(super::now_secs()),
                        ..Options::default()
                    };
                    // Off the async threads: while one pod is diagnosed (CPU) the others'
                    // Events are written, and both cores diagnose (issue 30: 3,128 pods after
                    // the first sync).
                    let report =
                        match tokio::task::spawn_blocking(move || diagnose::diagnose(&case, &opts))
                            .await
                        {
                            Ok(r) => r,
                            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                            Err(_) => return,
                        };
                    let cause = report
                        .top()
                        .map(|f| f.cause.clone())
                        .unwrap_or_else(|| "unknown".into());
                    metrics.set_stuck(
                        key.clone(),
                        StuckLabels {
                            namespace: key.0.clone(),
                            node: node.unwrap_or_default(),
                            cause: cause.clone(),
                        },
                    );
                    let pod = PodRef {
                        namespace: key.0.clone(),
                        name: key.1.clone(),
                        uid,
                    };
                    // Up to three requests (create, get, patch), each bounded like any other.
                    let outcome = tokio::time::timeout(
                        request_timeout * 3,
                        sink.record(&pod, &report, leader),
                    )
                    .await
                    .unwrap_or_else(|_| {
                        Outcome::Failed(format!(
                            "no answer within {request_timeout:?} (--request-timeout)"
                        ))
                    });
                    let at = format!("{}/{}", key.0, key.1);
                    match &outcome {
                        Outcome::Created { name } => {
                            metrics.count_event("created");
                            log(format!("{at}: {cause}: Event {name} created"));
                        }
                        Outcome::Updated { name, count } => {
                            metrics.count_event("updated");
                            log(format!(
                                "{at}: {cause}: Event {name} updated (count {count})"
                            ));
                        }
                        Outcome::DryRun { action, name } => {
                            metrics.count_event("dry_run");
                            log(format!(
                                "{at}: {cause}: would {action} Event {name}: {}",
                                crate::sink::events::message(&report)
                                    .map(|(_, m)| m)
                                    .unwrap_or_default()
                            ));
                        }
                        Outcome::Failed(e) => {
                            metrics.count_event("failed");
                            log(format!("{at}: {cause}: writing the Event failed: {e}"));
                        }
                        Outcome::Unchanged | Outcome::NotLeader | Outcome::NoFinding => {}
                    }
                    metrics.observe_latency(since.elapsed().as_secs_f64());
                }
                Update::Cleared { key, uid } => {
                    metrics.clear_stuck(&key);
                    sink.forget(&uid);
                    log(format!("{}/{}: no longer stuck", key.0, key.1));
                }
            }
        })
        .await;
}
