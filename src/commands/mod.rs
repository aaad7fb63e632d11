//! One module per subcommand: collect → diagnose → render, and the outcome as an exit code.

pub mod completions;
pub mod doctor;
pub mod explain;
pub mod node;
pub mod rbd;
pub mod watch;

use std::io::Write;

use crate::cli::Global;
use crate::collect::cluster::ConnectOptions;

use crate::cli::{Cli, Command, DoctorCommand};
use crate::error::{Error, ExitCode, Result};

/// Run the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    // JUnit is a test report: a case per node and requirement only `node check` has. Refused
    // before any work, as a usage error, not after a diagnosis was made.
    let junit_ok = matches!(
        &cli.command,
        Command::Node(crate::cli::node::NodeCommand::Check(_))
    );
    if cli.global.output == crate::render::Format::Junit && !junit_ok {
        return Err(Error::Usage(format!(
            "{}; use -o json or -o yaml here",
            crate::render::JUNIT_ONLY
        )));
    }
    match &cli.command {
        Command::Explain(a) => explain::run(a, &cli.global),
        Command::Doctor(DoctorCommand::Pod(a)) => doctor::run_pod(a, &cli.global),
        Command::Doctor(DoctorCommand::Namespace(a)) => doctor::run_namespace(a, &cli.global),
        Command::Node(c) => node::run(c, &cli.global),
        Command::Rbd(c) => rbd::run(c, &cli.global),
        Command::Watch(a) => watch::run(a, &cli.global),
        Command::Completions(a) => completions::run(a),
    }
}

/// The exit code of a run from its reports (decided once, here): 3 when a read was refused (the
/// report is partial), else 1 when a pod is stuck (a cause, or only symptoms), else 0.
pub fn exit_for(reports: &[&crate::diagnose::Report]) -> ExitCode {
    use crate::diagnose::Status;
    if reports.iter().any(|r| r.status == Status::Partial) {
        ExitCode::Unreachable
    } else if reports
        .iter()
        .any(|r| matches!(r.status, Status::Stuck | Status::Inconclusive))
    {
        ExitCode::Problem
    } else {
        ExitCode::Ok
    }
}

/// The current time in Unix seconds (ages in live reports are measured from it).
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// How to lay out text reports for this run.
pub fn text_style(g: &Global) -> crate::render::text::Style {
    crate::render::text::Style {
        color: g.color.enabled(),
        verbose: g.verbose > 0,
        width: crate::render::text_width(),
    }
}

/// Write a rendered document to stdout. A closed pipe (`| head`) is not an error worth a message.
pub fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Output(e.to_string())),
    }
}

/// The async runtime the cluster-facing commands run on (2 workers: this machine's size).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Unreachable(format!("starting the async runtime: {e}")))
}

/// The connection flags as the collector takes them.
pub(crate) fn connect_options(g: &Global, namespace: Option<String>) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: g.conn.kubeconfig.clone(),
        context: g.conn.context.clone(),
        namespace,
        request_timeout: g.conn.request_timeout,
        long_lived: false,
    }
}

/// Ctrl-C (SIGINT) or SIGTERM, whichever comes first.
pub(crate) async fn interrupted() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return "interrupted";
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "interrupted",
            _ = term.recv() => "terminated",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "interrupted"
    }
}
