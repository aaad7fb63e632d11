//! Man pages, generated from the clap definitions (clap_mangen), one per command and subcommand
//! (`volmnt.1`, `volmnt-doctor.1`, `volmnt-doctor-pod.1`, ...), committed in man/ and checked
//! fresh here like the completions are, so a changed flag cannot ship with a stale page.
//!
//! After changing the command line, regenerate them with
//!
//!     VOLMNT_BLESS=1 cargo test --test tests man
//!
//! and commit man/. `man -l man/volmnt-doctor-pod.1` reads one without installing it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

fn man_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/man"))
}

/// Every page: file name → roff. A subcommand's page is named by its path
/// (`volmnt-doctor-pod`), as git and cargo name theirs.
fn pages() -> BTreeMap<String, Vec<u8>> {
    fn walk(cmd: clap::Command, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        let name = if prefix.is_empty() {
            cmd.get_name().to_string()
        } else {
            format!("{prefix}-{}", cmd.get_name())
        };
        // The page's title is its full name, so `man volmnt-doctor-pod` finds it.
        let page = cmd.clone().name(&*Box::leak(name.clone().into_boxed_str()));
        let mut buf = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut buf)
            .expect("render man page");
        out.insert(format!("{name}.1"), buf);
        for sub in cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        {
            walk(sub.clone(), &name, out);
        }
    }
    let mut cmd = volmnt::cli::Cli::command();
    cmd.build();
    let mut out = BTreeMap::new();
    walk(cmd, "", &mut out);
    out
}

#[test]
fn man_pages_are_fresh() {
    let pages = pages();
    let dir = man_dir();
    if std::env::var_os("VOLMNT_BLESS").is_some_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, roff) in &pages {
            std::fs::write(dir.join(name), roff).unwrap();
        }
        eprintln!("blessed {} man pages in {}", pages.len(), dir.display());
        return;
    }
    let committed: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".1"))
                .collect()
        })
        .unwrap_or_default();
    let mut stale = Vec::new();
    for (name, roff) in &pages {
        if std::fs::read(dir.join(name)).ok().as_deref() != Some(roff.as_slice()) {
            stale.push(name.clone());
        }
    }
    for name in &committed {
        if !pages.contains_key(name) {
            stale.push(format!("{name} (no such command any more)"));
        }
    }
    assert!(
        stale.is_empty(),
        "man/ is not what the clap definitions generate now: {stale:?}.\n\
         Regenerate with:\n\n    VOLMNT_BLESS=1 cargo test --test tests man\n\nand commit man/."
    );
    // Every command has its page, the ones operators look up first among them.
    for must in [
        "volmnt.1",
        "volmnt-doctor-pod.1",
        "volmnt-doctor-namespace.1",
        "volmnt-node-check.1",
        "volmnt-rbd-unlock.1",
        "volmnt-explain.1",
        "volmnt-watch.1",
    ] {
        assert!(
            pages.contains_key(must),
            "no page {must}: {:?}",
            pages.keys()
        );
    }
}

/// The committed page renders with the system's man (man-db/groff), as `man volmnt-doctor-pod`
/// would show it, and says what the command's --help says.
#[test]
fn man_renders_the_doctor_pod_page() {
    let page = man_dir().join("volmnt-doctor-pod.1");
    let Some(man) = which("man") else {
        eprintln!("note: no `man` on this machine; only the roff was checked");
        let roff = std::fs::read_to_string(&page).expect("man/volmnt-doctor-pod.1");
        assert!(roff.contains(".TH volmnt-doctor-pod 1"), "{roff}");
        return;
    };
    let out = std::process::Command::new(man)
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("run man -l");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "man -l failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "volmnt-doctor-pod",
        "--from-file",
        "--probe-node",
        "--namespace",
    ] {
        assert!(text.contains(want), "rendered page lacks {want:?}:\n{text}");
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}
