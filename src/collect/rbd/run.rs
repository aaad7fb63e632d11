//! Running one `rbd`/`ceph` CLI call: on this machine (found on the PATH) or inside a Rook
//! toolbox pod (the exec API), always as an argument vector, never a shell string; the CLIs'
//! exits read into volmnt's errors; commands shown shell-quoted as a user would type them.

use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::Pod;
use kube::api::AttachParams;
use kube::Api;

use super::image::ImageSpec;
use crate::collect::cluster::Cluster;
use crate::error::{Error, Result};

/// What one CLI run gave.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub(super) fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// `which`: the first executable `name` on the PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

pub(super) async fn run_local(argv: &[String]) -> Result<Output> {
    let program = which(&argv[0]).ok_or_else(|| {
        Error::Unreachable(format!(
            "the `{}` CLI is not installed here (not on the PATH): install ceph-common, \
             or run it inside a Rook toolbox pod with --toolbox NAMESPACE/POD",
            argv[0]
        ))
    })?;
    let out = tokio::process::Command::new(&program)
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| Error::Unreachable(format!("running {}: {e}", program.display())))?;
    Ok(Output {
        // Killed by a signal: no code; say -1.
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

pub(super) async fn run_in_pod(
    cluster: &Cluster,
    ns: &str,
    pod: &str,
    argv: &[String],
) -> Result<Output> {
    use tokio::io::AsyncReadExt;
    // exec is a WebSocket upgrade: HTTP/1.1.
    let api = Api::<Pod>::namespaced(cluster.exec_client(), ns);
    let ap = AttachParams::default()
        .stdin(false)
        .stdout(true)
        .stderr(true);
    let mut proc = api.exec(pod, argv.to_vec(), &ap).await.map_err(|e| {
        let why = match &e {
            kube::Error::Api(s) if s.code == 403 => format!(
                "not allowed (needs create on pods/exec in namespace {ns}; the ClusterRole volmnt-rbd-toolbox in deploy/rbac-optional.yaml, bound by a RoleBinding in namespace {ns}, grants it)"
            ),
            kube::Error::Api(s) if s.code == 404 => "no such pod".to_string(),
            other => other.to_string(),
        };
        Error::Unreachable(format!(
            "cannot run `{}` in the toolbox pod {ns}/{pod} ({}): {why}",
            argv[0], cluster.target
        ))
    })?;
    let mut so = proc.stdout();
    let mut se = proc.stderr();
    let status = proc.take_status();
    let read_out = async {
        let mut s = String::new();
        if let Some(r) = so.as_mut() {
            let _ = r.read_to_string(&mut s).await;
        }
        s
    };
    let read_err = async {
        let mut s = String::new();
        if let Some(r) = se.as_mut() {
            let _ = r.read_to_string(&mut s).await;
        }
        s
    };
    let (stdout, stderr) = futures::join!(read_out, read_err);
    let status = match status {
        Some(f) => f.await,
        None => None,
    };
    let code = match status {
        Some(s) if s.status.as_deref() == Some("Success") => 0,
        Some(s) => s
            .details
            .as_ref()
            .and_then(|d| d.causes.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.reason.as_deref() == Some("ExitCode")))
            .and_then(|c| c.message.as_deref()?.parse().ok())
            .unwrap_or(-1),
        None => -1,
    };
    Ok(Output {
        code,
        stdout,
        stderr,
    })
}

/// The last meaningful line of a CLI's stderr (Ceph prints timestamps and blank lines).
pub(super) fn last_line(stderr: &str) -> String {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// A failed `rbd`/`ceph` run as volmnt's error: Ceph unreachable (exit 3), image or pool not
/// found (exit 2), busy (16), invalid (22), or the CLI's own words.
pub fn cli_error(shown: &str, out: &Output, image: Option<&ImageSpec>) -> Error {
    let err = &out.stderr;
    let last = last_line(err);
    let unreachable = err.contains("couldn't connect to the cluster")
        || err.contains("error connecting to the cluster")
        || err.contains("authenticate timed out")
        || err.contains("unable to open config file")
        || err.contains("did not load config file")
        || err.contains("[errno 110]")
        || err.contains("RADOS timed out")
        || err.contains("RADOS permission denied")
        || out.code == 110;
    if unreachable {
        let why = err
            .lines()
            .map(str::trim)
            .find(|l| {
                l.contains("unable to open config file")
                    || l.contains("authenticate timed out")
                    || l.contains("handle_auth_bad_method")
                    || l.contains("unable to find a keyring")
            })
            .map(|l| l.split_once("-1 ").map_or(l, |(_, r)| r).to_string())
            // Ceph's log prefix (time, thread, level) says nothing to an operator.
            .unwrap_or_else(|| {
                last.split_once(" -1 ")
                    .map_or(last.clone(), |(_, r)| r.to_string())
            });
        return Error::Unreachable(format!(
            "cannot reach Ceph: `{shown}` failed (exit {}): {why}; check --ceph-conf, --id and --keyring (or CEPH_CONF), or use --toolbox NAMESPACE/POD",
            out.code
        ));
    }
    match out.code {
        2 if err.contains("error opening pool") => Error::Usage(format!(
            "{}: the pool does not exist ({last})",
            image.map_or_else(|| shown.to_string(), |i| i.to_string())
        )),
        2 if err.contains("error opening image") => Error::Usage(format!(
            "image {} not found ({last}); `rbd ls {}` lists the pool's images",
            image.map_or_else(|| shown.to_string(), |i| i.to_string()),
            image.map_or("POOL", |i| i.pool.as_str())
        )),
        2 => Error::Usage(format!(
            "`{shown}`: not found (exit 2, ENOENT): {last}"
        )),
        16 => Error::Unreachable(format!(
            "`{shown}`: busy (exit 16, EBUSY): {last}"
        )),
        22 => Error::Usage(format!(
            "`{shown}`: Ceph rejected the arguments as invalid (exit 22, EINVAL): {last}"
        )),
        13 | 1 if err.contains("Permission denied") || err.contains("EACCES") => {
            Error::Unreachable(format!(
                "`{shown}`: permission denied (exit {}): {last}; the Ceph user (--id) lacks the caps",
                out.code
            ))
        }
        c => Error::Unreachable(format!("`{shown}` failed (exit {c}): {last}")),
    }
}

/// Quote one word for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+:=/,@%[]".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

pub fn shell_join(argv: &[String]) -> String {
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::rbd::holders::tests::img;

    #[test]
    fn cli_errors_are_clear() {
        let out = |code: i32, err: &str| Output {
            code,
            stdout: String::new(),
            stderr: err.into(),
        };
        let i = img();
        let fixture = |n: &str| {
            std::fs::read_to_string(format!("{}/fixtures/ceph/{n}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
        };
        let e = cli_error(
            "rbd status kube/img",
            &out(2, &fixture("70-rbd-status-missing-image.err")),
            Some(&i),
        );
        assert!(
            matches!(e, Error::Usage(_)) && e.to_string().contains("image kube/img not found"),
            "{e}"
        );
        let e = cli_error(
            "rbd info",
            &out(2, &fixture("73-rbd-info-missing-pool.err")),
            Some(&i),
        );
        assert!(e.to_string().contains("pool does not exist"), "{e}");
        let e = cli_error(
            "rbd lock add",
            &out(16, &fixture("14-rbd-lock-add-again-same-id.err")),
            Some(&i),
        );
        assert!(e.to_string().contains("busy (exit 16"), "{e}");
        let e = cli_error(
            "ceph osd blocklist add x",
            &out(22, &fixture("52-osd-blocklist-add-bad-addr.err")),
            None,
        );
        assert!(e.to_string().contains("invalid (exit 22"), "{e}");
        assert_eq!(e.exit_code(), crate::error::ExitCode::Usage);
        let e = cli_error(
            "rbd status kube/img",
            &out(
                1,
                "global_init: unable to open config file from search list /x\n",
            ),
            Some(&i),
        );
        assert_eq!(e.exit_code(), crate::error::ExitCode::Unreachable);
        assert!(e.to_string().contains("cannot reach Ceph"), "{e}");
        let e = cli_error(
            "rbd status kube/img",
            &out(110, "2026 monclient(hunting): authenticate timed out after 3\n\nrbd: couldn't connect to the cluster!\n"),
            Some(&i),
        );
        assert_eq!(e.exit_code(), crate::error::ExitCode::Unreachable);
        assert!(e.to_string().contains("authenticate timed out"), "{e}");
        // A missing keyring exits 2 too, but it is not "image not found".
        let e = cli_error(
            "rbd status kube/img",
            &out(2, "-1 auth: unable to find a keyring on /k: (2) No such file or directory\nrbd: couldn't connect to the cluster!\n"),
            Some(&i),
        );
        assert_eq!(e.exit_code(), crate::error::ExitCode::Unreachable);
    }
}
