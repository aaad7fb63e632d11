//! Reaching Ceph: which CLI, where it runs, the flags passed through and the time allowed, and
//! the read-only calls (locks, watchers, the blocklist, the release).

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use super::fence::{unknown_command, Fence};
use super::image::ImageSpec;
use super::run::{cli_error, run_in_pod, run_local, shell_join, shell_quote, strings, Output};
use crate::collect::cluster::Cluster;
use crate::error::{Error, Result};
use crate::model::{RbdLock, RbdWatcher};
use crate::parse::rbd::{parse_blocklist, parse_lock_list, parse_status};

/// Which CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    Rbd,
    Ceph,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Rbd => "rbd",
            Tool::Ceph => "ceph",
        }
    }
}

/// Where the CLIs run.
#[derive(Clone)]
pub enum Where {
    /// On this machine, found on the PATH.
    Local,
    /// Inside a pod (a Rook toolbox) through the exec API.
    Toolbox {
        cluster: Box<Cluster>,
        namespace: String,
        pod: String,
    },
}

/// How to reach Ceph: where the CLIs run, the flags passed through, and the time allowed.
#[derive(Clone)]
pub struct Ceph {
    pub place: Where,
    pub conf: Option<PathBuf>,
    pub id: Option<String>,
    pub keyring: Option<PathBuf>,
    pub timeout: Duration,
    /// The cluster's word for fencing (see [`Ceph::detect_fence`]).
    pub fence: Fence,
}

impl Ceph {
    /// The full argument vector, the connection flags appended as `-c/--id/--keyring`.
    pub fn argv(&self, tool: Tool, args: &[String]) -> Vec<String> {
        let mut v = vec![tool.name().to_string()];
        v.extend(args.iter().cloned());
        if let Some(c) = &self.conf {
            v.push("-c".into());
            v.push(c.display().to_string());
        }
        if let Some(id) = &self.id {
            v.push("--id".into());
            v.push(id.clone());
        }
        if let Some(k) = &self.keyring {
            v.push("--keyring".into());
            v.push(k.display().to_string());
        }
        v
    }

    /// The command as a user would type it (shell-quoted where needed), with the toolbox's
    /// `kubectl exec` in front when the CLIs run there.
    pub fn display(&self, tool: Tool, args: &[String]) -> String {
        let cmd = shell_join(&self.argv(tool, args));
        match &self.place {
            Where::Local => cmd,
            Where::Toolbox { namespace, pod, .. } => {
                format!(
                    "kubectl -n {} exec {} -- {cmd}",
                    shell_quote(namespace),
                    shell_quote(pod)
                )
            }
        }
    }

    /// Where the CLIs run, for messages.
    pub fn place_label(&self) -> String {
        match &self.place {
            Where::Local => "this machine".into(),
            Where::Toolbox { namespace, pod, .. } => format!("toolbox pod {namespace}/{pod}"),
        }
    }

