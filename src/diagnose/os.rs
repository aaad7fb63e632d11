//! The node's operating system as data (`operating_systems`, `os_families`,
//! `package_managers` and `clients` in knowledge.yaml): how software gets onto the node, its
//! package names, init system, service names, security module and whether it has a shell.
//! Every node-side step is rendered through one of these profiles (`steps.rs`).

use std::collections::BTreeMap;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// A package manager's commands (`{packages}` is filled in).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageManagerDef {
    /// `None` where nothing is installed by a command (NixOS: declared in the configuration;
    /// Ubuntu Core: snaps only).
    #[serde(default)]
    pub install: Option<String>,
    /// What makes a declared change take effect (`sudo nixos-rebuild switch`).
    #[serde(default)]
    pub apply: Option<String>,
    /// Read-only: whether the packages are installed.
    #[serde(default)]
    pub query: Option<String>,
    /// Read-only: whether an enabled repository offers the packages.
    #[serde(default)]
    pub available: Option<String>,
    /// What it installs is active only after a reboot (a new snapshot or deployment).
    #[serde(default)]
    pub reboot: bool,
}

/// A client a volume type needs (`nfs`, `iscsi`, ...).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientDef {
    pub name: String,
    /// The programs it brings that a mount or an attach runs (`mount.nfs`, `iscsiadm`).
    #[serde(default)]
    pub programs: Vec<String>,
}

/// The fields an OS family sets and an OS may override.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OsFields {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub manager: Option<String>,
    #[serde(default)]
    pub delivery: Option<String>,
    #[serde(default)]
    pub init: Option<String>,
    #[serde(default)]
    pub shell: Option<String>,
    #[serde(default)]
    pub security: Option<String>,
    #[serde(default)]
    pub packages: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub repo_notes: BTreeMap<String, String>,
    /// Logical service -> the OS's unit or OpenRC service; `null`: the OS has none.
    #[serde(default)]
    pub services: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub modules_load: Option<String>,
    #[serde(default)]
    pub ships: Vec<String>,
    #[serde(default)]
    pub extensions: BTreeMap<String, String>,
    /// What an expert says first about this OS, by topic (`NOTE_KEYS`): `install` before any
    /// install (an end-of-life mirror, a registration), `statd`, `root`, `kubelet`, ...
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    /// Clients whose package in the default repositories is not verified: the install is
    /// preceded by the package manager's availability check, never asserted.
    #[serde(default)]
    pub unverified: Vec<String>,
    /// Directories that are read-only by design (an image-based root, ostree's /usr).
    #[serde(default)]
    pub read_only: Vec<String>,
    /// Directories under those that are writable all the same (Bottlerocket's /var).
    #[serde(default)]
    pub writable: Vec<String>,
    /// How the kubelet runs: `host` (default) or `container` (its own image's helpers; it
    /// cannot start host services such as rpc-statd on demand).
    #[serde(default)]
    pub kubelet: Option<String>,
}

/// One entry of `operating_systems`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OsDef {
    pub id: String,
    pub name: String,
    #[serde(rename = "match")]
    pub regex: String,
    pub family: String,
    #[serde(default)]
    pub manager: Option<String>,
    #[serde(default)]
    pub delivery: Option<String>,
    #[serde(default)]
    pub init: Option<String>,
    #[serde(default)]
    pub shell: Option<String>,
    #[serde(default)]
    pub security: Option<String>,
    #[serde(default)]
    pub packages: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub repo_notes: BTreeMap<String, String>,
    /// Logical service -> the OS's unit or OpenRC service; `null`: the OS has none.
    #[serde(default)]
    pub services: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub modules_load: Option<String>,
    #[serde(default)]
    pub ships: Vec<String>,
    #[serde(default)]
    pub extensions: BTreeMap<String, String>,
    /// What an expert says first about this OS, by topic (`NOTE_KEYS`): `install` before any
    /// install (an end-of-life mirror, a registration), `statd`, `root`, `kubelet`, ...
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    /// Clients whose package in the default repositories is not verified: the install is
    /// preceded by the package manager's availability check, never asserted.
    #[serde(default)]
    pub unverified: Vec<String>,
    /// Directories that are read-only by design (an image-based root, ostree's /usr).
    #[serde(default)]
    pub read_only: Vec<String>,
    /// Directories under those that are writable all the same (Bottlerocket's /var).
    #[serde(default)]
    pub writable: Vec<String>,
    /// How the kubelet runs: `host` (default) or `container` (its own image's helpers; it
    /// cannot start host services such as rpc-statd on demand).
    #[serde(default)]
    pub kubelet: Option<String>,
}

