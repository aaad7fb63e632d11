//! Shell completion, two ways:
//! - `volmnt completions SHELL`: a static script (committed in completions/), subcommands, flags
//!   and fixed values (`--require nfs,rbd`, `-o json`);
//! - dynamic, through clap_complete's engine: `source <(COMPLETE=bash volmnt)` registers volmnt
//!   itself as the completer, so pods, namespaces, nodes, claims and contexts come from the
//!   cluster (or the kubeconfig) as the line is typed. For `kubectl volmnt`, kubectl (1.26+,
//!   kubernetes#105867) runs `kubectl_complete-volmnt ARGS... WORD`, which calls
//!   `kubectl-volmnt __complete ARGS... WORD` and gets Cobra's format back.
//!
//! The completers read the cluster named on the line being completed (`--kubeconfig`,
//! `--context`, `-n`), with a short time limit, and offer nothing rather than hang or print an
//! error into the shell.

use std::ffi::{OsStr, OsString};
use std::time::Duration;

use clap::CommandFactory;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};

use crate::cli::{Cli, CompletionsArgs};
use crate::collect::cluster::{context_names, names_for_completion, ConnectOptions, Names};
use crate::error::{ExitCode, Result};

/// The script for `shell`, as committed in completions/.
pub fn script(shell: clap_complete::Shell) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "volmnt", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

pub fn run(args: &CompletionsArgs) -> Result<ExitCode> {
    super::emit(&script(args.shell))?;
    Ok(ExitCode::Ok)
}

/// Time a completer may spend asking the cluster.
const BUDGET: Duration = Duration::from_secs(2);

/// The words of the command line being completed: after `--` for clap's protocol
/// (`COMPLETE=bash volmnt -- volmnt doctor pod ...`), after `__complete` for kubectl's.
fn line() -> Vec<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(i) = args.iter().position(|a| a == "__complete") {
        return args[i + 1..].to_vec();
    }
    match args.iter().position(|a| a == "--") {
        Some(i) => args[i + 1..].to_vec(),
        None => Vec::new(),
    }
}

/// The value of a flag on the line (`--flag V`, `--flag=V`, `-n V`, `-nV`).
fn flag_value(words: &[String], long: &str, short: Option<char>) -> Option<String> {
    let mut it = words.iter().peekable();
    let mut found = None;
    while let Some(w) = it.next() {
        let l = format!("--{long}");
        if *w == l {
            found = it.peek().map(|s| s.to_string());
        } else if let Some(v) = w.strip_prefix(&format!("{l}=")) {
            found = Some(v.to_string());
        } else if let Some(c) = short {
            let s = format!("-{c}");
            if *w == s {
                found = it.peek().map(|s| s.to_string());
            } else if let Some(v) = w
                .strip_prefix(&s)
                .filter(|v| !v.is_empty() && !w.starts_with("--"))
            {
                found = Some(v.to_string());
            }
        }
    }
    found
}

/// Where the line being completed points: its kubeconfig, context and namespace.
fn connect_options() -> ConnectOptions {
    let words = line();
    ConnectOptions {
        kubeconfig: flag_value(&words, "kubeconfig", None)
            .or_else(|| std::env::var("VOLMNT_KUBECONFIG").ok())
            .map(Into::into),
        context: flag_value(&words, "context", None),
        namespace: flag_value(&words, "namespace", Some('n')),
        request_timeout: BUDGET,
        long_lived: false,
        overrides: crate::collect::cluster::Overrides {
            cluster: flag_value(&words, "cluster", None),
            user: flag_value(&words, "user", None),
            server: flag_value(&words, "server", Some('s')),
            token: flag_value(&words, "token", None),
            certificate_authority: flag_value(&words, "certificate-authority", None)
                .map(Into::into),
            client_certificate: flag_value(&words, "client-certificate", None).map(Into::into),
            client_key: flag_value(&words, "client-key", None).map(Into::into),
            insecure_skip_tls_verify: words.iter().any(|w| w == "--insecure-skip-tls-verify"),
            impersonate: flag_value(&words, "as", None),
            impersonate_groups: Vec::new(),
        },
    }
}

fn matching(names: Vec<String>, current: &OsStr) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    let mut names: Vec<String> = names
        .into_iter()
        .filter(|n| n.starts_with(prefix.as_ref()))
        .collect();
    names.sort();
    names.dedup();
    names.into_iter().map(CompletionCandidate::new).collect()
}

fn from_cluster(what: Names) -> ArgValueCompleter {
    ArgValueCompleter::new(move |current: &OsStr| {
        matching(names_for_completion(&connect_options(), what), current)
    })
}

