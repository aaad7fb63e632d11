//! The import graph is one-way (issue 11.6, DESIGN.md):
//!
//!   main → commands → collect / diagnose / render / sink → parse → model
//!
//! `cli` holds the argument types that commands read and imports no command or collector;
//! `error` and `redact` sit under everything. This test reads every source file, collects the
//! `crate::<module>` paths it uses outside its `#[cfg(test)]` part, and fails on an import that
//! the layering does not allow, and on any loop between top-level modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What each top-level module may import (besides itself).
fn allowed() -> BTreeMap<&'static str, &'static [&'static str]> {
    const BOTTOM: &[&str] = &["error", "redact"];
    let _ = BOTTOM;
    BTreeMap::from([
        ("main", &["cli", "commands", "error"][..]),
        (
            "commands",
            &[
                "cli", "collect", "diagnose", "render", "sink", "parse", "model", "error", "redact",
            ][..],
        ),
        // Argument types: output format enums from render, value types from model.
        ("cli", &["render", "model", "error"][..]),
        ("collect", &["parse", "model", "error", "redact"][..]),
        ("diagnose", &["parse", "model", "error", "redact"][..]),
        ("render", &["model", "error", "redact"][..]),
        ("sink", &["render", "model", "error", "redact"][..]),
        ("parse", &["model", "error", "redact"][..]),
        ("model", &["error"][..]),
        ("error", &["redact"][..]),
        ("redact", &[][..]),
        ("lib", &[][..]),
    ])
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to: `src/collect/node/ssh.rs` → `collect`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("non-empty");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// Top-level modules a file's non-test code names: `crate::x`, `use crate::{x, y::z}`, and for
/// main.rs `volmnt::x`.
fn imports(text: &str, krate: &str) -> BTreeSet<String> {
    // The unit tests at the end of a file may reach anywhere; only production code counts.
    let code = match text.find("\n#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    let prefix = format!("{krate}::");
    let mut rest = code.as_str();
    while let Some(i) = rest.find(&prefix) {
        // `xcrate::` or `my_crate::` is not `crate::`.
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c}`: every first segment in the braces (nesting kept simple: the
            // top-level names are those at depth 0).
            let mut depth = 0;
            let mut cur = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        push_first(&mut out, &cur);
                        cur.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    cur.push(c);
                }
            }
            push_first(&mut out, &cur);
        } else {
            push_first(&mut out, rest);
        }
    }
    out
}

fn push_first(out: &mut BTreeSet<String>, s: &str) {
    let name: String = s
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if !name.is_empty() && name != "self" {
        out.insert(name);
    }
}

#[test]
fn imports_go_one_way_and_never_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let allowed = allowed();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for f in &files {
        let module = module_of(&src, f);
        let text = std::fs::read_to_string(f).expect("read source");
        let krate = if module == "main" { "volmnt" } else { "crate" };
        let Some(ok) = allowed.get(module.as_str()) else {
            wrong.push(format!(
                "{}: module `{module}` has no place in the layering (add it to this test and to the README's picture)",
                f.display()
            ));
            continue;
        };
        for m in imports(&text, krate) {
            if m == module {
                continue;
            }
            graph.entry(module.clone()).or_default().insert(m.clone());
            if !ok.contains(&m.as_str()) {
                wrong.push(format!(
                    "{}: `{module}` imports `{m}` (allowed: {})",
                    f.strip_prefix(root).unwrap_or(f).display(),
                    ok.join(", ")
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
    // No loop among top-level modules (depth-first search for a back edge).
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let i = path.iter().position(|p| p == n).unwrap_or(0);
                let mut cycle = path[i..].to_vec();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        let mut path = Vec::new();
        if let Some(c) = visit(n, &graph, &mut state, &mut path) {
            panic!("import loop: {}", c.join(" → "));
        }
    }
    // The test sees the real graph: commands reach the layers below them.
    assert!(graph["commands"].contains("collect") && graph["commands"].contains("diagnose"));
}

#[test]
fn the_import_reader_sees_grouped_and_plain_paths() {
    let got = imports(
        "use crate::{model::Case, parse::{a, b}};\nfn f() { crate::diagnose::x(); }\n// crate::render\n#[cfg(test)]\nmod tests { use crate::commands; }",
        "crate",
    );
    let want: BTreeSet<String> = ["model", "parse", "diagnose"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn command_files_stay_thin() {
    // Each command file reads as collect → diagnose → render: no file over this size, and no
    // orchestration (task pools, retries) in it.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    for e in std::fs::read_dir(&dir).expect("read commands") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("read");
        let code = text.split("\n#[cfg(test)]").next().unwrap_or("");
        assert!(
            !code.contains("buffer_unordered"),
            "{}: a task pool belongs in a collector",
            p.display()
        );
    }
}
