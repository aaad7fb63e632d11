//! The kubelet as a node shows it: its process (`ps`, `pgrep -a`, `/proc/PID/cmdline`), its
//! unit (`systemctl cat kubelet`), its args and env files (MicroK8s, `kubeadm-flags.env`,
//! `/etc/default/kubelet`), its container (`docker inspect kubelet`, RKE), and its
//! KubeletConfiguration file: the flavour, the root dir and where it came from, the flags
//! (secrets redacted as they are read), the bind mounts of a containerised kubelet.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::command::{basename, first_stage, read_file_arg, Command};
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape};
use crate::model::{KubeletInfo, NodeFacts};

/// Kubelet binaries (`basename` of the process' first word), and the distributions' processes
/// that embed one (`k3s server|agent`, `microk8s`'s kubelite, `k0s worker`).
fn is_kubelet_program(w: &[&str], i: usize) -> bool {
    let name = basename(w[i]);
    let next = w.get(i + 1).copied().unwrap_or("");
    match name {
        "kubelet" | "kubelite" => true,
        "hyperkube" => next == "kubelet" || next.starts_with("--"),
        "k3s" | "rke2" => matches!(next, "server" | "agent"),
        "k3s-server" | "k3s-agent" => true,
        "k0s" => next == "worker" || next == "controller",
        "openshift" => next == "start",
        _ => false,
    }
}

/// A `ps` column before the command: a number, a time (`00:00:19`, `21:33`, `0:19`), a tty, a
/// state (`Ssl`), a user name from the first column.
fn looks_like_ps_column(w: &str) -> bool {
    w == "?"
        || w.chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
        || w.starts_with("pts/")
        || w.starts_with("tty")
        || (w.len() <= 5 && w.chars().all(|c| "RSDZTtWXIsl<NL+".contains(c)))
        || (w.len() == 5
            && w.chars().take(3).all(|c| c.is_ascii_alphabetic())
            && w[3..].chars().all(|c| c.is_ascii_digit()))
}

/// The kubelet processes in a process listing (`ps -ef`, `ps aux`, `pgrep -a`, `ps -o args=`),
/// each as its argument vector from the kubelet program on. `grep kubelet` lines and other
/// programs whose flags mention the kubelet (kube-apiserver's `--kubelet-client-key`) are not
/// kubelets.
pub fn kubelet_processes(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let Some(i) = (0..w.len())
            .find(|&i| !w[i].starts_with('-') && !w[i].contains('=') && is_kubelet_program(&w, i))
        else {
            continue;
        };
        // The command starts the line, or follows ps/pgrep columns (the first may be the user);
        // a kubelet named as an argument (`grep kubelet`, `systemctl status kubelet`) is none.
        let columns_only = w[..i]
            .iter()
            .enumerate()
            .all(|(j, c)| looks_like_ps_column(c) || (j == 0 && !is_command_word(c)));
        if i == 0 || columns_only {
            out.push(w[i..].iter().map(|s| s.to_string()).collect());
        }
    }
    out
}

/// Programs that take a kubelet's name as an argument, so a line with them is no kubelet.
fn is_command_word(w: &str) -> bool {
    matches!(
        basename(w),
        "grep"
            | "egrep"
            | "pgrep"
            | "pidof"
            | "ps"
            | "bash"
            | "sh"
            | "sudo"
            | "systemctl"
            | "journalctl"
            | "tail"
            | "cat"
            | "less"
            | "docker"
            | "crictl"
            | "kubectl"
            | "service"
            | "vi"
            | "vim"
            | "tr"
            | "awk"
            | "sed"
    )
}

static FLAG_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[\s"',\[=])(--?[A-Za-z][A-Za-z0-9-]*(?:=(?:"[^"]*"|'[^']*'|[^\s"',\]]*))?)"#)
        .expect("static regex")
});

