//! `--ssh`: the probe through the system OpenSSH client, so the user's `~/.ssh/config`, agent,
//! known hosts, jump hosts and keys apply exactly as they do for `ssh HOST`.
//!
//! Nothing the user typed ever reaches a shell on this machine: ssh is started with an argument
//! vector (`ssh -T -o BatchMode=yes -o ConnectTimeout=N [-o OPT]... -- DEST sh -s`), the
//! destination is checked to be a host name or address (so a name such as `node1; touch x` or
//! `-oProxyCommand=...` is refused before ssh runs), and the only command sent to the remote
//! shell is the fixed `sh -s`. The script (a fixed prologue from [`wrap_script`] and the embedded
//! probe) goes on stdin. A per-node timeout kills ssh.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{ProbeRun, PROBE_SCRIPT};
use crate::error::{Error, Result};

/// The most probe output kept from one node; a node that sends more is reported, not believed.
pub const MAX_OUTPUT: u64 = 8 << 20;

/// Where the node's root file system is seen by the probe: a fixed choice, never user input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteRoot {
    /// On the node itself (ssh): `/`.
    Host,
    /// Inside the probe pod, where the node's `/` is mounted read-only at `/host`.
    PodMount,
}

impl RemoteRoot {
    pub fn path(self) -> &'static str {
        match self {
            RemoteRoot::Host => "/",
            RemoteRoot::PodMount => "/host",
        }
    }
}

/// The text sent to `sh -s`: a fixed prologue setting the probe's inputs (`VOLMNT_ROOT`,
/// `VOLMNT_LIVE` in the pod, `VOLMNT_STEP_TIMEOUT`; each only unless the node's own environment
/// sets it, e.g. sshd's `SetEnv` for a chroot), then the probe inside a brace group read in full
/// before it runs, with its stdin from /dev/null so no command in the probe can swallow the rest
/// of the script, then `exit`, so sh ends without waiting for the end of its input (the exec
/// API's v4 protocol cannot signal it). Nothing in it comes from the user: the root is one of two
/// fixed paths and the step timeout a number.
pub fn wrap_script(root: RemoteRoot, step_timeout_secs: u64) -> String {
    wrap_script_with_logs(root, step_timeout_secs, &[])
}

/// What a probe is asked for beyond the node's standing facts (doctor's probe of one pod's
/// node): kubelet's log lines naming the pod, the kernel's log, `df` of the pod's volumes, and
/// whether its NFS servers answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeAsk {
    /// Kubelet's log lines that contain one of these (a pod's UID, its volume and PV names).
    pub log_match: Vec<String>,
    /// The pod's UID: `df` of its (non-network) volume mounts.
    pub pod_uid: Option<String>,
    /// NFS servers (names or addresses) of the pod's volumes: do they answer from the node.
    pub nfs_servers: Vec<String>,
    /// The kernel's storage lines, even without `log_match`.
    pub kernel_log: bool,
    /// In a probe pod, read the kernel ring buffer too (the pod has CAP_SYSLOG then).
    pub dmesg: bool,
}

/// A name that may reach the script: letters, digits, `.`, `_`, `-` (and `:` for an IPv6
/// address), nothing a shell reads.
fn plain(n: &str, colon: bool) -> bool {
    n.len() >= 3
        && n.len() <= 253
        && !n.starts_with('-')
        && n.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') || (colon && c == ':')
        })
}

/// The script, also asked for kubelet's and the kernel's log lines that contain one of
/// `log_match` (a pod's UID, its volume and PV names, a local PV's device path). Only plain
/// names are passed (letters, digits, `.`, `_`, `-`, `/`): anything else is dropped, so nothing
/// can change the script (the names sit between single quotes).
pub fn wrap_script_with_logs(
    root: RemoteRoot,
    step_timeout_secs: u64,
    log_match: &[String],
) -> String {
    wrap_script_with(
        root,
        step_timeout_secs,
        &ProbeAsk {
            log_match: log_match.to_vec(),
            ..ProbeAsk::default()
        },
    )
}

