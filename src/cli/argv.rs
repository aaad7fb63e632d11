//! kubectl's habits on the command line, read before clap sees it: `-n NS` (and `-A`) before
//! the subcommand (`volmnt -n shop doctor pod web-0`, as `kubectl -n shop get pod web-0`), and
//! `pod/NAME` (`po/NAME`, `pods/NAME`) where the subcommand is (`volmnt doctor pod/web-0`, as
//! `kubectl describe pod/web-0`). Pure: argv in, argv out; whatever it does not recognise is
//! left for clap to accept or refuse with its own message.

use std::ffi::OsString;

use clap::CommandFactory;

use super::Cli;

/// The flags a subcommand takes that kubectl users put before the subcommand. Only moved when
/// the subcommand they land on takes them; otherwise clap refuses them where they are.
const SCOPE_FLAGS: [(&str, Option<char>, bool); 2] = [
    // (long, short, takes a value)
    ("namespace", Some('n'), true),
    ("all-namespaces", Some('A'), false),
];

/// The kinds kubectl spells a pod with in `TYPE/NAME`.
pub const POD_KINDS: [&str; 3] = ["pod", "pods", "po"];

/// Rewrites kubectl's habits into volmnt's own syntax; see the module's comment.
pub fn normalize(args: Vec<OsString>) -> Vec<OsString> {
    let cmd = Cli::command();
    let mut out: Vec<OsString> = Vec::with_capacity(args.len() + 1);
    let mut moved: Vec<OsString> = Vec::new();
    let mut iter = args.into_iter();
    if let Some(argv0) = iter.next() {
        out.push(argv0);
    }
    let rest: Vec<OsString> = iter.collect();
    let mut i = 0;
    let mut level = &cmd;
    // The subcommand path, and where the leaf's own arguments start in `out`.
    let mut leaf_at: Option<usize> = None;
    while i < rest.len() {
        let word = rest[i].to_string_lossy().into_owned();
        if word == "--" {
            break;
        }
        if let Some((flag, n)) = scope_flag(&word, rest.get(i + 1)) {
            moved.extend(flag);
            i += n;
            continue;
        }
        if word.starts_with('-') {
            // A global flag (clap takes those anywhere); skip its value when it takes one.
            out.push(rest[i].clone());
            if takes_separate_value(&cmd, &word) {
                if let Some(v) = rest.get(i + 1) {
                    out.push(v.clone());
                    i += 1;
                }
            }
            i += 1;
            continue;
        }
        // `doctor pod/web-0`: the kind and the name as two words.
        if let Some((kind, name)) = word.split_once('/') {
            if level.get_name() == "doctor" && POD_KINDS.contains(&kind) && !name.is_empty() {
                out.push("pod".into());
                out.push(name.into());
                leaf_at = Some(out.len());
                level = level.find_subcommand("pod").unwrap_or(level);
                i += 1;
                break;
            }
        }
        match level.find_subcommand(&word) {
            Some(sub) => {
                out.push(rest[i].clone());
                i += 1;
                level = sub;
                if !sub.has_subcommands() {
                    leaf_at = Some(out.len());
                    break;
                }
            }
            // Not a subcommand: clap says what is wrong with it.
            None => break,
        }
    }
    let tail = rest[i..].iter().cloned();
    match leaf_at {
        Some(at) if !moved.is_empty() && takes_scope(level) => {
            let mut v: Vec<OsString> = out[..at].to_vec();
            v.extend(moved);
            v.extend(out[at..].iter().cloned());
            v.extend(tail);
            v
        }
        _ => {
            // Nowhere to move them: put them back where they were, for clap to refuse.
            let mut v = out;
            if !moved.is_empty() {
                let at = 1.min(v.len());
                let after = v.split_off(at);
                v.extend(moved);
                v.extend(after);
            }
            v.extend(tail);
            v
        }
    }
}

/// `-n NS`, `-nNS`, `--namespace NS`, `--namespace=NS`, `-A`, `--all-namespaces`: the words
/// (normalised to the long form) and how many argv words they took.
fn scope_flag(word: &str, next: Option<&OsString>) -> Option<(Vec<OsString>, usize)> {
    for (long, short, value) in SCOPE_FLAGS {
        let l = format!("--{long}");
        if word == l || short.is_some_and(|s| word == format!("-{s}")) {
            if !value {
                return Some((vec![l.into()], 1));
            }
            let v = next?;
            return Some((vec![l.into(), v.clone()], 2));
        }
        if value {
            if let Some(v) = word.strip_prefix(&format!("{l}=")) {
                return Some((vec![l.into(), v.into()], 1));
            }
            if let Some(s) = short {
                if let Some(v) = word.strip_prefix(&format!("-{s}")) {
                    if !v.is_empty() && !word.starts_with("--") {
                        return Some((vec![l.into(), v.trim_start_matches('=').into()], 1));
                    }
                }
            }
        }
    }
    None
}

