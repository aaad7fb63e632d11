//! Turning catalogue steps into this case's commands: names filled in, install commands for the
//! node's OS, and the facts of context shown as evidence.

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Volume;
use regex::Regex;

use super::catalogue::{catalogue, CauseDef, FsFamily, StepDef, VariantDef};
use super::context::MsgContext;
use super::findings::Acc;
use super::holders::notready_holder;
use super::os::OsProfile;
pub use super::os_steps::{
    acts_at, node_os, os_family, profile_of, runs_on_node, Vars, STATIC_UNITS,
};
use super::os_steps::{for_node_shell, install_steps, lacks_service, service_command};
use super::text::{clip, kernel_module_in, normalize};
use super::volume_kinds::client_for;
/// Where the client functions were first defined, kept for callers.
pub use super::volume_kinds::{client_in_text, client_of, client_of_program};
use crate::model::report::{ActsAt, Evidence, NodeOs, Step, StepKind, Target};
use crate::model::Case;

/// volmnt features that exist in this build. Steps that need another (`requires:` in the
/// knowledge file) are not offered, so the report never tells an operator to run a command
/// this binary does not have.
pub const AVAILABLE: &[&str] = &["node-check", "rbd"];

static SCOPE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Running scope as unit:? \S+\.scope\.?\s*").expect("static regex")
});
static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{([a-z_]+)\}").expect("static regex"));
static PATH_QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"path "([^"]+)" does not exist|hostPath type check failed ?: (\S+) is not an? ([a-z ]+?)(?:$|[.,;])"#)
        .expect("static regex")
});
static OBJECT_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b(configmap|secret)s? "([^"]+)" not found|(?i)couldn't find key \S+ in (ConfigMap|Secret) \S+/(\S+)"#)
        .expect("static regex")
});
/// kubelet naming the key a pod mounts that the object lacks (pkg/volume/secret, configmap,
/// projected): `couldn't find key tls.key in Secret shop/web-tls`, `configmap references
/// non-existent config key: app.properties`, `secret references non-existent secret key: x`.
static MISSING_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"couldn't find key (\S+) in (?:ConfigMap|Secret) ([a-z0-9][a-z0-9.-]*)/|references non-existent (?:config map |config |configmap |secret )key: ([^\s"]+)"#)
        .expect("static regex")
});
static RBD_IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bimage (\S+) is (?:locked by other nodes|still being used)|running rbd args: \[[^\]]*?\bmap ([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)")
        .expect("static regex")
});
/// The rbd CLI's hint after a feature mismatch names the image and the features to disable
/// (ceph src/tools/rbd/action/Kernel.cc: `You can disable features unsupported by the kernel
/// with "rbd feature disable POOL/IMAGE F1 F2..."`).
static RBD_FEATURE_HINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"rbd feature disable ([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+){1,2})((?: [a-z][a-z-]*)+)"#,
    )
    .expect("static regex")
});
/// The kernel's own line (linux drivers/block/rbd.c rbd_dev_v2_features): `rbd: image NAME:
/// image uses unsupported features: 0x38`.
static RBD_FEATURE_MASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"rbd: image ([A-Za-z0-9_.-]+): image uses unsupported features: 0x([0-9a-fA-F]+)")
        .expect("static regex")
});
/// A managed file service's NFS endpoint: Amazon EFS and FSx, Azure Files.
/// FSx for ONTAP names an SVM's NFS endpoint `svm-ID.fs-ID.fsx.REGION.amazonaws.com` (AWS FSx for
/// NetApp ONTAP user guide, "Accessing data": SVM endpoints); FSx for OpenZFS `fs-ID.fsx...`.
static MANAGED_NFS_HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(fs-[0-9a-f]{8,17})\.efs\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?|(?:[a-z0-9-]+\.)*(fs-[0-9a-f]{8,17})\.fsx\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?|([a-z0-9]{3,24})\.(?:privatelink\.)?file\.core\.(?:windows\.net|chinacloudapi\.cn|usgovcloudapi\.net))\.?$")
        .expect("static regex")
});
/// The VM the cloud says a disk is attached to: Azure Compute's "already owned by VM 'W'",
/// GCE's "is already being used by '.../instances/I'".
static OWNER_VM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)already owned by VM '?([^'\s]+?)'?(?:[.\s]|$)|is already being used by '?(?:[^'\s]*/instances/)([^'\s/]+)'?")
        .expect("static regex")
});
/// An Azure managed disk's resource id, as azuredisk and Azure Compute name it.
static AZURE_DISK_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(/subscriptions/[A-Za-z0-9-]+/resourceGroups/[A-Za-z0-9._()-]+/providers/Microsoft\.Compute/disks/[A-Za-z0-9._-]+)")
        .expect("static regex")
});
/// azuredisk-csi-driver: "disk(%s) already attached to node(%s), could not be attached to
/// node(%s)": the node that still has it.
static ATTACHED_TO_NODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"already attached to node\(([^)\s]+)\), could not be attached")
        .expect("static regex")
});
/// kubernetes-csi/external-attacher pkg/controller/csi_handler.go getNodeID: "CSINode %s does
/// not contain driver %s": the node and the driver, both named.
static CSINODE_DRIVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"CSINode ([a-z0-9][a-z0-9.-]*) does not contain driver ([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])")
        .expect("static regex")
});
/// An EFS file system id in a volume handle (`fs-0123abcd`, `fs-0123abcd::fsap-...`).
static EFS_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(fs-[0-9a-f]{8,17})(?:$|:)").expect("static regex"));
static PVC_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"persistentvolumeclaims? "([^"]+)" not found|PVC (?:"[^"]+"/)?"?([a-z0-9.-]+/)?([a-z0-9.-]+)"? has non-bound"#)
        .expect("static regex")
});

/// mount(8)'s ENODEV: `unknown filesystem type 'aznfs'`.
static UNKNOWN_FS_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"unknown filesystem type '([A-Za-z0-9._-]+)'").expect("static regex")
});
/// `dial tcp 10.0.0.9:3260: i/o timeout`, `connect to 10.0.0.9:6789 failed`: what to test.
static ENDPOINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:dial tcp|connect to|connecting to|portal:?)\s+\[?([0-9A-Za-z][0-9A-Za-z.:-]*?[0-9A-Za-z])\]?:(\d{2,5})\b")
        .expect("static regex")
});
/// `nfs-server.storage.svc.cluster.local`: a Service's cluster DNS name.
static SERVICE_DNS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-z0-9]([a-z0-9-]*[a-z0-9])?)\.([a-z0-9]([a-z0-9-]*[a-z0-9])?)\.svc(?:\.cluster\.local)?\.?$")
        .expect("static regex")
});
/// The kernel's name of the device a filesystem complains about: `XFS (rbd0):`, `EXT4-fs (sdb):`.
static KERNEL_DEVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:XFS|EXT4-fs|EXT3-fs|BTRFS[a-z ]*) \(((?:sd|vd|xvd|nvme|rbd|nbd|dm-|drbd|loop)[a-z0-9p-]*)\)")
        .expect("static regex")
});
/// The path a failed file operation names, as Go's *PathError prints it (`mkdir /var/lib/x:
/// permission denied`, `chmod /x: operation not permitted`, `mkdir /mnt/d: read-only file
/// system`), or as C tools print errno after it.
static DENIED_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:mkdir|mkdirall|open|stat|lstat|chmod|chown|lchown|mount|rmdir|unlinkat|openat|create|setxattr|lsetxattr|symlink|remove)(?:\(\))? (/[A-Za-z0-9._/@+=~-]+):? (?:[a-z ]*: )?(?:permission denied|operation not permitted|read-only file system|not a directory|no such file or directory)")
        .expect("static regex")
});
/// nfs-utils utils/mount/error.c: `mount.nfs: access denied by server while mounting %s`.
static NFS_MOUNTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"while mounting \[?([0-9A-Za-z][0-9A-Za-z.:-]*?)\]?:(/[^\s,;\x22']*)")
        .expect("static regex")
});
static ISCSI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)iscsi|\biqn\.|\blun\b").expect("static regex"));

