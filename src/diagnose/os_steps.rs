//! Steps as the node's OS runs them: which OS the node runs (`node_os`), how a service is
//! started or enabled there, how a node-side command is reached (a shell, `oc debug`, the admin
//! container, none on Talos), how a client gets onto it (a package, a snapshot, an extension, a
//! declaration, another image), and where each step is done (`acts_at`: the node, the cluster or
//! the storage system). The OS itself is data (`os.rs`, knowledge.yaml's `operating_systems`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::catalogue::{catalogue, ServiceDef};
use super::options::Options;
use super::os::OsProfile;
use crate::model::report::{ActsAt, NodeOs, Step, StepKind};
use crate::model::Case;

/// The names of this case a step can use (`node`, `pod`, `image`, ...), filled into templates.
pub type Vars = BTreeMap<&'static str, String>;

/// Which OS the node runs, from `--node-os`, the Node object, or the node's own facts (the
/// probe's or a pasted transcript's /etc/os-release, or `talosctl` output).
pub fn node_os(case: &Case, opts: &Options) -> NodeOs {
    let node = case.node();
    let info = node
        .and_then(|n| n.status.as_ref())
        .and_then(|s| s.node_info.as_ref());
    let facts_os = case
        .node_facts
        .as_ref()
        .and_then(|f| f.os.pretty_name.clone());
    let (image, source) = match (&opts.node_os, info) {
        (Some(o), _) => (Some(o.clone()), Some("--node-os".to_string())),
        (None, _) if info.is_none_or(|i| i.os_image.is_empty()) && facts_os.is_some() => {
            let from = case
                .node_facts
                .as_ref()
                .and_then(|f| f.provenance.get("os").cloned())
                .map(|p| format!("the node's own output ({p})"))
                .unwrap_or_else(|| "the node probe's /etc/os-release".to_string());
            (facts_os, Some(from))
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
    let profile = image.as_deref().and_then(|i| catalogue().os.profile(i));
    NodeOs {
        family: profile.map_or("unknown", |p| p.family.as_str()).to_string(),
        os: profile.map(|p| p.id.clone()),
        init: profile.map(|p| p.init.clone()),
        security: profile.map(|p| p.security.clone()),
        delivery: profile.map(|p| p.delivery.clone()),
        os_image: image,
        source,
        kernel: info
            .map(|i| i.kernel_version.clone())
            .or_else(|| case.node_facts.as_ref().and_then(|f| f.kernel.clone())),
        kubelet_version: info.map(|i| i.kubelet_version.clone()),
    }
}

/// The profile of the node's OS, when it is known.
pub fn profile_of(os: &NodeOs) -> Option<&'static OsProfile> {
    let cat = catalogue();
    os.os
        .as_deref()
        .and_then(|id| cat.os.profile(id))
        .or_else(|| os.os_image.as_deref().and_then(|i| cat.os.profile(i)))
}

/// The OS family id of an osImage string (or of an OS or family id given as is).
pub fn os_family(image: &str) -> &'static str {
    match catalogue().os.profile(image).map(|p| p.family.as_str()) {
        Some("immutable") => "immutable",
        Some("rhel") => "rhel",
        Some("debian") => "debian",
        Some("suse") => "suse",
        Some("alpine") => "alpine",
        Some("nixos") => "nixos",
        Some("gentoo") => "gentoo",
        Some("arch") => "arch",
        _ => "unknown",
    }
}

// --- Where a step is done -------------------------------------------------------------------

/// The first word of commands run from a workstation against the Kubernetes API.
const CLUSTER_TOOLS: &[&str] = &["kubectl", "kubectl-volmnt", "volmnt", "oc", "helm"];
/// The first word of commands that act on the storage system itself: Ceph's CLIs, the clouds'
/// CLIs, an NFS server's own exportfs.
const STORAGE_TOOLS: &[&str] = &["rbd", "ceph", "aws", "gcloud", "az", "exportfs"];

