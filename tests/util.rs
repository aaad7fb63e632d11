//! A tiny harness around the real `volmnt` binary: run it with arguments (and optional stdin
//! bytes), get back stdout, stderr and the exit code. NO_COLOR=1 is always set unless a test
//! asks for the environment without it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Absolute path of a file under fixtures/, resolved at compile time (tests.rs has
/// `#[macro_use] mod util;`, so every test module sees it).
macro_rules! fixture {
    ($rel:literal) => {
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/", $rel)
    };
}

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_volmnt");

/// What one run of the binary left behind.
#[derive(Debug)]
pub struct Out {
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `-1` when the process was killed by a signal.
    pub code: i32,
}

impl Out {
    /// stdout parsed as JSON (fails the test, showing the output, when it is not). Every
    /// document that carries a `schema_version` is validated against the schema it names, so
    /// every JSON output of the test suite checks the written contract.
    pub fn json(&self) -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        });
        assert_valid(&v);
        v
    }

    /// No panic, no crash, whatever else happened.
    pub fn assert_no_panic(&self) {
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("RUST_BACKTRACE"),
            "volmnt panicked:\n{}",
            self.stderr
        );
        assert!(self.code >= 0, "volmnt was killed by a signal:\n{self:#?}");
    }

    /// A usage/input error as volmnt reports it: exit 2, nothing on stdout, and on stderr one
    /// line `volmnt: ...` (optionally followed by `hint: ...` lines) containing `needle`.
    pub fn assert_input_error(&self, needle: &str) {
        self.assert_no_panic();
        assert_eq!(self.code, 2, "want exit 2:\n{self:#?}");
        assert!(
            self.stdout.is_empty(),
            "nothing may reach stdout on error:\n{self:#?}"
        );
        let mut lines = self.stderr.lines();
        let first = lines.next().unwrap_or("");
        assert!(
            first.starts_with("volmnt: "),
            "the error must be one line starting with `volmnt: `:\n{}",
            self.stderr
        );
        for l in lines {
            assert!(
                l.starts_with("hint: "),
                "only `hint:` lines may follow the one-line error, got {l:?} in:\n{}",
                self.stderr
            );
        }
        assert!(
            first.to_lowercase().contains(&needle.to_lowercase()),
            "the error line should mention {needle:?}:\n{}",
            self.stderr
        );
    }
}

/// A `volmnt` command with NO_COLOR=1, nothing inherited on stdin, and no cluster of the
/// machine's: no KUBECONFIG, no in-cluster variables, and a HOME without ~/.kube (tests that
/// want a cluster give --kubeconfig).
pub fn cmd() -> Command {
    let mut c = Command::new(BIN);
    c.env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .env_remove("KUBECONFIG")
        .env_remove("VOLMNT_KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", empty_home());
    c
}

/// An empty directory to stand for HOME (created once per test run).
fn empty_home() -> &'static Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let p = std::env::temp_dir().join(format!("volmnt-test-home-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&p);
        p
    })
}

/// Run `volmnt ARGS` with an empty stdin.
pub fn run(args: &[&str]) -> Out {
    run_cmd(cmd().args(args), None)
}

/// Run `volmnt ARGS` with `stdin` piped in.
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> Out {
    run_cmd(cmd().args(args), Some(stdin))
}

/// Run a prepared command (for a changed environment or program name).
pub fn run_cmd(c: &mut Command, stdin: Option<&[u8]>) -> Out {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = c.spawn().expect("start volmnt");
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        let bytes = bytes.to_vec();
        // A separate thread, so a large input cannot deadlock against a full stdout pipe.
        // volmnt may stop reading early (a size limit): a broken pipe is fine.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout pipe")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr pipe")));
    // A run that hangs fails its test, with what it printed, instead of holding CI until its
    // time is up. No run of the suite comes near this (the slowest take a few seconds).
    let limit = std::time::Duration::from_secs(RUN_LIMIT_SECS);
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for volmnt") {
            break Some(s);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    let stdout = stdout.join().expect("stdout reader");
    let stderr = String::from_utf8_lossy(&stderr.join().expect("stderr reader")).into_owned();
    let Some(status) = status else {
        panic!(
            "volmnt {:?} did not finish within {RUN_LIMIT_SECS} s; killed. stderr:\n{stderr}",
            c.get_args().collect::<Vec<_>>()
        );
    };
    Out {
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr,
        code: status.code().unwrap_or(-1),
    }
}

/// The longest one run of the binary may take in a test before it is killed and the test fails.
pub const RUN_LIMIT_SECS: u64 = 180;

/// A directory of the test's own under the system temp dir, removed when dropped.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "volmnt-test-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `bytes` to `name` in this directory; returns its path as a string.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let p = self.path.join(name);
        std::fs::write(&p, bytes).expect("write temp file");
        p.to_str().expect("UTF-8 temp path").to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Read a fixture as text.
pub fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// The `text` of one record of fixtures/corpus/real-mount-failures.yaml, by its id.
pub fn corpus_text(id: &str) -> String {
    let records: Vec<serde_yaml::Value> =
        serde_yaml::from_str(&read(fixture!("corpus/real-mount-failures.yaml")))
            .expect("corpus parses");
    records
        .iter()
        .find(|r| r["id"].as_str() == Some(id))
        .and_then(|r| r["text"].as_str())
        .unwrap_or_else(|| panic!("no corpus record {id}"))
        .to_string()
}

/// The top finding of a doctor report (or of one explain message).
pub fn top(report: &serde_json::Value) -> &serde_json::Value {
    let f = &report["findings"][0];
    assert!(f.is_object(), "the report has no findings:\n{report:#}");
    f
}

/// Every command of a finding's remediation, in order.
pub fn remediation_commands(finding: &serde_json::Value) -> Vec<String> {
    steps(finding, "remediation")
        .iter()
        .filter_map(|s| s["command"].as_str().map(str::to_string))
        .collect()
}

/// A finding's `confirm` or `remediation` steps.
pub fn steps<'a>(finding: &'a serde_json::Value, which: &str) -> &'a [serde_json::Value] {
    finding[which]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("finding has no {which} list:\n{finding:#}"))
}

/// Deterministic pseudo-random bytes (xorshift64*), so a failure can be reproduced.
pub fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// The absolute path of a fixture given at run time (`fixture!` needs a literal).
pub fn fixture_path(rel: &str) -> String {
    format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The project's JSON Schema (schema/volmnt.schema.json), compiled once.
fn schema() -> &'static jsonschema::Validator {
    static S: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let text = read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schema/volmnt.schema.json"
        ));
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    })
}

/// Fail the test when a volmnt document does not match the schema (documents without a
/// `schema_version` are not volmnt's versioned output and are left alone).
pub fn assert_valid(doc: &serde_json::Value) {
    if doc.get("schema_version").is_none() {
        return;
    }
    let errors: Vec<String> = schema()
        .iter_errors(doc)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the document does not match schema/volmnt.schema.json:\n{}\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(doc).unwrap_or_default()
    );
}