/// The script with everything `ask` asks for. Only plain names reach it (see [`plain`]).
pub fn wrap_script_with(root: RemoteRoot, step_timeout_secs: u64, ask: &ProbeAsk) -> String {
    let mut s = String::with_capacity(PROBE_SCRIPT.len() + 256);
    s.push_str("# volmnt node probe (read-only)\n");
    let names: Vec<&str> = ask
        .log_match
        .iter()
        .map(String::as_str)
        .filter(|n| {
            n.len() >= 3
                && n.len() <= 253
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'))
        })
        .collect();
    if !names.is_empty() {
        s.push_str(&format!(
            "VOLMNT_LOG_MATCH='{}'\nexport VOLMNT_LOG_MATCH\n",
            names.join("\n")
        ));
    }
    if let Some(uid) = ask.pod_uid.as_deref().filter(|u| plain(u, false)) {
        s.push_str(&format!("VOLMNT_POD_UID='{uid}'\nexport VOLMNT_POD_UID\n"));
    }
    let servers: Vec<&str> = ask
        .nfs_servers
        .iter()
        .map(String::as_str)
        .filter(|n| plain(n, true))
        .take(4)
        .collect();
    if !servers.is_empty() {
        s.push_str(&format!(
            "VOLMNT_NFS_SERVERS='{}'\nexport VOLMNT_NFS_SERVERS\n",
            servers.join("\n")
        ));
    }
    if ask.kernel_log {
        s.push_str("VOLMNT_KERNEL_LOG=1\nexport VOLMNT_KERNEL_LOG\n");
    }
    if ask.dmesg {
        s.push_str("VOLMNT_DMESG=1\nexport VOLMNT_DMESG\n");
    }
    s.push_str(": \"${VOLMNT_ROOT:=");
    s.push_str(root.path());
    s.push_str("}\"\n");
    if root == RemoteRoot::PodMount {
        // hostPID: /proc and the processes are the node's, though its files are under /host.
        s.push_str(": \"${VOLMNT_LIVE:=1}\"\nexport VOLMNT_LIVE\n");
    }
    s.push_str(&format!(
        ": \"${{VOLMNT_STEP_TIMEOUT:={}}}\"\nexport VOLMNT_ROOT VOLMNT_STEP_TIMEOUT\n{{\n",
        step_timeout_secs.max(1)
    ));
    s.push_str(PROBE_SCRIPT);
    if !PROBE_SCRIPT.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("} </dev/null\nexit $?\n");
    s
}

/// How to run ssh.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// The `ssh` binary (from `PATH`).
    pub program: PathBuf,
    /// `-o ConnectTimeout=` (whole seconds, at least 1).
    pub connect_timeout: Duration,
    /// Each becomes `-o OPTION` (e.g. `Port=2222`, `IdentityFile=~/.ssh/nodes`).
    pub options: Vec<String>,
    /// `--ssh-user`: used when a destination names no user.
    pub user: Option<String>,
}

/// `which ssh`: the first executable `ssh` on `PATH`.
pub fn find_ssh() -> Result<PathBuf> {
    find_program("ssh", std::env::var_os("PATH").as_deref()).ok_or_else(|| {
        Error::Usage(
            "--ssh needs the OpenSSH client (`ssh`), and none is on PATH; install openssh-client \
             (Debian/Ubuntu) or openssh-clients (RHEL), or use --exec"
                .into(),
        )
    })
}