/// The program a command part runs, past `sudo`, `timeout N` and variable assignments.
fn program_of(part: &str) -> &str {
    let mut words = part.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "sudo" | "!" => continue,
            "timeout" => {
                // timeout [-k N] DURATION COMMAND
                while words.peek().is_some_and(|n| n.starts_with('-')) {
                    words.next();
                    words.next();
                }
                words.next();
                continue;
            }
            _ if w.contains('=') && !w.starts_with('-') && !w.starts_with('\'') => continue,
            _ => return w.trim_start_matches('('),
        }
    }
    ""
}

/// The program that decides where a command runs: for `printf ... | X` and `echo ... | X`, X
/// (`printf '...' | sudo tee /etc/x` writes on the node, `printf '...' | kubectl create -f -`
/// goes to the cluster).
fn deciding_program(command: &str) -> &str {
    let first = program_of(command);
    if matches!(first, "printf" | "echo") {
        if let Some((_, rest)) = command.split_once(" | ") {
            return program_of(rest);
        }
    }
    first
}

/// Where a command is run: on the node, against the cluster, or on the storage system.
pub fn acts_at(command: &str) -> ActsAt {
    let first = deciding_program(command);
    if first == "talosctl" || command.contains("oc debug node/") {
        return ActsAt::Node;
    }
    if first == "volmnt" || first == "kubectl-volmnt" || first == "kubectl" {
        // `volmnt rbd ...` reads or changes Ceph.
        let rest: Vec<&str> = command.split_whitespace().collect();
        let sub = if first == "kubectl" { 2 } else { 1 };
        if rest.get(sub) == Some(&"rbd") && rest.get(sub - 1) != Some(&"get") {
            return ActsAt::Storage;
        }
        return ActsAt::Cluster;
    }
    if CLUSTER_TOOLS.contains(&first) {
        return ActsAt::Cluster;
    }
    if STORAGE_TOOLS.contains(&first) {
        return ActsAt::Storage;
    }
    ActsAt::Node
}

/// Whether a command is run on the node (anything but the cluster's and the storage system's
/// tools). Talos' `talosctl` reaches the node through its API: it is not run on the node.
pub fn runs_on_node(command: &str) -> bool {
    let first = deciding_program(command);
    !CLUSTER_TOOLS.contains(&first) && !STORAGE_TOOLS.contains(&first) && first != "talosctl"
}

// --- Services --------------------------------------------------------------------------------

/// systemd units that cannot be enabled (no [Install] section): nfs-utils' rpc-statd.service.
/// `systemctl add-wants multi-user.target UNIT` makes the boot pull one in all the same.
pub const STATIC_UNITS: &[&str] = &["rpc-statd", "rpc-statd.service"];

/// OpenRC scripts have no `reload` in general: restart is what works everywhere.
fn openrc_action(a: &str) -> &str {
    match a {
        "reload" => "restart",
        "enable" => "start",
        other => other,
    }
}

/// The note an OS has about one of these logical services (`statd` for statd and rpcbind).
fn service_note(p: &OsProfile, names: &[&str]) -> Option<String> {
    names
        .iter()
        .map(|n| match *n {
            "rpcbind" => "statd",
            "iscsid" => "iscsi",
            "multipathd" => "multipath",
            other => other,
        })
        .find_map(|topic| p.note(topic))
        .map(str::to_string)
}

/// What to say instead of a service step on an OS that lacks one of its services (Bottlerocket
/// has no rpc.statd and no rpcbind): the OS's own note, or that the OS has none. Starting or
/// checking a service that is not there is not advice.
pub fn lacks_service(svc: &ServiceDef, profile: Option<&OsProfile>) -> Option<String> {
    let p = profile?;
    let names: Vec<&str> = svc.name.split_whitespace().collect();
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !p.has_service(n))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(service_note(p, &names).unwrap_or_else(|| {
        format!(
            "{} has no {} service: it does not come with this OS",
            p.name,
            missing.join(" or ")
        )
    }))
}