/// A global flag written as its own word whose value is the next word (`-o json`,
/// `--context prod`), not `--flag=value`.
fn takes_separate_value(cmd: &clap::Command, word: &str) -> bool {
    if word.contains('=') {
        return false;
    }
    cmd.get_arguments().any(|a| {
        let long = a.get_long().is_some_and(|l| word == format!("--{l}"));
        let short = a.get_short().is_some_and(|s| word == format!("-{s}"));
        (long || short) && a.get_action().takes_values()
    })
}

/// Whether this (leaf) subcommand takes `--namespace`.
fn takes_scope(c: &clap::Command) -> bool {
    c.get_arguments().any(|a| a.get_long() == Some("namespace"))
}

/// A pod's name as kubectl users write it: `web-0`, `pod/web-0`, `po/web-0`, `pods/web-0`.
/// Another kind (`deployment/web`) is refused with what to run instead.
pub fn pod_name(s: &str) -> Result<String, String> {
    match s.split_once('/') {
        None => Ok(s.to_string()),
        Some((kind, name)) if POD_KINDS.contains(&kind) && !name.is_empty() => Ok(name.to_string()),
        Some((kind, _)) => Err(format!(
            "{s:?}: `doctor pod` takes a pod (NAME or pod/NAME), not a {kind}; \
             `volmnt doctor namespace -n NS` diagnoses every stuck pod of a namespace"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Vec<String> {
        normalize(args.iter().map(OsString::from).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_namespace_before_the_subcommand_moves_after_it() {
        assert_eq!(
            norm(&["volmnt", "-n", "shop", "doctor", "pod", "web-0"]),
            ["volmnt", "doctor", "pod", "--namespace", "shop", "web-0"]
        );
        assert_eq!(
            norm(&["volmnt", "--namespace=shop", "-o", "json", "doctor", "ns"]),
            [
                "volmnt",
                "-o",
                "json",
                "doctor",
                "ns",
                "--namespace",
                "shop"
            ]
        );
        assert_eq!(
            norm(&["volmnt", "-nshop", "watch"]),
            ["volmnt", "watch", "--namespace", "shop"]
        );
        assert_eq!(
            norm(&["volmnt", "-A", "doctor", "namespace"]),
            ["volmnt", "doctor", "namespace", "--all-namespaces"]
        );
        // A global flag's value is not taken for a subcommand.
        assert_eq!(
            norm(&[
                "volmnt",
                "--context",
                "doctor",
                "-n",
                "x",
                "doctor",
                "pod",
                "p"
            ]),
            [
                "volmnt",
                "--context",
                "doctor",
                "doctor",
                "pod",
                "--namespace",
                "x",
                "p"
            ]
        );
    }

    #[test]
    fn what_is_already_in_place_is_left_alone() {
        for a in [
            &["volmnt", "doctor", "pod", "web-0", "-n", "shop"][..],
            &["volmnt", "explain", "-n"],
            &["volmnt", "doctor", "pod", "--", "-n"],
        ] {
            assert_eq!(norm(a), a);
        }
    }

    #[test]
    fn a_namespace_for_a_command_without_one_stays_for_clap_to_refuse() {
        let out = norm(&["volmnt", "-n", "x", "explain", "m"]);
        assert_eq!(out, ["volmnt", "--namespace", "x", "explain", "m"]);
        assert!(Cli::try_parse_from(out).is_err());
    }

    #[test]
    fn kubectl_type_slash_name_is_a_pod() {
        assert_eq!(
            norm(&["volmnt", "doctor", "pod/web-0", "-n", "shop"]),
            ["volmnt", "doctor", "pod", "web-0", "-n", "shop"]
        );
        assert_eq!(
            norm(&["volmnt", "-n", "shop", "doctor", "po/web-0"]),
            ["volmnt", "doctor", "pod", "web-0", "--namespace", "shop"]
        );
        assert_eq!(pod_name("pods/web-0").unwrap(), "web-0");
        assert_eq!(pod_name("web-0").unwrap(), "web-0");
        assert!(pod_name("deployment/web")
            .unwrap_err()
            .contains("not a deployment"));
    }

    use clap::Parser;

    #[test]
    fn every_habit_parses() {
        for a in [
            &["volmnt", "-n", "shop", "doctor", "pod", "pod/web-0"][..],
            &["volmnt", "doctor", "pods", "web-0", "-n", "shop"],
            &["volmnt", "doctor", "po/web-0", "-n", "shop"],
            &["volmnt", "-n", "shop", "-o", "json", "doctor", "namespace"],
            &["volmnt", "-n", "shop", "watch", "--dry-run"],
            &["volmnt", "-n", "volmnt", "node", "check", "n1"],
            &["volmnt", "-n", "shop", "rbd", "status", "--pod", "p"],
        ] {
            let c = Cli::try_parse_from(normalize(a.iter().map(OsString::from).collect()));
            assert!(c.is_ok(), "{a:?}: {}", c.unwrap_err());
        }
    }
}