fn contexts() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let words = line();
        let kc = flag_value(&words, "kubeconfig", None).map(std::path::PathBuf::from);
        matching(context_names(kc.as_deref()), current)
    })
}

/// The OS families `--node-os` knows (an osImage is accepted too).
fn node_os() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let families = ["rhel", "debian", "suse", "alpine", "immutable"];
        matching(families.iter().map(|s| s.to_string()).collect(), current)
    })
}

/// volmnt's command with the completers that know the cluster attached (clap's definitions in
/// cli.rs stay free of any collector).
pub fn dynamic_command() -> clap::Command {
    Cli::command()
        .mut_arg("context", |a| a.add(contexts()))
        .mut_subcommand("doctor", |d| {
            d.mut_subcommand("pod", |p| {
                p.mut_arg("name", |a| a.add(from_cluster(Names::Pods)))
                    .mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
                    .mut_arg("node_os", |a| a.add(node_os()))
            })
            .mut_subcommand("namespace", |n| {
                n.mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
            })
        })
        .mut_subcommand("explain", |e| e.mut_arg("node_os", |a| a.add(node_os())))
        .mut_subcommand("node", |n| {
            n.mut_subcommand("check", |c| {
                c.mut_arg("nodes", |a| a.add(from_cluster(Names::Nodes)))
                    .mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
            })
            .mut_subcommand("gc", |g| {
                g.mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
            })
        })
        .mut_subcommand("rbd", |r| {
            let target = |c: clap::Command| {
                c.mut_arg("pod", |a| a.add(from_cluster(Names::Pods)))
                    .mut_arg("pvc", |a| a.add(from_cluster(Names::Claims)))
                    .mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
            };
            r.mut_subcommand("status", target)
                .mut_subcommand("unlock", target)
        })
        .mut_subcommand("watch", |w| {
            w.mut_arg("namespace", |a| a.add(from_cluster(Names::Namespaces)))
        })
}

/// `volmnt __complete ARGS... WORD` (what kubectl_complete-volmnt runs): the candidates for
/// WORD, one per line with a tab and its help, then `:4` (Cobra's
/// ShellCompDirectiveNoFileComp), the format kubectl's plugin completion reads.
pub fn cobra(words: &[OsString]) -> String {
    let mut args: Vec<OsString> = vec!["volmnt".into()];
    args.extend(words.iter().cloned());
    if words.is_empty() {
        args.push(OsString::new());
    }
    let index = args.len() - 1;
    let mut cmd = dynamic_command();
    let candidates =
        clap_complete::engine::complete(&mut cmd, args, index, None).unwrap_or_default();
    let mut out = String::new();
    for c in candidates.iter().filter(|c| !c.is_hide_set()) {
        let value = c.get_value().to_string_lossy();
        match c.get_help() {
            Some(h) => {
                let help = h.to_string();
                let help = help.lines().next().unwrap_or("");
                out.push_str(&format!("{value}\t{help}\n"));
            }
            None => out.push_str(&format!("{value}\n")),
        }
    }
    out.push_str(":4\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_every_spelling() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            flag_value(&w("doctor pod -n shop x"), "namespace", Some('n')).as_deref(),
            Some("shop")
        );
        assert_eq!(
            flag_value(&w("doctor pod -nshop x"), "namespace", Some('n')).as_deref(),
            Some("shop")
        );
        assert_eq!(
            flag_value(&w("doctor pod --namespace=shop"), "namespace", Some('n')).as_deref(),
            Some("shop")
        );
        assert_eq!(
            flag_value(&w("--context prod doctor pod"), "context", None).as_deref(),
            Some("prod")
        );
        assert_eq!(
            flag_value(&w("doctor pod --node-os rhel"), "namespace", Some('n')),
            None
        );
    }

    #[test]
    fn every_completer_is_attached_to_an_argument_that_exists() {
        // mut_arg panics on an unknown id when the command is built: build every subcommand.
        let mut cmd = dynamic_command();
        cmd.build();
        fn all(c: &clap::Command) -> usize {
            1 + c.get_subcommands().map(all).sum::<usize>()
        }
        assert!(all(&cmd) > 8);
    }

    #[test]
    fn fixed_values_complete_without_a_cluster() {
        let out = cobra(&[
            "node".into(),
            "check".into(),
            "--require".into(),
            "n".into(),
        ]);
        assert!(out.lines().any(|l| l.starts_with("nfs")), "{out}");
        assert!(out.ends_with(":4\n"));
        let out = cobra(&[
            "doctor".into(),
            "pod".into(),
            "--node-os".into(),
            "r".into(),
        ]);
        assert_eq!(out, "rhel\n:4\n");
        let out = cobra(&["doc".into()]);
        assert!(out.starts_with("doctor"), "{out}");
    }
}
