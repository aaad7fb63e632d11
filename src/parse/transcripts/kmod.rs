//! Kernel modules: `lsmod` and `/proc/modules` (which are loaded), `modprobe` / `modinfo` /
//! `insmod` (whether one exists for the running kernel, and why it could not be loaded); kmod's
//! tools and libkmod, cited beside each pattern.

use std::sync::LazyLock;

use regex::Regex;

use super::command::{basename, Command};
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape};
use crate::model::{ModuleState, NodeFacts};

static PROC_MODULES_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // linux kernel/module/procfs.c m_show: `name size refcnt deps state 0xaddr [taints]`.
    Regex::new(r"^([A-Za-z0-9_]+) \d+ \d+ \S+ (?:Live|Loading|Unloading) 0x[0-9a-f]+")
        .expect("static regex")
});

/// `lsmod` (kmod tools/lsmod.c: a `Module Size Used by` header, then `%-19s %8ld  %d` and the
/// holders) or `/proc/modules`: the names of the loaded modules.
pub fn parse_lsmod(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with("Module") && l.contains("Used by")))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next()?;
            let size = w.next()?;
            (size.chars().all(|c| c.is_ascii_digit())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .then(|| name.replace('-', "_"))
        })
        .collect()
}

/// What `modprobe` / `modinfo` / `insmod` said, per module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmodAnswer {
    pub module: String,
    /// `Missing` (no module file for this kernel), `Builtin`, `Available` (modinfo found a file).
    pub state: Option<ModuleState>,
    /// The kernel release named in the message (`... not found in directory /lib/modules/REL`).
    pub kernel: Option<String>,
    /// The error as printed, when the module exists but could not be loaded (`could not insert
    /// 'rbd': Operation not permitted`) or the module tree is broken.
    pub error: Option<String>,
}

static KMOD_NOT_FOUND: LazyLock<Regex> = LazyLock::new(|| {
    // kmod tools/modprobe.c: `Module %s not found in directory %s` (FATAL); tools/modinfo.c:
    // `Module %s not found.`, `Module name %s not found.`, `Module alias %s not found.`;
    // busybox: `modprobe: module rbd not found in modules.dep`.
    Regex::new(r"(?i)module(?: name| alias)? '?([A-Za-z0-9_.-]+?)'? not found(?: in directory (/\S*lib/modules/([^/\s]+))| in modules\.dep)?")
        .expect("static regex")
});

static KMOD_INSERT: LazyLock<Regex> = LazyLock::new(|| {
    // kmod tools/modprobe.c: `could not insert '%s': %s`.
    Regex::new(r"could not insert '([A-Za-z0-9_-]+)': (.+)$").expect("static regex")
});

static KMOD_MODDEP: LazyLock<Regex> = LazyLock::new(|| {
    // libkmod: `could not open moddep file '/lib/modules/REL/modules.dep.bin'`.
    Regex::new(r"could not open moddep file '\S*/lib/modules/([^/']+)/modules\.dep")
        .expect("static regex")
});

/// `modprobe`, `modinfo`, `insmod` answers. `modinfo` output (`filename: /lib/modules/...ko` or
/// `(builtin)`, kmod tools/modinfo.c) says the module exists.
pub fn parse_kmod(text: &str, asked: &[String]) -> (Vec<KmodAnswer>, Vec<String>) {
    let mut out: Vec<KmodAnswer> = Vec::new();
    let mut notes = Vec::new();
    let mut modinfo_name: Option<String> = None;
    for l in text.lines().map(str::trim) {
        if let Some(c) = KMOD_NOT_FOUND.captures(l) {
            out.push(KmodAnswer {
                module: c[1].replace('-', "_"),
                state: Some(ModuleState::Missing),
                kernel: c.get(3).map(|m| m.as_str().to_string()),
                error: None,
            });
        } else if let Some(c) = KMOD_INSERT.captures(l) {
            out.push(KmodAnswer {
                module: c[1].replace('-', "_"),
                state: None,
                kernel: None,
                error: Some(c[2].trim().to_string()),
            });
        } else if let Some(c) = KMOD_MODDEP.captures(l) {
            notes.push(format!(
                "kernel modules: /lib/modules/{} has no modules.dep (no module tree for the running kernel: nothing can be loaded)",
                &c[1]
            ));
        } else if let Some(v) = l.strip_prefix("name:") {
            modinfo_name = Some(v.trim().replace('-', "_"));
        } else if let Some(v) = l.strip_prefix("filename:") {
            let v = v.trim();
            let name = modinfo_name.clone().or_else(|| {
                let file = basename(v);
                (v != "(builtin)")
                    .then(|| file.split(".ko").next().unwrap_or(file).replace('-', "_"))
            });
            let name = name.or_else(|| (asked.len() == 1).then(|| asked[0].replace('-', "_")));
            if let Some(module) = name {
                let kernel = v
                    .split("/lib/modules/")
                    .nth(1)
                    .and_then(|r| r.split('/').next())
                    .map(str::to_string);
                out.push(KmodAnswer {
                    module,
                    state: Some(if v == "(builtin)" {
                        ModuleState::Builtin
                    } else {
                        ModuleState::Available
                    }),
                    kernel,
                    error: None,
                });
            }
        }
    }
    (out, notes)
}

/// `lsmod` and `/proc/modules`.
pub const LSMOD: Reader = Reader {
    kind: Kind::Lsmod,
    label: "lsmod",
    doc:
        "`lsmod`, `/proc/modules`: the loaded modules; lsmod's `could not open /proc/modules` says \
          the kernel cannot load modules at all",
    samples: &[
        "lsmod-kmod-testsuite.txt",
        "proc-modules-kmod-testsuite.txt",
        "lsmod-no-module-support.txt",
    ],
    recognise: lsmod_recognise,
    sniff: Some(lsmod_sniff),
    read: lsmod_read,
};

