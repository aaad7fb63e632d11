//! The committed completion scripts in completions/ must be exactly what `volmnt completions
//! SHELL` prints, so a changed flag cannot ship with stale completions.
//!
//! After changing the command line, regenerate them with
//!
//!     VOLMNT_BLESS=1 cargo test --test tests completions
//!
//! and commit completions/.

use std::path::PathBuf;

use crate::util::run;

/// `volmnt completions SHELL` against completions/FILE.
fn check(shell: &str, file: &str) {
    let out = run(&["completions", shell]);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "volmnt completions {shell}:\n{out:#?}");
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let script = out.stdout;
    for word in [
        "volmnt",
        "doctor",
        "explain",
        "completions",
        "from-file",
        "node-os",
    ] {
        assert!(
            script.contains(word),
            "the {shell} script should complete {word:?}"
        );
    }

    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/completions")).join(file);
    if std::env::var_os("VOLMNT_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &script).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        eprintln!("blessed {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != script {
        let first_diff = committed
            .lines()
            .zip(script.lines())
            .position(|(a, b)| a != b)
            .map(|i| i + 1)
            .unwrap_or(committed.lines().count().min(script.lines().count()) + 1);
        panic!(
            "completions/{file} is not what `volmnt completions {shell}` prints now \
             (first difference at line {first_diff}; committed {} lines, generated {} lines).\n\
             Regenerate the committed scripts with:\n\n    \
             VOLMNT_BLESS=1 cargo test --test tests completions\n\n\
             and commit completions/.",
            committed.lines().count(),
            script.lines().count()
        );
    }
}

#[test]
fn completions_bash() {
    check("bash", "volmnt.bash");
}

#[test]
fn completions_zsh() {
    check("zsh", "_volmnt");
}

#[test]
fn completions_fish() {
    check("fish", "volmnt.fish");
}

#[test]
fn completions_powershell() {
    check("powershell", "_volmnt.ps1");
}

#[test]
fn completions_elvish() {
    check("elvish", "volmnt.elv");
}

#[test]
fn completions_for_an_unknown_shell_is_a_usage_error() {
    let out = run(&["completions", "tcsh"]);
    out.assert_no_panic();
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("tcsh"), "{}", out.stderr);
}