/// What is known of one node OS, its family's defaults merged in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OsProfile {
    /// `ubuntu`, `el7`, `talos`, ... (or the family id for a family's defaults).
    pub id: String,
    pub name: String,
    /// `rhel`, `debian`, `suse`, `alpine`, `immutable`.
    pub family: String,
    /// A key of `package_managers`; `None` on an image-based OS.
    pub manager: Option<String>,
    pub delivery: String,
    pub init: String,
    pub shell: String,
    pub security: String,
    /// Client → package; `None` when no default repository has it.
    pub packages: BTreeMap<String, Option<String>>,
    pub repo_notes: BTreeMap<String, String>,
    /// Logical service -> its name on this OS; `None`: the OS has no such service.
    pub services: BTreeMap<String, Option<String>>,
    pub modules_load: String,
    pub ships: Vec<String>,
    pub extensions: BTreeMap<String, String>,
    pub notes: BTreeMap<String, String>,
    pub unverified: Vec<String>,
    /// Read-only directories by design, and the writable ones under them.
    pub read_only: Vec<String>,
    pub writable: Vec<String>,
    /// `host` or `container`.
    pub kubelet: String,
}

impl OsProfile {
    /// The value of one attribute a step's `when:` can test.
    pub fn attr(&self, key: &str) -> Option<&str> {
        Some(match key {
            "os" => &self.id,
            "family" => &self.family,
            "manager" => self.manager.as_deref()?,
            "delivery" => &self.delivery,
            "init" => &self.init,
            "shell" => &self.shell,
            "security" => &self.security,
            "modules_load" => &self.modules_load,
            "kubelet" => &self.kubelet,
            "root" => {
                if self.read_only.is_empty() {
                    "read-write"
                } else {
                    "read-only"
                }
            }
            _ => return None,
        })
    }

    /// The OS's name for a service (`statd` → `rpc-statd` or `rpc.statd`); the logical name
    /// when the OS has none (see [`OsProfile::has_service`]).
    pub fn service(&self, logical: &str) -> String {
        match self.services.get(logical) {
            Some(Some(s)) => s.clone(),
            _ => logical.to_string(),
        }
    }

    /// Whether the OS has the service at all (Bottlerocket has no rpc.statd, no iscsid).
    pub fn has_service(&self, logical: &str) -> bool {
        !matches!(self.services.get(logical), Some(None))
    }

    /// Whether a path can be written on this node: not under a read-only directory, or under
    /// one of the writable directories below it.
    pub fn writable_path(&self, path: &str) -> bool {
        let under = |dir: &String| {
            let d = dir.trim_end_matches('/');
            d.is_empty() || path == d || path.starts_with(&format!("{d}/"))
        };
        self.writable.iter().any(under) || !self.read_only.iter().any(under)
    }

    /// The note on a topic, when the OS has one.
    pub fn note(&self, topic: &str) -> Option<&str> {
        self.notes.get(topic).map(String::as_str)
    }

    pub fn ships(&self, client: &str) -> bool {
        self.ships.iter().any(|c| c == client)
    }
}