/// A service action for the node's init system: the command template, a note for the text, and
/// the OS label when the OS is not known (then the systemd form is given). `name` may list
/// several logical services, separated by spaces.
pub fn service_command(
    svc: &ServiceDef,
    profile: Option<&OsProfile>,
    vars: &Vars,
) -> (Option<String>, Option<String>, Option<String>) {
    let fams = &catalogue().os.families;
    let (p, unknown) = match profile {
        Some(p) => (p, false),
        None => match fams.get("debian") {
            Some(p) => (p, true),
            None => return (None, None, None),
        },
    };
    let names: Vec<&str> = svc.name.split_whitespace().collect();
    let a = svc.action.as_str();
    let note = service_note(p, &names);
    // An OS without the service (Bottlerocket has no rpc.statd, no iscsid): nothing to start.
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !p.has_service(n))
        .collect();
    if !missing.is_empty() {
        let why = note.unwrap_or_else(|| {
            format!(
                "{} has no {} service: it does not come with this OS",
                p.name,
                missing.join(" or ")
            )
        });
        return (None, Some(format!(" ({why})")), None);
    }
    let units: Vec<String> = names.iter().map(|n| p.service(n)).collect();
    let note = note.map(|n| format!(" ({n})"));
    match p.init.as_str() {
        "systemd" => {
            let (fixed, enableable): (Vec<&String>, Vec<&String>) = units
                .iter()
                .partition(|u| STATIC_UNITS.contains(&u.as_str()));
            let join = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ");
            let cmd = match a {
                "status" => format!("systemctl status {} --no-pager", units.join(" ")),
                // On RHCOS a unit is enabled by a MachineConfig (a change by hand on the node
                // is configuration drift the Machine Config Operator reports): start it now.
                "enable" if matches!(p.delivery.as_str(), "machine-config" | "image") => {
                    format!("sudo systemctl start {}", units.join(" "))
                }
                // `enable` does nothing for a static unit (rpc-statd has no [Install]): the
                // boot target is made to want it instead, so it runs after every reboot too
                // (mount.nfs starts it on demand only where the kubelet runs on the host).
                "enable" => {
                    let mut parts = Vec::new();
                    if !enableable.is_empty() {
                        parts.push(format!("sudo systemctl enable --now {}", join(&enableable)));
                    }
                    if !fixed.is_empty() {
                        let services: Vec<String> = fixed
                            .iter()
                            .map(|u| {
                                if u.ends_with(".service") {
                                    u.to_string()
                                } else {
                                    format!("{u}.service")
                                }
                            })
                            .collect();
                        parts.push(format!(
                            "sudo systemctl add-wants multi-user.target {}",
                            services.join(" ")
                        ));
                        parts.push(format!("sudo systemctl start {}", join(&fixed)));
                    }
                    parts.join(" && ")
                }
                other => format!("sudo systemctl {other} {}", units.join(" ")),
            };
            let os_note = match (a, p.delivery.as_str()) {
                ("enable", "machine-config") => Some(format!(
                    " (to keep it across reboots on {}, enable {} in a MachineConfig's systemd units)",
                    p.name,
                    units.join(" and ")
                )),
                ("enable", "image") => Some(format!(
                    " (on {} a change made on the node does not survive a reboot: set it in the node image or its user data)",
                    p.name
                )),
                _ => None,
            };
            let os_note = os_note.or(note).or_else(|| {
                unknown.then(|| {
                    let openrc: Vec<String> = names
                        .iter()
                        .map(|n| {
                            let u = fams.get("alpine").map(|a| a.service(n)).unwrap_or_default();
                            format!("`rc-service {u} {}`", openrc_action(a))
                        })
                        .collect();
                    format!(" (systemd; on OpenRC: {})", openrc.join(", "))
                })
            });
            (Some(cmd), os_note, unknown.then(|| "systemd".to_string()))
        }
        "openrc" => {
            let cmd = units
                .iter()
                .map(|u| match a {
                    "status" => format!("rc-service {u} status"),
                    "enable" => {
                        format!("sudo rc-update add {u} default && sudo rc-service {u} start")
                    }
                    other => format!("sudo rc-service {u} {}", openrc_action(other)),
                })
                .collect::<Vec<_>>()
                .join(if a == "status" { "; " } else { " && " });
            (Some(cmd), note, None)
        }
        _ => {
            // No init an operator talks to (Talos): its services are listed by talosctl.
            let node = vars.get("node").map(String::as_str);
            let cmd = node.map(|n| format!("talosctl -n {n} services"));
            let how = note.unwrap_or_else(|| {
                format!(
                    " ({} has no service manager to call: its services come with the OS or its system extensions; `talosctl services` lists them)",
                    p.name
                )
            });
            (cmd, Some(how), None)
        }
    }
}

