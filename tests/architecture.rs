//! The import graph is one-way (issue 11.6, DESIGN.md):
//!
//!   main → commands → collect / diagnose / render / sink → parse → model
//!
//! `cli` holds the argument types that commands read and imports no command or collector;
//! `error` and `redact` sit under everything. This test reads every source file, collects the
//! `crate::<module>` paths it uses outside its `#[cfg(test)]` part, and fails on an import that
//! the layering does not allow, and on any loop between top-level modules.
//!
//! Within the layers (issue 25): no import circle between files (a parent `mod.rs` is a file
//! of its own), no file over 1,500 lines before its unit tests, no function over 200 lines.

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
    let code = production_part(text);
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
                "{}: module `{module}` has no place in the layering (add it to this test and to the picture in docs/architecture.md)",
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
        let code = production_part(&text);
        assert!(
            !code.contains("buffer_unordered"),
            "{}: a task pool belongs in a collector",
            p.display()
        );
    }
}

// --- The house within the layers (issue 25): no circle between files, no giant file or
// function. The layering above only sees top-level modules; two circles inside `diagnose` and
// `parse` went unseen there, so this graph has one node per file (a parent `mod.rs` counts as a
// file of its own: its children must not import from it while it uses them).

/// Where a file's unit tests begin: `#[cfg(test)]` followed by a module. A `#[cfg(test)]` on a
/// single item (a test-only `use`) is production code's neighbour, not its end.
fn production_part(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        let rest = rest.strip_prefix("pub ").unwrap_or(rest);
        if rest.starts_with("mod ") && (at == 0 || text[..at].ends_with('\n')) {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// Module path of a file under src: `src/diagnose/mod.rs` → `diagnose`, `src/parse/probe.rs` →
/// `parse::probe`, `src/lib.rs` → `` (the crate root).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = segs.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs").to_string();
    if stem != "mod" && !(segs.is_empty() && stem == "lib") {
        segs.push(stem);
    }
    segs
}

/// Every path a piece of code names through `use` trees (`a::{b, c::{d}}` → `a::b`, `a::c::d`)
/// or inline (`crate::x::y`, `super::z`, `self::w`).
fn named_paths(code: &str) -> Vec<String> {
    fn expand(tree: &str, out: &mut Vec<String>) {
        let Some(open) = tree.find('{') else {
            out.push(tree.split(" as ").next().unwrap_or(tree).to_string());
            return;
        };
        let close = tree.rfind('}').filter(|c| *c > open).unwrap_or(tree.len());
        let (prefix, inner) = (&tree[..open], &tree[open + 1..close]);
        let (mut depth, mut cur) = (0, String::new());
        for c in inner.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if !cur.is_empty() {
                        expand(&format!("{prefix}{cur}"), out);
                    }
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            expand(&format!("{prefix}{cur}"), out);
        }
    }
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    // `use` items start a line (after `pub`, `pub(crate)`); a "use " inside a string or a
    // comment is no import.
    let lines: Vec<&str> = code.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let l = line.trim_start();
        let l = l
            .strip_prefix("pub(crate) ")
            .or_else(|| l.strip_prefix("pub(super) "))
            .or_else(|| l.strip_prefix("pub "))
            .unwrap_or(l);
        let Some(tree) = l.strip_prefix("use ") else {
            continue;
        };
        let mut text = tree.to_string();
        let mut j = i + 1;
        while !text.contains(';') && j < lines.len() {
            text.push_str(lines[j]);
            j += 1;
        }
        let end = text.find(';').unwrap_or(text.len());
        let tree: String = text[..end].chars().filter(|c| !c.is_whitespace()).collect();
        expand(&tree, &mut out);
    }
    for start in ["crate::", "super::", "self::", "volmnt::"] {
        let mut rest = code.as_str();
        while let Some(i) = rest.find(start) {
            let before = rest[..i].chars().last();
            let tail = &rest[i..];
            rest = &rest[i + start.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_string());
        }
    }
    out
}

/// The file-level import graph: module path → the other modules (files) its production code
/// names.
fn file_graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_path(&src, f), f.clone()))
        .collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (me, file) in &modules {
        let text = std::fs::read_to_string(file).expect("read source");
        let code = production_part(&text);
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let l = l
                    .strip_prefix("pub(crate) ")
                    .or_else(|| l.strip_prefix("pub "))
                    .unwrap_or(l);
                let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
                Some(name.trim().to_string())
            })
            .collect();
        let edges = graph.entry(me.clone()).or_default();
        for p in named_paths(code) {
            let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
            let Some(first) = segs.first() else { continue };
            let (mut base, rest): (Vec<String>, &[&str]) = match *first {
                "crate" | "volmnt" => (Vec::new(), &segs[1..]),
                "self" => (me.clone(), &segs[1..]),
                "super" => {
                    let mut b = me.clone();
                    b.pop();
                    let mut r = &segs[1..];
                    while r.first() == Some(&"super") {
                        b.pop();
                        r = &r[1..];
                    }
                    (b, r)
                }
                c if children.contains(c) => (me.clone(), &segs[..]),
                _ => continue,
            };
            base.extend(rest.iter().map(|s| s.to_string()));
            // The longest prefix that is a file: `crate::parse::probe::parse` → parse::probe.
            while !base.is_empty() && !modules.contains_key(&base) {
                base.pop();
            }
            if &base != me && modules.contains_key(&base) {
                edges.insert(base);
            }
        }
    }
    graph
}