/// Fill `{name}` placeholders of prose; an unknown name reads as what it is (from `lookups:`),
/// never as a bracketed placeholder.
pub fn fill(template: &str, vars: &Vars) -> String {
    let cat = catalogue();
    PLACEHOLDER
        .replace_all(template, |c: &regex::Captures| match vars.get(&c[1]) {
            Some(v) => v.clone(),
            None => cat
                .lookups
                .get(&c[1])
                .and_then(|l| l.label.clone())
                .unwrap_or_else(|| c[1].replace('_', " ")),
        })
        .into_owned()
}

/// The cause's explanation for this case: the first `explain_when` whose names it knows.
pub fn explain_for<'a>(def: &'a CauseDef, vars: &Vars) -> &'a str {
    def.explain_when
        .iter()
        .find(|e| e.when.iter().all(|n| vars.contains_key(n.as_str())))
        .map_or(def.explain.as_str(), |e| e.text.as_str())
}

/// Fill a command: every name must be known, or there is no command (the names missing are
/// returned, so the step can say how to find them).
pub fn fill_command(template: &str, vars: &Vars) -> Result<String, Vec<String>> {
    let missing: Vec<String> = PLACEHOLDER
        .captures_iter(template)
        .map(|c| c[1].to_string())
        .filter(|n| !vars.contains_key(n.as_str()))
        .collect();
    if !missing.is_empty() {
        let mut m = missing;
        m.dedup();
        return Err(m);
    }
    Ok(PLACEHOLDER
        .replace_all(template, |c: &regex::Captures| vars[&c[1]].clone())
        .into_owned())
}