fn find_program(name: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = path?;
    std::env::split_paths(path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn user_ok(u: &str) -> bool {
    !u.is_empty()
        && !u.starts_with('-')
        && u
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$'))
        // `$` only as the last character (Samba machine accounts), never `$(`.
        && !u[..u.len() - 1].contains('$')
}

fn host_ok(h: &str) -> bool {
    if h.is_empty() || h.starts_with('-') || h.len() > 253 {
        return false;
    }
    if let Some(inner) = h.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.' | '%'))
            && !inner.starts_with('%');
    }
    h.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'))
}

/// Check that `dest` is `[user@]host` or `ssh://[user@]host[:port]`, where host is a name, an
/// IPv4 address or an IPv6 address (bare or in brackets). Anything else (spaces, quotes, `;`,
/// `$(`, a leading `-`) is refused: it cannot be a host, and ssh would hand some of it to a shell
/// through `ProxyCommand` or `Match exec` tokens in the user's config.
pub fn validate_destination(dest: &str) -> std::result::Result<(), String> {
    let bad = || {
        format!(
            "{dest:?} is not an ssh destination ([user@]host or ssh://[user@]host[:port], \
             with host a name or an address)"
        )
    };
    if dest.starts_with('-') {
        return Err(format!(
            "{dest:?} starts with `-`, which ssh would read as an option; not a destination"
        ));
    }
    let (rest, uri) = match dest.strip_prefix("ssh://") {
        Some(r) => (r, true),
        None => (dest, false),
    };
    let (user, hostport) = match rest.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, rest),
    };
    if let Some(u) = user {
        if !user_ok(u) {
            return Err(bad());
        }
    }
    let host = if uri {
        // ssh://host:port, ssh://[v6]:port
        if let Some(end) = hostport.strip_prefix('[').and_then(|r| r.find(']')) {
            let (h, port) = hostport.split_at(end + 2);
            if !(port.is_empty()
                || port
                    .strip_prefix(':')
                    .is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())))
            {
                return Err(bad());
            }
            h
        } else {
            match hostport.split_once(':') {
                Some((h, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => h,
                Some(_) => return Err(bad()),
                None => hostport,
            }
        }
    } else {
        hostport
    };
    if host_ok(host) {
        Ok(())
    } else {
        Err(bad())
    }
}

/// `user@dest` when `--ssh-user` is given and the destination names no user.
pub fn with_user(dest: &str, user: Option<&str>) -> String {
    match user {
        Some(u) if !dest.contains('@') => match dest.strip_prefix("ssh://") {
            Some(rest) => format!("ssh://{u}@{rest}"),
            None => format!("{u}@{dest}"),
        },
        _ => dest.to_string(),
    }
}

/// The ssh argument vector (after the program name) for one destination. ssh keeps the FIRST
/// value it is given for an option, so: `BatchMode=yes` first (never a password prompt, which
/// would hang a parallel run), then the user's `--ssh-option`s, then our `ConnectTimeout` (which
/// the user's can thus override).
pub fn ssh_args(opts: &SshOptions, dest: &str) -> Vec<OsString> {
    let secs = opts.connect_timeout.as_secs().max(1);
    let mut a: Vec<OsString> = vec!["-T".into(), "-o".into(), "BatchMode=yes".into()];
    for o in &opts.options {
        a.push("-o".into());
        a.push(o.into());
    }
    a.push("-o".into());
    a.push(format!("ConnectTimeout={secs}").into());
    a.push("--".into());
    a.push(with_user(dest, opts.user.as_deref()).into());
    a.push("sh".into());
    a.push("-s".into());
    a
}

/// Check every `--ssh-option` before anything runs: `Key=Value` or `Key Value`, as ssh's `-o`
/// takes it.
pub fn validate_option(o: &str) -> std::result::Result<(), String> {
    let key: String = o
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let rest = &o[key.len()..];
    if key.is_empty() || !(rest.starts_with('=') || rest.starts_with(' ')) {
        return Err(format!(
            "--ssh-option {o:?}: give it as ssh's -o takes it, Key=Value (e.g. Port=2222, \
             IdentityFile=~/.ssh/nodes, StrictHostKeyChecking=accept-new)"
        ));
    }
    Ok(())
}