    /// Run one CLI call, bounded by the timeout. A non-zero exit is an `Output`, not an error;
    /// not being able to run it at all is `Error::Unreachable`.
    pub(super) async fn run(&self, tool: Tool, args: &[String]) -> Result<Output> {
        let argv = self.argv(tool, args);
        let shown = self.display(tool, args);
        let fut = async {
            match &self.place {
                Where::Local => run_local(&argv).await,
                Where::Toolbox {
                    cluster,
                    namespace,
                    pod,
                } => run_in_pod(cluster, namespace, pod, &argv).await,
            }
        };
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(r) => r,
            Err(_) => Err(Error::Unreachable(format!(
                "`{shown}` gave no answer within {:?} (--ceph-timeout): is Ceph reachable from {}?",
                self.timeout,
                self.place_label()
            ))),
        }
    }

    /// Run and insist on exit 0; other exits become volmnt's errors (see [`cli_error`]).
    async fn run_ok(
        &self,
        tool: Tool,
        args: &[String],
        image: Option<&ImageSpec>,
    ) -> Result<Output> {
        let out = self.run(tool, args).await?;
        if out.code == 0 {
            Ok(out)
        } else {
            Err(cli_error(&self.display(tool, args), &out, image))
        }
    }

    /// `rbd lock ls IMAGE --format json`.
    pub async fn locks(&self, image: &ImageSpec) -> Result<Vec<RbdLock>> {
        let args = strings(&["lock", "ls", &image.to_string(), "--format", "json"]);
        let out = self.run_ok(Tool::Rbd, &args, Some(image)).await?;
        parse_lock_list(&out.stdout)
            .map(|s| s.locks)
            .map_err(|e| Error::Parse {
                context: self.display(Tool::Rbd, &args),
                source: e,
            })
    }

    /// `rbd status IMAGE --format json`.
    pub async fn watchers(&self, image: &ImageSpec) -> Result<Vec<RbdWatcher>> {
        let args = strings(&["status", &image.to_string(), "--format", "json"]);
        let out = self.run_ok(Tool::Rbd, &args, Some(image)).await?;
        parse_status(&out.stdout).map_err(|e| Error::Parse {
            context: self.display(Tool::Rbd, &args),
            source: e,
        })
    }

    /// `ceph osd blocklist ls --format json` (two JSON arrays back to back), `blacklist` on a
    /// cluster before Pacific. When the word turns out wrong (the monitors answer "no valid
    /// command found" / "invalid command"), the other one is tried and kept.
    pub async fn blocklist(&mut self) -> Result<Vec<crate::parse::rbd::BlocklistEntry>> {
        let mut args = strings(&["osd", self.fence.word(), "ls", "--format", "json"]);
        let mut out = self.run(Tool::Ceph, &args).await?;
        if out.code != 0 && unknown_command(&out.stderr) {
            self.fence = self.fence.other();
            args = strings(&["osd", self.fence.word(), "ls", "--format", "json"]);
            out = self.run(Tool::Ceph, &args).await?;
        }
        if out.code != 0 {
            return Err(cli_error(&self.display(Tool::Ceph, &args), &out, None));
        }
        parse_blocklist(&out.stdout).map_err(|e| Error::Parse {
            context: self.display(Tool::Ceph, &args),
            source: e,
        })
    }

    /// Which word this cluster uses for fencing, from its monitors' release
    /// (`ceph versions --format json`); kept as it is when that cannot be read (a refused or
    /// failed call says nothing: [`Ceph::blocklist`] still corrects it on the first answer).
    pub async fn detect_fence(&mut self) -> Option<u32> {
        let args = strings(&["versions", "--format", "json"]);
        let out = self.run(Tool::Ceph, &args).await.ok()?;
        if out.code != 0 {
            return None;
        }
        let major = crate::parse::rbd::parse_ceph_release(&out.stdout)?;
        self.fence = Fence::for_release(Some(major));
        Some(major)
    }

    /// Locks and watchers of one image, read concurrently.
    pub async fn holders_of(&self, image: &ImageSpec) -> Result<(Vec<RbdLock>, Vec<RbdWatcher>)> {
        let (l, w) = futures::join!(self.locks(image), self.watchers(image));
        Ok((l?, w?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::rbd::plan::Action;

    #[test]
    fn commands_are_argument_vectors_shown_quoted() {
        let ceph = Ceph {
            place: Where::Local,
            conf: Some("/etc/ceph/ceph.conf".into()),
            id: Some("admin".into()),
            keyring: Some("/k r".into()),
            fence: Fence::default(),
            timeout: Duration::from_secs(1),
        };
        let (tool, args) = Action::LockRm {
            image: "kube/img".into(),
            lock_id: "my lock".into(),
            locker: "client.1".into(),
            address: "a".into(),
            blocklist: true,
        }
        .command();
        assert_eq!(
            ceph.argv(tool, &args),
            [
                "rbd",
                "lock",
                "rm",
                "kube/img",
                "my lock",
                "client.1",
                "-c",
                "/etc/ceph/ceph.conf",
                "--id",
                "admin",
                "--keyring",
                "/k r"
            ]
        );
        assert_eq!(
            ceph.display(tool, &args),
            "rbd lock rm kube/img 'my lock' client.1 -c /etc/ceph/ceph.conf --id admin --keyring '/k r'"
        );
    }
}