/// The names a finding's commands need, from the case and the finding's strongest message.
pub fn vars_for(case: &Case, acc: &Acc) -> Vars {
    let mut v = Vars::new();
    pod_vars(case, &mut v);
    if let Some(ctx) = &acc.ctx {
        volume_vars(ctx, &mut v);
        mount_vars(ctx, &mut v);
        error_vars(ctx, &mut v);
    }
    // Names read out of the quoted messages themselves.
    // Evidence quotes are cut to a length: the strongest message, read whole, is added, so a
    // name it gives late (the rbd CLI's hint, the VM that holds a disk) is not lost.
    let text: String = acc
        .evidence
        .iter()
        .map(|e| e.text.as_str())
        .chain(acc.ctx.as_ref().map(|c| c.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    object_vars(case, &text, &mut v);
    storage_vars(&text, &mut v);
    client_vars(&text, &mut v);
    backend_vars(&mut v);
    device_and_path_vars(&text, &mut v);
    // (Evidence quotes are cut to a length: the mount's target, read whole, names the snap's
    // kubelet directory too.)
    if runs_microk8s(case, &text) || v.values().any(|x| x.contains("/var/snap/microk8s/")) {
        v.insert("microk8s", "true".into());
    }
    multipath_vars(case, &mut v);
    if let Some(uid) = case
        .pod
        .as_ref()
        .and_then(|p| p.metadata.uid.clone())
        .or_else(|| acc.ctx.as_ref().and_then(|c| c.error.pod_uid.clone()))
    {
        v.insert("pod_uid", uid);
    }
    // Rules know better (e.g. the image and lock from `rbd lock ls`).
    for (k, val) in &acc.vars {
        v.insert(k, val.clone());
    }
    notready_vars(case, acc, &mut v);
    // A name that goes into a command must be a plain word: what a reporter masked
    // (`<<IP>>`, `xxx`) is not a name, and text from a message must never be able to add
    // shell syntax to a line an operator pastes.
    v.retain(|k, val| PROSE_ONLY.contains(k) || is_plain_word(val));
    derive_device_and_backup(&mut v);
    // What read-only checks may name: the stable name when one is known, else the device as
    // the message names it now (Longhorn, RBD, DRBD and serial-less virtio disks have no
    // by-id name; a check needs none). Repairs take only the stable name.
    if let Some(d) = v.get("device_stable").or_else(|| v.get("device")).cloned() {
        v.insert("device_check", d);
    }
    v
}

/// Whether the node runs MicroK8s: its node label, the node's kubelet as its facts show it, or
/// the snap's kubelet directory in a message.
fn runs_microk8s(case: &Case, text: &str) -> bool {
    let labelled = case
        .node()
        .and_then(|n| n.metadata.labels.as_ref())
        .is_some_and(|l| l.keys().any(|k| k.starts_with("microk8s.io/")));
    let flavour = case
        .node_facts
        .as_ref()
        .and_then(|f| f.kubelet.as_ref())
        .and_then(|k| k.flavour.as_deref())
        == Some("microk8s");
    labelled || flavour || text.contains("/var/snap/microk8s/")
}

/// What the node's multipathd says about the volume's device: a map that holds it as one of its
/// paths (then nothing may check or repair the path device underneath), and a `find_multipaths
/// strict` that leaves new LUNs unclaimed (an empty `multipath -ll` says so).
fn multipath_vars(case: &Case, v: &mut Vars) {
    let Some(mp) = case.node_facts.as_ref().and_then(|f| f.multipath.as_ref()) else {
        return;
    };
    if let Some(fm) = mp.find_multipaths.as_deref() {
        let fm = fm.trim_matches(|c| c == '"' || c == '\'');
        v.insert("find_multipaths", fm.to_string());
        if fm == "strict" {
            v.insert("find_multipaths_strict", "true".into());
            if mp.listed && mp.maps.is_empty() {
                v.insert("multipath_maps_empty", "true".into());
            }
        }
    }
    if let Some(dev) = v.get("device").cloned() {
        let base = dev.trim_start_matches("/dev/").to_string();
        if let Some(m) = mp
            .maps
            .iter()
            .find(|m| m.paths.contains(&base) || m.dm.as_deref() == Some(base.as_str()))
        {
            if m.dm.as_deref() != Some(base.as_str()) {
                v.insert("multipath_held", m.name.clone());
            }
        }
    }
}

/// The pod, its namespace, its node and its controller.
fn pod_vars(case: &Case, v: &mut Vars) {
    if let Some(p) = case.pod_display_name() {
        v.insert("pod", p.to_string());
    }
    // Only a namespace the input names: never the kubeconfig's, never "default" by guess.
    if let Some(ns) = case.pod_namespace() {
        v.insert("namespace", ns.to_string());
    }
    if let Some(n) = case.node_name() {
        v.insert("node", n.to_string());
    }
    // volmnt's own node probe ran (`--probe-node`, a replayed save): what `volmnt node check`
    // would say is in hand, so no step suggests running it (issue 26).
    if case.node_facts.as_ref().is_some_and(|f| {
        f.provenance
            .get("helpers")
            .is_some_and(|p| p.starts_with("node probe"))
    }) {
        v.insert("node_checked", "true".into());
    }
    if case.pod.as_ref().is_some_and(not_scheduled) {
        v.insert("unscheduled", "true".into());
    }
    if let Some(pod) = &case.pod {
        match controller_of(pod) {
            Some(c) => {
                v.insert("controller", c);
            }
            // A pod object read from the API or `get -o yaml` lists its owners; one rebuilt from
            // `describe` says `Controlled By` when it has one.
            None => {
                v.insert("bare_pod", "true".into());
            }
        }
    }
}

/// The volume the strongest message is about, and what the case says of it.
fn volume_vars(ctx: &MsgContext, v: &mut Vars) {
    let e = &ctx.error;
    let hint = ctx.volume.as_ref();
    if let Some(vol) = e
        .volume
        .clone()
        .or_else(|| hint.and_then(|h| h.pod_volume.clone()))
        .or_else(|| e.unmounted_volumes.first().cloned())
    {
        v.insert("volume", vol);
    }
    if let Some(h) = hint {
        for (k, val) in [
            ("pv", &h.pv),
            ("pvc", &h.pvc),
            ("driver", &h.driver),
            ("server", &h.server),
            ("export", &h.export),
            ("image", &h.rbd_image),
            ("path", &h.path),
            ("handle", &h.handle),
        ] {
            if let Some(val) = val {
                v.insert(k, val.clone());
            }
        }
    }
}

/// What the failing mount command was given: its source (an NFS server and export, a CIFS
/// server and share), its target and its options.
fn mount_vars(ctx: &MsgContext, v: &mut Vars) {
    let e = &ctx.error;
    if let Some(m) = &e.mount {
        if let Some(s) = &m.source {
            v.insert("source", s.clone());
            if ctx.fs == FsFamily::Nfs {
                if let Some((host, path)) = s.split_once(':') {
                    v.insert("server", host.to_string());
                    v.insert("export", path.to_string());
                }
            }
            if ctx.fs == FsFamily::Cifs {
                let mut parts = s.trim_start_matches('/').splitn(2, '/');
                if let Some(host) = parts.next() {
                    v.insert("server", host.to_string());
                }
                if let Some(share) = parts.next().filter(|p| !p.is_empty()) {
                    v.insert("share", share.to_string());
                }
            }
        }
        if let Some(t) = &m.target {
            v.insert("target", t.clone());
        }
        if !m.options.is_empty() {
            v.insert("options", m.options.join(","));
        }
    }
}

/// What the message says beside the mount command: options no manual lists, the filesystem,
/// the device, the exit status, the driver, the client it needs, whether the plugin is in-tree.
fn error_vars(ctx: &MsgContext, v: &mut Vars) {
    let e = &ctx.error;
    if !ctx.unusual_options.is_empty() {
        v.insert("options", ctx.unusual_options.join(","));
    }
    if let Some(t) = &ctx.fstype {
        v.insert("fstype", t.clone());
    }
    if let Some(d) = &e.device {
        v.insert("device", d.clone());
    }
    // A dead mount the kernel answered for (ESTALE, ENOTCONN), when no mount command
    // named the target.
    if let Some(p) = e.dead_path.as_ref().filter(|_| !v.contains_key("target")) {
        v.insert("target", p.clone());
    }
    if let Some(st) = e.exit_status {
        v.insert("exit_status", st.to_string());
    }
    if let Some(d) = &e.driver {
        v.insert("driver", d.clone());
    }
    if let Some(c) = client_for(ctx) {
        v.insert("client", c.to_string());
    }
    // An in-tree volume plugin (kubernetes.io/iscsi, ...), not CSI: steps about CSI
    // sidecars and VolumeAttachments do not apply to it.
    let in_tree = ctx.volume.as_ref().is_some_and(|h| h.in_tree)
        || e.plugin
            .as_deref()
            .is_some_and(|p| p != "kubernetes.io/csi");
    if in_tree && e.driver.is_none() {
        v.insert("in_tree", "true".into());
    }
    if let Some(pv) = e.volume.as_ref().filter(|_| !v.contains_key("pv")) {
        if pv.starts_with("pvc-") {
            v.insert("pv", pv.clone());
        }
    }
}

/// The path, the ConfigMap or Secret, and the key the quoted messages name.
fn object_vars(case: &Case, text: &str, v: &mut Vars) {
    if let Some(c) = PATH_QUOTED.captures(text) {
        if let Some(p) = c.get(1).or(c.get(2)) {
            v.insert("path", p.as_str().to_string());
        }
        if let Some(k) = c.get(3) {
            v.insert("hostpath_kind", k.as_str().trim().to_string());
        }
    }
    if let Some(c) = OBJECT_MISSING.captures(text) {
        let (kind, name) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
            (Some(k), Some(n), _, _) => (k.as_str().to_ascii_lowercase(), n.as_str()),
            (_, _, Some(k), Some(n)) => (k.as_str().to_ascii_lowercase(), n.as_str()),
            _ => (String::new(), ""),
        };
        if !kind.is_empty() {
            let kind = kind.trim_end_matches('s').to_string();
            v.insert(
                "object_title",
                if kind == "secret" {
                    "Secret"
                } else {
                    "ConfigMap"
                }
                .to_string(),
            );
            v.insert("object", format!("{kind} {name}"));
            v.insert("object_kind", kind);
            v.insert("object_name", name.to_string());
        }
    }
    if let Some(c) = MISSING_KEY.captures(text) {
        if let Some(k) = c.get(1).or(c.get(3)) {
            v.insert(
                "object_key",
                k.as_str().trim_end_matches(['"', '\\']).to_string(),
            );
        }
        if let Some(ns) = c.get(2) {
            v.entry("namespace")
                .or_insert_with(|| ns.as_str().to_string());
        }
        // The message names the key only: the pod's spec names the object that should have it.
        if !v.contains_key("object_name") {
            if let (Some(key), Some(pod)) = (v.get("object_key").cloned(), &case.pod) {
                if let Some((kind, name)) = object_with_key(pod, &key) {
                    v.insert(
                        "object_title",
                        if kind == "secret" {
                            "Secret"
                        } else {
                            "ConfigMap"
                        }
                        .to_string(),
                    );
                    v.insert("object", format!("{kind} {name}"));
                    v.insert("object_kind", kind.to_string());
                    v.insert("object_name", name);
                }
            }
        }
    }
}

/// The storage names the quoted messages give: the RBD image, the claim, the NFS source, the
/// endpoint that did not answer, whether it is iSCSI.
fn storage_vars(text: &str, v: &mut Vars) {
    if !v.contains_key("image") {
        if let Some(c) = RBD_IMAGE.captures(text) {
            // ceph-csi's exec error names the image it maps: `rbd args: [... map POOL/IMAGE ...]`.
            let img = c
                .get(1)
                .or(c.get(2))
                .map_or("", |m| m.as_str())
                .trim_end_matches(['"', '\\'])
                .to_string();
            // `rbd: image foo is locked` names the image without its pool: not enough for a
            // command (`rbd` would look in the default pool).
            if img.contains('/') {
                v.insert("image", img);
            } else {
                v.insert("image_name", img);
            }
        }
    }
    if let Some(c) = OWNER_VM.captures(text) {
        if let Some(vm) = c.get(1).or(c.get(2)) {
            let vm = vm.as_str().rsplit('/').next().unwrap_or(vm.as_str());
            v.insert("owner_vm", vm.to_string());
        }
    }
    if let Some(c) = CSINODE_DRIVER.captures(text) {
        v.entry("node").or_insert_with(|| c[1].to_string());
        v.entry("driver").or_insert_with(|| c[2].to_string());
    }
    if let Some(c) = AZURE_DISK_ID.captures(text) {
        v.entry("azure_disk").or_insert_with(|| c[1].to_string());
    }
    if let Some(c) = ATTACHED_TO_NODE.captures(text) {
        // Older drivers print the VM's resource id: its last segment is the node's name.
        let n = c[1].rsplit('/').next().unwrap_or(&c[1]).to_string();
        v.entry("other_node").or_insert(n);
    }
    if let Some(c) = RBD_FEATURE_HINT.captures(text) {
        v.entry("image").or_insert_with(|| c[1].to_string());
        let feats: Vec<&str> = c[2].split_whitespace().collect();
        v.insert("rbd_features", feats.join(" "));
    } else if let Some(c) = RBD_FEATURE_MASK.captures(text) {
        if !v.contains_key("image") {
            v.entry("image_name").or_insert_with(|| c[1].to_string());
        }
        if let Some(f) = u64::from_str_radix(&c[2], 16)
            .ok()
            .map(rbd_features_of)
            .filter(|f| !f.is_empty())
        {
            v.insert("rbd_features", f);
        }
    }
    if !v.contains_key("pvc") {
        if let Some(c) = PVC_NAME.captures(text) {
            if let Some(n) = c.get(1).or(c.get(3)) {
                v.insert("pvc", n.as_str().to_string());
            }
        }
    }
    // mount.nfs names what it mounted: `access denied by server while mounting SRV:/export`.
    if !v.contains_key("source") {
        if let Some(c) = NFS_MOUNTING.captures(text) {
            let (host, path) = (c[1].to_string(), c[2].to_string());
            v.insert("source", format!("{host}:{path}"));
            v.entry("server").or_insert(host);
            v.entry("export").or_insert(path);
        }
    }
    if let Some(c) = ENDPOINT.captures(text) {
        v.insert("endpoint_host", c[1].to_string());
        v.insert("endpoint_port", c[2].to_string());
    }
    if ISCSI.is_match(text) || v.get("driver").is_some_and(|d| d.contains("iscsi")) {
        v.insert("iscsi", "true".into());
    }
}

/// The client package and programs the failure needs, and the kernel module it names.
fn client_vars(text: &str, v: &mut Vars) {
    // The client a missing program belongs to, when the message names the program.
    if !v.contains_key("client") {
        if let Some(c) = client_in_text(text) {
            v.insert("client", c.to_string());
        } else if v.contains_key("iscsi") && text.contains("iscsi") {
            v.insert("client", "iscsi".to_string());
        }
    }
    if let Some(progs) = v
        .get("client")
        .and_then(|c| catalogue().os.clients.get(c.as_str()))
        .filter(|d| !d.programs.is_empty())
    {
        v.insert("programs", progs.programs.join(" "));
    }
    // `unknown filesystem type 'aznfs'`: mount(8) would have run /sbin/mount.aznfs (util-linux
    // libmount), so that is the program to look for when no client of ours names it.
    if !v.contains_key("programs") {
        if let Some(c) = UNKNOWN_FS_TYPE.captures(text) {
            v.insert("programs", format!("mount.{}", &c[1]));
        }
    }
    if let Some(m) = kernel_module_in(text) {
        v.insert("module", m);
    }
}

/// The features of an RBD feature mask that `rbd feature disable` can take away, in the
/// order the rbd CLI names them (ceph src/include/rbd/features.h: exclusive-lock 1<<2,
/// object-map 1<<3, fast-diff 1<<4, deep-flatten 1<<5, journaling 1<<6).
fn rbd_features_of(mask: u64) -> String {
    [
        (1 << 2, "exclusive-lock"),
        (1 << 3, "object-map"),
        (1 << 4, "fast-diff"),
        (1 << 5, "deep-flatten"),
        (1 << 6, "journaling"),
    ]
    .iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|(_, n)| *n)
    .collect::<Vec<_>>()
    .join(" ")
}