/// The flags of an argument vector: `--name=value`, or `--name value` joined as `--name=value`.
fn flags_of(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.starts_with('-') && a.len() > 1 {
            if !a.contains('=')
                && args
                    .get(i + 1)
                    .is_some_and(|n| !n.starts_with('-') && looks_like_flag_value(a, n))
            {
                out.push(format!("{a}={}", args[i + 1]));
                i += 2;
                continue;
            }
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

/// Whether `next` is the value of flag `flag` (kubelet's flags are `--name=value` or `--name
/// value`; boolean ones take no value).
fn looks_like_flag_value(flag: &str, next: &str) -> bool {
    let f = flag.trim_start_matches('-');
    !matches!(
        f,
        "v" | "fail-swap-on" | "containerized" | "allow-privileged" | "rotate-certificates"
    ) || f == "v" && next.chars().all(|c| c.is_ascii_digit())
}

/// `${SNAP_COMMON}` and friends as MicroK8s' args file writes them.
fn expand_snap(v: &str) -> String {
    v.replace("${SNAP_COMMON}", "/var/snap/microk8s/common")
        .replace("$SNAP_COMMON", "/var/snap/microk8s/common")
        .replace("${SNAP_DATA}", "/var/snap/microk8s/current")
        .replace("$SNAP_DATA", "/var/snap/microk8s/current")
        .replace("${SNAP}", "/snap/microk8s/current")
}

fn flag_value<'a>(flags: &'a [String], name: &str) -> Option<&'a str> {
    flags.iter().rev().find_map(|f| {
        let f = f.trim_start_matches('-');
        f.strip_prefix(name).and_then(|r| r.strip_prefix('='))
    })
}

/// The flavour from whatever the transcript shows: paths, program names, flags.
fn flavour_of(text: &str, program: Option<&str>) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    let p = program.map(basename).unwrap_or("");
    Some(
        if t.contains("microk8s") || p == "kubelite" || t.contains("snap_common") {
            "microk8s"
        } else if p == "rke2" || t.contains("/rancher/rke2") || t.contains("rke2-") {
            "rke2"
        } else if p.starts_with("k3s")
            || t.contains("/rancher/k3s")
            || t.contains("k3s server")
            || t.contains("k3s agent")
        {
            "k3s"
        } else if t.contains("/var/lib/k0s") || p == "k0s" {
            "k0s"
        } else if t.contains("rancher/hyperkube") || t.contains("/opt/rke/") || t.contains("rke-") {
            "rke"
        } else if t.contains("openshift") || t.contains("/etc/origin/") {
            "openshift"
        } else if t.contains("kind://") || t.contains("kindest/node") {
            "kind"
        } else if t.contains("/var/lib/minikube") || t.contains("minikube") {
            "minikube"
        } else if t.contains("bootstrap-kubelet.conf")
            || t.contains("kubeadm-flags.env")
            || t.contains("kubeadm")
        {
            "kubeadm"
        } else {
            return None;
        },
    )
}

/// The flavour's documented kubelet root dir when no flag says: MicroK8s keeps it under its
/// snap's `$SNAP_COMMON`, k0s under its data dir, every other one at kubelet's own default.
pub fn default_root_dir(flavour: Option<&str>) -> &'static str {
    match flavour {
        Some("microk8s") => "/var/snap/microk8s/common/var/lib/kubelet",
        Some("k0s") => "/var/lib/k0s/kubelet",
        _ => "/var/lib/kubelet",
    }
}

static DOCKER_BIND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?s)"Source":\s*"([^"]*)",\s*"Destination":\s*"([^"]*)",.*?"Propagation":\s*"([^"]*)""#,
    )
    .expect("static regex")
});