/// Run the probe on `dest` through ssh. `Err` means the node could not be probed (ssh could not
/// connect or authenticate: exit 255, or the timeout killed it); a probe that ran and failed is
/// an `Ok` with its exit code.
pub async fn run(opts: &SshOptions, dest: &str, timeout: Duration) -> Result<ProbeRun> {
    validate_destination(dest).map_err(Error::Usage)?;
    let started = Instant::now();
    let script = wrap_script(RemoteRoot::Host, super::local::step_timeout_for(timeout));
    let mut child = tokio::process::Command::new(&opts.program)
        .args(ssh_args(opts, dest))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Error::io(format!("starting {}", opts.program.display()), e))?;
    let mut stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let work = async {
        let write = async {
            if let Some(mut w) = stdin.take() {
                // ssh may exit before reading it all (no connection): a broken pipe is expected.
                let _ = w.write_all(script.as_bytes()).await;
                let _ = w.shutdown().await;
            }
        };
        let read_out = read_capped(stdout, MAX_OUTPUT);
        let read_err = read_capped(stderr, 64 << 10);
        let (_, out, err) = tokio::join!(write, read_out, read_err);
        let status = child.wait().await;
        (out, err, status)
    };
    let (out, err, status) = match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => {
            return Err(Error::Unreachable(format!(
                "ssh {dest}: no result within {} (--timeout); ssh was stopped",
                crate::model::node::human_duration(timeout)
            )))
        }
    };
    let status = status.map_err(|e| Error::io(format!("waiting for ssh {dest}"), e))?;
    let (stdout, truncated) = out;
    let stderr = String::from_utf8_lossy(&err.0).into_owned();
    if truncated {
        return Err(Error::Unreachable(format!(
            "ssh {dest}: the probe printed more than {} MiB; not a volmnt probe's output",
            MAX_OUTPUT >> 20
        )));
    }
    let code = status.code();
    if code == Some(255) {
        return Err(Error::Unreachable(format!(
            "ssh {dest}: {}",
            last_line(&stderr).unwrap_or("ssh failed (exit 255) and said nothing")
        )));
    }
    Ok(ProbeRun {
        target: dest.to_string(),
        stdout,
        stderr,
        exit_code: code,
        elapsed: started.elapsed(),
    })
}

pub use crate::parse::last_line;