/// A managed file service behind an NFS volume (Amazon EFS and FSx, Azure Files, Google Cloud
/// Filestore): no Linux NFS server anyone can log in to; access is the service's policy, its
/// network rules and IAM. From the CSI driver or the server's name.
fn managed_fs_vars(v: &mut Vars) {
    let driver = v.get("driver").cloned().unwrap_or_default();
    let by_driver = match driver.as_str() {
        "efs.csi.aws.com" => Some("Amazon EFS"),
        "fsx.csi.aws.com" => Some("Amazon FSx for Lustre"),
        "fsx.openzfs.csi.aws.com" => Some("Amazon FSx for OpenZFS"),
        "file.csi.azure.com" => Some("Azure Files"),
        "filestore.csi.storage.gke.io" => Some("Google Cloud Filestore"),
        _ => None,
    };
    let host = v.get("server").cloned().unwrap_or_default();
    // efs-utils' `mount -t efs fs-ID:/` (mount.efs names the file system by its id alone).
    let by_fstype = (v.get("fstype").is_some_and(|t| t == "efs")
        || EFS_ID.is_match(&host) && !host.contains('.'))
    .then_some("Amazon EFS");
    if let Some(c) = EFS_ID.captures(&host) {
        v.insert("efs_id", c[1].to_string());
    }
    let by_host = MANAGED_NFS_HOST.captures(&host).map(|c| {
        if let Some(id) = c.get(1) {
            v.insert("efs_id", id.as_str().to_string());
            "Amazon EFS"
        } else if c.get(2).is_some() {
            "Amazon FSx"
        } else {
            if let Some(a) = c.get(3) {
                v.insert("azure_account", a.as_str().to_string());
            }
            "Azure Files"
        }
    });
    if let Some(name) = by_host.or(by_driver).or(by_fstype) {
        v.insert("managed_fs", name.to_string());
    }
    if driver == "efs.csi.aws.com" && !v.contains_key("efs_id") {
        if let Some(c) = v.get("handle").and_then(|h| EFS_ID.captures(h)) {
            let id = c[1].to_string();
            v.insert("efs_id", id);
        }
    }
}

/// What the names already found say of the storage behind them: Longhorn, a Service's DNS name.
fn backend_vars(v: &mut Vars) {
    if v.get("driver").is_some_and(|d| d.contains("longhorn"))
        || v.get("device")
            .is_some_and(|d| d.starts_with("/dev/longhorn/"))
    {
        v.insert("longhorn", "true".into());
    }
    managed_fs_vars(v);
    if let Some(h) = v
        .get("handle")
        .filter(|h| h.contains("/providers/Microsoft.Compute/disks/"))
        .cloned()
    {
        v.insert("azure_disk", h);
    }
    // A server given as a Service's cluster DNS name: the node's resolver does not see it.
    if let Some(c) = v.get("server").and_then(|s| SERVICE_DNS.captures(s)) {
        let (name, ns) = (c[1].to_string(), c[3].to_string());
        v.insert("svc_name", name);
        v.insert("svc_namespace", ns);
    }
}