// --- Reaching the node -----------------------------------------------------------------------

static WRITES_TO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\btee\s+(?:-a\s+)?(/[^\s;&|]+)|\bmkdir\s+(?:-p\s+)?(/[^\s;&|]+)|\btouch\s+(/[^\s;&|]+)",
    )
    .expect("static regex")
});

/// The node paths a command writes (`tee /etc/...`, `mkdir -p /x`, `touch /x`).
pub fn paths_written(command: &str) -> Vec<String> {
    WRITES_TO
        .captures_iter(command)
        .filter_map(|c| {
            c.get(1)
                .or(c.get(2))
                .or(c.get(3))
                .map(|m| m.as_str().to_string())
        })
        .collect()
}

/// Shell syntax that needs a shell on the node to mean what it says.
fn needs_shell(s: &str) -> bool {
    s.chars().any(|c| "&|;$<>*?{}()`".contains(c))
}

/// Seconds an `oc debug node/` line may take (pulling the debug image included).
const OC_DEBUG_TIMEOUT: u32 = 180;

/// `oc debug node/N -- chroot /host ...` for a node command: what only reads and filters its
/// output runs on the workstation after the pipe (so nothing is written on the node's
/// read-only root), what writes on the node stays there.
fn oc_debug(part: &str, node: &str) -> String {
    let (on_node, local) = match part.split_once(" | ") {
        Some((first, rest))
            if !rest.contains("sudo")
                && !rest.contains("tee /")
                && !needs_shell(first)
                && !first.contains('\'') =>
        {
            (first, format!(" | {rest}"))
        }
        _ => (part, String::new()),
    };
    let inner = on_node.replace("sudo ", "");
    let run = if needs_shell(&inner) || inner.contains('\'') {
        format!("sh -c '{}'", inner.replace('\'', r"'\''"))
    } else {
        inner
    };
    // `oc debug` waits for its debug pod to start: on a node that cannot start one it would
    // wait with no end, so the line is bounded like every remote command.
    format!("timeout {OC_DEBUG_TIMEOUT} oc debug node/{node} -- chroot /host {run}{local}")
}