/// Read a pipe to its end, keeping at most `cap` bytes (the rest is drained so the writer does
/// not block); the flag says whether anything was dropped.
async fn read_capped<R: tokio::io::AsyncRead + Unpin>(r: Option<R>, cap: u64) -> (Vec<u8>, bool) {
    let Some(mut r) = r else {
        return (Vec::new(), false);
    };
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    let mut dropped = false;
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = (cap as usize).saturating_sub(buf.len());
                if n > room {
                    dropped = true;
                }
                buf.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
    (buf, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local PV's device path reaches the probe's log match (issue 19: on the real node,
    /// fsck's "Found a dos partition table in /dev/loop2" names only the device); anything
    /// that could end the single quotes or run a command does not.
    #[test]
    fn log_match_takes_device_paths_and_drops_shell_text() {
        let s = wrap_script_with_logs(
            RemoteRoot::PodMount,
            5,
            &[
                "/dev/loop2".into(),
                "pvc-1".into(),
                "x'; touch /tmp/pwned; '".into(),
                "$(id)".into(),
                "a\nb".into(),
            ],
        );
        let line = s
            .lines()
            .find(|l| l.starts_with("VOLMNT_LOG_MATCH="))
            .expect("a log match line");
        assert_eq!(line, "VOLMNT_LOG_MATCH='/dev/loop2");
        assert!(s.contains("\npvc-1'\nexport VOLMNT_LOG_MATCH\n"), "{s}");
        assert!(!s.contains("pwned") && !s.contains("$(id)"));
    }

    #[test]
    fn destinations_that_are_hosts_pass() {
        for d in [
            "node1",
            "root@node1",
            "ops.admin@node-1.example.com",
            "10.0.0.7",
            "core@10.0.0.7",
            "fe80::1%eth0",
            "[fe80::1]",
            "ssh://root@127.0.0.1:2222",
            "ssh://[::1]:22",
            "ssh://node1",
        ] {
            assert_eq!(validate_destination(d), Ok(()), "{d}");
        }
    }

    #[test]
    fn destinations_that_inject_are_refused() {
        for d in [
            "node1; touch /tmp/pwned",
            "$(id)",
            "`id`",
            "node1 -oProxyCommand=id",
            "-oProxyCommand=touch /tmp/x",
            "-p",
            "a@b@c;",
            "root$(id)@node1",
            "node1|id",
            "node1&",
            "'node1'",
            "node1\nid",
            "",
            "ssh://node1:22;id",
            "ssh://[::1];id",
        ] {
            assert!(validate_destination(d).is_err(), "{d:?} should be refused");
        }
    }

    #[test]
    fn argument_vector_ends_with_the_fixed_remote_command() {
        let o = SshOptions {
            program: "ssh".into(),
            connect_timeout: Duration::from_millis(2500),
            options: vec!["Port=2222".into(), "IdentityFile=/k".into()],
            user: Some("core".into()),
        };
        let a: Vec<String> = ssh_args(&o, "node1")
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect();
        assert_eq!(
            a,
            [
                "-T",
                "-o",
                "BatchMode=yes",
                "-o",
                "Port=2222",
                "-o",
                "IdentityFile=/k",
                "-o",
                "ConnectTimeout=2",
                "--",
                "core@node1",
                "sh",
                "-s"
            ]
        );
        assert_eq!(with_user("ssh://h:22", Some("u")), "ssh://u@h:22");
        assert_eq!(with_user("x@h", Some("u")), "x@h");
    }

    #[test]
    fn ssh_options_must_look_like_dash_o() {
        assert!(validate_option("Port=2222").is_ok());
        assert!(validate_option("StrictHostKeyChecking no").is_ok());
        assert!(validate_option("-i key").is_err());
        assert!(validate_option("=x").is_err());
    }

    #[test]
    fn script_sets_the_root_then_runs_the_probe_with_stdin_closed() {
        let s = wrap_script(RemoteRoot::PodMount, 4);
        assert!(s.contains(": \"${VOLMNT_ROOT:=/host}\"\n"), "{s}");
        assert!(s.contains(": \"${VOLMNT_LIVE:=1}\"\n"));
        assert!(s.contains(
            ": \"${VOLMNT_STEP_TIMEOUT:=4}\"\nexport VOLMNT_ROOT VOLMNT_STEP_TIMEOUT\n{\n"
        ));
        assert!(s.ends_with("} </dev/null\nexit $?\n"));
        let h = wrap_script(RemoteRoot::Host, 0);
        assert!(h.contains("${VOLMNT_ROOT:=/}") && h.contains("${VOLMNT_STEP_TIMEOUT:=1}"));
        let prologue = &h[..h.find("\n{\n").unwrap()];
        assert!(!prologue.contains("VOLMNT_LIVE"), "{prologue}");
    }

    #[test]
    fn wrapped_script_runs_and_exits_without_end_of_input() {
        // sh -s with the stdin left open: it must end by itself (the v4 exec protocol case).
        use std::io::{Read, Write};
        let mut child = std::process::Command::new("sh")
            .arg("-s")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("VOLMNT_ROOT", "/nonexistent-root")
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let text = ": \"${VOLMNT_ROOT:=/}\"\nexport VOLMNT_ROOT\n{\necho root=$VOLMNT_ROOT\nread x; echo read=$?\n} </dev/null\nexit $?\n";
        stdin.write_all(text.as_bytes()).unwrap();
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert!(child.wait().unwrap().success());
        drop(stdin);
        assert_eq!(out, "root=/nonexistent-root\nread=1\n");
    }

    #[test]
    fn finds_programs_on_path_only_when_executable() {
        let p = std::ffi::OsString::from("/nonexistent:/bin:/usr/bin");
        assert!(find_program("sh", Some(&p)).is_some());
        assert!(find_program("no-such-program-volmnt", Some(&p)).is_none());
        assert!(find_program("sh", None).is_none());
    }
}
