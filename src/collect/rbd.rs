//! Who holds an RBD image, and releasing it only when the holder is provably gone.
//!
//! Four parts, kept apart so that the dangerous one is small:
//! 1. reaching Ceph: the local `rbd`/`ceph` CLIs (found on the PATH) or the same CLIs inside a
//!    Rook toolbox pod (the exec API); every call is an argument vector (never a shell string)
//!    bounded by a timeout, and the CLIs' exit codes become clear errors;
//! 2. judging each holder (a lock or a watcher): its address → a Kubernetes node (InternalIP /
//!    ExternalIP) → the pods on that node that use the image (PV → PVC → pod), giving a
//!    verdict `live`, `stale` or `unknown` with the reason ([`judge`], pure);
//! 3. the plan: what would be run for which holder and why ([`plan`], pure);
//! 4. [`execute`]: the only function that runs `rbd lock rm` or `ceph osd blocklist add`. It
//!    takes a [`Confirmation`], which only `--yes` or a "yes" typed on a terminal can make, and
//!    which is bound to the plan it confirmed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::{Node, PersistentVolume, PersistentVolumeClaim, Pod};
use kube::api::{AttachParams, ListParams};
use kube::Api;
use serde::Serialize;

use crate::collect::cluster::{Access, Cluster, Fetch};
use crate::error::{Error, Result};
use crate::model::{Case, RbdImageState, RbdLock, RbdWatcher};
use crate::parse::rbd::{parse_blocklist, parse_image_spec, parse_lock_list, parse_status};

// ---------------------------------------------------------------------------------------------
// The image

/// `pool/image` or `pool/namespace/image`, limited to characters safe to print in a command.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImageSpec {
    pub pool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub image: String,
}

impl ImageSpec {
    pub fn parse(spec: &str) -> Option<ImageSpec> {
        parse_image_spec(spec).map(|(pool, namespace, image)| ImageSpec {
            pool,
            namespace,
            image,
        })
    }

    fn of_parts(pool: &str, namespace: Option<&str>, image: &str) -> Option<ImageSpec> {
        let spec = match namespace.filter(|n| !n.is_empty()) {
            Some(ns) => format!("{pool}/{ns}/{image}"),
            None => format!("{pool}/{image}"),
        };
        ImageSpec::parse(&spec)
    }
}

impl std::fmt::Display for ImageSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{}/{}", self.pool, ns, self.image),
            None => write!(f, "{}/{}", self.pool, self.image),
        }
    }
}

/// The RBD image a PV stands for: in-tree `spec.rbd` (pool defaults to `rbd`, as kubelet's),
/// or ceph-csi's `spec.csi.volumeAttributes` (`pool`, `imageName`, `radosNamespace`), with
/// ceph-csi's `clusterID` when present.
pub fn image_of_pv(pv: &PersistentVolume) -> Option<(ImageSpec, Option<String>)> {
    let spec = pv.spec.as_ref()?;
    if let Some(r) = &spec.rbd {
        let pool = r.pool.as_deref().unwrap_or("rbd");
        return ImageSpec::of_parts(pool, None, &r.image).map(|i| (i, None));
    }
    let attrs = spec.csi.as_ref()?.volume_attributes.as_ref()?;
    let (pool, image) = (attrs.get("pool")?, attrs.get("imageName")?);
    let ns = attrs.get("radosNamespace").map(String::as_str);
    ImageSpec::of_parts(pool, ns, image).map(|i| (i, attrs.get("clusterID").cloned()))
}

// ---------------------------------------------------------------------------------------------
// Reaching Ceph

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

/// How this cluster names fencing a client off: `blocklist` since Pacific (16), `blacklist`
/// before (ceph/ceph#36527, "`blacklist` has been replaced with `blocklist` throughout":
/// `ceph osd blacklist ...` became `ceph osd blocklist ...`, and the librbd option
/// `rbd_blacklist_on_break_lock` became `rbd_blocklist_on_break_lock`). Supported: Luminous (12)
/// to Octopus (15) with `blacklist`, Pacific (16) and later with `blocklist`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fence {
    #[default]
    Blocklist,
    Blacklist,
}

impl Fence {
    /// The word for a Ceph release (major version); `blocklist` when it is not known.
    pub fn for_release(major: Option<u32>) -> Fence {
        match major {
            Some(m) if m < 16 => Fence::Blacklist,
            _ => Fence::Blocklist,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Fence::Blocklist => "blocklist",
            Fence::Blacklist => "blacklist",
        }
    }

    fn other(self) -> Fence {
        match self {
            Fence::Blocklist => Fence::Blacklist,
            Fence::Blacklist => Fence::Blocklist,
        }
    }
}

