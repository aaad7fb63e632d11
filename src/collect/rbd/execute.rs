//! Confirmation and execution: the only place that runs `rbd lock rm` or
//! `ceph osd blocklist add`, and only with a [`Confirmation`] of the very plan it runs.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use serde::Serialize;

use super::ceph::Ceph;
use super::image::ImageSpec;
use super::plan::{Action, Plan};
use super::run::last_line;
use crate::error::{Error, Result};

/// Proof that the user agreed to run exactly these actions. Its field is private: only
/// [`Confirmation::by_yes_flag`] and [`Confirmation::typed_on_terminal`] make one.
#[derive(Debug)]
pub struct Confirmation {
    actions: Vec<Action>,
}

impl Confirmation {
    /// `--yes` on the command line.
    pub fn by_yes_flag(yes_flag: bool, plan: &Plan) -> Option<Confirmation> {
        (yes_flag && !plan.dry_run).then(|| Confirmation {
            actions: plan.actions(),
        })
    }

    /// Ask on the terminal; `Ok(None)` when the answer is not "yes". Refuses (Usage error)
    /// when stdin or stderr is not a terminal: then `--yes` is needed.
    pub fn typed_on_terminal(plan: &Plan) -> Result<Option<Confirmation>> {
        if plan.dry_run {
            return Ok(None);
        }
        if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
            return Err(Error::Usage(
                "not run: confirmation is needed and there is no terminal to ask on; \
                 check the plan with --dry-run, then run again with --yes"
                    .into(),
            ));
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "Run the {} command(s) above on {}? Type yes to go on: ",
            plan.steps.len(),
            plan.image
        );
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| Error::io("reading the answer", e))?;
        Ok((line.trim() == "yes").then(|| Confirmation {
            actions: plan.actions(),
        }))
    }
}

/// What running one step gave.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub command: String,
    pub exit_code: i32,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// The holder is gone when listed again.
    pub verified: bool,
    pub detail: String,
}

/// Run the plan's steps: the ONLY place that runs `rbd lock rm` or `ceph osd blocklist add`.
/// Then list again and check each released holder is gone (watchers for up to 10 s).
pub async fn execute(ceph: &Ceph, plan: &Plan, confirmed: Confirmation) -> Result<Vec<Outcome>> {
    if plan.dry_run {
        return Err(Error::Usage("a dry run executes nothing".into()));
    }
    if confirmed.actions != plan.actions() {
        return Err(Error::Usage(
            "the confirmation was given for another plan; nothing was run".into(),
        ));
    }
    let image = ImageSpec::parse(&plan.image)
        .ok_or_else(|| Error::Usage(format!("bad image spec {}", plan.image)))?;
    let mut ran = Vec::new();
    for step in &plan.steps {
        let (tool, args) = step.action.command_for(plan.fence);
        let shown = ceph.display(tool, &args);
        let out = ceph.run(tool, &args).await?;
        ran.push((step, shown, out));
    }
    // Verify: the lock ids gone at once; a blocklisted watch may take a moment to drop.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let (mut locks, mut watchers);
    loop {
        (locks, watchers) = ceph.holders_of(&image).await?;
        let watch_left = ran.iter().any(|(s, _, _)| match &s.action {
            Action::BlocklistAdd { address } => watchers.iter().any(|w| &w.address == address),
            _ => false,
        });
        if !watch_left || tokio::time::Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Ok(ran
        .into_iter()
        .map(|(step, command, out)| {
            let (verified, detail) = match &step.action {
                Action::LockRm {
                    lock_id, locker, ..
                } => {
                    let gone = !locks
                        .iter()
                        .any(|l| &l.id == lock_id && &l.locker == locker);
                    let detail = match (out.code, gone) {
                        (0, true) => "lock removed: `rbd lock ls` no longer lists it".into(),
                        (2, true) => "the lock was already gone (exit 2, ENOENT)".into(),
                        (_, true) => "the lock is gone although the command failed".into(),
                        (_, false) => "the lock is STILL listed by `rbd lock ls`".into(),
                    };
                    (gone, detail)
                }
                Action::BlocklistAdd { address } => {
                    let gone = !watchers.iter().any(|w| &w.address == address);
                    let detail = if gone {
                        "watcher gone: `rbd status` no longer lists it".into()
                    } else {
                        "the watcher is STILL listed by `rbd status` 10 s later".into()
                    };
                    (gone, detail)
                }
            };
            Outcome {
                command,
                exit_code: out.code,
                stderr: last_line(&out.stderr),
                verified,
                detail,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::rbd::ceph::Where;
    use crate::collect::rbd::fence::Fence;
    use crate::collect::rbd::holders::tests::{img, lock_holder};
    use crate::collect::rbd::holders::Verdict;
    use crate::collect::rbd::plan::{plan, Flags};

    #[tokio::test]
    async fn execute_refuses_a_confirmation_of_another_plan_and_dry_runs() {
        let ceph = Ceph {
            place: Where::Local,
            conf: Some("/nonexistent/ceph.conf".into()),
            id: None,
            keyring: None,
            fence: Fence::default(),
            timeout: Duration::from_secs(1),
        };
        let stale = plan(
            &img(),
            &[lock_holder(Verdict::Stale, "10.0.0.1:0/1")],
            Flags::default(),
        );
        let other = plan(
            &img(),
            &[lock_holder(Verdict::Stale, "10.0.0.9:0/9")],
            Flags::default(),
        );
        let c = Confirmation::by_yes_flag(true, &other).unwrap();
        let e = execute(&ceph, &stale, c).await.unwrap_err();
        assert!(e.to_string().contains("another plan"), "{e}");
        let dry = Plan {
            dry_run: true,
            ..stale.clone()
        };
        let c = Confirmation::by_yes_flag(true, &stale).unwrap();
        assert!(execute(&ceph, &dry, c).await.is_err());
    }

    /// The only calls that change Ceph are built in `Action::command` and run in `execute`.
    /// Read over the code (before its tests) of every file of collect::rbd, so that no file
    /// the module is split into escapes it.
    #[test]
    fn only_execute_runs_mutating_commands() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/collect");
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{dir}/rbd"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        files.insert(0, format!("{dir}/rbd.rs").into());
        let code = files
            .iter()
            .map(|f| {
                let src = std::fs::read_to_string(f).unwrap();
                let end = src.find("#[cfg(test)]").unwrap_or(src.len());
                src[..end].to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            files.iter().any(|f| f.ends_with("rbd/execute.rs")),
            "{files:?}"
        );
        assert_eq!(code.matches(r#""lock", "rm""#).count(), 1);
        assert_eq!(code.matches(r#"fence.word(), "add""#).count(), 1);
        // `.run(` with a step's command appears once, inside execute.
        assert_eq!(
            code.matches("step.action.command_for(plan.fence)").count(),
            1
        );
        let exec_start = code.find("pub async fn execute(").unwrap();
        let exec_end = exec_start + code[exec_start..].find("\n}\n").unwrap();
        let at = code.find("step.action.command_for(plan.fence)").unwrap();
        assert!(at > exec_start && at < exec_end);
    }
}
