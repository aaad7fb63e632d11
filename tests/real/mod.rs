//! The real-cluster suite: real pods stuck on a real kubelet (v1.36, node `realnode`, brought up
//! by scripts/real-cluster.sh), diagnosed by the real binary, checked for verdict, exit code and
//! JSON. Skipped unless VOLMNT_REAL_KUBECONFIG names that cluster's kubeconfig, so CI is
//! unchanged; run it (as root, on the node's machine: the cases need loop devices, a FlexVolume
//! driver and host paths) with
//!
//! ```sh
//! scripts/real-cluster.sh up --snapshot /path/to/microshift.git
//! VOLMNT_REAL_KUBECONFIG=$K8S_ROOT/kubeconfig cargo test --test tests real:: -- --test-threads 1 --nocapture
//! ```
//!
//! Each run makes its own namespace and objects (names with the run's id), the node-side
//! fixtures under `$K8S_ROOT/volmnt-real/<run>/` (loop devices' backing files, host paths) and the
//! FlexVolume driver `volmnt.io~cifs`, and removes all of them at the end, pass or fail. The
//! results table is printed and written to `target/tmp/real-cluster.md`.
//!
//! What the node can produce depends on what runs beside it: without kube-controller-manager
//! nothing attaches an in-tree iSCSI volume (the kubelet waits: attach_timeout); with it the
//! attach/detach controller attaches it and the kubelet then needs `iscsiadm`, which this node
//! lacks (fs_helper_missing). The suite finds out which (from the node's status) and expects
//! accordingly; the table says which it met.

mod cases;
mod fleet;
mod operator;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{cmd, run_cmd, Out};

/// The kubeconfig of the real cluster, or None: the suite is skipped.
fn kubeconfig() -> Option<PathBuf> {
    let k = std::env::var_os("VOLMNT_REAL_KUBECONFIG")?;
    let p = PathBuf::from(k);
    assert!(
        p.is_file(),
        "VOLMNT_REAL_KUBECONFIG={} is not a file",
        p.display()
    );
    Some(p)
}

macro_rules! real_or_skip {
    () => {
        match crate::real::Real::connect() {
            Some(r) => r,
            None => {
                eprintln!("skipped: VOLMNT_REAL_KUBECONFIG is not set (see tests/real/mod.rs)");
                return;
            }
        }
    };
}
pub(crate) use real_or_skip;

/// The real cluster and this run's namespace.
pub struct Real {
    pub kubeconfig: PathBuf,
    pub ns: String,
    /// This run's node-side files: `<K8S_ROOT>/volmnt-real/<ns>`.
    pub work: PathBuf,
    /// kube-controller-manager runs (it published kube-root-ca.crt into the new namespace).
    pub controllers: bool,
    /// Cluster-scoped objects made by this run (kind/name), deleted at the end.
    cluster_objects: std::cell::RefCell<Vec<String>>,
}

impl Real {
    /// None when the suite is not asked for; panics when it is asked for and cannot run.
    pub fn connect() -> Option<Real> {
        let kubeconfig = kubeconfig()?;
        assert_loopback(&kubeconfig);
        let id = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
            % 100_000_000;
        // Tests run in parallel can start in the same millisecond: a count keeps them apart.
        static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let id = format!(
            "{id}{}",
            match RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
                0 => String::new(),
                n => format!("-{n}"),
            }
        );
        // VOLMNT_REAL_NS_PREFIX: a prefix of one's own on a shared cluster (default volmnt-real).
        let prefix =
            std::env::var("VOLMNT_REAL_NS_PREFIX").unwrap_or_else(|_| "volmnt-real".into());
        let ns = format!("{prefix}-{id}");
        let root = kubeconfig
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let work = std::env::var_os("VOLMNT_REAL_WORKDIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("volmnt-real"))
            .join(&ns);
        std::fs::create_dir_all(&work).expect("create the run's work dir");
        let r = Real {
            kubeconfig,
            ns,
            work,
            controllers: false,
            cluster_objects: Default::default(),
        };
        r.kubectl_ok(&["create", "namespace", &r.ns]);
        r.kubectl(&["-n", &r.ns, "create", "serviceaccount", "default"]);
        // kube-controller-manager's root-ca-cert-publisher puts kube-root-ca.crt into every new
        // namespace within a second or two: the cheapest sign that the controllers run.
        let controllers = wait_for(Duration::from_secs(6), || {
            r.kubectl(&["-n", &r.ns, "get", "configmap", "kube-root-ca.crt"])
                .status
                .success()
        });
        Some(Real { controllers, ..r })
    }

    /// `kubectl --kubeconfig K ARGS`.
    pub fn kubectl(&self, args: &[&str]) -> std::process::Output {
        self.kubectl_stdin(args, None)
    }

