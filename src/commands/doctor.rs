//! `volmnt doctor pod`: gather what is known about one pod, diagnose, report.

use crate::cli::{DoctorPodArgs, Example, Global};
use crate::collect::offline::{self, Source};
use crate::diagnose::{self, Options, Status};
use crate::error::{Error, ExitCode, Result};
use crate::model::Case;
use crate::render;

/// The bundled real cases (see fixtures/README.md for where each file came from).
fn example_sources(e: Example) -> Vec<Source> {
    let src = |label: &str, text: &str| Source {
        label: format!("example:{label}"),
        text: text.to_string(),
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

/// Build the case from the inputs (pure apart from reading the files).
pub fn collect(args: &DoctorPodArgs) -> Result<Case> {
    let mut case = Case {
        pod_name: args.name.clone(),
        namespace: args.namespace.clone(),
        ..Case::default()
    };
    let sources: Vec<Source> = match args.example {
        Some(e) => example_sources(e),
        None => {
            if args.from_file.is_empty() {
                return Err(Error::Usage(
                    "no input: pass --from-file FILE (saved kubectl/kubelet/rbd output) or --example nfs|rbd; \
                     reading from a live cluster is not built yet"
                        .into(),
                ));
            }
            if args.from_file.iter().filter(|f| *f == "-").count() > 1 {
                return Err(Error::Usage("`-` (stdin) can be given only once".into()));
            }
            let max = args.max_input_mib.saturating_mul(1 << 20);
            let mut stdin = std::io::stdin();
            args.from_file
                .iter()
                .map(|f| offline::read_input(f, max, &mut stdin))
                .collect::<Result<_>>()?
        }
    };
    for s in &sources {
        offline::add_source(&mut case, s)?;
    }
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
    offline::keep_pod_events(&mut case);
    let has_messages =
        !case.events.is_empty() || !case.logs.is_empty() || !case.messages.is_empty();
    let has_state = !case.rbd.is_empty() || !case.pvcs.is_empty();
    if !has_messages && !has_state {
        return Err(Error::input(
            sources.iter().map(|s| s.label.as_str()).collect::<Vec<_>>().join(", "),
            "has no events and no error messages, so there is nothing to diagnose; events expire after about an hour: \
             add kubelet's log from the node (`journalctl -u kubelet --since -2h`), and next time save the events early (`kubectl get events -n NS -o yaml`)",
        ));
    }
    Ok(case)
}

pub fn run_pod(args: &DoctorPodArgs, global: &Global) -> Result<ExitCode> {
    let case = collect(args)?;
    if global.verbose > 0 {
        for i in &case.inputs {
            eprintln!("volmnt: read {i}");
        }
    }
    let report = diagnose::diagnose(
        &case,
        &Options {
            node_os: args.node_os.clone(),
        },
    );
    let out =
        render::render(&report, global.output, global.color.enabled()).map_err(Error::Output)?;
    super::emit(&out)?;
    Ok(match report.status {
        Status::Problem => ExitCode::Problem,
        Status::Ok => ExitCode::Ok,
    })
}