fn lsmod_recognise(c: &Command) -> bool {
    c.prog == "lsmod" || c.reads(|p, _| p == "/proc/modules")
}

fn lsmod_sniff(s: &Shape) -> bool {
    (s.first.starts_with("Module") && s.first.contains("Size") && s.first.contains("Used by"))
        || s.most(s.count(|l| PROC_MODULES_LINE.is_match(l)))
}

fn lsmod_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let text = p.text;
    // kmod's lsmod on a kernel built without module support (libkmod: `could not open
    // /proc/modules`): nothing can ever be loaded there.
    if text.contains("could not open /proc/modules") {
        facts.modules_loadable = Some(false);
        facts.add_provenance("modules", p.source);
        return noted(
            "no /proc/modules: the kernel cannot load modules".into(),
            &["modules"],
        );
    }
    let loaded = parse_lsmod(text);
    if loaded.is_empty() && !text.contains("Used by") {
        return None;
    }
    let n = loaded.len();
    for m in loaded {
        facts.modules.insert(m, ModuleState::Loaded);
    }
    added(format!("{n} loaded module(s)"), &["modules"])
}

/// `modprobe`, `modinfo`, `insmod`.
pub const KMOD: Reader = Reader {
    kind: Kind::Kmod,
    label: "modprobe/modinfo",
    doc: "`modprobe`, `modinfo`, `insmod`: whether each module exists for the running kernel \
          (missing, built in, available), why one could not be loaded, a kernel without a module \
          tree; the kernel release a message names, when no other source gave it",
    samples: &[
        "modprobe-modinfo-debian12.txt",
        "modinfo-builtin-kmod-testsuite.txt",
    ],
    recognise: kmod_recognise,
    sniff: Some(kmod_sniff),
    read: kmod_read,
};

fn kmod_recognise(c: &Command) -> bool {
    c.is(&["modprobe", "modinfo", "insmod"])
}

fn kmod_sniff(s: &Shape) -> bool {
    s.most(s.count(|l| {
        ["modprobe: ", "modinfo: ", "insmod: "]
            .iter()
            .any(|p| l.starts_with(p))
    }))
}

fn kmod_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (answers, notes) = parse_kmod(p.text, &p.asked);
    if answers.is_empty() && notes.is_empty() {
        return None;
    }
    let mut said = Vec::new();
    for a in &answers {
        if let Some(s) = a.state {
            // What is loaded stays loaded; a module file found is better than not.
            let keep = matches!(facts.modules.get(&a.module), Some(ModuleState::Loaded));
            if !keep {
                facts.modules.insert(a.module.clone(), s);
            }
            said.push(format!(
                "{} {}",
                a.module,
                match s {
                    ModuleState::Missing => "not found",
                    ModuleState::Builtin => "built in",
                    ModuleState::Available => "available",
                    ModuleState::Loaded => "loaded",
                }
            ));
        }
        if let Some(e) = &a.error {
            facts.errors.push(format!("modprobe {}: {e}", a.module));
            said.push(format!("{} could not be loaded ({e})", a.module));
        }
        if facts.kernel.is_none() {
            if let Some(k) = &a.kernel {
                facts.kernel = Some(k.clone());
                facts.kernel_source = Some("modprobe".into());
            }
        }
    }
    for n in notes {
        if n.contains("nothing can be loaded") {
            facts.modules_loadable = Some(false);
        }
        facts.errors.push(n.clone());
        said.push(n);
    }
    added(said.join("; "), &["modules"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture, parts};
    use crate::parse::transcripts::{sniff, Kind};

    #[test]
    fn modules_from_lsmod_proc_modules_modprobe_and_modinfo() {
        let f = facts_of(fixture!("lsmod-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("btusb"), Some(&ModuleState::Loaded));
        let f = facts_of(fixture!("proc-modules-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("btusb"), Some(&ModuleState::Loaded));
        let body = parts(fixture!("proc-modules-kmod-testsuite.txt"))
            .remove(0)
            .1;
        assert_eq!(sniff(&body), Some(Kind::Lsmod));
        let f = facts_of(fixture!("lsmod-no-module-support.txt"));
        assert_eq!(f.modules_loadable, Some(false));
        let f = facts_of(fixture!("modprobe-modinfo-debian12.txt"));
        assert_eq!(f.modules.get("rbd"), Some(&ModuleState::Missing));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        let f = facts_of(fixture!("modinfo-builtin-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("intel_uncore"), Some(&ModuleState::Builtin));
        // libkmod's moddep error (a tune case's CentOS 7 without a module tree)
        let (a, notes) = parse_kmod("modprobe: ERROR: ../libkmod/libkmod.c:586 kmod_search_moddep() could not open moddep file '/lib/modules/3.10.0-693.11.1.el7.x86_64/modules.dep.bin'\nmodprobe: FATAL: Module iscsi_tcp not found in directory /lib/modules/3.10.0-693.11.1.el7.x86_64\n", &[]);
        assert_eq!(a[0].module, "iscsi_tcp");
        assert_eq!(a[0].kernel.as_deref(), Some("3.10.0-693.11.1.el7.x86_64"));
        assert_eq!(notes.len(), 1);
        let (a, _) = parse_kmod(
            "modprobe: ERROR: could not insert 'rbd': Operation not permitted\n",
            &[],
        );
        assert_eq!(a[0].error.as_deref(), Some("Operation not permitted"));
    }
}