    pub fn kubectl_stdin(&self, args: &[&str], stdin: Option<&str>) -> std::process::Output {
        let mut c = Command::new("kubectl");
        c.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("kubectl on the PATH");
        if let Some(s) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
        }
        child.wait_with_output().expect("kubectl ran")
    }

    /// kubectl that must succeed; its stdout.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let o = self.kubectl(args);
        assert!(
            o.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    pub fn apply(&self, yaml: &str) {
        let o = self.kubectl_stdin(&["apply", "-f", "-"], Some(yaml));
        assert!(
            o.status.success(),
            "kubectl apply: {}\n{yaml}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// Remember a cluster-scoped object to delete at the end (`pv/NAME`).
    pub fn owns(&self, what: &str) {
        self.cluster_objects.borrow_mut().push(what.to_string());
    }

    pub fn get_json(&self, args: &[&str]) -> Value {
        let mut a = vec!["get"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-o", "json"]);
        serde_json::from_str(&self.kubectl_ok(&a)).expect("kubectl -o json")
    }

    /// Bind a claim to a PV by hand, as the PV controller would (claimRef with the claim's uid,
    /// then both Bound through the status subresource): the same with or without the
    /// controllers, whose binder finds it consistent.
    pub fn bind(&self, claim: &str, pv: &str) {
        let uid = self.kubectl_ok(&[
            "-n",
            &self.ns,
            "get",
            "pvc",
            claim,
            "-o",
            "jsonpath={.metadata.uid}",
        ]);
        let volume = self.kubectl_ok(&[
            "-n",
            &self.ns,
            "get",
            "pvc",
            claim,
            "-o",
            "jsonpath={.spec.volumeName}",
        ]);
        if volume.is_empty() {
            self.kubectl_ok(&[
                "-n",
                &self.ns,
                "patch",
                "pvc",
                claim,
                "--type=merge",
                "-p",
                &format!(r#"{{"spec":{{"volumeName":"{pv}"}}}}"#),
            ]);
        }
        self.kubectl_ok(&[
            "patch",
            "pv",
            pv,
            "--type=merge",
            "-p",
            &format!(
                r#"{{"spec":{{"claimRef":{{"apiVersion":"v1","kind":"PersistentVolumeClaim","namespace":"{}","name":"{claim}","uid":"{uid}"}}}}}}"#,
                self.ns
            ),
        ]);
        self.kubectl_ok(&[
            "patch",
            "pv",
            pv,
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"phase":"Bound"}}"#,
        ]);
        let cap = self.kubectl_ok(&["get", "pv", pv, "-o", "jsonpath={.spec.capacity.storage}"]);
        self.kubectl_ok(&[
            "-n",
            &self.ns,
            "patch",
            "pvc",
            claim,
            "--subresource=status",
            "--type=merge",
            "-p",
            &format!(
                r#"{{"status":{{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{{"storage":"{cap}"}}}}}}"#
            ),
        ]);
    }

    /// `volmnt ARGS --kubeconfig K` with the test harness's environment.
    pub fn volmnt(&self, args: &[&str]) -> Out {
        let mut c = cmd();
        c.args(args).arg("--kubeconfig").arg(&self.kubeconfig);
        run_cmd(&mut c, None)
    }

    /// The pod's core/v1 events (reason: message), oldest first.
    pub fn events_of(&self, pod: &str) -> Vec<(String, String)> {
        let v = self.get_json(&[
            "events",
            "-n",
            &self.ns,
            "--field-selector",
            &format!("involvedObject.name={pod}"),
        ]);
        let mut out: Vec<(String, String, String)> = v["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                (
                    e["lastTimestamp"].as_str().unwrap_or("").to_string(),
                    e["reason"].as_str().unwrap_or("").to_string(),
                    e["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, r, m)| (r, m)).collect()
    }

    /// Delete what this run made: the pods (the kubelet unmounts and ends them), claims,
    /// PVs, the namespace; then the node-side fixtures. Best effort: reports, never panics.
    pub fn cleanup(&self) {
        let _ = self.kubectl(&[
            "-n",
            &self.ns,
            "delete",
            "pods",
            "--all",
            "--grace-period=0",
            "--force",
            "--wait=false",
        ]);
        // The kubelet tears the pods down; wait so no mount of a loop device is left.
        wait_for(Duration::from_secs(60), || {
            let o = self.kubectl(&["-n", &self.ns, "get", "pods", "-o", "name"]);
            o.status.success() && o.stdout.is_empty()
        });
        let _ = self.kubectl(&["-n", &self.ns, "delete", "pvc", "--all", "--wait=false"]);
        for o in self.cluster_objects.borrow().iter() {
            let _ = self.kubectl(&["delete", o, "--wait=false", "--ignore-not-found"]);
        }
        let _ = self.kubectl(&["delete", "namespace", &self.ns, "--wait=false"]);
        cases::node_cleanup(self);
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// The suite only ever talks to a cluster on this machine.
fn assert_loopback(kubeconfig: &Path) {
    let text = std::fs::read_to_string(kubeconfig).expect("read the kubeconfig");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("the kubeconfig is YAML");
    for c in doc["clusters"].as_sequence().into_iter().flatten() {
        let server = c["cluster"]["server"].as_str().unwrap_or("");
        let host = server
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or("");
        let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
        assert!(
            matches!(host, "127.0.0.1" | "localhost" | "[::1]"),
            "VOLMNT_REAL_KUBECONFIG names {server}: the real-cluster suite only talks to a cluster on loopback"
        );
    }
}

/// Poll `f` every 250 ms until it holds or `within` passes; whether it held.
pub fn wait_for(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if f() {
            return true;
        }
        if start.elapsed() > within {
            return false;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Run as root (loop devices, the kubelet's plugin dir, host paths)?
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}
