//! A REAL throwaway Ceph for the rbd tests: one mon and one memstore OSD on 127.0.0.1, started
//! once per test binary run with scripts/micro-ceph.sh (about 2 s) the first time a test asks
//! for it, and stopped when the test binary exits:
//! - normally or after failed tests (libtest ends with `exit()`): an `atexit` handler runs
//!   `micro-ceph.sh stop`, which waits for the daemons to exit and removes the directory;
//! - killed by a signal (Ctrl-C, SIGKILL, a crash): a watchdog started in its own session
//!   (`setsid`) sees the test process gone within a second and runs the same stop.
//!
//! Needs ceph-mon, ceph-osd and ceph-common (scripts/deps/ceph.sh installs them). Each test
//! uses its own image (`MicroCeph::image`), so tests sharing the cluster do not interfere.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/micro-ceph.sh");

/// The running cluster.
pub struct MicroCeph {
    pub dir: PathBuf,
    /// Its ceph.conf: pass it as `--ceph-conf` (or `-c` to rbd/ceph).
    pub conf: PathBuf,
    /// How long `start` took.
    pub started_in: Duration,
}

static CLUSTER: OnceLock<Result<MicroCeph, String>> = OnceLock::new();
static DIR: OnceLock<PathBuf> = OnceLock::new();

extern "C" {
    fn atexit(cb: extern "C" fn()) -> std::os::raw::c_int;
}

extern "C" fn stop_at_exit() {
    if let Some(dir) = DIR.get() {
        let _ = Command::new(SCRIPT)
            .arg("stop")
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// The cluster of this test run, started on first use. Panics (failing the test) with the
/// reason when Ceph is not installed or does not start.
pub fn shared() -> &'static MicroCeph {
    match CLUSTER.get_or_init(start) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

fn start() -> Result<MicroCeph, String> {
    for tool in ["ceph-mon", "ceph-osd", "ceph", "rbd", "uuidgen", "setsid"] {
        if volmnt::collect::rbd::which(tool).is_none() {
            return Err(format!(
                "needs ceph: `{tool}` is not installed; run scripts/deps/ceph.sh (Debian: apt-get install ceph-mon ceph-osd ceph-common)"
            ));
        }
    }
    let dir = std::env::temp_dir().join(format!("volmnt-ceph-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    DIR.set(dir.clone()).ok();
    // SAFETY: registers a plain function with the C runtime; it only reads a OnceLock.
    unsafe {
        atexit(stop_at_exit);
    }
    // The watchdog: in its own session so a Ctrl-C to the test's process group spares it.
    let _ = Command::new("setsid")
        .args([
            "sh",
            "-c",
            "while kill -0 \"$0\" 2>/dev/null; do sleep 1; done; exec \"$1\" stop \"$2\"",
        ])
        .arg(std::process::id().to_string())
        .arg(SCRIPT)
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let t0 = Instant::now();
    let out = Command::new(SCRIPT)
        .arg("start")
        .arg(&dir)
        .env("MICRO_CEPH_MGR", "0")
        .env("MICRO_CEPH_TIMEOUT", "60")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running {SCRIPT}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "micro-ceph did not start ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(MicroCeph {
        conf: dir.join("ceph.conf"),
        dir,
        started_in: t0.elapsed(),
    })
}

/// What a CLI call gave (shown whole, stderr included, when a call fails).
#[derive(Debug)]
#[allow(dead_code)]
pub struct CliOut {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl MicroCeph {
    fn cli(&self, tool: &str, args: &[&str]) -> CliOut {
        let out = Command::new("timeout")
            .arg("60")
            .arg(tool)
            .arg("-c")
            .arg(&self.conf)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running {tool}: {e}"));
        CliOut {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `rbd ARGS -c CONF`, which must succeed.
    pub fn rbd(&self, args: &[&str]) -> String {
        let o = self.cli("rbd", args);
        assert_eq!(o.code, 0, "rbd {args:?} failed: {o:?}");
        o.stdout
    }

    /// `ceph ARGS -c CONF`, which must succeed.
    pub fn ceph(&self, args: &[&str]) -> String {
        let o = self.cli("ceph", args);
        assert_eq!(o.code, 0, "ceph {args:?} failed: {o:?}");
        o.stdout
    }

    /// A fresh 16 MiB image `kube/<prefix>-<n>` of this test's own.
    pub fn image(&self, prefix: &str) -> String {
        static N: AtomicUsize = AtomicUsize::new(0);
        let spec = format!("kube/{prefix}-{}", N.fetch_add(1, Ordering::Relaxed));
        self.rbd(&["create", &spec, "--size", "16"]);
        spec
    }

    /// `rbd lock add IMAGE ID`: the locker is a client of this host (127.0.0.1:0/nonce)
    /// that exits at once, so the lock outlives its holder, like a crashed node's.
    pub fn lock_add(&self, image: &str, id: &str) {
        self.rbd(&["lock", "add", image, id]);
    }

    /// (id, locker, address) of the image's locks.
    pub fn locks(&self, image: &str) -> Vec<(String, String, String)> {
        let v: serde_json::Value =
            serde_json::from_str(&self.rbd(&["lock", "ls", image, "--format", "json"]))
                .expect("rbd lock ls JSON");
        v.as_array()
            .expect("a list of locks")
            .iter()
            .map(|l| {
                (
                    l["id"].as_str().unwrap().to_string(),
                    l["locker"].as_str().unwrap().to_string(),
                    l["address"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The image's watcher addresses (`rbd status`).
    pub fn watchers(&self, image: &str) -> Vec<String> {
        let v: serde_json::Value =
            serde_json::from_str(&self.rbd(&["status", image, "--format", "json"]))
                .expect("rbd status JSON");
        v["watchers"]
            .as_array()
            .expect("watchers")
            .iter()
            .map(|w| w["address"].as_str().unwrap().to_string())
            .collect()
    }

    /// Addresses on the OSD blocklist (the JSON is two arrays back to back; the first holds
    /// single addresses).
    pub fn blocklist(&self) -> Vec<String> {
        let text = self.ceph(&["osd", "blocklist", "ls", "--format", "json"]);
        volmnt::parse::rbd::parse_blocklist(&text)
            .expect("blocklist parses")
            .into_iter()
            .map(|e| e.addr)
            .collect()
    }

    /// `rbd watch IMAGE`, holding a watch while its stdin stays open (no kernel needed).
    pub fn watch(&self, image: &str) -> Watcher {
        let before = self.watchers(image);
        let child = Command::new("rbd")
            .arg("-c")
            .arg(&self.conf)
            .args(["watch", image])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rbd watch");
        let mut w = Watcher {
            child: Some(child),
            address: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(a) = self
                .watchers(image)
                .into_iter()
                .find(|a| !before.contains(a))
            {
                w.address = a;
                return w;
            }
            // (on panic, dropping `w` kills the process)
            assert!(
                Instant::now() < deadline,
                "rbd watch {image} never showed up"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn conf_str(&self) -> &str {
        self.conf.to_str().expect("UTF-8 path")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A running `rbd watch`. Dropping it kills the process (the watch then lingers for up to
/// 30 s, osd_client_watch_timeout, unless blocklisted).
pub struct Watcher {
    child: Option<Child>,
    pub address: String,
}

impl Watcher {
    /// SIGKILL: the watch stays listed by `rbd status` for about 30 s, a stale watcher.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.kill9();
    }
}