/// What one CLI run gave.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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
    async fn run(&self, tool: Tool, args: &[String]) -> Result<Output> {
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

/// The monitors' answer to a command they do not have (Octopus to `osd blocklist`, Pacific and
/// later removing `osd blacklist`): "no valid command found; 10 closest matches: ..." and
/// "Error EINVAL: invalid command" (src/mon/MonClient / MonCommands validation).
fn unknown_command(stderr: &str) -> bool {
    stderr.contains("no valid command found") || stderr.contains("invalid command")
}

fn strings(a: &[&str]) -> Vec<String> {
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

async fn run_local(argv: &[String]) -> Result<Output> {
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

async fn run_in_pod(cluster: &Cluster, ns: &str, pod: &str, argv: &[String]) -> Result<Output> {
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
fn last_line(stderr: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// Holders and verdicts

/// `127.0.0.1:0/3911761368` → `127.0.0.1`; handles `v2:`/`v1:` prefixes, address vectors
/// (`[v2:10.0.0.1:3300/1,v1:10.0.0.1:6789/1]`) and IPv6 brackets (`[::1]:0/42`).
pub fn host_of(addr: &str) -> Option<String> {
    let mut a = addr.trim();
    // An address vector: the first entry.
    if a.starts_with("[v") || a.starts_with("[any:") {
        a = a.trim_start_matches('[');
        a = a.split(',').next()?.trim_end_matches(']');
    }
    for p in ["v2:", "v1:", "any:"] {
        if let Some(rest) = a.strip_prefix(p) {
            a = rest;
        }
    }
    let a = a.split('/').next()?;
    let host = if let Some(rest) = a.strip_prefix('[') {
        rest.split(']').next()?
    } else {
        a.rsplit_once(':').map_or(a, |(h, _)| h)
    };
    (!host.is_empty() && host.parse::<std::net::IpAddr>().is_ok()).then(|| host.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// A running pod on the holder's node uses the image.
    Live,
    /// Provably not in use: node gone, NotReady for long, or no pod there uses the image.
    Stale,
    /// Could not be judged (no cluster access, a pod there still starting, ...).
    Unknown,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Live => "live",
            Verdict::Stale => "stale",
            Verdict::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum HolderKind {
    Lock {
        id: String,
        locker: String,
    },
    Watcher {
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cookie: Option<u64>,
    },
}

/// A pod on the holder's node that uses the image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodUse {
    pub namespace: String,
    pub name: String,
    pub phase: String,
    /// `claim data (PV pv-1)` or `inline rbd volume v`.
    pub via: String,
    pub terminating: bool,
}

impl PodUse {
    pub fn label(&self) -> String {
        format!(
            "{}/{} ({}{})",
            self.namespace,
            self.name,
            self.phase,
            if self.terminating {
                ", terminating"
            } else {
                ""
            }
        )
    }
}

/// One lock or watcher, mapped to a node and pods, with the verdict and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    #[serde(flatten)]
    pub kind: HolderKind,
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<PodUse>,
    pub verdict: Verdict,
    pub reason: String,
}

impl Holder {
    /// The judgement as the diagnosis model carries it.
    pub fn judgement(&self) -> crate::model::HolderJudgement {
        crate::model::HolderJudgement {
            what: self.describe(),
            node: self.node.clone(),
            pods: self.pods.iter().map(PodUse::label).collect(),
            verdict: self.verdict.word().to_string(),
            reason: self.reason.clone(),
        }
    }

    pub fn describe(&self) -> String {
        match &self.kind {
            HolderKind::Lock { id, locker } => {
                format!(
                    "lock {} held by {locker} at {}",
                    shell_quote(id),
                    self.address
                )
            }
            HolderKind::Watcher { client, .. } => format!(
                "watcher {}{}",
                self.address,
                client
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ),
        }
    }
}

/// A node as far as judging needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFacts {
    pub name: String,
    /// InternalIP and ExternalIP addresses.
    pub addresses: Vec<String>,
    /// The Ready condition: Some(true) Ready, Some(false) NotReady/Unknown, None not reported.
    pub ready: Option<bool>,
    /// When the Ready condition last changed (Unix seconds).
    pub ready_since: Option<i64>,
}

impl NodeFacts {
    pub fn of(n: &Node) -> NodeFacts {
        let status = n.status.as_ref();
        let addresses = status
            .and_then(|s| s.addresses.as_ref())
            .into_iter()
            .flatten()
            .filter(|a| a.type_ == "InternalIP" || a.type_ == "ExternalIP")
            .map(|a| a.address.clone())
            .collect();
        let ready = status
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .find(|c| c.type_ == "Ready");
        NodeFacts {
            name: n.metadata.name.clone().unwrap_or_default(),
            addresses,
            ready: ready.map(|c| c.status == "True"),
            ready_since: ready
                .and_then(|c| c.last_transition_time.as_ref())
                .map(|t| t.0.as_second()),
        }
    }
}

/// What the Kubernetes API told about the holders' nodes and the image's users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeView {
    /// No cluster access: every holder is `unknown` for this reason.
    Unavailable(String),
    Known {
        nodes: Vec<NodeFacts>,
        /// Per node name: the pods there using the image, or why they could not be listed.
        pods: BTreeMap<String, std::result::Result<Vec<PodUse>, String>>,
        /// The PVs of the image (names), for the reasons.
        pvs: Vec<String>,
    },
}

/// A node NotReady for longer than this no longer runs its pods (the node controller's
/// default eviction timeout is 5 minutes).
pub const NOT_READY_STALE: Duration = Duration::from_secs(5 * 60);

/// The verdict for one holder address: pure, from what the API said.
pub fn judge(
    address: &str,
    view: &KubeView,
    now: SystemTime,
) -> (Option<String>, Vec<PodUse>, Verdict, String) {
    let Some(host) = host_of(address) else {
        return (
            None,
            vec![],
            Verdict::Unknown,
            format!("cannot read a host address from {address:?}"),
        );
    };
    let (nodes, pods, pvs) = match view {
        KubeView::Unavailable(why) => {
            return (
                None,
                vec![],
                Verdict::Unknown,
                format!("the Kubernetes API could not be read: {why}"),
            )
        }
        KubeView::Known { nodes, pods, pvs } => (nodes, pods, pvs),
    };
    let Some(node) = nodes
        .iter()
        .find(|n| n.addresses.contains(&host) || n.name == host)
    else {
        return (
            None,
            vec![],
            Verdict::Stale,
            format!(
                "no Kubernetes node has the address {host} (InternalIP/ExternalIP): the node is gone; \
                 if a machine outside Kubernetes uses the image, do not remove this"
            ),
        );
    };
    let now_s = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let not_ready_for = match (node.ready, node.ready_since) {
        (Some(false), Some(since)) => Some(Duration::from_secs((now_s - since).max(0) as u64)),
        _ => None,
    };
    if let Some(d) = not_ready_for.filter(|d| *d >= NOT_READY_STALE) {
        return (
            Some(node.name.clone()),
            vec![],
            Verdict::Stale,
            format!(
                "node {} ({host}) has been NotReady for {}: its pods no longer run there \
                 (blocklisting fences the node off should it come back)",
                node.name,
                human(d)
            ),
        );
    }
    let users = match pods.get(&node.name) {
        Some(Ok(u)) => u.clone(),
        Some(Err(why)) => {
            return (
                Some(node.name.clone()),
                vec![],
                Verdict::Unknown,
                format!(
                    "node {} ({host}), but its pods could not be listed: {why}",
                    node.name
                ),
            )
        }
        None => {
            return (
                Some(node.name.clone()),
                vec![],
                Verdict::Unknown,
                format!("node {} ({host}), but its pods were not listed", node.name),
            )
        }
    };
    let running: Vec<&PodUse> = users.iter().filter(|p| p.phase == "Running").collect();
    let starting: Vec<&PodUse> = users
        .iter()
        .filter(|p| p.phase == "Pending" || p.phase == "Unknown")
        .collect();
    let (verdict, reason) = if !running.is_empty() {
        (
            Verdict::Live,
            format!(
                "pod {} on node {} ({host}) uses the image",
                running
                    .iter()
                    .map(|p| p.label())
                    .collect::<Vec<_>>()
                    .join(", "),
                node.name
            ),
        )
    } else if !starting.is_empty() {
        (
            Verdict::Unknown,
            format!(
                "pod {} on node {} ({host}) uses the image and is not running yet: it may be mapping it right now",
                starting.iter().map(|p| p.label()).collect::<Vec<_>>().join(", "),
                node.name
            ),
        )
    } else {
        let which = if pvs.is_empty() {
            "no PV of the image was found either".to_string()
        } else {
            format!("PV {}", pvs.join(", "))
        };
        (
            Verdict::Stale,
            format!(
                "node {} ({host}) exists but no pod there uses the image ({which}){}",
                node.name,
                if not_ready_for.is_some() {
                    ", and the node is NotReady"
                } else {
                    ""
                }
            ),
        )
    };
    (Some(node.name.clone()), users, verdict, reason)
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// Every lock and watcher as a judged holder.
pub fn holders(
    locks: &[RbdLock],
    watchers: &[RbdWatcher],
    view: &KubeView,
    now: SystemTime,
) -> Vec<Holder> {
    let mut out = Vec::new();
    let mut add = |kind: HolderKind, address: &str| {
        let (node, pods, verdict, reason) = judge(address, view, now);
        out.push(Holder {
            kind,
            address: address.to_string(),
            host: host_of(address),
            node,
            pods,
            verdict,
            reason,
        });
    };
    for l in locks {
        add(
            HolderKind::Lock {
                id: l.id.clone(),
                locker: l.locker.clone(),
            },
            &l.address,
        );
    }
    for w in watchers {
        add(
            HolderKind::Watcher {
                client: w.client.clone(),
                cookie: w.cookie,
            },
            &w.address,
        );
    }
    out
}

/// Does this pod use the image: through one of `claims` (namespace, name), or an inline
/// in-tree rbd volume?
fn pod_use(
    pod: &Pod,
    claims: &BTreeMap<(String, String), String>,
    image: &ImageSpec,
) -> Option<PodUse> {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let spec = pod.spec.as_ref()?;
    let via = spec.volumes.iter().flatten().find_map(|v| {
        let claim = v
            .persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.clone())
            .or_else(|| v.ephemeral.as_ref().map(|_| format!("{name}-{}", v.name)));
        if let Some(c) = claim {
            if let Some(pv) = claims.get(&(ns.clone(), c.clone())) {
                return Some(format!("claim {c} (PV {pv})"));
            }
        }
        let r = v.rbd.as_ref()?;
        let inline = ImageSpec::of_parts(r.pool.as_deref().unwrap_or("rbd"), None, &r.image)?;
        (inline == *image).then(|| format!("inline rbd volume {}", v.name))
    })?;
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Unknown".into());
    Some(PodUse {
        namespace: ns,
        name,
        phase,
        via,
        terminating: pod.metadata.deletion_timestamp.is_some(),
    })
}

/// Read what judging needs: the nodes, the image's PVs and claims, and the pods on the nodes
/// whose addresses are `hosts`. Any failure makes the view `Unavailable` with the reason.
pub async fn kube_view(cluster: &Cluster, image: &ImageSpec, hosts: &BTreeSet<String>) -> KubeView {
    match read_view(cluster, image, hosts).await {
        Ok(v) => v,
        Err(e) => KubeView::Unavailable(e.to_string()),
    }
}

async fn read_view(
    cluster: &Cluster,
    image: &ImageSpec,
    hosts: &BTreeSet<String>,
) -> Result<KubeView> {
    let c = cluster.client();
    let denied = |what: &str| Error::Unreachable(format!("not allowed to {what}"));
    let nodes_f = cluster.list(
        Api::<Node>::all(c.clone()),
        ListParams::default(),
        Access::cluster("nodes"),
        |_| true,
    );
    let pvs_f = cluster.list(
        Api::<PersistentVolume>::all(c.clone()),
        ListParams::default(),
        Access::cluster("persistentvolumes"),
        |pv: &PersistentVolume| image_of_pv(pv).is_some_and(|(i, _)| i == *image),
    );
    let (nodes, pvs) = futures::join!(nodes_f, pvs_f);
    let nodes: Vec<NodeFacts> = match nodes? {
        Fetch::Got(n) => n.iter().map(NodeFacts::of).collect(),
        _ => return Err(denied("list nodes (cluster scope)")),
    };
    let pvs = match pvs? {
        Fetch::Got(p) => p,
        _ => return Err(denied("list persistentvolumes (cluster scope)")),
    };
    let mut claims = BTreeMap::new();
    for pv in &pvs {
        let pv_name = pv.metadata.name.clone().unwrap_or_default();
        if let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
            claims.insert(
                (
                    r.namespace.clone().unwrap_or_default(),
                    r.name.clone().unwrap_or_default(),
                ),
                pv_name,
            );
        }
    }
    let wanted: BTreeSet<String> = nodes
        .iter()
        .filter(|n| hosts.contains(&n.name) || n.addresses.iter().any(|a| hosts.contains(a)))
        .map(|n| n.name.clone())
        .collect();
    let lists = futures::future::join_all(wanted.iter().map(|node| {
        let api = Api::<Pod>::all(c.clone());
        let claims = &claims;
        async move {
            let lp = ListParams::default().fields(&format!("spec.nodeName={node}"));
            let mut users = Vec::new();
            let r = cluster
                .list(api, lp, Access::cluster("pods"), |p: &Pod| {
                    if let Some(u) = pod_use(p, claims, image) {
                        users.push(u);
                    }
                    false
                })
                .await;
            let r = match r {
                Ok(Fetch::Got(_)) => Ok(users),
                Ok(_) => Err("not allowed to list pods (cluster scope)".to_string()),
                Err(e) => Err(e.to_string()),
            };
            (node.clone(), r)
        }
    }))
    .await;
    Ok(KubeView::Known {
        nodes,
        pods: lists.into_iter().collect(),
        pvs: pvs.iter().filter_map(|p| p.metadata.name.clone()).collect(),
    })
}

/// The image a pod (through its claims or an inline rbd volume) or a claim uses, from the API.
/// Errors when there is none, or several (the user then names one).
pub async fn image_of_claim_or_pod(
    cluster: &Cluster,
    namespace: &str,
    pod: Option<&str>,
    pvc: Option<&str>,
) -> Result<(ImageSpec, Option<String>, String)> {
    let c = cluster.client();
    let mut found: Vec<(ImageSpec, Option<String>, String)> = Vec::new();
    let mut claims: Vec<String> = Vec::new();
    let what = match (pod, pvc) {
        (Some(p), _) => {
            let got = cluster
                .get(
                    Api::<Pod>::namespaced(c.clone(), namespace),
                    p,
                    Access::ns("pods", namespace),
                )
                .await?;
            let pod = match got {
                Fetch::Got(p) => p,
                Fetch::Missing => {
                    return Err(Error::Usage(format!("pod {namespace}/{p} not found ({})", cluster.target)))
                }
                Fetch::Denied => {
                    return Err(Error::Unreachable(format!(
                        "not allowed to read pod {namespace}/{p} (needs get on pods in namespace {namespace})"
                    )))
                }
            };
            for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
                if let Some(c) = &v.persistent_volume_claim {
                    claims.push(c.claim_name.clone());
                } else if v.ephemeral.is_some() {
                    claims.push(format!("{p}-{}", v.name));
                } else if let Some(r) = &v.rbd {
                    if let Some(i) =
                        ImageSpec::of_parts(r.pool.as_deref().unwrap_or("rbd"), None, &r.image)
                    {
                        found.push((i, None, format!("pod {namespace}/{p} volume {}", v.name)));
                    }
                }
            }
            format!("pod {namespace}/{p}")
        }
        (None, Some(c)) => {
            claims.push(c.to_string());
            format!("claim {namespace}/{c}")
        }
        (None, None) => {
            return Err(Error::Usage(
                "name the image (pool/image), or --pod or --pvc".into(),
            ))
        }
    };
    for claim in &claims {
        let got = cluster
            .get(
                Api::<PersistentVolumeClaim>::namespaced(c.clone(), namespace),
                claim,
                Access::ns("persistentvolumeclaims", namespace),
            )
            .await?;
        let pvc = match got {
            Fetch::Got(p) => p,
            Fetch::Missing if pvc.is_some() => {
                return Err(Error::Usage(format!("claim {namespace}/{claim} not found ({})", cluster.target)))
            }
            Fetch::Missing => continue,
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to read claim {namespace}/{claim} (needs get on persistentvolumeclaims in namespace {namespace})"
                )))
            }
        };
        let Some(pv_name) = pvc.spec.as_ref().and_then(|s| s.volume_name.clone()) else {
            continue;
        };
        let pv = match cluster
            .get(
                Api::<PersistentVolume>::all(c.clone()),
                &pv_name,
                Access::cluster("persistentvolumes"),
            )
            .await?
        {
            Fetch::Got(pv) => pv,
            Fetch::Missing => continue,
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to read PV {pv_name} (needs get on persistentvolumes)"
                )))
            }
        };
        if let Some((i, cluster_id)) = image_of_pv(&pv) {
            found.push((i, cluster_id, format!("claim {claim} → PV {pv_name}")));
        }
    }
    found.dedup_by(|a, b| a.0 == b.0);
    match found.len() {
        0 => Err(Error::Usage(format!(
            "{what} uses no RBD image (no in-tree rbd volume and no ceph-csi PV with pool and imageName)"
        ))),
        1 => Ok(found.remove(0)),
        _ => Err(Error::Usage(format!(
            "{what} uses several RBD images ({}); name one as pool/image",
            found.iter().map(|f| f.0.to_string()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

// ---------------------------------------------------------------------------------------------
// The plan

/// What `unlock` was asked to do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// Act on live and unknown holders too.
    pub force: bool,
    /// Only print the plan.
    pub dry_run: bool,
    /// `rbd lock rm` without blocklisting the locker.
    pub no_blocklist: bool,
    /// The cluster's word for fencing (blocklist, or blacklist before Pacific).
    pub fence: Fence,
}

/// One command that releases a holder.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// `rbd lock rm IMAGE ID LOCKER` (blocklists the locker unless `blocklist` is false).
    LockRm {
        image: String,
        lock_id: String,
        locker: String,
        address: String,
        blocklist: bool,
    },
    /// `ceph osd blocklist add ADDR`
    BlocklistAdd { address: String },
}

impl Action {
    /// The CLI and its arguments for a Pacific or later cluster.
    pub fn command(&self) -> (Tool, Vec<String>) {
        self.command_for(Fence::Blocklist)
    }

    /// The CLI and its arguments (the connection flags are added by [`Ceph::argv`]), in the
    /// cluster's word for fencing.
    pub fn command_for(&self, fence: Fence) -> (Tool, Vec<String>) {
        match self {
            Action::LockRm {
                image,
                lock_id,
                locker,
                blocklist,
                ..
            } => {
                let mut a = strings(&["lock", "rm", image, lock_id, locker]);
                if !blocklist {
                    a.push(format!("--rbd_{}_on_break_lock=false", fence.word()));
                }
                (Tool::Rbd, a)
            }
            Action::BlocklistAdd { address } => {
                (Tool::Ceph, strings(&["osd", fence.word(), "add", address]))
            }
        }
    }
}

/// A planned action, the holder it releases, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    #[serde(flatten)]
    pub action: Action,
    /// Index into the holders.
    pub holder: usize,
    pub verdict: Verdict,
    pub why: String,
    /// What the command does besides (blocklisting, expiry).
    pub effect: String,
    /// Only there because of --force: the holder was not proven stale.
    pub forced: bool,
}

/// A holder left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub holder: usize,
    pub verdict: Verdict,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub image: String,
    pub dry_run: bool,
    /// The cluster's word for fencing: every command of the plan uses it.
    pub fence: Fence,
    pub steps: Vec<Step>,
    pub refused: Vec<Refusal>,
}

impl Plan {
    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|s| s.action.clone()).collect()
    }
}