/// The kubelet as a transcript shows it: a process line (`ps`, `pgrep -a`, `/proc/PID/cmdline`
/// with NULs or spaces), a unit (`systemctl cat kubelet`: `ExecStart=` and `Environment=`),
/// an args file (MicroK8s, `kubeadm-flags.env`, `/etc/default/kubelet`), `docker inspect
/// kubelet` (RKE's containerised kubelet: its Args and bind mounts), or bare flags one per line
/// (`... | tr ' ' '\n' | grep root-dir`). `None` when it shows no kubelet at all.
pub fn parse_kubelet(text: &str, cmd: Option<&str>) -> Option<KubeletInfo> {
    let text = text.replace('\0', " ");
    let procs = kubelet_processes(&text);
    let cmd_s = cmd.unwrap_or("");
    let (program, args): (Option<String>, Vec<String>) = match procs.first() {
        Some(p) => (Some(p[0].clone()), p[1..].to_vec()),
        None => {
            // Flags wherever they are written: unit files, env files, args files, JSON arrays.
            let mut v = Vec::new();
            for l in text.lines() {
                let l = l.trim();
                if l.starts_with('#') && !l.contains("--") {
                    continue;
                }
                for c in FLAG_TOKEN.captures_iter(l) {
                    let f = c[1].trim_matches(|c| c == '"' || c == '\'').to_string();
                    if f.starts_with("--") {
                        v.push(f);
                    }
                }
            }
            let program = text
                .split_whitespace()
                .find(|w| {
                    let w = w.trim_start_matches("ExecStart=");
                    matches!(basename(w), "kubelet" | "kubelite")
                })
                .map(|w| w.trim_start_matches("ExecStart=").to_string());
            (program, v)
        }
    };
    let docker = {
        let (w, _) = first_stage(cmd_s);
        w.first()
            .is_some_and(|p| matches!(basename(p), "docker" | "podman" | "crictl" | "nerdctl"))
            && w.get(1).is_some_and(|a| a == "inspect")
    };
    let binds: Vec<String> = if docker {
        DOCKER_BIND
            .captures_iter(&text)
            .map(|c| {
                let prop = if c[3].is_empty() {
                    String::new()
                } else {
                    format!(" ({})", &c[3])
                };
                format!("{} -> {}{prop}", &c[1], &c[2])
            })
            .collect()
    } else {
        Vec::new()
    };
    let flags = flags_of(&args);
    // k3s/rke2 take kubelet flags as `--kubelet-arg=root-dir=X` (or `kubelet-arg: [...]` in
    // their config.yaml).
    let kubelet_arg_root = flag_value(&flags, "kubelet-arg")
        .and_then(|v| v.strip_prefix("root-dir="))
        .map(str::to_string)
        .or_else(|| {
            static KARG: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r#"(?s)kubelet-arg.{0,300}?root-dir=([^\s"',\]]+)"#)
                    .expect("static regex")
            });
            KARG.captures(&text).map(|c| c[1].to_string())
        });
    if flags.is_empty()
        && program.is_none()
        && binds.is_empty()
        && !docker
        && kubelet_arg_root.is_none()
    {
        return None;
    }
    let all = format!("{cmd_s}\n{text}");
    let flavour = flavour_of(&all, program.as_deref()).map(str::to_string);
    let (root_dir, root_src) = match flag_value(&flags, "root-dir")
        .map(str::to_string)
        .or(kubelet_arg_root)
    {
        Some(v) => (Some(expand_snap(&v)), Some("flag".to_string())),
        None => (
            Some(default_root_dir(flavour.as_deref()).to_string()),
            Some("default".to_string()),
        ),
    };
    let containerized = if docker || matches!(flavour.as_deref(), Some("kind" | "rke")) {
        Some(true)
    } else if program.is_some() && flavour.is_some() {
        Some(false)
    } else {
        None
    };
    let config = flag_value(&flags, "config").map(str::to_string);
    Some(KubeletInfo {
        flavour: Some(flavour.unwrap_or_else(|| "unknown".into())),
        root_dir,
        containerized,
        flags: flags
            .iter()
            .map(|f| crate::redact::redact(f).into_owned())
            .collect(),
        config,
        root_dir_source: root_src,
        container_binds: binds,
        config_settings: BTreeMap::new(),
    })
}

/// Settings of a KubeletConfiguration file that bear on volumes, top-level `key: value` lines
/// (the file is YAML; these keys are scalars).
pub fn kubelet_config_settings(text: &str) -> BTreeMap<String, String> {
    const KEYS: &[&str] = &[
        "volumePluginDir",
        "enableSystemLogQuery",
        "enableSystemLogHandler",
        "containerRuntimeEndpoint",
        "cgroupDriver",
        "failSwapOn",
        "protectKernelDefaults",
        "staticPodPath",
        "volumeStatsAggPeriod",
        "maxPods",
    ];
    let mut out = BTreeMap::new();
    for l in text.lines() {
        if l.starts_with(' ') || l.starts_with('\t') {
            continue;
        }
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim().trim_matches('"');
            if KEYS.contains(&k) {
                let v = v
                    .trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .trim_end_matches(',');
                out.insert(k.to_string(), crate::redact::redact(v).into_owned());
            }
        }
    }
    out
}

