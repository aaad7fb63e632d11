//! Turning catalogue steps into this case's commands: names filled in, install commands for the
//! node's OS, and the facts of context shown as evidence.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Volume;
use regex::Regex;

use super::catalogue::{catalogue, FsFamily, StepDef};
use super::context::MsgContext;
use super::report::{NodeOs, Step};
use super::{Acc, Options};
use crate::model::Case;

pub type Vars = BTreeMap<&'static str, String>;

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
    Regex::new(r#"path "([^"]+)" does not exist|hostPath type check failed: (\S+) is not an? ([a-z ]+?)(?:$|[.,;])"#)
        .expect("static regex")
});
static OBJECT_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b(configmap|secret)s? "([^"]+)" not found|(?i)couldn't find key \S+ in (ConfigMap|Secret) \S+/(\S+)"#)
        .expect("static regex")
});
static RBD_IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bimage (\S+) is (?:locked by other nodes|still being used)")
        .expect("static regex")
});
static PVC_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"persistentvolumeclaims? "([^"]+)" not found|PVC (?:"[^"]+"/)?"?([a-z0-9.-]+/)?([a-z0-9.-]+)"? has non-bound"#)
        .expect("static regex")
});
static TOOL_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:exec: "|unknown filesystem type ')(?:mkfs\.)?([a-z0-9.]+)|\b(iscsiadm|mkfs\.xfs|mkfs\.ext4|xfs)\b"#)
        .expect("static regex")
});

/// Fill `{name}` placeholders; unknown names stay visible as `<name>`.
pub fn fill(template: &str, vars: &Vars) -> String {
    PLACEHOLDER
        .replace_all(template, |c: &regex::Captures| match vars.get(&c[1]) {
            Some(v) => v.clone(),
            None => format!("<{}>", &c[1]),
        })
        .into_owned()
}

/// The names a finding's commands need, from the case and the finding's strongest message.
pub fn vars_for(case: &Case, acc: &Acc) -> Vars {
    let mut v = Vars::new();
    if let Some(p) = case.pod_display_name() {
        v.insert("pod", p.to_string());
    }
    v.insert(
        "namespace",
        case.pod_namespace().unwrap_or("default").to_string(),
    );
    if let Some(n) = case.node_name() {
        v.insert("node", n.to_string());
    }
    if let Some(ctx) = &acc.ctx {
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
            ] {
                if let Some(val) = val {
                    v.insert(k, val.clone());
                }
            }
        }
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
        if !ctx.unusual_options.is_empty() {
            v.insert("options", ctx.unusual_options.join(","));
        }
        if let Some(t) = &ctx.fstype {
            v.insert("fstype", t.clone());
        }
        if let Some(d) = &e.device {
            v.insert("device", d.clone());
        }
        if let Some(d) = &e.driver {
            v.insert("driver", d.clone());
        }
        if let Some(c) = client_for(ctx) {
            v.insert("client", c.to_string());
        }
        if let Some(pv) = e.volume.as_ref().filter(|_| !v.contains_key("pv")) {
            if pv.starts_with("pvc-") {
                v.insert("pv", pv.clone());
            }
        }
    }
    // Names read out of the quoted messages themselves.
    let text: String = acc.evidence.join("\n");
    if let Some(c) = PATH_QUOTED.captures(&text) {
        if let Some(p) = c.get(1).or(c.get(2)) {
            v.insert("path", p.as_str().to_string());
        }
        if let Some(k) = c.get(3) {
            v.insert("hostpath_kind", k.as_str().trim().to_string());
        }
    }
    if let Some(c) = OBJECT_MISSING.captures(&text) {
        let (kind, name) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
            (Some(k), Some(n), _, _) => (k.as_str().to_ascii_lowercase(), n.as_str()),
            (_, _, Some(k), Some(n)) => (k.as_str().to_ascii_lowercase(), n.as_str()),
            _ => (String::new(), ""),
        };
        if !kind.is_empty() {
            v.insert("object", format!("{kind} {name}"));
            v.insert("object_kind", kind);
            v.insert("object_name", name.to_string());
        }
    }
    if !v.contains_key("image") {
        if let Some(c) = RBD_IMAGE.captures(&text) {
            v.insert("image", c[1].trim_end_matches(['"', '\\']).to_string());
        }
    }
    if !v.contains_key("pvc") {
        if let Some(c) = PVC_NAME.captures(&text) {
            if let Some(n) = c.get(1).or(c.get(3)) {
                v.insert("pvc", n.as_str().to_string());
            }
        }
    }
    // Rules know better (e.g. the image and lock from `rbd lock ls`).
    for (k, val) in &acc.vars {
        v.insert(k, val.clone());
    }
    v
}

