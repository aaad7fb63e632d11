//! A real OpenSSH server for the `--ssh` tests: `/usr/sbin/sshd -D` as the current user, on
//! 127.0.0.1 only, with a throwaway host key and client key in a temp dir, and a generated
//! config. Each extra port can be given its own behaviour with `Match LocalPort` (a host root
//! for the probe through `SetEnv VOLMNT_ROOT=...`, a delay through `ForceCommand`), so one
//! server stands for many nodes. A "dead" node is a listening socket that never answers.
//!
//! When sshd cannot be started the test FAILS (it does not skip silently) unless
//! `VOLMNT_SKIP_SSHD=1` is set; `scripts/deps/sshd.sh` installs openssh-server.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::TempDir;

/// How one port of the server behaves.
#[derive(Debug, Clone, Default)]
pub struct Port {
    /// `VOLMNT_ROOT` for sessions on this port (a fixture host tree); None = the real `/`.
    pub root: Option<PathBuf>,
    /// Seconds slept before the command runs (a slow node).
    pub delay_secs: u32,
}

impl Port {
    pub fn root(root: &Path) -> Port {
        Port {
            root: Some(root.to_path_buf()),
            delay_secs: 0,
        }
    }

    pub fn slow(mut self, secs: u32) -> Port {
        self.delay_secs = secs;
        self
    }
}

/// A running sshd; killed when dropped.
pub struct Sshd {
    child: Child,
    dir: TempDir,
    /// The ports, in the order given to `start`.
    pub ports: Vec<u16>,
    /// The client's private key.
    pub key: PathBuf,
    /// The user to log in as (the current one).
    pub user: String,
    /// Sockets that accept TCP connections and never speak (dead nodes); kept open.
    dead: Vec<TcpListener>,
}

/// Whether sshd tests may be skipped (`VOLMNT_SKIP_SSHD=1`).
pub fn skip_allowed() -> bool {
    std::env::var("VOLMNT_SKIP_SSHD").is_ok_and(|v| v == "1")
}

fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

fn find(name: &str, extra: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .chain(extra.iter().map(PathBuf::from))
        .find(|p| p.is_file())
}

fn current_user() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "root".into())
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "volmnt-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "ssh-keygen failed for {}", path.display());
}

impl Sshd {
    /// Start a server with one port per entry. `None` only when sshd is missing or fails AND
    /// `VOLMNT_SKIP_SSHD=1`; otherwise a failure panics with what to install.
    pub fn start(ports: &[Port]) -> Option<Sshd> {
        match Sshd::try_start(ports) {
            Ok(s) => Some(s),
            Err(e) if skip_allowed() => {
                eprintln!("skipping an sshd test (VOLMNT_SKIP_SSHD=1): {e}");
                None
            }
            Err(e) => panic!(
                "cannot start sshd for the --ssh tests: {e}\n\
                 install it with scripts/deps/sshd.sh (openssh-server, openssh-client), \
                 or set VOLMNT_SKIP_SSHD=1 to skip these tests"
            ),
        }
    }

    fn try_start(ports: &[Port]) -> Result<Sshd, String> {
        let sshd = find("sshd", &["/usr/sbin/sshd", "/usr/local/sbin/sshd"])
            .ok_or("no sshd (looked on PATH and in /usr/sbin)")?;
        find("ssh", &[]).ok_or("no ssh client on PATH")?;
        find("ssh-keygen", &[]).ok_or("no ssh-keygen on PATH")?;
        let dir = TempDir::new("sshd");
        let d = dir.path();
        keygen(&d.join("host_key"));
        keygen(&d.join("client_key"));
        std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys"))
            .map_err(|e| format!("authorized_keys: {e}"))?;
        // sshd run as root wants its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let ports_n: Vec<u16> = ports.iter().map(|_| free_port()).collect();
        let mut cfg = format!(
            "HostKey {d}/host_key\n\
             AuthorizedKeysFile {d}/authorized_keys\n\
             PidFile {d}/sshd.pid\n\
             ListenAddress 127.0.0.1\n\
             StrictModes no\n\
             UsePAM no\n\
             PasswordAuthentication no\n\
             KbdInteractiveAuthentication no\n\
             PubkeyAuthentication yes\n\
             PermitRootLogin prohibit-password\n\
             AllowTcpForwarding no\n\
             X11Forwarding no\n\
             PrintMotd no\n\
             LogLevel ERROR\n",
            d = d.display()
        );
        for p in &ports_n {
            cfg.push_str(&format!("Port {p}\n"));
        }
        for (p, spec) in ports_n.iter().zip(ports) {
            let mut block = String::new();
            if let Some(root) = &spec.root {
                block.push_str(&format!("    SetEnv VOLMNT_ROOT={}\n", root.display()));
            }
            if spec.delay_secs > 0 {
                block.push_str(&format!(
                    "    ForceCommand sleep {}; eval \"$SSH_ORIGINAL_COMMAND\"\n",
                    spec.delay_secs
                ));
            }
            if !block.is_empty() {
                cfg.push_str(&format!("Match LocalPort {p}\n{block}"));
            }
        }
        let cfg_path = d.join("sshd_config");
        std::fs::write(&cfg_path, cfg).map_err(|e| format!("writing sshd_config: {e}"))?;
        let log = std::fs::File::create(d.join("sshd.log")).map_err(|e| e.to_string())?;
        let mut child = Command::new(&sshd)
            .arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(&cfg_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("running {}: {e}", sshd.display()))?;
        let started = Instant::now();
        loop {
            if let Ok(Some(st)) = child.try_wait() {
                let log = std::fs::read_to_string(d.join("sshd.log")).unwrap_or_default();
                return Err(format!("sshd exited ({st}): {log}"));
            }
            if ports_n
                .iter()
                .all(|p| TcpStream::connect(("127.0.0.1", *p)).is_ok())
            {
                break;
            }
            if started.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                return Err("sshd did not listen within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Sshd {
            child,
            key: d.join("client_key"),
            dir,
            ports: ports_n,
            user: current_user(),
            dead: Vec::new(),
        })
    }

    /// A port that accepts connections and never answers (a hung node).
    pub fn dead_port(&mut self) -> u16 {
        let l = TcpListener::bind(("127.0.0.1", 0)).expect("bind a dead port");
        let p = l.local_addr().expect("local addr").port();
        self.dead.push(l);
        p
    }

    /// `ssh://user@127.0.0.1:PORT` for the i-th port.
    pub fn dest(&self, i: usize) -> String {
        format!("ssh://{}@127.0.0.1:{}", self.user, self.ports[i])
    }

    /// The `--ssh-option` values a client needs: this key only, no known-hosts file.
    pub fn ssh_options(&self) -> Vec<String> {
        vec![
            format!("IdentityFile={}", self.key.display()),
            "IdentitiesOnly=yes".into(),
            "UserKnownHostsFile=/dev/null".into(),
            "StrictHostKeyChecking=no".into(),
            "LogLevel=ERROR".into(),
        ]
    }

    /// The same as `volmnt` arguments: `--ssh-option X` pairs.
    pub fn ssh_args(&self) -> Vec<String> {
        self.ssh_options()
            .into_iter()
            .flat_map(|o| ["--ssh-option".to_string(), o])
            .collect()
    }

    /// sshd's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