/// Strongly connected components of more than one file (Tarjan's algorithm).
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a Vec<String>) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = t.g.get_key_value(w).map(|(k, _)| k).unwrap_or(w);
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(if w.is_empty() {
                    "lib".to_string()
                } else {
                    w.join("::")
                });
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_circle_between_files() {
    let graph = file_graph();
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles between files (each line: files that reach each other; move what they share into a lower module):\n{}",
        found
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The reader sees the real graph: the engine reaches the catalogue, probe the readers.
    let diagnose = graph
        .get(&vec!["diagnose".to_string()])
        .expect("diagnose/mod.rs");
    assert!(diagnose
        .iter()
        .any(|m| m.first().is_some_and(|f| f == "diagnose") && m.len() == 2));
}

#[test]
fn the_file_graph_reader_finds_a_circle_and_its_edges() {
    let code = "use super::{catalogue::Cause, steps};\nuse crate::parse::probe::parse;\nfn f() { self::x::y(); crate::model::Case::default(); }\n#[cfg(test)]\nuse crate::render;\nfn g() {}\n#[cfg(test)]\nmod tests { use crate::commands; }";
    let prod = production_part(code);
    assert!(prod.contains("fn g()") && !prod.contains("crate::commands"));
    let paths = named_paths(prod);
    for want in [
        "super::catalogue::Cause",
        "super::steps",
        "crate::parse::probe::parse",
        "self::x::y",
        "crate::model::Case::default",
        "crate::render",
    ] {
        assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
    }
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let g = BTreeMap::from([
        (m("a::b"), BTreeSet::from([m("a::c")])),
        (m("a::c"), BTreeSet::from([m("a::b"), m("d")])),
        (m("d"), BTreeSet::new()),
    ]);
    assert_eq!(
        circles(&g),
        vec![vec!["a::b".to_string(), "a::c".to_string()]]
    );
}

/// Lines of a file before its unit tests.
const MAX_FILE_LINES: usize = 1500;
/// Lines of one function, outside data tables (a `static`/`const` table is not a function).
const MAX_FN_LINES: usize = 200;

/// Each `fn` of a piece of code with its length in lines (from its signature to its closing
/// brace), counted by braces outside strings, chars and comments.
fn function_lengths(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let (mut depth, mut started) = (0i64, false);
        let mut end = None;
        'scan: for (j, l) in lines.iter().enumerate().skip(i) {
            let l = strip_literals(l);
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        started = true;
                    }
                    '}' => depth -= 1,
                    ';' if !started && depth == 0 => break 'scan,
                    _ => {}
                }
                if started && depth == 0 {
                    end = Some(j);
                    break 'scan;
                }
            }
        }
        if let Some(end) = end {
            out.push((name, end - i + 1));
        }
    }
    out
}

/// `    pub(crate) async fn name<T>(` → `name`.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "async" | "const" | "unsafe" | "extern" | "\"C\"" => continue,
            w if w.starts_with("pub(") => continue,
            "fn" => {
                let name: String = words
                    .next()?
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                return (!name.is_empty()).then_some(name);
            }
            _ => return None,
        }
    }
    None
}

/// A line with its string and char literals emptied and its `//` comment cut.
fn strip_literals(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A char literal ('{', '\n') or a lifetime ('a): a literal closes within 3.
                let ahead: String = chars.clone().take(3).collect();
                if let Some(escaped) = ahead.strip_prefix('\\') {
                    let close = escaped.find('\'').map(|k| k + 2).unwrap_or(0);
                    for _ in 0..close {
                        chars.next();
                    }
                } else if ahead.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn no_giant_file_or_function() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut over = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read source");
        let code = production_part(&text);
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
        let n = code.lines().count();
        if n > MAX_FILE_LINES {
            over.push(format!(
                "{rel}: {n} lines before its tests (at most {MAX_FILE_LINES})"
            ));
        }
        for (name, len) in function_lengths(code) {
            if len > MAX_FN_LINES {
                over.push(format!(
                    "{rel}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(
        over.is_empty(),
        "split these along their seams:\n{}",
        over.join("\n")
    );
}

#[test]
fn function_lengths_count_braces_outside_literals() {
    let code = "fn a() {\n    let s = \"}}}\";\n    let c = '{';\n}\npub(crate) async fn b<'a>(x: &'a str) -> usize {\n    // }\n    x.len()\n}\nfn decl();\n";
    assert_eq!(
        function_lengths(code),
        vec![("a".to_string(), 4), ("b".to_string(), 4)]
    );
}
