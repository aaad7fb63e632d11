//! `volmnt doctor pod|namespace`: gather what is known about stuck pods (live from the cluster,
//! or from saved output), diagnose, report.

use serde::Serialize;

use crate::cli::{DoctorNamespaceArgs, DoctorPodArgs, Example, Global};
use crate::collect::cluster::Cluster;
use crate::collect::node::exec::{self, ExecOptions, ProbePods};
use crate::collect::node::ssh::ProbeAsk;
use crate::collect::offline::{self, Source};
use crate::collect::save;
use crate::diagnose::{self, fleet, Diagnosis, Options, Report, Status};
use crate::error::{Error, ExitCode, Result};
use crate::model::Case;
use crate::render;

/// The bundled real cases (see fixtures/README.md for where each file came from).
fn example_sources(e: Example) -> Vec<Source> {
    let src = |label: &str, text: &str| Source {
        label: format!("example:{label}"),
        text: text.to_string(),
        log: None,
    };
    match e {
        Example::Nfs => vec![
            src(
                "nfs-describe-pod.txt",
                include_str!("../../fixtures/seed/nfs-describe-pod.txt"),
            ),
            // The objects as the API showed them, incl. Node node1 (CentOS 7), reconstructed
            // from the write-up: see fixtures/synthetic/objects/README.md.
            src(
                "nfs-incident.yaml",
                include_str!("../../fixtures/synthetic/objects/nfs-incident.yaml"),
            ),
        ],
        Example::Rbd => vec![
            src(
                "rbd-describe-events-k8s15.txt",
                include_str!("../../fixtures/seed/rbd-describe-events-k8s15.txt"),
            ),
            src(
                "rbd-kubelet.log",
                include_str!("../../fixtures/seed/rbd-kubelet.log"),
            ),
            src(
                "rbd-lock-list.txt",
                include_str!("../../fixtures/seed/rbd-lock-list.txt"),
            ),
        ],
    }
}

/// The saved inputs of `--from-file` / `--example` (read, not yet interpreted), and the inputs
/// that could not be read as text (named and skipped when others are read).
fn saved_sources(args: &DoctorPodArgs) -> Result<(Vec<Source>, Vec<offline::Skipped>)> {
    Ok(match args.example {
        Some(e) => (example_sources(e), Vec::new()),
        None => {
            if args.from_file.iter().filter(|f| *f == "-").count() > 1 {
                return Err(Error::Usage("`-` (stdin) can be given only once".into()));
            }
            let max = args.max_input_mib.saturating_mul(1 << 20);
            let mut stdin = std::io::stdin();
            let mut all = Vec::new();
            let mut skipped = Vec::new();
            for f in &args.from_file {
                let (s, k) = offline::read_inputs_lenient(f, max, &mut stdin)?;
                all.extend(s);
                skipped.extend(k);
            }
            (all, skipped)
        }
    })
}

