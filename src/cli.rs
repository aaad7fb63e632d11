//! Every flag volmnt takes, with its help text.

use clap::{Args, Parser, Subcommand};

use crate::error::EXIT_CODES_HELP;
use crate::render::{ColorChoice, Format};

/// Why is this pod stuck in ContainerCreating because of a volume, and what do I run to fix it?
#[derive(Debug, Parser)]
#[command(
    name = "volmnt",
    version,
    about = "Why is this pod stuck in ContainerCreating because of a volume, and what to run to fix it",
    long_about = "volmnt reads what a stuck pod leaves behind (kubectl describe, events, saved objects, \
kubelet logs, rbd lock listings), names the likely causes ranked by confidence with the evidence for \
each, and prints the exact commands to confirm and fix them, adapted to the node's OS.\n\n\
Also installed as kubectl-volmnt, it works as `kubectl volmnt ...`.",
    after_help = EXIT_CODES_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args, Clone)]
pub struct Global {
    /// Output format: a readable report, or one JSON/YAML document on stdout
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text, global = true)]
    pub output: Format,
    /// Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// Say more on stderr about what was read and decided
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Classify raw error messages (event messages, kubelet log lines, mount output)
    #[command(after_help = EXPLAIN_HELP)]
    Explain(ExplainArgs),
    /// Diagnose a stuck pod
    #[command(subcommand)]
    Doctor(DoctorCommand),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

const EXPLAIN_HELP: &str = "\
Each MESSAGE is classified on its own. With `-`, the whole of stdin is ONE message, which may span
lines (mount output usually does).

Examples:
  volmnt explain 'MountVolume.SetUp failed for volume \"pvc-1\" : rbd image p/i is still being used'
  kubectl get events -n ns -o jsonpath='{.items[0].message}' | volmnt explain -

Exit codes:
  0  no message describes a failure
  1  at least one message describes a failure (recognised or not)
  2  usage or input error";

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Messages to classify; `-` reads one message from stdin
    #[arg(required = true, value_name = "MESSAGE")]
    pub messages: Vec<String>,
    /// The node's OS (osImage such as "Ubuntu 22.04.4 LTS", or rhel|debian|suse|alpine|immutable), for install commands
    #[arg(long, value_name = "OS")]
    pub node_os: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum DoctorCommand {
    /// Diagnose one pod from saved output (--from-file) or a bundled real case (--example)
    #[command(after_help = DOCTOR_POD_HELP)]
    Pod(DoctorPodArgs),
}

const DOCTOR_POD_HELP: &str = "\
Inputs (--from-file, any mix, each recognised by its content):
  kubectl describe pod|pv|pvc           (tidy, or flattened onto one line)
  kubectl get events                    (today's and the 1.5-era table layouts)
  kubectl get pod|pvc|pv|node|sc|volumeattachment|events -o yaml|json (one object, a List, or a
                                        multi-document dump; core/v1 and events.k8s.io/v1 events)
  kubelet log                           (klog lines, plain or as journalctl prints them)
  rbd lock ls [--format json], rbd status [--format json]
  a shell transcript holding several of these after `$ command` / `# command` prompts

Examples:
  volmnt doctor pod --example nfs
  kubectl describe pod web-0 -n shop > describe.txt
  volmnt doctor pod web-0 -n shop --from-file describe.txt --from-file kubelet.log
  kubectl describe pod web-0 | volmnt doctor pod --from-file - -o json

Exit codes:
  0  nothing wrong was found in the input
  1  a problem was found (the report names it, or says it is not recognised)
  2  usage or input error (unreadable, unrecognised or empty input; nothing to diagnose)
  3  could not reach or read what was needed";

/// Bundled real cases for `--example`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Example {
    /// 2020: NFS PV on a fresh node without nfs-utils (describe + the node's OS)
    Nfs,
    /// 2017: Ceph RBD image locked by the old node (events + kubelet log + rbd lock list)
    Rbd,
}

#[derive(Debug, Args)]
pub struct DoctorPodArgs {
    /// The pod's name (optional offline: taken from the input when it names one pod)
    pub name: Option<String>,
    /// The pod's namespace
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Read saved output from FILE (repeatable; `-` for stdin)
    #[arg(short = 'f', long = "from-file", value_name = "FILE")]
    pub from_file: Vec<String>,
    /// Diagnose a bundled real case instead of files
    #[arg(long, value_enum, conflicts_with = "from_file")]
    pub example: Option<Example>,
    /// The node's OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given
    #[arg(long, value_name = "OS")]
    pub node_os: Option<String>,
    /// Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)
    #[arg(long, value_name = "MIB", default_value_t = 128)]
    pub max_input_mib: u64,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_documents_exit_codes() {
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains("Exit codes:"));
        assert!(help.contains("3  could not reach"));
    }

    #[test]
    fn example_and_from_file_exclude_each_other() {
        let r = Cli::try_parse_from(["volmnt", "doctor", "pod", "--example", "nfs", "-f", "x"]);
        assert!(r.is_err());
    }
}