/// The device the kernel refused, the path permission was denied on, and the hostPath type
/// that would create what is missing.
fn device_and_path_vars(text: &str, v: &mut Vars) {
    if !v.contains_key("device") {
        // The kernel names the device it refused: `XFS (rbd0): Filesystem has duplicate UUID`.
        if let Some(c) = KERNEL_DEVICE.captures(text) {
            v.insert("device", format!("/dev/{}", &c[1]));
        }
    }
    if !v.contains_key("path") {
        if let Some(c) = DENIED_PATH.captures(text) {
            v.insert("path", c[1].trim_end_matches([':', '"', '\'']).to_string());
        }
    }
    if let Some(kind) = v.get("hostpath_kind").cloned() {
        // A path named as a socket (`*.sock`, `*.socket`) is a daemon's: a file made in its
        // place keeps the daemon from binding it, so nothing offers to create it as a file.
        let socket_named = v
            .get("path")
            .is_some_and(|p| p.ends_with(".sock") || p.ends_with(".socket"));
        if socket_named {
            v.insert("path_socket_named", "true".into());
        }
        let create = match kind.as_str() {
            "directory" if !socket_named => Some("DirectoryOrCreate"),
            "file" if !socket_named => Some("FileOrCreate"),
            _ => None,
        };
        if let Some(t) = create {
            v.insert("hostpath_create_type", t.into());
        }
    }
}

/// A node other than the pod's that holds the volume and is NotReady.
fn notready_vars(case: &Case, acc: &Acc, v: &mut Vars) {
    // Another node that holds the volume and is NotReady: it cannot let it go by itself.
    let not_ready = |name: &str| {
        case.node_named(name)
            .and_then(crate::model::ready_status)
            .is_some_and(|s| s != "True")
    };
    if let Some(n) = ["other_node", "va_node", "holder_node"]
        .iter()
        .filter_map(|k| v.get(*k))
        .find(|n| case.node_name() != Some(n.as_str()) && not_ready(n))
        .cloned()
    {
        v.insert("notready_node", n);
    } else if acc.cause
        == catalogue()
            .cause_index("multi_attach")
            .unwrap_or(usize::MAX)
    {
        // No rule named the holder, but the case shows one (a `kubectl get volumeattachment`
        // row, the node's status): a NotReady node shown to hold the volume.
        if let Some(n) = notready_holder(case).and_then(|n| n.metadata.name.as_deref()) {
            v.insert("notready_node", n.to_string());
        }
    }
}

/// The ConfigMap or Secret of the pod's volumes (projected sources included) whose items name
/// `key`: ("secret" | "configmap", name).
fn object_with_key(
    pod: &k8s_openapi::api::core::v1::Pod,
    key: &str,
) -> Option<(&'static str, String)> {
    let has = |items: &Option<Vec<k8s_openapi::api::core::v1::KeyToPath>>| {
        items.iter().flatten().any(|i| i.key == key)
    };
    for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
        if let Some(s) = v.secret.as_ref().filter(|s| has(&s.items)) {
            return s.secret_name.clone().map(|n| ("secret", n));
        }
        if let Some(c) = v.config_map.as_ref().filter(|c| has(&c.items)) {
            return Some(("configmap", c.name.clone()));
        }
        for src in v.projected.iter().flat_map(|p| p.sources.iter().flatten()) {
            if let Some(s) = src.secret.as_ref().filter(|s| has(&s.items)) {
                return Some(("secret", s.name.clone()));
            }
            if let Some(c) = src.config_map.as_ref().filter(|c| has(&c.items)) {
                return Some(("configmap", c.name.clone()));
            }
        }
    }
    None
}

/// Names only ever used in sentences, never in commands.
const PROSE_ONLY: &[&str] = &[
    "holder_live",
    "object",
    "hostpath_kind",
    "backup_what",
    "managed_fs",
    "rbd_features",
];

/// A value safe to put into a command line as one word.
pub fn is_plain_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 512
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:/@[]+=,~%-^".contains(c))
        && !s.starts_with('-')
        && !s
            .chars()
            .all(|c| c == 'x' || c == 'X' || c == '*' || c == '.')
}

/// The pod's controller (`ReplicaSet/web-7d9f`): who recreates it when it is deleted.
pub fn controller_of(pod: &k8s_openapi::api::core::v1::Pod) -> Option<String> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .map(|o| format!("{}/{}", o.kind, o.name))
}

/// A stable name for the volume's device, and the command that backs the volume up before a
/// destructive step, from what is known of the volume. `/dev/rbd0` or `/dev/sdb` change across
/// maps and reboots; the names below do not.
fn derive_device_and_backup(v: &mut Vars) {
    // The read-only check and the repair for the filesystem: e2fsck -n / xfs_repair -n never
    // write; btrfs has no repair safe enough to suggest.
    let (check, repair) = match v.get("fstype").map(String::as_str) {
        Some("xfs") => ("xfs_repair -n", Some("xfs_repair")),
        Some("ext2" | "ext3" | "ext4") => ("e2fsck -fn", Some("e2fsck -fy")),
        Some("btrfs") => ("btrfs check --readonly", None),
        _ => ("fsck -n", Some("fsck -y")),
    };
    v.insert("fsck_check", check.to_string());
    if let Some(r) = repair {
        v.insert("fsck_repair", r.to_string());
    }
    let driver = v.get("driver").cloned().unwrap_or_default();
    let handle = v.get("handle").cloned();

    let label = v
        .get("pv")
        .or_else(|| v.get("pvc"))
        .cloned()
        .unwrap_or_else(|| "volume".into());
    // ceph-common's udev rule (50-rbd.rules) links every mapped image as /dev/rbd/POOL/IMAGE.
    if let Some(image) = v.get("image").cloned() {
        v.insert("device_stable", format!("/dev/rbd/{image}"));
        v.insert(
            "backup_command",
            format!("sudo rbd snap create {image}@volmnt-before-repair"),
        );
        v.insert("backup_what", format!("a snapshot of RBD image {image}"));
        return;
    }
    // Cloud disks, told apart by the shape of their id (CSI volumeHandle or in-tree id).
    if let Some(h) = handle {
        let ebs = h.rsplit('/').next().unwrap_or(&h).to_string();
        if ebs.starts_with("vol-") && ebs[4..].chars().all(|c| c.is_ascii_hexdigit()) {
            // The NVMe serial of an EBS volume is its id without the dash (Nitro instances).
            v.insert(
                "device_stable",
                format!(
                    "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_{}",
                    ebs.replace('-', "")
                ),
            );
            v.insert(
                "backup_command",
                format!("aws ec2 create-snapshot --volume-id {ebs} --description volmnt-before-repair-{label}"),
            );
            v.insert("backup_what", format!("an EBS snapshot of {ebs}"));
            return;
        }
        // pd.csi.storage.gke.io: projects/P/zones/Z/disks/D
        let parts: Vec<&str> = h.split('/').collect();
        if let (Some(zi), Some(di)) = (
            parts.iter().position(|p| *p == "zones"),
            parts.iter().position(|p| *p == "disks"),
        ) {
            if let (Some(zone), Some(disk)) = (parts.get(zi + 1), parts.get(di + 1)) {
                v.insert("device_stable", format!("/dev/disk/by-id/google-{disk}"));
                v.insert(
                    "backup_command",
                    format!("gcloud compute snapshots create {disk}-before-repair --source-disk {disk} --source-disk-zone {zone}"),
                );
                v.insert(
                    "backup_what",
                    format!("a snapshot of persistent disk {disk}"),
                );
                return;
            }
        }
        // Azure: /subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/disks/D
        if h.contains("/providers/Microsoft.Compute/disks/") {
            if let Some(rg) = parts
                .windows(2)
                .find(|w| w[0].eq_ignore_ascii_case("resourceGroups"))
                .map(|w| w[1].to_string())
            {
                v.insert(
                    "backup_command",
                    format!("az snapshot create --name {label}-before-repair --resource-group {rg} --source {h}"),
                );
                v.insert("backup_what", format!("an Azure snapshot of {h}"));
                return;
            }
        }
    }
    // Devices whose name is stable without a by-id link: Longhorn's /dev/longhorn/VOLUME, a
    // DRBD resource's /dev/drbdMINOR (LINSTOR fixes the minor per resource) or
    // /dev/drbd/by-res/..., device-mapper and LVM names (/dev/mapper/X, /dev/VG/LV), Azure's
    // /dev/disk/azure/... LUN links, and every /dev/disk/by-* link.
    if !v.contains_key("device_stable") {
        if let Some(d) = v.get("device").filter(|d| stable_device_name(d)).cloned() {
            v.insert("device_stable", d);
        }
    }
    // Any other CSI volume: a VolumeSnapshot of the claim (needs the snapshot CRDs and a
    // VolumeSnapshotClass for the driver; the step says so).
    if let (Some(pvc), Some(ns), false) = (
        v.get("pvc").cloned(),
        v.get("namespace").cloned(),
        driver.is_empty(),
    ) {
        v.insert(
            "backup_command",
            format!(
                "printf 'apiVersion: snapshot.storage.k8s.io/v1\\nkind: VolumeSnapshot\\nmetadata:\\n  name: {pvc}-before-repair\\n  namespace: {ns}\\nspec:\\n  source:\\n    persistentVolumeClaimName: {pvc}\\n' | kubectl create -f -"
            ),
        );
        v.insert(
            "backup_what",
            format!("a VolumeSnapshot of claim {pvc} (needs a VolumeSnapshotClass for {driver}: `kubectl get volumesnapshotclass`)"),
        );
        return;
    }
    // A copy of the device itself, when its stable name is known: into a new file only (an
    // existing one is never overwritten), holes kept sparse (GNU cp reads a block device's
    // contents when it is the source).
    if let Some(dev) = v.get("device_stable").cloned() {
        v.insert(
            "backup_command",
            format!("if [ -e /var/tmp/{label}.img ]; then echo \"/var/tmp/{label}.img exists: keep it, pick another name\"; else sudo cp --sparse=always {dev} /var/tmp/{label}.img; fi"),
        );
        v.insert(
            "backup_what",
            format!("a copy of {dev} in /var/tmp/{label}.img (check there is room for the whole device)"),
        );
    }
}