/// Which client package a helper-missing message needs.
pub fn client_of(ctx: &MsgContext) -> Option<String> {
    client_for(ctx).map(str::to_string)
}

fn client_for(ctx: &MsgContext) -> Option<&'static str> {
    match ctx.fs {
        FsFamily::Nfs => return Some("nfs"),
        FsFamily::Cifs => return Some("cifs"),
        FsFamily::Glusterfs => return Some("glusterfs"),
        FsFamily::Cephfs => return Some("cephfs"),
        _ => {}
    }
    let out = ctx.error.output.as_deref().unwrap_or("");
    let t = format!("{out} {}", ctx.fstype.as_deref().unwrap_or(""));
    let tool = TOOL_MISSING
        .captures(&t)
        .and_then(|c| c.get(1).or(c.get(2)))
        .map(|m| m.as_str().to_string());
    match tool.as_deref() {
        Some("iscsiadm") => Some("iscsi"),
        Some("xfs" | "mkfs.xfs") => Some("xfs"),
        Some("ext4" | "mkfs.ext4") => Some("ext4"),
        _ => None,
    }
}

/// Which OS family the node runs, from `--node-os` or the Node object.
pub fn node_os(case: &Case, opts: &Options) -> NodeOs {
    let node = case.node();
    let info = node
        .and_then(|n| n.status.as_ref())
        .and_then(|s| s.node_info.as_ref());
    let (image, source) = match (&opts.node_os, info) {
        (Some(o), _) => (Some(o.clone()), Some("--node-os".to_string())),
        (None, _)
            if info.is_none_or(|i| i.os_image.is_empty())
                && case
                    .node_facts
                    .as_ref()
                    .is_some_and(|f| f.os.pretty_name.is_some()) =>
        {
            (
                case.node_facts
                    .as_ref()
                    .and_then(|f| f.os.pretty_name.clone()),
                Some("the node probe's /etc/os-release".to_string()),
            )
        }
        (None, Some(i)) if !i.os_image.is_empty() => (
            Some(i.os_image.clone()),
            Some(format!(
                "Node {} status.nodeInfo.osImage",
                node.and_then(|n| n.metadata.name.as_deref()).unwrap_or("?")
            )),
        ),
        _ => (None, None),
    };
    NodeOs {
        family: image
            .as_deref()
            .map(os_family)
            .unwrap_or("unknown")
            .to_string(),
        os_image: image,
        source,
        kernel: info.map(|i| i.kernel_version.clone()),
        kubelet_version: info.map(|i| i.kubelet_version.clone()),
    }
}

/// The OS family id of an osImage string (or of a family id given as is).
pub fn os_family(image: &str) -> &'static str {
    let cat = catalogue();
    for (def, re) in &cat.os_families {
        if def.id == image || re.is_match(image) {
            return match def.id.as_str() {
                "immutable" => "immutable",
                "rhel" => "rhel",
                "debian" => "debian",
                "suse" => "suse",
                "alpine" => "alpine",
                _ => "unknown",
            };
        }
    }
    "unknown"
}

/// Catalogue steps → this case's steps.
pub fn render_steps(defs: &[StepDef], vars: &Vars, os: &NodeOs) -> Vec<Step> {
    let mut out = Vec::new();
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
        if let Some(client) = &d.install {
            let client = fill(client, vars);
            out.extend(install_steps(&fill(&d.text, vars), &client, vars, os));
            continue;
        }
        out.push(Step {
            text: fill(&d.text, vars),
            command: d.command.as_ref().map(|c| fill(c, vars)),
            needs_confirmation: d.confirm_first,
            os_family: None,
        });
    }
    out
}