/// Merge a kubelet reading into the facts: a later, more specific reading (a flag) wins over a
/// default; flags accumulate.
pub(super) fn merge_kubelet(facts: &mut NodeFacts, info: KubeletInfo) {
    let k = facts.kubelet.get_or_insert_with(KubeletInfo::default);
    let from_flag = info.root_dir_source.as_deref() == Some("flag");
    if (k.root_dir.is_none() || from_flag) && info.root_dir.is_some() {
        k.root_dir = info.root_dir.clone();
        k.root_dir_source = info.root_dir_source.clone();
    }
    if k.flavour.as_deref().is_none_or(|f| f == "unknown") {
        k.flavour = info.flavour;
    }
    if info.containerized.is_some() && k.containerized != Some(true) {
        k.containerized = info.containerized;
    }
    for f in info.flags {
        if !k.flags.contains(&f) {
            k.flags.push(f);
        }
    }
    if k.config.is_none() {
        k.config = info.config;
    }
    k.container_binds.extend(info.container_binds);
    k.config_settings.extend(info.config_settings);
    // The same root dir where the rules read it.
    if let Some(r) = k.root_dir.clone() {
        facts.kubelet_root = Some(r);
        facts.kubelet_root_source = k.root_dir_source.clone();
    }
}

/// The kubelet's command line, unit, args files, container and config.
pub const READER: Reader = Reader {
    kind: Kind::Kubelet,
    label: "kubelet command line",
    doc:
        "`ps`, `pgrep -a`, `/proc/PID/cmdline`, `systemctl cat kubelet`, `docker inspect kubelet`, \
          MicroK8s' args file, `kubeadm-flags.env`, a KubeletConfiguration file: the kubelet's \
          flavour, root dir (flag or default), flags, container binds and config settings",
    samples: &[
        "ps-ef-grep-kubelet.txt",
        "ps-aux-grep-kubelet.txt",
        "pgrep-a-kubelet.txt",
        "proc-cmdline-kubelet.txt",
    ],
    recognise,
    sniff: Some(sniff),
    read,
};

/// Files that hold the kubelet's command line, flags or settings.
fn is_kubelet_file(p: &str, name: &str) -> bool {
    (p.starts_with("/proc/") && name == "cmdline")
        || (p.contains("microk8s") && p.ends_with("/args/kubelet"))
        || matches!(p, "/etc/default/kubelet" | "/etc/sysconfig/kubelet")
        || name == "kubeadm-flags.env"
        || p.contains("kubelet.service")
        || (name == "config.yaml" && (p.contains("kubelet") || p.contains("/rancher/")))
}

fn recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        // The process list is read for its kubelet line, if any.
        "ps" => true,
        "pgrep" => c.mentions_kubelet(),
        "systemctl" => matches!(c.subcommand(), Some("cat" | "show")) && c.mentions_kubelet(),
        "docker" | "crictl" | "podman" | "nerdctl" => {
            c.args.first().map(String::as_str) == Some("inspect") && c.mentions_kubelet()
        }
        // `grep root-dir FILE`: a file another reader knows is that reader's (READERS asks them
        // first); any other file is the kubelet's.
        "grep" | "egrep" if c.mentions_kubelet() && c.line.contains("root-dir") => true,
        _ => c.reads(is_kubelet_file),
    }
}