/// A device name that stays the same across reboots and re-attaches (unlike /dev/sdb,
/// /dev/rbd0, /dev/nvme1n1, /dev/dm-3).
fn stable_device_name(d: &str) -> bool {
    static STABLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^/dev/(?:longhorn/[A-Za-z0-9._-]+|drbd\d+|drbd/by-res/\S+|mapper/[A-Za-z0-9._+-]+|disk/(?:by-[a-z]+|azure)/\S+|rbd/[A-Za-z0-9._-]+/\S+|[A-Za-z0-9._+-]+/[A-Za-z0-9._+-]+)$")
            .expect("static regex")
    });
    // /dev/VG/LV (two plain words), but not a kernel directory of unstable names.
    STABLE.is_match(d)
        && ![
            "/dev/block/",
            "/dev/char/",
            "/dev/pts/",
            "/dev/shm/",
            "/dev/nvme-fabrics/",
            "/dev/fd/",
        ]
        .iter()
        .any(|p| d.starts_with(p))
}

/// What a step acts on, from its `acts_on:` and this case's names.
fn targets(def: &StepDef, vars: &Vars) -> Vec<Target> {
    let get = |k: &str| vars.get(k).cloned();
    def.acts_on
        .iter()
        .filter_map(|kind| match kind.as_str() {
            "pod" => Some(Target::Pod {
                namespace: get("namespace")?,
                name: get("pod")?,
            }),
            "volume_attachment" => Some(Target::VolumeAttachment { name: get("va")? }),
            "rbd_lock" => Some(Target::RbdLock {
                image: get("image")?,
                lock_id: get("lock_id")?,
                locker: get("locker")?,
            }),
            "ceph_client" => Some(Target::CephClient {
                address: get("watcher_addr").or_else(|| get("locker_addr"))?,
            }),
            "node" => Some(Target::Node {
                name: get("notready_node")?,
            }),
            "device" => Some(Target::Device {
                node: get("node"),
                path: get("device_stable")
                    .or_else(|| get("target"))
                    .or_else(|| get("device"))?,
                volume: get("pv"),
            }),
            _ => None,
        })
        .collect()
}

/// What a list of steps is rendered for.
pub struct StepCtx<'a> {
    /// The finding's filesystem family: steps for other families are left out.
    pub fs: FsFamily,
    /// How volmnt was invoked (`volmnt`, `kubectl volmnt`): suggested volmnt commands say it.
    pub invocation: &'a str,
    /// Rendering a `confirm` list (steps default to read-only checks) or `remediation`.
    pub confirm: bool,
}

/// Catalogue steps → this case's steps. Every command is complete (no placeholder); a step
/// whose command needs a name the case does not give says how to find it instead.
pub fn render_steps(defs: &[StepDef], vars: &Vars, os: &NodeOs, cx: &StepCtx) -> Vec<Step> {
    let cat = catalogue();
    let with_os = os_vars(vars, profile_of(os));
    let vars = &with_os;
    let mut out: Vec<Step> = Vec::new();
    for d in defs {
        if d.requires
            .as_deref()
            .is_some_and(|r| !AVAILABLE.contains(&r))
        {
            continue;
        }
        if d.when.iter().any(|v| !vars.contains_key(v.as_str()))
            || d.unless.iter().any(|v| vars.contains_key(v.as_str()))
        {
            continue;
        }
        if let Some(fams) = &d.families {
            if cx.fs != FsFamily::Unknown && !fams.contains(&cx.fs) {
                continue;
            }
        }
        if d.action.as_deref() == Some("restart_pod") {
            out.extend(restart_pod_steps(vars));
            continue;
        }
        if let Some(client) = &d.install {
            let client = fill(client, vars);
            out.extend(install_steps(&fill(&d.text, vars), &client, vars, os));
            continue;
        }
        let profile = profile_of(os);
        // The step's form on this OS.
        let (text_t, command_t) = match pick_variant(&d.variants, profile) {
            Some(v) if v.skip => continue,
            Some(v) => (
                v.text.clone().unwrap_or_else(|| d.text.clone()),
                v.command.clone(),
            ),
            None => (d.text.clone(), d.command.clone()),
        };
        let mut kind = d.kind.unwrap_or(if cx.confirm {
            StepKind::Check
        } else {
            StepKind::Change
        });
        let mut text = fill(&text_t, vars);
        let mut os_label = None;
        let command_t = match &d.service {
            Some(svc) if lacks_service(svc, profile).is_some() => {
                // The OS has no such service: its note replaces the step (nothing to run).
                text = lacks_service(svc, profile).unwrap_or_default();
                if let Some(first) = text.get(..1) {
                    text = first.to_uppercase() + &text[1..];
                }
                None
            }
            Some(svc) => {
                let (cmd, note, label) = service_command(svc, profile, vars);
                if let Some(n) = note {
                    text.push_str(&n);
                }
                if svc.action == "status" {
                    kind = StepKind::Check;
                }
                os_label = label;
                cmd
            }
            None => command_t,
        };
        let command = match command_t.as_deref().map(|c| fill_command(c, vars)) {
            None => None,
            Some(Ok(c)) => Some(c),
            Some(Err(missing)) => {
                let mut how = Vec::new();
                let mut unknown: Vec<String> = Vec::new();
                for m in &missing {
                    match cat.lookups.get(m.as_str()) {
                        Some(l) => match l.command.as_deref().map(|c| fill_command(c, vars)) {
                            Some(Ok(c)) => {
                                let mut t = fill(&l.text, vars);
                                let at = acts_at(&c);
                                let c = for_node_shell(c, profile, vars, &mut t);
                                let step = Step::new(t, c, StepKind::Check).at(at);
                                if !out.iter().any(|s| s.command == step.command) {
                                    out.push(step);
                                }
                                how.push(format!("{}, found by the step above", label_of(m)));
                            }
                            _ => unknown.push(label_of(m)),
                        },
                        None => unknown.push(label_of(m)),
                    }
                }
                if !unknown.is_empty() {
                    how.push(format!(
                        "{}, which the input does not give",
                        unknown.join(" and ")
                    ));
                }
                text.push_str(&format!(" [needs {}]", how.join("; ")));
                None
            }
        };
        // Where it is done: what the knowledge says, else what its command runs (filled: a
        // `{backup_command}` is a snapshot on the storage system).
        let at =
            d.at.or_else(|| d.service.as_ref().map(|_| ActsAt::Node))
                .or_else(|| command.as_deref().map(acts_at))
                .or_else(|| command_t.as_deref().map(acts_at))
                .unwrap_or_default();
        let command = command.map(|c| self_named(&c, cx.invocation));
        let command = command.and_then(|c| for_node_shell(c, profile, vars, &mut text));
        out.push(Step {
            text,
            command,
            kind,
            destructive: kind == StepKind::Destructive,
            destroys: d.destroys.as_ref().map(|t| fill(t, vars)),
            needs_confirmation: d.confirm_first || kind == StepKind::Destructive,
            os_family: os_label,
            targets: targets(d, vars),
            acts_at: at,
            prepares: d.prepares,
        });
    }
    out
}