const DOUBLE_MOUNT: &str = "removing it would let another node map the image while this one still \
    writes to it: the filesystem mounted twice, and corrupted";

/// What to run for which holder, purely from the holders' verdicts and the flags. Stale
/// holders get a step; live and unknown ones are refused unless `force`.
pub fn plan(image: &ImageSpec, holders: &[Holder], flags: Flags) -> Plan {
    let mut steps = Vec::new();
    let mut refused = Vec::new();
    let mut blocklisted: BTreeSet<String> = BTreeSet::new();
    for (i, h) in holders.iter().enumerate() {
        let forced = h.verdict != Verdict::Stale;
        if forced && !flags.force {
            let why = match h.verdict {
                Verdict::Live => format!(
                    "live: {}; {DOUBLE_MOUNT}. Stop that pod first (or --force if you know better)",
                    h.reason
                ),
                _ => format!(
                    "not proven stale ({}); check by hand, then --force to act anyway",
                    h.reason
                ),
            };
            refused.push(Refusal {
                holder: i,
                verdict: h.verdict,
                why,
            });
            continue;
        }
        let why = if forced {
            format!(
                "FORCED (--force) although {}: {}; {DOUBLE_MOUNT}",
                h.verdict.word(),
                h.reason
            )
        } else {
            format!("stale: {}", h.reason)
        };
        match &h.kind {
            HolderKind::Lock { id, locker } => {
                let blocklist = !flags.no_blocklist;
                if blocklist {
                    blocklisted.insert(h.address.clone());
                }
                steps.push(Step {
                    action: Action::LockRm {
                        image: image.to_string(),
                        lock_id: id.clone(),
                        locker: locker.clone(),
                        address: h.address.clone(),
                        blocklist,
                    },
                    holder: i,
                    verdict: h.verdict,
                    why,
                    effect: if blocklist {
                        format!(
                            "`rbd lock rm` also blocklists the locker {} (rbd_blocklist_on_break_lock, on by default) \
                             for an hour: that client can no longer reach the cluster, so it cannot write with a \
                             lock it lost; --no-blocklist skips this",
                            h.address
                        )
                    } else {
                        "with --no-blocklist the locker is not blocklisted: if it is still alive it can go on \
                         writing after losing the lock"
                            .to_string()
                    },
                    forced,
                });
            }
            HolderKind::Watcher { .. } => {
                if !blocklisted.insert(h.address.clone()) {
                    continue; // the same client is blocklisted by an earlier step
                }
                steps.push(Step {
                    action: Action::BlocklistAdd {
                        address: h.address.clone(),
                    },
                    holder: i,
                    verdict: h.verdict,
                    why,
                    effect: format!(
                        "blocklisting cuts the client {} off from every OSD, which drops its watch at once; \
                         the entry expires after an hour (Ceph's default), or `ceph osd blocklist rm {}` lifts it",
                        h.address, h.address
                    ),
                    forced,
                });
            }
        }
    }
    Plan {
        image: image.to_string(),
        dry_run: flags.dry_run,
        fence: flags.fence,
        steps,
        refused,
    }
}