fn sniff(s: &Shape) -> bool {
    // The second test was once asked after the program lookup's; the two never both hold (a
    // lookup's lines are all `ls: ...` errors), so one place in the list serves both.
    !kubelet_processes(s.text).is_empty()
        || s.lines.iter().any(|l| {
            let t = l.trim_start();
            t.starts_with("KUBELET_EXTRA_ARGS=")
                || t.starts_with("KUBELET_KUBEADM_ARGS=")
                || (t.starts_with("ExecStart=") && t.contains("kubelet"))
        })
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (cmd, text) = (p.cmd, p.text);
    if p.prog == "cat" || p.prog == "grep" {
        if let Some(path) = cmd.and_then(|c| read_file_arg(&first_stage(c).0).map(str::to_string)) {
            if path.ends_with(".yaml") && text.contains("KubeletConfiguration") {
                let settings = kubelet_config_settings(text);
                let k = facts.kubelet.get_or_insert_with(KubeletInfo::default);
                k.config.get_or_insert(path);
                let n = settings.len();
                k.config_settings.extend(settings);
                p.mark(facts, &["kubelet"]);
                return noted(
                    format!("kubelet config ({n} setting(s) read)"),
                    &["kubelet"],
                );
            }
        }
    }
    let info = parse_kubelet(text, cmd)?;
    let shown = format!(
        "kubelet {} (root dir {}{})",
        info.flavour.as_deref().unwrap_or("unknown"),
        info.root_dir.as_deref().unwrap_or("?"),
        info.root_dir_source
            .as_deref()
            .map(|s| format!(", {s}"))
            .unwrap_or_default()
    );
    merge_kubelet(facts, info);
    facts.kubelet_running.get_or_insert(true);
    added(shown, &["kubelet"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn the_kubelet_from_every_process_listing() {
        for file in [
            fixture!("ps-ef-grep-kubelet.txt"),
            fixture!("ps-aux-grep-kubelet.txt"),
            fixture!("pgrep-a-kubelet.txt"),
            fixture!("proc-cmdline-kubelet.txt"),
        ] {
            let f = facts_of(file);
            let k = f.kubelet.as_ref().expect("a kubelet");
            assert_eq!(k.root_dir.as_deref(), Some("/var/lib/kubelet"), "{file}");
            assert_eq!(k.root_dir_source.as_deref(), Some("flag"));
            assert_eq!(
                k.config.as_deref(),
                Some("/work/k8s-env/kubelet/config.yaml")
            );
            // kube-apiserver's flags (which name the kubelet) are not the kubelet's.
            assert!(
                !k.flags.iter().any(|x| x.contains("etcd-servers")),
                "{:?}",
                k.flags
            );
            assert!(k
                .flags
                .contains(&"--hostname-override=realnode".to_string()));
            assert_eq!(f.kubelet_root.as_deref(), Some("/var/lib/kubelet"));
        }
        // `grep kubelet` and `systemctl status kubelet` are no kubelets.
        assert!(kubelet_processes("root 3494 3492 0 21:55 ? 00:00:00 grep kubelet\n").is_empty());
        assert!(kubelet_processes("bash -c ps -ef | grep kubelet").is_empty());
    }

    #[test]
    fn kubelet_flavours_and_root_dirs() {
        let k = |text: &str, cmd: Option<&str>| parse_kubelet(text, cmd).expect("a kubelet");
        // MicroK8s' args file (a tune case's line).
        let m = k(
            "--root-dir=${SNAP_COMMON}/var/lib/kubelet\n",
            Some("grep root-dir /var/snap/microk8s/current/args/kubelet"),
        );
        assert_eq!(m.flavour.as_deref(), Some("microk8s"));
        assert_eq!(
            m.root_dir.as_deref(),
            Some("/var/snap/microk8s/common/var/lib/kubelet")
        );
        // RKE's containerised kubelet (a tune case's docker inspect).
        let r = k(
            "--root-dir=/opt/rke/var/lib/kubelet\n",
            Some("docker inspect kubelet --format '{{join .Args \"\\n\"}}' | grep root-dir"),
        );
        assert_eq!(r.flavour.as_deref(), Some("rke"));
        assert_eq!(r.containerized, Some(true));
        assert_eq!(r.root_dir.as_deref(), Some("/opt/rke/var/lib/kubelet"));
        let binds = k(
            "            {\n                \"Type\": \"bind\",\n                \"Source\": \"/var/lib/kubelet/volumeplugins\",\n                \"Destination\": \"/var/lib/kubelet/volumeplugins\",\n                \"Mode\": \"shared,z\",\n                \"RW\": true,\n                \"Propagation\": \"shared\"\n            },\n",
            Some("docker inspect kubelet"),
        );
        assert_eq!(
            binds.container_binds,
            ["/var/lib/kubelet/volumeplugins -> /var/lib/kubelet/volumeplugins (shared)"]
        );
        assert_eq!(binds.root_dir_source.as_deref(), Some("default"));
        // k3s embeds the kubelet; its flags come as --kubelet-arg.
        let t = k("root 812 1 5 09:00 ? 00:10:00 /usr/local/bin/k3s server --kubelet-arg root-dir=/data/kubelet --token K10abc::server:s3cr3tvalue\n", None);
        assert_eq!(t.flavour.as_deref(), Some("k3s"));
        assert_eq!(t.root_dir.as_deref(), Some("/data/kubelet"));
        assert!(
            t.flags.iter().all(|f| !f.contains("s3cr3t")),
            "{:?}",
            t.flags
        );
        let t = k("  812 /usr/local/bin/k3s agent\n", None);
        assert_eq!(
            (t.flavour.as_deref(), t.root_dir.as_deref()),
            (Some("k3s"), Some("/var/lib/kubelet"))
        );
        // k0s
        let z = k("  1234 /var/lib/k0s/bin/kubelet --config=/var/lib/k0s/kubelet-config.yaml --kubeconfig=/var/lib/k0s/kubelet.conf\n", None);
        assert_eq!(
            (z.flavour.as_deref(), z.root_dir.as_deref()),
            (Some("k0s"), Some("/var/lib/k0s/kubelet"))
        );
        // kind, minikube, OpenShift, kubeadm's unit
        let kind = k("  300 /usr/bin/kubelet --node-ip=172.18.0.2 --provider-id=kind://docker/kind/kind-control-plane\n", None);
        assert_eq!(
            (kind.flavour.as_deref(), kind.containerized),
            (Some("kind"), Some(true))
        );
        let mk = k(
            "  300 /var/lib/minikube/binaries/v1.30.0/kubelet --hostname-override=minikube\n",
            None,
        );
        assert_eq!(mk.flavour.as_deref(), Some("minikube"));
        let oc = k("  300 /usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf --node-labels=node-role.kubernetes.io/worker,node.openshift.io/os_id=rhcos\n", None);
        assert_eq!(oc.flavour.as_deref(), Some("openshift"));
        let unit = k(
            "# /lib/systemd/system/kubelet.service\n[Service]\nExecStart=/usr/bin/kubelet\n# /etc/systemd/system/kubelet.service.d/10-kubeadm.conf\nEnvironment=\"KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf\"\nEnvironment=\"KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\"\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS\n",
            Some("systemctl cat kubelet"),
        );
        assert_eq!(unit.flavour.as_deref(), Some("kubeadm"));
        assert_eq!(unit.config.as_deref(), Some("/var/lib/kubelet/config.yaml"));
        // A tune case's `ps -o args= -C kubelet | tr ' ' '\n' | grep root-dir`.
        let v = k(
            "--root-dir=/data/kubelet/pods\n",
            Some("ps -o args= -C kubelet | tr ' ' '\\n' | grep root-dir"),
        );
        assert_eq!(v.root_dir.as_deref(), Some("/data/kubelet/pods"));
        // Secrets in flags never stay.
        let s = k("  9 /usr/bin/kubelet --token=abcdef0123456789 --azure-container-registry-config=/etc/kubernetes/azure.json --password=hunter2\n", None);
        assert!(
            s.flags
                .iter()
                .all(|f| !f.contains("abcdef0123") && !f.contains("hunter2")),
            "{:?}",
            s.flags
        );
        // k3s' config.yaml: its kubelet-arg list, never its token.
        let c = k(
            "token: totally-not-generated-one\nkubelet-arg:\n  - \"root-dir=/srv/kubelet\"\n",
            Some("cat /etc/rancher/k3s/config.yaml"),
        );
        assert_eq!(
            (c.flavour.as_deref(), c.root_dir.as_deref()),
            (Some("k3s"), Some("/srv/kubelet"))
        );
        assert!(c.flags.is_empty());
    }
}
