//! `--local`: run the probe on this machine, reading `/` (the node itself) or a mounted host
//! filesystem (`--root DIR`). The script goes to `sh -s` on stdin; every input reaches it
//! through the environment, never through a command line.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{ProbeRun, PROBE_SCRIPT};
use crate::error::Error;

/// Where the probe looks and how long each of its steps may take.
#[derive(Debug, Clone, Default)]
pub struct ProbeEnv {
    /// Host root to read; `None` = `/` (live).
    pub root: Option<PathBuf>,
    /// Whether /proc and the processes are the host's. `None`: live exactly when root is `/`.
    pub live: Option<bool>,
    /// The kubelet root dir as a host path, when the user names it.
    pub kubelet_root: Option<String>,
    /// Seconds each external command in the probe may take.
    pub step_timeout_secs: Option<u64>,
}

impl ProbeEnv {
    /// The environment variables the probe reads (`VOLMNT_*`), for any transport.
    pub fn vars(&self) -> Vec<(&'static str, OsString)> {
        let mut v = vec![(
            "VOLMNT_ROOT",
            self.root
                .as_ref()
                .map(|r| r.as_os_str().to_owned())
                .unwrap_or_else(|| "/".into()),
        )];
        if let Some(l) = self.live {
            v.push(("VOLMNT_LIVE", if l { "1" } else { "0" }.into()));
        }
        if let Some(k) = &self.kubelet_root {
            v.push(("VOLMNT_KUBELET_ROOT", k.into()));
        }
        if let Some(s) = self.step_timeout_secs {
            v.push(("VOLMNT_STEP_TIMEOUT", s.to_string().into()));
        }
        v
    }
}

/// Seconds per probe step for a whole-run limit: a third of it, between 1 and 5.
pub fn step_timeout_for(total: Duration) -> u64 {
    (total.as_secs() / 3).clamp(1, 5)
}

/// Run the probe here. `root`: a mounted host filesystem to read instead of `/`.
pub fn run(root: Option<&Path>, timeout: Duration) -> Result<ProbeRun, Error> {
    run_env(
        &ProbeEnv {
            root: root.map(Path::to_path_buf),
            step_timeout_secs: Some(step_timeout_for(timeout)),
            ..ProbeEnv::default()
        },
        timeout,
    )
}

/// The first `name` on `PATH` that is an executable file.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Run the probe here with an explicit environment.
pub fn run_env(env: &ProbeEnv, timeout: Duration) -> Result<ProbeRun, Error> {
    let mut env = env.clone();
    let target = match &env.root {
        None => "local".to_string(),
        Some(r) => {
            let abs = if r.is_absolute() {
                r.clone()
            } else {
                std::env::current_dir()
                    .map_err(|e| Error::io("current directory", e))?
                    .join(r)
            };
            if !abs.is_dir() {
                return Err(Error::input(
                    format!("--root {}", r.display()),
                    "not a directory",
                ));
            }
            let shown = format!("local (root {})", abs.display());
            env.root = Some(abs);
            shown
        }
    };
    let sh = find_in_path("sh")
        .or_else(|| Some(PathBuf::from("/bin/sh")).filter(|p| p.exists()))
        .ok_or_else(|| Error::Unreachable("no `sh` on this machine to run the probe".into()))?;

    let mut cmd = Command::new(&sh);
    cmd.arg("-s")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("VOLMNT_LIVE")
        .env_remove("VOLMNT_KUBELET_ROOT")
        .env_remove("VOLMNT_STEP_TIMEOUT")
        .env("LC_ALL", "C")
        // Nothing relative may depend on where volmnt was started.
        .current_dir("/");
    for (k, v) in env.vars() {
        cmd.env(k, v);
    }
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so a timeout ends the script and everything it started.
        cmd.process_group(0);
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io(format!("running {}", sh.display()), e))?;

    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        // A probe that dies early closes the pipe: not an error of ours.
        let _ = stdin.write_all(PROBE_SCRIPT.as_bytes());
    });
    let out_rx = reader(child.stdout.take().expect("piped stdout"));
    let err_rx = reader(child.stderr.take().expect("piped stderr"));

    let exit_code = wait_until(&mut child, start + timeout);
    let _ = writer.join();
    // After a kill, a grandchild stuck in the kernel may hold the pipes open: take what arrived.
    let grace = Duration::from_millis(if exit_code.is_some() { 2000 } else { 200 });
    let stdout = out_rx.recv_timeout(grace).unwrap_or_default();
    let stderr = err_rx.recv_timeout(grace).unwrap_or_default();
    Ok(ProbeRun {
        target,
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        exit_code,
        elapsed: start.elapsed(),
    })
}

fn reader(mut r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx
}

/// Wait for the child until `deadline`; then kill its process group. `None` when killed.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<i32> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.code(),
            Ok(None) => {}
            Err(_) => break,
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    kill_group(child);
    let _ = child.wait();
    None
}

fn kill_group(child: &mut Child) {
    // std has no killpg; the `kill` program takes `-PGID`. The group id is our child's pid,
    // a number: nothing from the user reaches this command line.
    let pgid = child.id();
    let killed = find_in_path("kill").is_some_and(|kill| {
        Command::new(kill)
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if !killed {
        let _ = child.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_timeouts() {
        assert_eq!(step_timeout_for(Duration::from_secs(1)), 1);
        assert_eq!(step_timeout_for(Duration::from_secs(9)), 3);
        assert_eq!(step_timeout_for(Duration::from_secs(60)), 5);
    }

    #[test]
    fn env_vars() {
        let v = ProbeEnv {
            root: Some("/host".into()),
            live: Some(true),
            kubelet_root: Some("/data/kubelet".into()),
            step_timeout_secs: Some(2),
        }
        .vars();
        assert_eq!(v[0], ("VOLMNT_ROOT", "/host".into()));
        assert!(v.contains(&("VOLMNT_LIVE", "1".into())));
        assert!(v.contains(&("VOLMNT_KUBELET_ROOT", "/data/kubelet".into())));
        assert!(v.contains(&("VOLMNT_STEP_TIMEOUT", "2".into())));
    }

    #[test]
    fn missing_root_is_an_input_error() {
        let e = run(
            Some(Path::new("/nonexistent/volmnt-root")),
            Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[test]
    fn live_run_parses() {
        let run = run(None, Duration::from_secs(30)).unwrap();
        assert_eq!(run.exit_code, Some(0), "stderr: {}", run.stderr);
        let facts = crate::parse::probe::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
        assert!(facts.complete, "{:?}", facts.errors);
        assert!(facts.live);
        assert!(facts.kernel.is_some());
        assert!(!facts.mounts.is_empty());
        assert!(facts.mounts.iter().any(|m| m.mount_point == "/"));
    }
}