// ---------------------------------------------------------------------------------------------
// Confirmation and execution

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

// ---------------------------------------------------------------------------------------------
// doctor's hook

/// For `doctor pod`: the holders of every RBD image the case's PVs (or inline volumes) name,
/// judged. Images whose holders Ceph could not give are skipped with a note.
pub async fn holders_for_case(
    case: &Case,
    cluster: &Cluster,
    ceph: &Ceph,
) -> (Vec<(ImageSpec, RbdImageState, Vec<Holder>)>, Vec<String>) {
    let mut images: BTreeSet<ImageSpec> = case
        .pvs
        .iter()
        .filter_map(|pv| image_of_pv(pv).map(|i| i.0))
        .collect();
    for v in case
        .pod
        .iter()
        .flat_map(|p| p.spec.iter())
        .flat_map(|s| s.volumes.iter().flatten())
    {
        if let Some(r) = &v.rbd {
            images.extend(ImageSpec::of_parts(
                r.pool.as_deref().unwrap_or("rbd"),
                None,
                &r.image,
            ));
        }
    }
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for image in images {
        let (locks, watchers) = match ceph.holders_of(&image).await {
            Ok(x) => x,
            Err(e) => {
                // The command line is in -v's log; the report keeps the reason and the way out.
                static CMD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                    regex::Regex::new(r"(?:cannot reach Ceph: )?`[^`]*` failed \(exit \d+\): ")
                        .expect("static regex")
                });
                notes.push(format!(
                    "the holders of {image} were not read from Ceph: {}",
                    CMD.replace(&e.to_string(), "")
                ));
                continue;
            }
        };
        let hosts = locks
            .iter()
            .map(|l| &l.address)
            .chain(watchers.iter().map(|w| &w.address))
            .filter_map(|a| host_of(a))
            .collect();
        let view = kube_view(cluster, &image, &hosts).await;
        let judged = holders(&locks, &watchers, &view, SystemTime::now());
        let state = RbdImageState {
            image: Some(image.to_string()),
            locks,
            watchers: Some(watchers),
            lock_kind: None,
            judged: judged.iter().map(Holder::judgement).collect(),
        };
        out.push((image, state, judged));
    }
    (out, notes)
}