/// What the node's OS adds to the case's names: the OS's own name, and, when the path the
/// message names lies on a root that is read-only by design (Bottlerocket, COS, SLE Micro,
/// Talos, Ubuntu Core), that OS and the directories that are writable there.
fn os_vars(vars: &Vars, profile: Option<&OsProfile>) -> Vars {
    let mut v = vars.clone();
    let Some(p) = profile else {
        return v;
    };
    v.insert("os_name", p.name.clone());
    if v.get("path").is_some_and(|path| !p.writable_path(path)) {
        v.insert("readonly_root", p.name.clone());
        let dirs = if p.writable.is_empty() {
            format!("anything outside {}", p.read_only.join(" and "))
        } else {
            p.writable.join(", ")
        };
        v.insert("writable_dirs", dirs);
    }
    v
}

/// How a missing name reads in a sentence.
fn label_of(name: &str) -> String {
    catalogue()
        .lookups
        .get(name)
        .and_then(|l| l.label.clone())
        .unwrap_or_else(|| name.replace('_', " "))
}

/// `volmnt node check x` → `kubectl volmnt node check x` when run as a kubectl plugin.
fn self_named(command: &str, invocation: &str) -> String {
    if invocation == "volmnt" {
        return command.to_string();
    }
    command
        .split("; ")
        .map(|part| match part.strip_prefix("volmnt ") {
            Some(rest) => format!("{invocation} {rest}"),
            None => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Getting the pod to retry. Kubelet retries a failed mount by itself (with a back-off of up to
/// about two minutes), so deleting the pod only saves time, and only a pod some controller
/// recreates may be deleted: a bare pod would be gone for good.
/// A pod the scheduler has not placed: no node, and its PodScheduled condition False.
fn not_scheduled(pod: &k8s_openapi::api::core::v1::Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_none()
        && pod
            .status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .any(|c| c.type_ == "PodScheduled" && c.status == "False")
}

fn restart_pod_steps(vars: &Vars) -> Vec<Step> {
    // Nothing to restart: no kubelet holds the pod yet, and the scheduler tries it again by
    // itself (issue 29: "delete the pod" was advised for a pod never scheduled).
    if vars.contains_key("unscheduled") {
        return vec![Step::new(
            "The pod is not scheduled on a node yet: the scheduler places it by itself once what keeps it out is fixed; there is nothing to restart",
            None,
            StepKind::Check,
        )];
    }
    let (pod, ns) = (vars.get("pod"), vars.get("namespace"));
    let retries =
        "Kubelet retries by itself (its back-off grows to about 2 minutes) once the cause is fixed";
    match (pod, ns) {
        (Some(pod), Some(ns)) => {
            let target = Target::Pod {
                namespace: ns.clone(),
                name: pod.clone(),
            };
            if let Some(ctrl) = vars.get("controller") {
                let mut s = Step::new(
                    format!("To retry now rather than wait for kubelet's back-off (up to about 2 minutes), delete the pod: {ctrl} recreates it"),
                    Some(format!("kubectl delete pod {pod} -n {ns}")),
                    StepKind::Change,
                );
                s.targets = vec![target];
                vec![s]
            } else if vars.contains_key("bare_pod") {
                let mut save = Step::new(
                    format!("{retries}. {pod} has no controller, so a deleted pod would not come back: to restart it anyway, save its spec first"),
                    Some(format!("kubectl get pod {pod} -n {ns} -o yaml | tee {pod}.pod.yaml")),
                    StepKind::Backup,
                );
                save.targets = Vec::new();
                let mut recreate = Step::new(
                    format!("then delete it and create it again from the saved spec in one go (kubectl drops the old resourceVersion); only if {pod}.pod.yaml was written"),
                    Some(format!("kubectl replace --force -f {pod}.pod.yaml")),
                    StepKind::Change,
                );
                recreate.needs_confirmation = true;
                recreate.targets = vec![target];
                vec![save, recreate]
            } else {
                vec![Step::new(
                    format!("{retries}. Delete the pod to retry now only if a controller recreates it: this prints its owner's kind (nothing: do not delete it)"),
                    Some(format!("kubectl get pod {pod} -n {ns} -o jsonpath='{{.metadata.ownerReferences[*].kind}}'")),
                    StepKind::Check,
                )]
            }
        }
        _ => vec![Step::new(retries.to_string(), None, StepKind::Check)],
    }
}

/// The first variant of a step whose `when` fits the node's OS (`os: [unknown]` fits a node
/// whose OS is not known).
fn pick_variant<'a>(
    variants: &'a [VariantDef],
    profile: Option<&OsProfile>,
) -> Option<&'a VariantDef> {
    variants.iter().find(|v| {
        v.when.iter().all(|(key, values)| match profile {
            Some(p) => p.attr(key).is_some_and(|a| values.iter().any(|v| v == a)),
            None => key == "os" && values.iter().any(|v| v == "unknown"),
        })
    })
}

/// Facts of context worth showing as evidence (the mount command, its output, the volume),
/// and the reasoning behind the diagnosis (why this filesystem family), shown under `-v`.
pub fn context_evidence(ctx: &MsgContext) -> (Vec<Evidence>, Vec<String>) {
    let mut out = Vec::new();
    let mut reasoning = Vec::new();
    if let Some(m) = &ctx.error.mount {
        if m.source.is_some() || m.fstype.is_some() {
            let mut cmd = String::from("mount");
            if let Some(t) = &m.fstype {
                cmd.push_str(&format!(" -t {t}"));
            }
            if !m.options.is_empty() {
                cmd.push_str(&format!(" -o {}", m.options.join(",")));
            }
            for p in [&m.source, &m.target].into_iter().flatten() {
                cmd.push(' ');
                cmd.push_str(p);
            }
            let via = m
                .command
                .as_deref()
                .filter(|c| *c != "mount")
                .map(|c| format!(" (run through {c})"))
                .unwrap_or_default();
            let status = ctx
                .error
                .exit_status
                .map(|s| format!(", exit status {s}"))
                .unwrap_or_default();
            out.push(Evidence::fact(
                "message",
                format!("mount command: {cmd}{via}{status}"),
            ));
        }
    }
    if let Some(o) = &ctx.error.output {
        // systemd-run's own line says nothing about the failure.
        let o = normalize(o);
        let o = SCOPE_LINE.replace(&o, "");
        let o = o.trim();
        if !o.is_empty() {
            out.push(Evidence::fact(
                "message",
                format!("mount output: {}", clip(o, 400)),
            ));
        }
    }
    if let Some(v) = ctx.volume.as_ref().filter(|v| !v.describe.is_empty()) {
        let claim = v
            .pvc
            .as_ref()
            .filter(|_| !v.describe.contains("claim"))
            .map(|c| format!(" (claim {c})"))
            .unwrap_or_default();
        out.push(Evidence::fact(
            "objects",
            format!("volume: {}{claim}", v.describe),
        ));
    }
    if ctx.fs != FsFamily::Unknown {
        if let Some(why) = &ctx.fs_reason {
            reasoning.push(format!(
                "filesystem family: {} (from {why})",
                ctx.fs.as_str()
            ));
        }
    }
    if !ctx.unusual_options.is_empty() {
        out.push(Evidence::fact(
            "message",
            format!(
                "mount option(s) not listed by mount(8) or {}(5): {}",
                ctx.fstype.as_deref().unwrap_or("the filesystem"),
                ctx.unusual_options.join(",")
            ),
        ));
    }
    (out, reasoning)
}

/// One line per pod volume for the report header.
pub fn describe_volume(v: &Volume) -> String {
    let kind = if let Some(c) = &v.persistent_volume_claim {
        format!("claim {}", c.claim_name)
    } else if let Some(n) = &v.nfs {
        format!("nfs {}:{}", n.server, n.path)
    } else if v.secret.is_some() {
        "secret".into()
    } else if v.config_map.is_some() {
        "configMap".into()
    } else if let Some(h) = &v.host_path {
        format!("hostPath {}", h.path)
    } else if let Some(c) = &v.csi {
        format!("csi {}", c.driver)
    } else if let Some(r) = &v.rbd {
        format!("rbd {}", r.image)
    } else if v.empty_dir.is_some() {
        "emptyDir".into()
    } else if v.projected.is_some() {
        "projected".into()
    } else if v.ephemeral.is_some() {
        "ephemeral claim".into()
    } else if let Some(i) = &v.iscsi {
        format!("iscsi {} {} lun {}", i.target_portal, i.iqn, i.lun)
    } else if v.fc.is_some() {
        "fc".into()
    } else if let Some(f) = &v.flex_volume {
        format!("flexVolume {}", f.driver)
    } else if v.cephfs.is_some() {
        "cephfs".into()
    } else if let Some(g) = &v.glusterfs {
        format!("glusterfs {}", g.path)
    } else if v.downward_api.is_some() {
        "downwardAPI".into()
    } else {
        "other".into()
    };
    format!("{} ({kind})", v.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_images_map_to_families() {
        assert_eq!(os_family("CentOS Linux 7 (Core)"), "rhel");
        assert_eq!(os_family("Ubuntu 22.04.4 LTS"), "debian");
        assert_eq!(os_family("SUSE Linux Enterprise Server 15 SP5"), "suse");
        assert_eq!(os_family("Talos (v1.7.5)"), "immutable");
        assert_eq!(
            os_family("Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)"),
            "immutable"
        );
        assert_eq!(
            os_family("Bottlerocket OS 1.20.3 (aws-k8s-1.29)"),
            "immutable"
        );
        assert_eq!(os_family("Container-Optimized OS from Google"), "immutable");
        assert_eq!(
            os_family("Red Hat Enterprise Linux CoreOS 415.92"),
            "immutable"
        );
        assert_eq!(os_family("Amazon Linux 2"), "rhel");
        assert_eq!(os_family("Windows Server 2019 Datacenter"), "unknown");
        assert_eq!(os_family("debian"), "debian");
    }

    #[test]
    fn a_command_is_given_only_with_every_name_it_needs() {
        let mut v = Vars::new();
        v.insert("pod", "p".into());
        assert_eq!(
            fill_command("kubectl delete pod {pod} -n {namespace}", &v),
            Err(vec!["namespace".to_string()])
        );
        v.insert("namespace", "web".into());
        assert_eq!(
            fill_command("kubectl delete pod {pod} -n {namespace}", &v).as_deref(),
            Ok("kubectl delete pod p -n web")
        );
        // Prose says what an unknown name is, never `<name>`.
        v.remove("namespace");
        assert_eq!(fill("in {namespace}", &v), "in the pod's namespace");
        // jsonpath braces are not names.
        assert!(fill_command("kubectl get pod {pod} -o jsonpath='{.spec.nodeName}'", &v).is_ok());
    }

    #[test]
    fn install_command_follows_the_os() {
        let mut v = Vars::new();
        v.insert("node", "node1".into());
        let step = |image: &str| {
            let os = NodeOs {
                os_image: Some(image.into()),
                family: os_family(image).into(),
                ..NodeOs::default()
            };
            install_steps("Install", "nfs", &v, &os)
        };
        assert_eq!(
            step("CentOS Linux 7 (Core)")[0].command.as_deref(),
            Some("sudo yum install -y nfs-utils")
        );
        assert_eq!(
            step("Rocky Linux 9.3 (Blue Onyx)")[0].command.as_deref(),
            Some("sudo dnf install -y nfs-utils")
        );
        assert_eq!(
            step("Ubuntu 20.04.6 LTS")[0].command.as_deref(),
            Some("sudo apt-get update && sudo apt-get install -y nfs-common")
        );
        assert_eq!(
            step("SUSE Linux Enterprise Server 15 SP4")[0]
                .command
                .as_deref(),
            Some("sudo zypper install -y nfs-client")
        );
        // Talos ships the NFS client (in its kubelet image): nothing to install.
        let talos = step("Talos (v1.7.5)");
        assert_eq!(talos.len(), 1);
        assert!(talos[0].command.is_none());
        assert!(talos[0].text.contains("ships the NFS client"));
        let br = step("Bottlerocket OS 1.20.3 (aws-k8s-1.29)");
        assert!(br[0].command.is_none());
        assert!(br[0].text.contains("cannot be installed on it by hand"));
        let unknown = install_steps(
            "Install",
            "nfs",
            &v,
            &NodeOs {
                family: "unknown".into(),
                ..NodeOs::default()
            },
        );
        let cmds: Vec<_> = unknown
            .iter()
            .filter_map(|s| s.command.as_deref())
            .collect();
        assert!(cmds.contains(&"sudo yum install -y nfs-utils"));
        assert!(cmds.contains(&"sudo apt-get update && sudo apt-get install -y nfs-common"));
        assert!(cmds[0].contains("kubectl get node node1"));
    }
}