/// Read every source into `case`. An input volmnt cannot read, or in which it recognises
/// nothing, is named in the notes and skipped; only when nothing at all is read is that an
/// input error (exit 2): the one input's own error, or each input's.
fn add_sources(
    case: &mut Case,
    sources: &[Source],
    mut skipped: Vec<offline::Skipped>,
) -> Result<()> {
    let mut read = 0;
    for s in sources {
        match offline::add_source(case, s) {
            Ok(()) => read += 1,
            Err(e) if offline::skippable(&e) => skipped.push((s.label.clone(), e)),
            Err(e) => return Err(e),
        }
    }
    if read == 0 {
        return Err(match skipped.len() {
            0 => Error::input("the input", "is empty: nothing to diagnose"),
            1 => skipped.remove(0).1,
            _ => Error::input(
                skipped
                    .iter()
                    .map(|(l, _)| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                format!(
                    "nothing in these inputs was recognised: {}",
                    skipped
                        .iter()
                        .map(|(l, e)| format!("{l}: {}", reason(e)))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ),
        });
    }
    for (label, e) in skipped {
        case.notes
            .push(format!("{label}: skipped, not read: {}", reason(&e)));
        case.inputs
            .push(format!("{label}: skipped ({})", reason(&e)));
    }
    Ok(())
}

/// An input's error without its name (the note names it), and without the list of formats
/// volmnt reads (`--help` has it).
fn reason(e: &Error) -> String {
    let s = match e {
        Error::Input { message, .. } => message.clone(),
        Error::Parse { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    match s.strip_prefix("not recognised: expected ") {
        Some(rest) => match rest.find(" (found ") {
            Some(i) => format!("not a format volmnt reads{}", &rest[i..]),
            None => "not a format volmnt reads".into(),
        },
        None => s,
    }
}

/// Build the case from saved inputs (pure apart from reading the files).
pub fn collect_offline(args: &DoctorPodArgs) -> Result<Case> {
    let mut case = Case {
        pod_name: args.name.clone(),
        namespace: args.namespace.clone(),
        ..Case::default()
    };
    let (sources, skipped) = saved_sources(args)?;
    add_sources(&mut case, &sources, skipped)?;
    if let (Some(want), Some(got)) = (
        &args.name,
        case.pod.as_ref().and_then(|p| p.metadata.name.clone()),
    ) {
        if *want != got {
            case.notes.push(format!(
                "the input describes pod {got}, not {want}; the report is about {got}"
            ));
        }
    }
    // Which of these facts are the pod's is the engine's call (diagnose/scope.rs): nothing is
    // dropped here.
    let has_messages = !case.events.is_empty()
        || !case.logs.is_empty()
        || !case.messages.is_empty()
        || !case.volume_attachments.is_empty()
        || case
            .node_facts
            .as_ref()
            .is_some_and(|f| !f.kernel_log.is_empty() || !f.kubelet_log.is_empty())
        // A node plugin's log with an error in it (`kubectl logs` of the plugin is often all a
        // ticket has): its errors are classified like any message.
        || case.plugin_logs.iter().any(|l| {
            matches!(l.line.severity, Some('E' | 'F'))
                || crate::diagnose::looks_like_failure(&l.line.message)
        });
    let has_state = !case.rbd.is_empty() || !case.pvcs.is_empty() || !case.missing.is_empty();
    // The node's status says which volumes its kubelet waits for (status.volumesInUse): an
    // attach that nothing makes leaves no event at all (an in-tree iSCSI volume without the
    // attach/detach controller, seen on the real cluster), so the saved objects are the case.
    let node_waits = case.pod.is_some()
        && case
            .node()
            .and_then(|n| n.status.as_ref()?.volumes_in_use.as_ref())
            .is_some_and(|v| !v.is_empty());
    if !has_messages && !has_state && !node_waits {
        return Err(Error::input(
            sources
                .iter()
                .map(|s| s.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            "has no events and no error messages, so there is nothing to diagnose; events expire after about an hour: \
             add kubelet's log from the node (`journalctl -u kubelet --since -2h`), or run volmnt against the cluster \
             (without --from-file) while the events still exist",
        ));
    }
    Ok(case)
}

/// Add saved files to a live case: what they hold (a kubelet log, events saved before they
/// expired, `rbd lock ls`, the node's command output) sits beside what the API said, each named
/// in "Read".
fn add_files_to_live(case: &mut Case, args: &DoctorPodArgs) -> Result<()> {
    let (sources, skipped) = saved_sources(args)?;
    let mut from_files = Case::default();
    add_sources(&mut from_files, &sources, skipped)?;
    // The live objects stand; the files add what the API cannot give (logs, old events,
    // rbd listings, raw messages, the node's facts).
    case.logs.extend(from_files.logs);
    case.messages.extend(from_files.messages);
    case.rbd.extend(from_files.rbd);
    // A node plugin's `kubectl logs` pasted beside the live read (its pod may be gone).
    case.plugin_logs.extend(from_files.plugin_logs);
    case.empty_listings.extend(from_files.empty_listings);
    for e in from_files.events {
        if !case
            .events
            .iter()
            .any(|x| x.reason == e.reason && x.message == e.message)
        {
            case.events.push(e);
        }
    }
    if let Some(f) = from_files.node_facts {
        match case.node_facts.as_mut() {
            Some(n) => crate::parse::transcripts::merge(n, f),
            None => case.node_facts = Some(f),
        }
    }
    case.notes.extend(from_files.notes);
    case.inputs.extend(from_files.inputs);
    Ok(())
}

/// `--probe-node`: the probe on the pod's node through a short-lived pod; its facts go into the
/// case. A probe that fails is a note, not an error: the diagnosis stands without it.
async fn probe_node(
    cluster: &Cluster,
    case: &mut Case,
    args: &DoctorPodArgs,
    global: &Global,
    pods: &ProbePods,
) {
    let Some(node) = case.node_name().map(str::to_string) else {
        case.notes
            .push("--probe-node: the pod is not scheduled on a node yet; nothing to probe".into());
        return;
    };
    // A node whose kubelet is not Ready cannot start the probe pod: say so at once instead of
    // waiting for the probe's deadline.
    if let Some(why) = case.node().and_then(not_ready) {
        let line = format!(
            "--probe-node: node {node} is not Ready ({why}): its kubelet cannot start a probe pod; read it over SSH (`volmnt node check {node} --ssh`) or from its console"
        );
        eprintln!("volmnt: {line}");
        case.notes.push(line);
        return;
    }
    if let Err(e) = cluster.require_namespace(&args.probe_namespace).await {
        let line = format!("--probe-node: the probe namespace (--probe-namespace): {e}; `kubectl apply -f deploy/rbac.yaml` creates namespace {} with the Role the probe needs", crate::model::node::DEFAULT_PROBE_NAMESPACE);
        eprintln!("volmnt: {line}");
        case.notes.push(line);
        return;
    }
    let opts = ExecOptions {
        namespace: args.probe_namespace.clone(),
        image: args.probe_image.clone(),
        deadline: args.probe_timeout + std::time::Duration::from_secs(60),
        request_timeout: global.conn.request_timeout,
        step_timeout_secs: crate::collect::node::local::step_timeout_for(args.probe_timeout),
        ask: ProbeAsk {
            // kubelet's own words about this pod: its UID, its volumes, their claims and PVs.
            log_match: log_names(case),
            pod_uid: case.pod.as_ref().and_then(|p| p.metadata.uid.clone()),
            nfs_servers: if args.probe_nfs {
                nfs_servers(case)
            } else {
                Vec::new()
            },
            kernel_log: true,
            dmesg: args.probe_kernel_log,
        },
        syslog_capability: args.probe_kernel_log,
        flags: crate::collect::node::exec::ProbeFlags::DOCTOR_POD,
    };
    let servers = nfs_servers(case);
    if !args.probe_nfs && !servers.is_empty() {
        case.note_unavailable(format!(
            "nfs_servers on node {node}: whether NFS server {} answers from the node was not asked (--probe-nfs asks it: rpcinfo, showmount, TCP 2049)",
            servers.join(", ")
        ));
    }
    eprintln!("{}", exec::announcement(&opts, std::slice::from_ref(&node)));
    match exec::run(
        &cluster.exec_client(),
        &node,
        &opts,
        pods,
        args.probe_timeout,
    )
    .await
    {
        Ok(run) => match crate::parse::probe::parse_from(
            &String::from_utf8_lossy(&run.stdout),
            &format!("node probe (pod on {node})"),
        ) {
            Ok(mut facts) => {
                let dropped = drop_lines_before_the_pod(case, &mut facts.kubelet_log);
                if dropped > 0 {
                    case.notes.push(format!(
                        "kubelet log of {node}: left out {dropped} line(s) that name only the device, from before the kubelet's first line about this pod or its PV (an earlier user of the device)"
                    ));
                }
                case.inputs.push(format!(
                    "probe of node {node} through a pod ({:.1} s){}",
                    run.elapsed.as_secs_f64(),
                    if args.probe_kernel_log {
                        ", with CAP_SYSLOG to read the kernel log (--probe-kernel-log)"
                    } else {
                        ", without CAP_SYSLOG (--probe-kernel-log adds it to read the kernel log)"
                    }
                ));
                // What pasted files said about the node stays, under the probe's own facts.
                if let Some(files) = case.node_facts.take() {
                    crate::parse::transcripts::merge(&mut facts, files);
                }
                case.node_facts = Some(facts);
            }
            Err(e) => case.notes.push(format!(
                "--probe-node: the probe output of {node} did not parse: {e}"
            )),
        },
        Err(e) => case
            .notes
            .push(format!("--probe-node: could not probe node {node}: {e}")),
    }
}

/// The NFS servers of the pod's volumes: inline `nfs`, NFS PVs, and the CSI NFS driver's
/// `server` attribute.
fn nfs_servers(case: &Case) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(pod) = &case.pod {
        for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
            out.extend(v.nfs.as_ref().map(|n| n.server.clone()));
        }
    }
    for pv in &case.pvs {
        let Some(spec) = pv.spec.as_ref() else {
            continue;
        };
        out.extend(spec.nfs.as_ref().map(|n| n.server.clone()));
        if let Some(csi) = spec.csi.as_ref().filter(|c| c.driver.contains("nfs")) {
            out.extend(
                csi.volume_attributes
                    .as_ref()
                    .and_then(|a| a.get("server").cloned()),
            );
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Why a node is not Ready (`Ready=Unknown: NodeStatusUnknown, Kubelet stopped posting node
/// status`), or `None` when it is Ready or says nothing.
fn not_ready(node: &k8s_openapi::api::core::v1::Node) -> Option<String> {
    let ready = node
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready")?;
    (ready.status != "True").then(|| {
        let mut s = format!("Ready={}", ready.status);
        if let Some(r) = &ready.reason {
            s.push_str(&format!(": {r}"));
        }
        if let Some(m) = &ready.message {
            s.push_str(&format!(", {m}"));
        }
        s
    })
}

/// What kubelet's log lines about this pod name: its UID and its PVs (and a local PV's
/// device). Not the pod's volume names: "data" names a volume of half the pods on a node, and
/// on the real node the probe then read the other pods' failures as this pod's (an NFS mount
/// error quoted for a pod with a loop device). Kubelet's lines about a pod's volume carry the
/// pod's UID (`podName:UID`, `(UID: "...")`, `volumes/kubernetes.io~nfs/...` under the pod's
/// directory) or, for the device steps, the PV's name.
fn log_names(case: &Case) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(pod) = &case.pod {
        out.extend(pod.metadata.uid.clone());
    }
    out.extend(case.pvs.iter().filter_map(|p| p.metadata.name.clone()));
    // A local PV on a block device: mount-utils logs what it found on the device (fsck's
    // verdict, "Found a dos partition table in /dev/sdb", "current format is ...") with the
    // device's path only, not the volume's name (seen on the real node, tests/real).
    out.extend(
        case.pvs
            .iter()
            .filter_map(|p| p.spec.as_ref()?.local.as_ref())
            .map(|l| l.path.clone())
            .filter(|p| p.starts_with("/dev/")),
    );
    out.sort();
    out.dedup();
    out
}

/// The probe reads the kubelet's lines that name the pod's UID, its PVs or a local PV's device
/// (mount-utils names only the device). A device path is reused (loop and nbd numbers at once,
/// a disk's letter after a detach): the lines naming it from before the kubelet's first line
/// about this pod or its PV were another volume's (on the real node, fsck's "Found a dos
/// partition table in /dev/loop5" of an earlier run was read for the XFS disk on loop5 now).
/// Those are dropped; how many is returned. Without any line about the pod, every line is such
/// a line.
fn drop_lines_before_the_pod(case: &Case, lines: &mut Vec<String>) -> usize {
    let mut own: Vec<String> = Vec::new();
    if let Some(pod) = &case.pod {
        own.extend(pod.metadata.uid.clone());
    }
    own.extend(case.pvs.iter().filter_map(|p| p.metadata.name.clone()));
    let devices: Vec<String> = log_names(case)
        .into_iter()
        .filter(|n| n.starts_with("/dev/"))
        .collect();
    if own.is_empty() || devices.is_empty() {
        return 0;
    }
    let first = lines
        .iter()
        .position(|l| own.iter().any(|o| l.contains(o.as_str())))
        .unwrap_or(lines.len());
    let before = lines.len();
    let mut i = 0;
    lines.retain(|l| {
        let keep = i >= first || !devices.iter().any(|d| l.contains(d.as_str()));
        i += 1;
        keep
    });
    before - lines.len()
}

/// Run `probe_node`, deleting the probe pod on every path: success, error, and Ctrl-C/SIGTERM
/// (then exit 130/143, after the cleanup).
fn probe_node_guarded(
    rt: &tokio::runtime::Runtime,
    cluster: &Cluster,
    case: &mut Case,
    args: &DoctorPodArgs,
    global: &Global,
) {
    let pods = ProbePods::default();
    let outcome = rt.block_on(async {
        tokio::select! {
            _ = probe_node(cluster, case, args, global, &pods) => Ok(()),
            sig = super::interrupted() => {
                eprintln!("\nvolmnt: {sig}: stopping; deleting the probe pod first");
                Err(sig)
            }
        }
    });
    for f in rt.block_on(exec::cleanup(
        &cluster.client(),
        &pods,
        global.conn.request_timeout,
    )) {
        eprintln!("volmnt: could not delete probe pod {f}; `volmnt node gc` removes it");
    }
    if let Err(sig) = outcome {
        std::process::exit(if sig == "terminated" { 143 } else { 130 });
    }
}

/// `-vv`: each read, when it started after the client was made and how long it took: where a
/// live run's time goes.
fn print_read_times(cluster: &Cluster) {
    for r in cluster.read_times() {
        eprintln!(
            "volmnt:   at {:7.1} ms  took {:7.1} ms  {} [{}]",
            r.start.as_secs_f64() * 1000.0,
            r.took.as_secs_f64() * 1000.0,
            r.what,
            r.outcome
        );
    }
}

/// Read the pod and its surroundings from the cluster.
async fn collect_live(args: &DoctorPodArgs, global: &Global) -> Result<(Case, usize, Cluster)> {
    let name = args.name.clone().ok_or_else(|| {
        Error::Usage(
            "name the pod (`volmnt doctor pod NAME -n NAMESPACE`), or give saved output with --from-file"
                .into(),
        )
    })?;
    let cluster = Cluster::connect(&super::connect_options(global, args.namespace.clone())).await?;
    let ns = cluster.namespace.clone();
    let case = cluster.collect_pod(&ns, &name).await?;
    Ok((case, cluster.request_count(), cluster))
}

pub fn run_pod(args: &DoctorPodArgs, global: &Global) -> Result<ExitCode> {
    // Live whenever a pod is named (files, if any, add to it); offline with --offline, with
    // --example, or with files and no pod name.
    let live = args.example.is_none()
        && !args.offline
        && (args.from_file.is_empty() || args.name.is_some());
    let started = std::time::Instant::now();
    let rt = super::runtime()?;
    if live {
        // Compile the knowledge while the requests are in flight, not after them.
        std::thread::spawn(|| {
            crate::diagnose::catalogue::catalogue();
        });
    }
    let (mut case, cluster) = if live {
        match rt.block_on(collect_live(args, global)) {
            Ok((mut case, requests, cluster)) => {
                if global.verbose > 0 {
                    eprintln!("volmnt: {requests} API requests");
                    eprintln!(
                        "volmnt: the API's answers were in {:.1} ms after start",
                        started.elapsed().as_secs_f64() * 1000.0
                    );
                }
                if global.verbose > 1 {
                    print_read_times(&cluster);
                }
                if !args.from_file.is_empty() {
                    add_files_to_live(&mut case, args)?;
                }
                (case, Some(cluster))
            }
            // No cluster configured at all, and files given: they are the whole input. Said
            // in the report, not silent.
            Err(Error::NoCluster(why)) if !args.from_file.is_empty() => {
                let mut case = collect_offline(args)?;
                case.notes.insert(0, format!("read the files only: {why}"));
                (case, None)
            }
            Err(e) => return Err(e),
        }
    } else {
        (collect_offline(args)?, None)
    };
    if let (true, Some(cluster)) = (args.probe_node, &cluster) {
        probe_node_guarded(&rt, cluster, &mut case, args, global);
    }
    // The node's own log lines (the probe's, a pasted dmesg, a saved case's), once. What could
    // not be read about the node is in its facts' `unavailable`, which the report says.
    offline::add_node_logs(&mut case);
    if global.verbose > 0 {
        for i in &case.inputs {
            eprintln!("volmnt: read {i}");
        }
    }
    // Ages are measured from when the facts were read: now for a live read, the saved time
    // for a replayed case (so it reads as the live run did); plain files have none.
    let now = match &cluster {
        Some(_) => Some(super::now_secs()),
        None => case.captured_at,
    };
    if cluster.is_some() {
        case.captured_at = now;
    }
    if let Some(dir) = &args.save {
        let files = save::write(dir, &case)?;
        eprintln!(
            "volmnt: saved the case to {} ({} files); replay it from the files alone with `{}`",
            dir.display(),
            files.len(),
            save::replay_command(dir)
        );
    }
    let opts = Options {
        node_os: args.node_os.clone(),
        invocation: global.invocation.clone(),
        now,
    };
    let mut report = diagnose::diagnose(&case, &opts);
    // RBD holders: read from Ceph (local CLIs) and judged, when a finding is about them.
    let rbd_finding = report
        .findings
        .iter()
        .any(|f| f.cause == "rbd_lock_held" || f.cause == "rbd_watcher_stale");
    if let (true, Some(cluster)) = (rbd_finding, &cluster) {
        rt.block_on(crate::collect::rbd::enrich_case(&mut case, cluster));
        report = diagnose::diagnose(&case, &opts);
    }
    let diagnosed = started.elapsed();
    let out =
        render::render(&report, global.output, super::text_style(global)).map_err(Error::Output)?;
    super::emit(&out)?;
    if global.verbose > 0 && cluster.is_some() {
        // Where a live run's time goes (issue 19 compares it with kubectl and one raw GET).
        eprintln!(
            "volmnt: diagnosed {:.1} ms after start, report written at {:.1} ms",
            diagnosed.as_secs_f64() * 1000.0,
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(super::exit_for(&[&report]))
}

/// `doctor namespace` output: the groups of stuck pods first, then the reports (all of them in
/// JSON/YAML; in text, a sample per group or all of them on request).
#[derive(Serialize)]
struct NamespaceReport {
    schema_version: u32,
    status: Status,
    /// `ns` or `(all namespaces)`.
    scope: String,
    stuck_pods: usize,
    /// Pods Pending or in ContainerCreating younger than --min-age with no volume failure
    /// event: left out (a pod with one is diagnosed at any age).
    younger_than_min_age: usize,
    /// --min-age, as given (`2m`).
    min_age: String,
    groups: Vec<fleet::Group>,
    denied: Vec<crate::model::Denied>,
    notes: Vec<String>,
    reports: Vec<Report>,
}

pub fn run_namespace(args: &DoctorNamespaceArgs, global: &Global) -> Result<ExitCode> {
    let rt = super::runtime()?;
    let (cases, requests, scope, denied) = rt.block_on(async {
        let cluster =
            Cluster::connect(&super::connect_options(global, args.namespace.clone())).await?;
        let ns = if args.all_namespaces {
            None
        } else {
            Some(cluster.namespace.clone())
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let fleet = cluster
            .collect_namespace(ns.as_deref(), args.min_age, now)
            .await?;
        let scope = ns.unwrap_or_else(|| "(all namespaces)".into());
        if global.verbose > 1 {
            print_read_times(&cluster);
        }
        Ok::<_, Error>((fleet, cluster.request_count(), scope, cluster.denied()))
    })?;
    let (cases, young) = (cases.cases, cases.young);
    if global.verbose > 0 {
        eprintln!("volmnt: {requests} API requests");
    }
    let opts = Options {
        invocation: global.invocation.clone(),
        now: Some(super::now_secs()),
        ..Options::default()
    };
    let reports: Vec<Report> = diagnose::diagnose_all(cases, &opts);
    let groups = fleet::group(&reports);
    let required: Vec<crate::model::Denied> =
        denied.iter().filter(|d| !d.optional).cloned().collect();
    let mut notes = Vec::new();
    for d in denied.iter().filter(|d| d.optional) {
        notes.push(format!(
            "Secret existence not checked: `{d}` is an optional permission (role volmnt-secret-names in deploy/rbac-optional.yaml) that is not granted"
        ));
    }
    let stuck = reports
        .iter()
        .filter(|r| r.diagnosis != Diagnosis::Ok)
        .count();
    let status = if !required.is_empty() {
        Status::Partial
    } else if reports.iter().any(|r| r.diagnosis == Diagnosis::Stuck) {
        Status::Stuck
    } else if stuck > 0 {
        Status::Inconclusive
    } else {
        Status::Ok
    };
    let mut doc = NamespaceReport {
        schema_version: diagnose::SCHEMA_VERSION,
        status,
        scope: scope.clone(),
        stuck_pods: stuck,
        younger_than_min_age: young,
        min_age: crate::model::node::human_duration(args.min_age),
        groups,
        denied: required,
        notes,
        reports,
    };
    doc.reports.iter_mut().for_each(render::redact_report);
    let shown = if args.all_reports {
        Shown::All
    } else if args.details {
        Shown::Samples
    } else {
        Shown::Summary
    };
    let out = match global.output {
        crate::render::Format::Json => None,
        crate::render::Format::Yaml => Some(render::json::to_yaml(&doc)),
        crate::render::Format::Text => {
            Some(Ok(namespace_text(&doc, super::text_style(global), shown)))
        }
        crate::render::Format::Junit => Some(Err(render::JUNIT_ONLY.to_string())),
    };
    match out {
        None => super::emit_json(&doc)?,
        Some(out) => super::emit(&out.map_err(Error::Output)?)?,
    }
    Ok(match doc.status {
        Status::Partial => ExitCode::Unreachable,
        Status::Stuck | Status::Inconclusive => ExitCode::Problem,
        Status::Ok => ExitCode::Ok,
    })
}

/// Which full reports the text shows after the groups.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shown {
    Summary,
    Samples,
    All,
}

/// The fleet view: one verdict line, two lines per group (what, where, and the first command
/// for the group), then full reports only when asked for. 300 stuck pods in 20 groups fit a
/// screen of 60 lines.
fn namespace_text(doc: &NamespaceReport, style: render::text::Style, shown: Shown) -> String {
    let mut out = String::new();
    let label = doc.status.label();
    let scope = if doc.scope.starts_with('(') {
        "all namespaces".to_string()
    } else {
        format!("namespace {}", doc.scope)
    };
    // What was left out is said where "OK" is: a pod still starting is not a pod checked.
    let young = match doc.younger_than_min_age {
        0 => String::new(),
        n => format!(
            " ({n} pod(s) younger than {} without a volume failure event left out: --min-age)",
            doc.min_age
        ),
    };
    if doc.stuck_pods == 0 {
        out.push_str(&format!(
            "{label} no pod in {scope} is stuck on a volume{young}\n"
        ));
    } else {
        out.push_str(&format!(
            "{label} {} pod(s) in {scope} are stuck on volumes: {} root cause(s){young}\n",
            doc.stuck_pods,
            doc.groups.len()
        ));
    }
    if !doc.denied.is_empty() {
        out.push_str(&format!(
            "  not allowed to read (the groups are built without these): {}\n",
            doc.denied
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let all_ns = doc.scope.starts_with('(');
    for g in &doc.groups {
        let ns = if all_ns {
            match g.namespaces.len() {
                0 => String::new(),
                1..=3 => format!(", namespace {}", g.namespaces.join(", ")),
                n => format!(", {n} namespaces"),
            }
        } else {
            String::new()
        };
        // The root object and the cause, then what is wrong with it as the pod view's verdict
        // says it (`at_fault`, the root not repeated), and the pod view's caveat when the
        // evidence does not settle the cause.
        let what = match g.at_fault.as_deref() {
            Some(a) => {
                let rest = a.strip_prefix(g.root.as_str()).unwrap_or(a).trim_start();
                format!("{}: {} ({rest})", g.root, g.title)
            }
            None => format!("{}: {}", g.root, g.title),
        };
        let caveat = g
            .caveat
            .as_ref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:>4} pod(s){}{ns}  {what} [{}]{caveat}\n",
            g.pods.len(),
            fleet::nodes_phrase(&g.nodes),
            g.cause
        ));
        match g.first_step.as_ref().and_then(|s| s.command.as_deref()) {
            Some(c) => out.push_str(&format!(
                "         $ {c}  # first check, for {}\n",
                g.sample
            )),
            None => out.push_str(&format!("         e.g. {}\n", g.sample)),
        }
    }
    if !doc.notes.is_empty() {
        for n in &doc.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    let samples: Vec<usize> = match shown {
        Shown::Summary => Vec::new(),
        Shown::Samples => doc.groups.iter().map(|g| g.sample_index).collect(),
        Shown::All => (0..doc.reports.len()).collect(),
    };
    if doc.stuck_pods > 0 && shown == Shown::Summary {
        out.push_str(
            "Full reports: --details (one per group), --all-reports (every pod), or -o json\n",
        );
    }
    for i in samples {
        out.push('\n');
        out.push_str(&render::text::report(&doc.reports[i], style));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 19: on the real node every test pod's volume was called "data", and matching the
    /// kubelet's log by that name made one pod's report quote another pod's NFS failure.
    #[test]
    fn the_kubelet_log_is_matched_by_the_pods_uid_pvs_and_devices_never_a_volume_name() {
        let case = Case {
            pod: Some(
                serde_json::from_value(json!({
                    "metadata": {"name": "app", "namespace": "default", "uid": "2887c883-dbd8-4ed6-89e1-080eb54bd540"},
                    "spec": {"containers": [{"name": "c"}],
                             "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]},
                }))
                .unwrap(),
            ),
            pvs: vec![serde_json::from_value(json!({
                "metadata": {"name": "pv-local-1"},
                "spec": {"local": {"path": "/dev/loop2"}},
            }))
            .unwrap()],
            ..Case::default()
        };
        assert_eq!(
            log_names(&case),
            [
                "/dev/loop2",
                "2887c883-dbd8-4ed6-89e1-080eb54bd540",
                "pv-local-1"
            ]
        );
    }
}