pub const INITS: &[&str] = &["systemd", "openrc", "none"];
pub const SHELLS: &[&str] = &["host", "talosctl", "admin-container", "oc-debug"];
pub const SECURITY: &[&str] = &["selinux", "apparmor", "none"];
pub const DELIVERIES: &[&str] = &[
    "package",
    "transactional",
    "rpm-ostree",
    "machine-config",
    "extension",
    "image",
    "declarative",
];
/// How a module is loaded at every boot: `systemd` (/etc/modules-load.d), `alpine`
/// (/etc/modules, OpenRC's modules service), `machine-config` (a MachineConfig writing
/// /etc/modules-load.d), `talos` (machine.kernel.modules), `bottlerocket` (the
/// kernel.modules settings), `k3os` (config.yaml), `nixos` (boot.kernelModules), `none`.
pub const MODULES_LOAD: &[&str] = &[
    "systemd",
    "alpine",
    "machine-config",
    "talos",
    "bottlerocket",
    "k3os",
    "nixos",
    "none",
];
pub const KUBELETS: &[&str] = &["host", "container"];
/// The topics an OS's `notes:` may have.
pub const NOTE_KEYS: &[&str] = &[
    "install",
    "statd",
    "root",
    "kubelet",
    "modules",
    "iscsi",
    "multipath",
    "shell",
];
/// The keys a step's `when:` may test.
pub const WHEN_KEYS: &[&str] = &[
    "os",
    "family",
    "manager",
    "delivery",
    "init",
    "shell",
    "security",
    "modules_load",
    "kubelet",
    "root",
];

/// Everything about node OSes the knowledge holds, checked.
#[derive(Debug)]
pub struct OsKnowledge {
    /// In match order.
    pub systems: Vec<(OsProfile, Regex)>,
    /// Each family's defaults as a profile (for an OS known only by its family).
    pub families: BTreeMap<String, OsProfile>,
    pub managers: BTreeMap<String, PackageManagerDef>,
    pub clients: BTreeMap<String, ClientDef>,
}