fn install_steps(text: &str, client: &str, vars: &Vars, os: &NodeOs) -> Vec<Step> {
    let cat = catalogue();
    let Some(def) = cat.clients.get(client) else {
        // No package known (the tool lives in a driver image, or the fs is unknown).
        return vec![Step {
            text: text.to_string(),
            command: None,
            needs_confirmation: false,
            os_family: None,
        }];
    };
    let node = vars.get("node").map(String::as_str).unwrap_or("the node");
    let command_for = |family: &str, image: Option<&str>| -> Option<String> {
        let pkg = def.packages.get(family)?;
        let key = if family == "rhel" && image.is_some_and(|i| cat.rhel_legacy.is_match(i)) {
            "rhel_legacy"
        } else {
            family
        };
        cat.install_commands
            .get(key)
            .map(|c| c.replace("{packages}", pkg))
    };
    match os.family.as_str() {
        "immutable" => vec![Step {
            text: format!(
                "{text}: {}",
                cat.immutable_advice
                    .replace("{os}", os.os_image.as_deref().unwrap_or("immutable"))
                    .trim()
            ),
            command: None,
            needs_confirmation: false,
            os_family: None,
        }],
        "unknown" => {
            let mut steps = vec![Step {
                text: format!(
                    "{text} ({}); the node's OS is not known - find it first",
                    def.name
                ),
                command: Some(format!(
                    "kubectl get node {node} -o jsonpath='{{.status.nodeInfo.osImage}}'"
                )),
                needs_confirmation: false,
                os_family: None,
            }];
            for (family, label) in [
                (
                    "rhel",
                    "RHEL-like (RHEL/CentOS/Rocky/Alma 8+, Fedora, Amazon Linux 2023)",
                ),
                ("rhel_legacy", "CentOS/RHEL 7, Amazon Linux 2"),
                ("debian", "Debian/Ubuntu"),
                ("suse", "SUSE"),
            ] {
                let cmd = if family == "rhel_legacy" {
                    command_for("rhel", Some("CentOS Linux 7"))
                } else {
                    command_for(family, None)
                };
                if let Some(cmd) = cmd {
                    steps.push(Step {
                        text: format!("on {label}"),
                        command: Some(cmd),
                        needs_confirmation: false,
                        os_family: Some(family.to_string()),
                    });
                }
            }
            steps.push(Step {
                text: "on an immutable OS (Talos, Flatcar, Bottlerocket, COS): the client cannot be installed by hand; use the OS's extension mechanism or a CSI driver that brings its own client".into(),
                command: None,
                needs_confirmation: false,
                os_family: Some("immutable".into()),
            });
            steps
        }
        family => vec![Step {
            text: format!(
                "{text}: {} is {}",
                def.name,
                os.os_image
                    .as_deref()
                    .map(|i| format!("missing on {i}"))
                    .unwrap_or_else(|| format!("missing ({family})"))
            ),
            command: command_for(family, os.os_image.as_deref()),
            needs_confirmation: false,
            os_family: None,
        }],
    }
}

/// Facts of context worth showing as evidence: the mount command and why the family was chosen.
pub fn context_evidence(ctx: &MsgContext) -> Vec<String> {
    let mut out = Vec::new();
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
            out.push(format!("mount command: {cmd}{via}{status}"));
        }
    }
    if let Some(o) = &ctx.error.output {
        // systemd-run's own line says nothing about the failure.
        let o = super::classify::normalize(o);
        let o = SCOPE_LINE.replace(&o, "");
        let o = o.trim();
        if !o.is_empty() {
            out.push(format!("mount output: {}", super::clip(o, 400)));
        }
    }
    if let Some(v) = ctx.volume.as_ref().filter(|v| !v.describe.is_empty()) {
        let claim = v
            .pvc
            .as_ref()
            .filter(|_| !v.describe.contains("claim"))
            .map(|c| format!(" (claim {c})"))
            .unwrap_or_default();
        out.push(format!("volume: {}{claim}", v.describe));
    }
    if ctx.fs != FsFamily::Unknown {
        if let Some(why) = &ctx.fs_reason {
            out.push(format!(
                "filesystem family: {} (from {why})",
                ctx.fs.as_str()
            ));
        }
    }
    if !ctx.unusual_options.is_empty() {
        out.push(format!(
            "mount option(s) not listed by mount(8) or {}(5): {}",
            ctx.fstype.as_deref().unwrap_or("the filesystem"),
            ctx.unusual_options.join(",")
        ));
    }
    out
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
    fn placeholders_left_unknown_stay_visible() {
        let mut v = Vars::new();
        v.insert("pod", "p".into());
        assert_eq!(
            fill("kubectl delete pod {pod} -n {namespace}", &v),
            "kubectl delete pod p -n <namespace>"
        );
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
        let talos = step("Talos (v1.7.5)");
        assert_eq!(talos.len(), 1);
        assert!(talos[0].command.is_none());
        assert!(talos[0].text.contains("cannot be installed on it by hand"));
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