/// A node-side command as it can be run on this OS: as is on a node with a shell; through `oc
/// debug` on RHCOS; from the admin container on Bottlerocket; not at all on Talos (no shell),
/// where the text says so and the command is dropped. A command that writes where the OS's
/// root is read-only by design is dropped too, and the text says why.
pub fn for_node_shell(
    command: String,
    profile: Option<&OsProfile>,
    vars: &Vars,
    text: &mut String,
) -> Option<String> {
    let Some(p) = profile else {
        return Some(command);
    };
    if !runs_on_node(&command) {
        return Some(command);
    }
    if let Some(path) = paths_written(&command)
        .into_iter()
        .find(|w| !p.writable_path(w))
    {
        let why = p
            .note("root")
            .map(str::to_string)
            .unwrap_or_else(|| format!("{} keeps {path} read-only by design", p.name));
        text.push_str(&format!(
            " (not by hand on {}: {why}; change it the way this OS is configured)",
            p.name
        ));
        return None;
    }
    match p.shell.as_str() {
        "talosctl" => {
            let node = vars.get("node").map(String::as_str).unwrap_or("NODE");
            text.push_str(&format!(
                " ({} has no shell to run `{}` in: read the node with talosctl (`talosctl -n {node} dmesg`, `talosctl -n {node} read /proc/self/mountinfo`) or from `kubectl debug node/{node}`)",
                p.name,
                program_of(&command)
            ));
            None
        }
        "admin-container" => {
            text.push_str(&format!(
                " (on {}, from the admin container's root shell: `sudo sheltie`)",
                p.name
            ));
            Some(command.replace("sudo ", ""))
        }
        "oc-debug" => match vars.get("node") {
            Some(node) => Some(
                command
                    .split("; ")
                    .map(|part| {
                        if runs_on_node(part) {
                            oc_debug(part, node)
                        } else {
                            part.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            None => {
                text.push_str(" (on RHCOS: in `oc debug node/NODE`, then `chroot /host`)");
                Some(command.replace("sudo ", ""))
            }
        },
        _ => Some(command),
    }
}

// --- Getting a client onto the node ----------------------------------------------------------

/// What the OS says before anything is installed on it (an end-of-life mirror, a registration,
/// a node image that replaces the node), as a sentence to append.
fn install_note(p: &OsProfile) -> String {
    p.note("install")
        .map(|n| format!(" ({n})"))
        .unwrap_or_default()
}

/// MicroK8s in a strictly confined snap mounts with the snap's own helpers.
fn microk8s_note(vars: &Vars) -> &'static str {
    if vars.contains_key("microk8s") {
        " (this node runs MicroK8s: installed from a strictly confined channel (`snap list microk8s` shows `-strict`; the only kind on Ubuntu Core) its kubelite mounts with the snap's own helpers and a package on the host changes nothing: use a CSI driver whose node plugin brings the client, such as csi-driver-nfs)"
    } else {
        ""
    }
}

/// How to get `client` onto the node, for its OS.
pub fn install_steps(text: &str, client: &str, vars: &Vars, os: &NodeOs) -> Vec<Step> {
    let cat = catalogue();
    let Some(def) = cat.os.clients.get(client) else {
        // No package known (the tool lives in a driver image, or the fs is unknown).
        return vec![Step::new(text, None, StepKind::Change).at(ActsAt::Node)];
    };
    let node = vars.get("node");
    let Some(p) = profile_of(os) else {
        return install_unknown_os(text, client, &def.name, node);
    };
    let on = os.os_image.clone().unwrap_or_else(|| p.name.clone());
    let m8s = microk8s_note(vars);
    let kubelet_note = if p.kubelet == "container" {
        p.note("kubelet")
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    } else {
        String::new()
    };
    if p.ships(client) {
        return vec![Step::new(
            format!(
                "{on} ships the {} in its image, so there is nothing to install: the mount runs where it is not seen (a containerized kubelet's own image, or a CSI node plugin's image): look there, and at the other findings{kubelet_note}{m8s}",
                def.name
            ),
            None,
            StepKind::Check,
        )
        .at(ActsAt::Node)];
    }
    let manager = p.manager.as_deref();
    let installs = manager
        .and_then(|m| cat.os.managers.get(m))
        .and_then(|m| m.install.as_ref());
    if p.delivery == "declarative" {
        let how = p.extensions.get(client).cloned().unwrap_or_else(|| {
            format!(
                "the package for the {} in /etc/nixos/configuration.nix",
                def.name
            )
        });
        let apply = manager
            .and_then(|m| cat.os.managers.get(m))
            .and_then(|m| m.apply.clone());
        return vec![
            Step::new(
                format!("{text}: on {on} declare it: {how}{}{m8s}", install_note(p)),
                None,
                StepKind::Change,
            )
            .at(ActsAt::Node),
            Step::new(
                "then build and switch to the new configuration (the kubelet restarts with the new PATH)",
                apply,
                StepKind::Change,
            )
            .at(ActsAt::Node),
        ];
    }
    if installs.is_none() {
        let how = match (p.extensions.get(client), p.delivery.as_str()) {
            (Some(ext), _) => format!("add {ext}"),
            (None, "machine-config") => "add it with a MachineConfig (or use a CSI driver whose node plugin brings it)".into(),
            (None, "extension") => "no extension of the OS is known to bring it: use a CSI driver whose node plugin brings its own client".into(),
            _ => "use another node image or variant that has it, or a CSI driver whose node plugin brings its own client (for NFS: csi-driver-nfs; on EKS, efs.csi.aws.com)".into(),
        };
        return vec![Step::new(
            format!(
                "{text}: {on} is image-based; packages cannot be installed on it by hand and would not survive a reboot: {how}, then let the pod retry{}{kubelet_note}{m8s}",
                install_note(p)
            ),
            None,
            StepKind::Change,
        )
        .at(ActsAt::Node)];
    }
    let manager = manager.unwrap_or_default();
    let mgr = cat.os.managers.get(manager);
    let Some(pkg) = p.packages.get(client).cloned().flatten() else {
        let note = p.repo_notes.get(client).cloned().unwrap_or_else(|| {
            format!(
                "{} has no package for it in its default repositories",
                p.name
            )
        });
        return vec![Step::new(
            format!(
                "{text}: {note}; or use a CSI driver whose node plugin brings its own client{m8s}"
            ),
            None,
            StepKind::Change,
        )
        .at(ActsAt::Node)];
    };
    let mut steps = Vec::new();
    let unverified = p.unverified.iter().any(|c| c == client);
    if unverified {
        if let Some(check) = cat.os.available_command(manager, &pkg) {
            steps.push(
                Step::new(
                    format!(
                        "Whether {on}'s enabled repositories offer {pkg} (not verified for this image: check before installing)"
                    ),
                    Some(check),
                    StepKind::Check,
                )
                .at(ActsAt::Node),
            );
        }
    }
    // What the OS says of this package even where its repositories have it (too old, ...).
    let pkg_note = if unverified {
        String::new()
    } else {
        p.repo_notes
            .get(client)
            .map(|n| format!(" ({n})"))
            .unwrap_or_default()
    };
    let only_if = if unverified {
        let otherwise = p
            .repo_notes
            .get(client)
            .map(|n| format!("; {n}"))
            .unwrap_or_else(|| {
                "; if it does not, use a CSI driver whose node plugin brings its own client".into()
            });
        format!(", only if the check above lists it{otherwise}")
    } else {
        String::new()
    };
    steps.push(
        Step::new(
            format!(
                "{text} ({pkg} on {on}){only_if}{pkg_note}{}{m8s}",
                install_note(p)
            ),
            cat.os.install_command(manager, &pkg),
            StepKind::Change,
        )
        .at(ActsAt::Node),
    );
    if mgr.is_some_and(|m| m.reboot) {
        let mut drain = Step::new(
            format!(
                "{on} activates the new snapshot at the next boot: move the pods off the node and reboot it (the drain refuses pods it cannot evict safely; read what it says)"
            ),
            node.map(|n| format!("kubectl drain {n} --ignore-daemonsets")),
            StepKind::Change,
        );
        drain.needs_confirmation = true;
        let mut reboot = Step::new(
            "then, on the node, reboot it into the new snapshot",
            Some("sudo systemctl reboot".to_string()),
            StepKind::Change,
        )
        .at(ActsAt::Node);
        reboot.needs_confirmation = true;
        steps.push(drain);
        steps.push(reboot);
        if let Some(n) = node {
            steps.push(Step::new(
                "when the node is Ready again",
                Some(format!("kubectl uncordon {n}")),
                StepKind::Change,
            ));
        }
    }
    steps
}

/// The node's OS is not known: find it, then the command for each family, each said to be for
/// that family (nothing is guessed).
fn install_unknown_os(text: &str, client: &str, name: &str, node: Option<&String>) -> Vec<Step> {
    let cat = catalogue();
    let mut steps = vec![match node {
        Some(node) => Step::new(
            format!("{text} ({name}); the node's OS is not known, so the command depends on it: find it first"),
            Some(format!(
                "kubectl get node {node} -o jsonpath='{{.status.nodeInfo.osImage}}'"
            )),
            StepKind::Check,
        ),
        None => Step::new(
            format!(
                "{text} ({name}); the node and its OS are not known, so the command depends on it: `kubectl get nodes -o wide` shows each node's OS image"
            ),
            None,
            StepKind::Check,
        ),
    }];
    for (os, label) in [
        ("debian", "Debian/Ubuntu"),
        (
            "el",
            "RHEL-like 8+ (RHEL, Rocky, Alma, Fedora, Amazon Linux 2023)",
        ),
        ("el7", "RHEL/CentOS 7"),
        ("azurelinux-3", "Azure Linux, CBL-Mariner, Photon OS"),
        ("suse", "SUSE"),
        ("alpine", "Alpine"),
    ] {
        let Some(p) = cat.os.profile(os) else {
            continue;
        };
        let (Some(m), Some(Some(pkg))) = (p.manager.as_deref(), p.packages.get(client)) else {
            continue;
        };
        if p.unverified.iter().any(|c| c == client) {
            continue;
        }
        if let Some(cmd) = cat.os.install_command(m, pkg) {
            let mut s =
                Step::new(format!("on {label}"), Some(cmd), StepKind::Change).at(ActsAt::Node);
            s.os_family = Some(p.family.clone());
            steps.push(s);
        }
    }
    let mut s = Step::new("on an image-based OS (Talos, Flatcar, Bottlerocket, COS, CoreOS, Ubuntu Core) or NixOS: nothing is installed by hand; Flatcar, Fedora CoreOS and Talos already ship an NFS client; otherwise use the OS's own way (an extension, a MachineConfig, a NixOS declaration) or a CSI driver that brings its own client", None, StepKind::Change).at(ActsAt::Node);
    s.os_family = Some("immutable".into());
    steps.push(s);
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_is_placed_where_it_runs() {
        for (c, at) in [
            ("kubectl get pods -A", ActsAt::Cluster),
            ("volmnt node check node-1", ActsAt::Cluster),
            ("volmnt rbd unlock kube/img --dry-run", ActsAt::Storage),
            ("kubectl volmnt rbd status kube/img", ActsAt::Storage),
            ("rbd lock ls kube/img", ActsAt::Storage),
            ("ceph osd blocklist ls", ActsAt::Storage),
            ("aws ec2 create-snapshot --volume-id vol-1", ActsAt::Storage),
            ("sudo exportfs -ra", ActsAt::Storage),
            ("timeout 10 showmount -e 10.0.0.5", ActsAt::Node),
            ("sudo blkid -p /dev/sdb", ActsAt::Node),
            ("talosctl -n 10.0.0.2 dmesg", ActsAt::Node),
            ("oc debug node/n1 -- chroot /host lsblk", ActsAt::Node),
            (
                "timeout 180 oc debug node/n1 -- chroot /host lsblk",
                ActsAt::Node,
            ),
            ("d=$(mktemp -d) && sudo mount -o ro x \"$d\"", ActsAt::Node),
        ] {
            assert_eq!(acts_at(c), at, "{c}");
        }
    }

    #[test]
    fn oc_debug_runs_only_the_node_part_on_the_node() {
        assert_eq!(
            oc_debug("journalctl -u kubelet --since -2h | tee kubelet.log | wc -l", "n1"),
            "timeout 180 oc debug node/n1 -- chroot /host journalctl -u kubelet --since -2h | tee kubelet.log | wc -l"
        );
        assert_eq!(
            oc_debug("sudo dmesg | grep -i xfs | tail -n 5", "n1"),
            "timeout 180 oc debug node/n1 -- chroot /host dmesg | grep -i xfs | tail -n 5"
        );
        // Writes on the node stay on the node, in one shell.
        assert_eq!(
            oc_debug("sudo modprobe rbd && echo rbd | sudo tee /etc/modules-load.d/rbd.conf", "n1"),
            "timeout 180 oc debug node/n1 -- chroot /host sh -c 'modprobe rbd && echo rbd | tee /etc/modules-load.d/rbd.conf'"
        );
    }

    #[test]
    fn the_paths_a_command_writes_are_found() {
        assert_eq!(
            paths_written("printf 'x' | sudo tee /etc/multipath/conf.d/99-longhorn.conf"),
            ["/etc/multipath/conf.d/99-longhorn.conf"]
        );
        assert!(paths_written("journalctl -u kubelet | tee kubelet.log").is_empty());
    }
}