/// How long `doctor` waits for each rbd call: it is a side read, not the point of the command.
pub const DOCTOR_CEPH_TIMEOUT: Duration = Duration::from_secs(10);

/// The hook `doctor pod` calls when a finding is `rbd_lock_held` or `rbd_watcher_stale`: read
/// the holders of the case's RBD images with the local CLIs (CEPH_CONF or /etc/ceph), judge
/// them against the cluster, and add to the case the listing (`case.rbd`), the holders' Node
/// objects (so the report names the holder node) and one note per holder naming its node, the
/// pods there and the verdict, with the `volmnt rbd unlock ... --dry-run` to run next.
/// Read-only. Returns false (and changes nothing but a note) when Ceph cannot be read.
pub async fn enrich_case(case: &mut Case, cluster: &Cluster) -> bool {
    if which("rbd").is_none() {
        case.notes.push(
            "the rbd CLI is not on this machine, so the image's holders were not read; \
             `volmnt rbd status POOL/IMAGE --toolbox NAMESPACE/POD` reads them through a Rook toolbox"
                .into(),
        );
        return false;
    }
    let ceph = Ceph {
        place: Where::Local,
        conf: None,
        id: None,
        keyring: None,
        timeout: DOCTOR_CEPH_TIMEOUT,
        fence: Fence::default(),
    };
    let (found, notes) = holders_for_case(case, cluster, &ceph).await;
    case.notes.extend(notes);
    if found.is_empty() {
        return false;
    }
    for (image, state, judged) in found {
        for h in &judged {
            if let Some(n) = &h.node {
                if !case
                    .nodes
                    .iter()
                    .any(|x| x.metadata.name.as_deref() == Some(n))
                {
                    let api = Api::<Node>::all(cluster.client());
                    if let Ok(Fetch::Got(node)) =
                        cluster.get(api, n, Access::cluster("nodes")).await
                    {
                        case.nodes.push(node);
                    }
                }
            }
        }
        case.rbd
            .retain(|s| s.image.as_deref() != Some(&image.to_string()));
        case.rbd.push(state);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_holder(verdict: Verdict, addr: &str) -> Holder {
        Holder {
            kind: HolderKind::Lock {
                id: "kubelet_lock_magic_node1".into(),
                locker: "client.4174".into(),
            },
            address: addr.into(),
            host: host_of(addr),
            node: Some("n1".into()),
            pods: vec![],
            verdict,
            reason: format!("because {}", verdict.word()),
        }
    }

    fn watch_holder(verdict: Verdict, addr: &str) -> Holder {
        Holder {
            kind: HolderKind::Watcher {
                client: Some("client.7".into()),
                cookie: Some(1),
            },
            ..lock_holder(verdict, addr)
        }
    }

    fn img() -> ImageSpec {
        ImageSpec::parse("kube/img").unwrap()
    }

    #[test]
    fn hosts_of_addresses() {
        for (a, h) in [
            ("127.0.0.1:0/3911761368", Some("127.0.0.1")),
            ("10.47.136.60:0/1864102866", Some("10.47.136.60")),
            ("v1:10.0.0.5:0/77", Some("10.0.0.5")),
            ("v2:10.0.0.5:0/77", Some("10.0.0.5")),
            ("[v2:10.0.0.2:3300/2,v1:10.0.0.2:6789/2]", Some("10.0.0.2")),
            ("[::1]:0/42", Some("::1")),
            ("v2:[fd00::12]:0/42", Some("fd00::12")),
            (
                "[v2:[fd00::12]:3300/1,v1:[fd00::12]:6789/1]",
                Some("fd00::12"),
            ),
            ("not-an-address", None),
            ("", None),
        ] {
            assert_eq!(host_of(a).as_deref(), h, "{a}");
        }
    }

    /// Every verdict × force × dry-run, for a lock and for a watcher.
    #[test]
    fn planner_exhaustive() {
        for verdict in [Verdict::Live, Verdict::Stale, Verdict::Unknown] {
            for force in [false, true] {
                for dry_run in [false, true] {
                    for no_blocklist in [false, true] {
                        let flags = Flags {
                            force,
                            dry_run,
                            no_blocklist,
                            fence: Fence::default(),
                        };
                        let hs = [
                            lock_holder(verdict, "127.0.0.1:0/1"),
                            watch_holder(verdict, "127.0.0.1:0/2"),
                        ];
                        let p = plan(&img(), &hs, flags);
                        assert_eq!(p.dry_run, dry_run);
                        let acts = verdict == Verdict::Stale || force;
                        let ctx = format!(
                            "{verdict:?} force={force} dry={dry_run} nobl={no_blocklist}: {p:#?}"
                        );
                        if acts {
                            assert_eq!(p.steps.len(), 2, "{ctx}");
                            assert!(p.refused.is_empty(), "{ctx}");
                            assert_eq!(
                                p.steps[0].action,
                                Action::LockRm {
                                    image: "kube/img".into(),
                                    lock_id: "kubelet_lock_magic_node1".into(),
                                    locker: "client.4174".into(),
                                    address: "127.0.0.1:0/1".into(),
                                    blocklist: !no_blocklist,
                                },
                                "{ctx}"
                            );
                            assert_eq!(
                                p.steps[1].action,
                                Action::BlocklistAdd {
                                    address: "127.0.0.1:0/2".into()
                                },
                                "{ctx}"
                            );
                            let forced = verdict != Verdict::Stale;
                            assert!(p.steps.iter().all(|s| s.forced == forced), "{ctx}");
                            if forced {
                                assert!(p.steps[0].why.contains("FORCED"), "{ctx}");
                                assert!(p.steps[0].why.contains("mounted twice"), "{ctx}");
                            }
                            let (tool, args) = p.steps[0].action.command();
                            assert_eq!(tool, Tool::Rbd);
                            assert_eq!(
                                args.contains(&"--rbd_blocklist_on_break_lock=false".to_string()),
                                no_blocklist,
                                "{ctx}"
                            );
                            assert!(p.steps[0].effect.contains("blocklist"), "{ctx}");
                            assert!(p.steps[1].effect.contains("expires"), "{ctx}");
                        } else {
                            assert!(p.steps.is_empty(), "{ctx}");
                            assert_eq!(p.refused.len(), 2, "{ctx}");
                            let want = if verdict == Verdict::Live {
                                "mounted twice"
                            } else {
                                "not proven stale"
                            };
                            assert!(p.refused.iter().all(|r| r.why.contains(want)), "{ctx}");
                            assert!(p.refused.iter().all(|r| r.why.contains("--force")), "{ctx}");
                        }
                        // A dry run's plan can never be confirmed.
                        let c = Confirmation::by_yes_flag(true, &p);
                        assert_eq!(c.is_some(), !dry_run, "{ctx}");
                        assert!(Confirmation::by_yes_flag(false, &p).is_none());
                    }
                }
            }
        }
    }

    #[test]
    fn mixed_holders_only_stale_ones_act() {
        let hs = [
            lock_holder(Verdict::Live, "10.0.0.1:0/1"),
            watch_holder(Verdict::Stale, "10.0.0.2:0/2"),
            watch_holder(Verdict::Unknown, "10.0.0.3:0/3"),
        ];
        let p = plan(&img(), &hs, Flags::default());
        assert_eq!(p.steps.len(), 1);
        assert_eq!(p.steps[0].holder, 1);
        assert_eq!(
            p.refused.iter().map(|r| r.holder).collect::<Vec<_>>(),
            [0, 2]
        );
    }

    #[test]
    fn a_watcher_at_a_blocklisted_lockers_address_is_not_blocklisted_twice() {
        let hs = [
            lock_holder(Verdict::Stale, "10.0.0.1:0/1"),
            watch_holder(Verdict::Stale, "10.0.0.1:0/1"),
        ];
        assert_eq!(plan(&img(), &hs, Flags::default()).steps.len(), 1);
        let p = plan(
            &img(),
            &hs,
            Flags {
                no_blocklist: true,
                ..Flags::default()
            },
        );
        assert_eq!(p.steps.len(), 2);
    }

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

    fn node(name: &str, ip: &str, ready: Option<bool>, since: i64) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            addresses: vec![ip.into()],
            ready,
            ready_since: Some(since),
        }
    }

    fn pod(phase: &str) -> PodUse {
        PodUse {
            namespace: "default".into(),
            name: "web-0".into(),
            phase: phase.into(),
            via: "claim data (PV pv-1)".into(),
            terminating: false,
        }
    }

    fn view(n: NodeFacts, pods: std::result::Result<Vec<PodUse>, String>) -> KubeView {
        KubeView::Known {
            pods: [(n.name.clone(), pods)].into_iter().collect(),
            nodes: vec![n],
            pvs: vec!["pv-1".into()],
        }
    }

    #[test]
    fn verdicts() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let t = 1_000_000;
        let addr = "10.0.0.1:0/5";
        let j = |v: &KubeView| judge(addr, v, now);
        // Live: a running pod there uses the image.
        let (n, pods, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t - 10),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!((n.as_deref(), v), (Some("n1"), Verdict::Live));
        assert_eq!(pods.len(), 1);
        assert!(r.contains("default/web-0 (Running)"), "{r}");
        // Stale: no pod there uses it.
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t - 10),
            Ok(vec![]),
        ));
        assert_eq!(v, Verdict::Stale);
        assert!(r.contains("no pod there uses the image"), "{r}");
        // Finished pods do not use it.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Ok(vec![pod("Succeeded")]),
        ));
        assert_eq!(v, Verdict::Stale);
        // Stale: the node is gone.
        let (n, _, v, r) = j(&view(node("n2", "10.0.0.2", Some(true), t), Ok(vec![])));
        assert_eq!((n, v), (None, Verdict::Stale));
        assert!(
            r.contains("no Kubernetes node has the address 10.0.0.1"),
            "{r}"
        );
        // Stale: NotReady for long, even if the API still shows the pod Running.
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(false), t - 3600),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!(v, Verdict::Stale);
        assert!(r.contains("NotReady for 1h0m"), "{r}");
        // NotReady only briefly: the running pod still counts.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(false), t - 60),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!(v, Verdict::Live);
        // Unknown: a pod there is still starting; pods unlistable; no API at all.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Ok(vec![pod("Pending")]),
        ));
        assert_eq!(v, Verdict::Unknown);
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Err("forbidden".into()),
        ));
        assert_eq!(v, Verdict::Unknown);
        assert!(r.contains("forbidden"), "{r}");
        let (_, _, v, r) = j(&KubeView::Unavailable("no kubeconfig found".into()));
        assert_eq!(v, Verdict::Unknown);
        assert!(r.contains("no kubeconfig found"), "{r}");
        // A node named by its address (the 2017 cluster) is found too.
        let named = NodeFacts {
            name: "10.0.0.1".into(),
            ..NodeFacts::default()
        };
        let (n, _, _, _) = j(&view(named, Ok(vec![])));
        assert_eq!(n.as_deref(), Some("10.0.0.1"));
    }

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

    #[test]
    fn before_pacific_the_plan_says_blacklist_in_every_command() {
        assert_eq!(Fence::for_release(Some(15)), Fence::Blacklist);
        assert_eq!(Fence::for_release(Some(12)), Fence::Blacklist);
        assert_eq!(Fence::for_release(Some(16)), Fence::Blocklist);
        assert_eq!(Fence::for_release(Some(19)), Fence::Blocklist);
        assert_eq!(Fence::for_release(None), Fence::Blocklist);
        let lock = Action::LockRm {
            image: "kube/img".into(),
            lock_id: "kubelet_lock_magic_node1".into(),
            locker: "client.4123".into(),
            address: "10.0.0.7:0/1".into(),
            blocklist: false,
        };
        let watch = Action::BlocklistAdd {
            address: "10.0.0.7:0/2".into(),
        };
        let (_, a) = lock.command_for(Fence::Blacklist);
        assert!(
            a.contains(&"--rbd_blacklist_on_break_lock=false".to_string()),
            "{a:?}"
        );
        let (_, a) = watch.command_for(Fence::Blacklist);
        assert_eq!(a, ["osd", "blacklist", "add", "10.0.0.7:0/2"]);
        let (_, a) = watch.command_for(Fence::Blocklist);
        assert_eq!(a, ["osd", "blocklist", "add", "10.0.0.7:0/2"]);
        assert!(unknown_command(include_str!(
            "../../fixtures/ceph/release-osd-blocklist-bad-subcommand.err"
        )));
    }

    /// The only calls that change Ceph are built in `Action::command` and run in `execute`.
    #[test]
    fn only_execute_runs_mutating_commands() {
        let src = include_str!("rbd.rs");
        let code = &src[..src.find("#[cfg(test)]").unwrap()];
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