impl OsKnowledge {
    pub fn build(
        managers: BTreeMap<String, PackageManagerDef>,
        clients: BTreeMap<String, ClientDef>,
        families: BTreeMap<String, OsFields>,
        systems: Vec<OsDef>,
    ) -> Result<OsKnowledge, String> {
        let check = |what: &str, value: &str, allowed: &[&str]| -> Result<(), String> {
            if allowed.contains(&value) {
                Ok(())
            } else {
                Err(format!("{what}: `{value}` is not one of {allowed:?}"))
            }
        };
        let mut fams = BTreeMap::new();
        for (id, f) in &families {
            let p = OsProfile {
                id: id.clone(),
                name: f.name.clone().unwrap_or_else(|| id.clone()),
                family: id.clone(),
                manager: f.manager.clone(),
                delivery: f.delivery.clone().unwrap_or_else(|| "package".into()),
                init: f.init.clone().unwrap_or_else(|| "systemd".into()),
                shell: f.shell.clone().unwrap_or_else(|| "host".into()),
                security: f.security.clone().unwrap_or_else(|| "none".into()),
                packages: f.packages.clone(),
                repo_notes: f.repo_notes.clone(),
                services: f.services.clone(),
                modules_load: f.modules_load.clone().unwrap_or_else(|| "none".into()),
                ships: f.ships.clone(),
                extensions: f.extensions.clone(),
                notes: f.notes.clone(),
                unverified: f.unverified.clone(),
                read_only: f.read_only.clone(),
                writable: f.writable.clone(),
                kubelet: f.kubelet.clone().unwrap_or_else(|| "host".into()),
            };
            fams.insert(id.clone(), p);
        }
        let mut out = Vec::new();
        for d in systems {
            let base = fams
                .get(&d.family)
                .ok_or_else(|| format!("os {}: unknown family {}", d.id, d.family))?;
            let mut p = base.clone();
            p.id = d.id.clone();
            p.name = d.name.clone();
            // An image-based OS has no package manager unless it names one.
            if d.manager.is_some() || d.family == "immutable" {
                p.manager = d.manager.clone();
            }
            for (slot, v) in [
                (&mut p.delivery, &d.delivery),
                (&mut p.init, &d.init),
                (&mut p.shell, &d.shell),
                (&mut p.security, &d.security),
                (&mut p.modules_load, &d.modules_load),
                (&mut p.kubelet, &d.kubelet),
            ] {
                if let Some(v) = v {
                    *slot = v.clone();
                }
            }
            // A package the OS's own repositories have replaces its family's note on where
            // to find it (unless the OS says something of its own about it).
            for (c, pkg) in &d.packages {
                if pkg.is_some() && !d.repo_notes.contains_key(c) {
                    p.repo_notes.remove(c);
                }
            }
            p.packages.extend(d.packages.clone());
            p.repo_notes.extend(d.repo_notes.clone());
            p.services.extend(d.services.clone());
            // An OS's own list of what it ships replaces its family's.
            if !d.ships.is_empty() {
                p.ships = d.ships.clone();
            }
            p.extensions.extend(d.extensions.clone());
            p.notes.extend(d.notes.clone());
            p.unverified.extend(d.unverified.clone());
            if !d.read_only.is_empty() {
                p.read_only = d.read_only.clone();
                p.writable = d.writable.clone();
            }
            let re = Regex::new(&d.regex).map_err(|e| format!("os {}: {e}", d.id))?;
            out.push((p, re));
        }
        for p in fams.values().chain(out.iter().map(|(p, _)| p)) {
            let what = format!("os {}", p.id);
            check(&format!("{what} init"), &p.init, INITS)?;
            check(&format!("{what} shell"), &p.shell, SHELLS)?;
            check(&format!("{what} security"), &p.security, SECURITY)?;
            check(&format!("{what} delivery"), &p.delivery, DELIVERIES)?;
            check(
                &format!("{what} modules_load"),
                &p.modules_load,
                MODULES_LOAD,
            )?;
            check(&format!("{what} kubelet"), &p.kubelet, KUBELETS)?;
            for k in p.notes.keys() {
                check(&format!("{what} notes"), k, NOTE_KEYS)?;
            }
            for w in p.writable.iter().chain(&p.read_only) {
                if !w.starts_with('/') {
                    return Err(format!("{what}: writable path {w} is not absolute"));
                }
            }
            if let Some(m) = &p.manager {
                if !managers.contains_key(m) {
                    return Err(format!("{what}: unknown package manager {m}"));
                }
            }
            for c in p
                .packages
                .keys()
                .chain(p.ships.iter())
                .chain(p.extensions.keys())
                .chain(p.repo_notes.keys())
                .chain(p.unverified.iter())
            {
                if !clients.contains_key(c) {
                    return Err(format!("{what}: unknown client {c}"));
                }
            }
            for (c, pkg) in &p.packages {
                if pkg.is_none() && p.manager.is_some() && !p.repo_notes.contains_key(c) {
                    return Err(format!(
                        "{what}: no package for {c} and no repo_notes saying where it comes from"
                    ));
                }
            }
        }
        Ok(OsKnowledge {
            systems: out,
            families: fams,
            managers,
            clients,
        })
    }

    /// The profile of an osImage / PRETTY_NAME string, or of an OS or family id given as is.
    pub fn profile(&self, image: &str) -> Option<&OsProfile> {
        let image = image.trim();
        if image.is_empty() {
            return None;
        }
        self.systems
            .iter()
            .find(|(p, _)| p.id == image)
            .map(|(p, _)| p)
            .or_else(|| self.families.get(image))
            .or_else(|| {
                self.systems
                    .iter()
                    .find(|(_, re)| re.is_match(image))
                    .map(|(p, _)| p)
            })
    }

    /// The install command of `packages` with `manager` (`None` for a manager that installs
    /// nothing by command: NixOS's declarations, Ubuntu Core's snaps).
    pub fn install_command(&self, manager: &str, packages: &str) -> Option<String> {
        self.managers
            .get(manager)
            .and_then(|m| m.install.as_ref())
            .map(|i| i.replace("{packages}", packages))
    }

    /// The read-only command that says whether an enabled repository offers `packages`.
    pub fn available_command(&self, manager: &str, packages: &str) -> Option<String> {
        self.managers
            .get(manager)
            .and_then(|m| m.available.as_ref())
            .map(|i| i.replace("{packages}", packages))
    }
}
