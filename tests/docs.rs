//! Documentation that cannot drift from the tool (issue 29): every `volmnt` example of the
//! README, the guides and the man pages parses as this build's command line does; the README's
//! real report and the reference's real JSON are what this build prints; the cause ids listed
//! in the reference are the catalogue's; the status values the docs name are the schema's.
//! (The Event message the watch guide shows is checked by tests/watch.rs against the Event
//! the watch writes.)

use std::path::{Path, PathBuf};

use clap::Parser;
use serde_json::Value;

use crate::util::run;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// README.md and every Markdown file under docs/.
fn markdown_files() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of each fenced block of one of `langs` in a Markdown text.
fn fenced(text: &str, langs: &[&str]) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut inside: Option<bool> = None;
    let mut cur = Vec::new();
    for l in text.lines() {
        if let Some(rest) = l.trim_start().strip_prefix("```") {
            match inside {
                Some(keep) => {
                    if keep {
                        blocks.push(std::mem::take(&mut cur));
                    }
                    cur.clear();
                    inside = None;
                }
                None => inside = Some(langs.contains(&rest.trim())),
            }
            continue;
        }
        if inside == Some(true) {
            cur.push(l.to_string());
        }
    }
    blocks
}

/// Split a shell line into words as sh would (quotes, backslashes), up to the first unquoted
/// comment, pipe, redirection or `;`/`&&`.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut w = String::new();
    let mut has = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                has = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                w.push(n);
                            }
                        }
                        _ => w.push(c),
                    }
                }
            }
            '\\' => {
                has = true;
                if let Some(n) = chars.next() {
                    w.push(n);
                }
            }
            '#' if !has => break,
            '|' | '>' | '<' | ';' | '&' if !has => break,
            c if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut w));
                    has = false;
                }
            }
            _ => {
                has = true;
                w.push(c);
            }
        }
    }
    if has {
        // A redirection glued to a word (`2>/dev/null`) ends the command there too.
        out.push(w);
    }
    out
}

/// The `volmnt ...` (or `kubectl volmnt ...`) command in a shell line, as words; None when the
/// line runs no volmnt.
fn volmnt_command(line: &str) -> Option<Vec<String>> {
    let line = line.trim().trim_start_matches("$ ");
    // The part of a pipeline that runs volmnt.
    let part = line
        .split(" | ")
        .find(|p| {
            let p = p.trim_start();
            p.starts_with("volmnt ") || p.starts_with("kubectl volmnt ")
        })?
        .trim_start();
    let part = part.strip_prefix("kubectl ").unwrap_or(part);
    let w = words(part);
    (w.first().map(String::as_str) == Some("volmnt")).then_some(w)
}

/// Every volmnt command line shown in the Markdown docs (shell blocks) and the man pages'
/// examples: (where, words).
fn examples() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for f in markdown_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(root()).unwrap().display().to_string();
        for block in fenced(&text, &["sh", "bash", "shell", "console"]) {
            // Lines continued with a backslash are one command.
            let joined = block.join("\n").replace("\\\n", " ");
            for l in joined.lines() {
                if let Some(w) = volmnt_command(l) {
                    out.push((format!("{name}: {}", l.trim()), w));
                }
            }
        }
    }
    for e in std::fs::read_dir(root().join("man")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        for l in text.lines() {
            if !l.starts_with("  volmnt ") {
                continue;
            }
            let l = l
                .replace("\\-", "-")
                .replace("\\*(Aq", "'")
                .replace("\\(aq", "'")
                .replace("\\\\", "\\");
            if let Some(w) = volmnt_command(&l) {
                out.push((format!("{name}: {}", l.trim()), w));
            }
        }
    }
    out
}

#[test]
fn the_tokenizer_reads_lines_as_sh_does() {
    assert_eq!(
        words("volmnt explain 'a \"b\" c' -o json  # comment"),
        ["volmnt", "explain", "a \"b\" c", "-o", "json"]
    );
    assert_eq!(
        words("volmnt node check --all -o junit > node-check.xml"),
        ["volmnt", "node", "check", "--all", "-o", "junit"]
    );
    assert_eq!(
        volmnt_command("kubectl describe pod web-0 -n shop | volmnt doctor pod --from-file -"),
        Some(
            ["volmnt", "doctor", "pod", "--from-file", "-"]
                .map(String::from)
                .to_vec()
        )
    );
    assert_eq!(volmnt_command("cargo install --path ."), None);
}

/// Every example parses with this build's command line (kubectl's habits included), so a
/// renamed or removed flag cannot stay in the docs.
#[test]
fn every_documented_example_parses() {
    let all = examples();
    assert!(all.len() >= 40, "too few examples found: {}", all.len());
    let mut bad = Vec::new();
    for (where_, w) in &all {
        let args = volmnt::cli::argv::normalize(w.iter().map(Into::into).collect());
        match volmnt::cli::Cli::try_parse_from(args) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) => {}
            Err(e) => bad.push(format!(
                "{where_}\n    {}",
                e.to_string().lines().next().unwrap_or("")
            )),
        }
    }
    assert!(
        bad.is_empty(),
        "examples this build refuses:\n{}",
        bad.join("\n")
    );
}

/// The examples that need no cluster (`--example`, `explain`, `completions`) run, and end as
/// a diagnosis does: 0 or 1, never a usage or input error.
#[test]
fn every_documented_example_that_needs_no_cluster_runs() {
    let offline: Vec<(String, Vec<String>)> = examples()
        .into_iter()
        .filter(|(_, w)| {
            w.iter().any(|x| x == "--example")
                || matches!(
                    w.get(1).map(String::as_str),
                    Some("explain" | "completions")
                )
        })
        .filter(|(_, w)| !w.iter().any(|x| x == "-"))
        .collect();
    assert!(offline.len() >= 4, "{offline:?}");
    for (where_, w) in offline {
        let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
        let out = run(&args);
        out.assert_no_panic();
        assert!(
            out.code == 0 || out.code == 1,
            "{where_}: exit {}\n{}",
            out.code,
            out.stderr
        );
    }
}

/// The report the README shows is the one this build prints.
#[test]
fn the_readme_report_is_what_this_build_prints() {
    let readme = read("README.md");
    let section = readme
        .split("## One real report")
        .nth(1)
        .expect("README has its real report");
    let block = &fenced(section, &["text"])[0];
    let out = run(&["doctor", "pod", "--example", "nfs"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let shown = block.join("\n");
    assert_eq!(
        shown.trim_end(),
        out.stdout.trim_end(),
        "README.md's report differs from `volmnt doctor pod --example nfs`: paste the new output"
    );
}

/// Whether `doc` (the reference's example, where `"..."` in a list stands for the items left
/// out and a string ending in `...` for its cut tail) shows `actual`; the path of the first
/// difference.
fn shows(doc: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (doc, actual) {
        (Value::String(d), Value::String(a)) if d.ends_with("...") => a
            .starts_with(d.trim_end_matches("..."))
            .then_some(())
            .ok_or(format!("{path}: {a:?} does not start with {d:?}")),
        (Value::Array(d), Value::Array(a)) => {
            for (i, x) in d.iter().enumerate() {
                if x == "..." {
                    return Ok(());
                }
                let y = a.get(i).ok_or(format!("{path}[{i}]: missing"))?;
                shows(x, y, &format!("{path}[{i}]"))?;
            }
            (d.len() == a.len()).then_some(()).ok_or(format!(
                "{path}: {} items, the doc shows {}",
                a.len(),
                d.len()
            ))
        }
        (Value::Object(d), Value::Object(a)) => {
            let dk: Vec<&String> = d.keys().collect();
            let ak: Vec<&String> = a.keys().collect();
            if dk != ak {
                return Err(format!("{path}: fields {ak:?}, the doc shows {dk:?}"));
            }
            for (k, v) in d {
                shows(v, &a[k], &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        _ => (doc == actual)
            .then_some(())
            .ok_or(format!("{path}: {actual}, the doc shows {doc}")),
    }
}

/// The JSON document the reference shows is what this build prints, field for field.
#[test]
fn the_reference_json_is_what_this_build_prints() {
    let reference = read("docs/reference.md");
    let section = reference
        .split("## JSON output")
        .nth(1)
        .expect("reference.md has its JSON section");
    let block = &fenced(section, &["json"])[0];
    let doc: Value = serde_json::from_str(&block.join("\n")).expect("the example is JSON");
    let out = run(&["doctor", "pod", "--example", "nfs", "-o", "json"]);
    let actual = out.json();
    if let Err(e) = shows(&doc, &actual, "$") {
        panic!(
            "docs/reference.md's JSON differs from `volmnt doctor pod --example nfs -o json`: {e}"
        );
    }
}

/// The cause ids the reference lists are the catalogue's, in its order, with its titles and
/// its symptom marks, and the count it gives is theirs.
#[test]
fn the_reference_lists_every_cause_id_of_the_catalogue() {
    let k: serde_yaml::Value = serde_yaml::from_str(&read("src/diagnose/knowledge.yaml")).unwrap();
    let catalogue: Vec<(String, String, bool)> = k["causes"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["title"].as_str().unwrap().trim().to_string(),
                c["symptom"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    let reference = read("docs/reference.md");
    let section = reference
        .split("## Cause ids")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let listed: Vec<(String, String, bool)> = section
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.strip_prefix("| `")?.splitn(2, " | ").collect();
            let (id_cell, title) = (cells.first()?, cells.get(1)?);
            let id = id_cell.split('`').next()?.to_string();
            Some((
                id,
                title.trim_end_matches('|').trim().to_string(),
                id_cell.contains("*(symptom)*"),
            ))
        })
        .collect();
    assert_eq!(
        listed, catalogue,
        "docs/reference.md's cause ids table is not src/diagnose/knowledge.yaml's causes"
    );
    assert!(
        section.contains(&format!("({} today)", catalogue.len())),
        "docs/reference.md says how many cause ids there are: {}",
        catalogue.len()
    );
}

/// Every `"status": "..."` the docs show, and the values the reference names for each
/// document, are the schema's.
#[test]
fn the_status_values_in_the_docs_are_the_schemas() {
    let schema: Value = serde_json::from_str(&read("schema/volmnt.schema.json")).unwrap();
    let enum_of = |def: &str| -> Vec<String> {
        schema["$defs"][def]["properties"]["status"]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("schema $defs.{def}.status has an enum"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let report = enum_of("report");
    let node_check = enum_of("node_check");
    assert_eq!(enum_of("namespace"), report);
    let re = regex::Regex::new(r#""status": "([a-z-]+)""#).unwrap();
    for f in markdown_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        for c in re.captures_iter(&text) {
            assert!(
                report.contains(&c[1].to_string()) || node_check.contains(&c[1].to_string()),
                "{}: \"status\": {:?} is not a value the tool prints ({report:?}, {node_check:?})",
                f.display(),
                &c[1]
            );
        }
    }
    let reference = read("docs/reference.md");
    // "`status` is the headline, which decides the exit code: `ok` (0), `stuck` (1), ..."
    let headline = reference
        .split("- `status` is the headline")
        .nth(1)
        .expect("the reference says what status is")
        .split("`diagnosis`")
        .next()
        .unwrap();
    let named: Vec<String> = regex::Regex::new(r"`([a-z]+)`\s+\(\d")
        .unwrap()
        .captures_iter(headline)
        .map(|c| c[1].to_string())
        .collect();
    assert_eq!(named, report, "docs/reference.md's status values");
    // node check's: "`status` (`pass`, `fail`, `problem`, `unreachable`)".
    let line = reference
        .lines()
        .find(|l| l.starts_with("| `node check` | `node_check`"))
        .expect("the reference's node check row");
    let named: Vec<String> = regex::Regex::new(r"`status` \(([^)]*)\)")
        .unwrap()
        .captures(line)
        .expect("node check's status values")[1]
        .split(", ")
        .map(|s| s.trim_matches('`').to_string())
        .collect();
    assert_eq!(
        named, node_check,
        "docs/reference.md's node check status values"
    );
}

/// The top-level fields the reference lists for each JSON document are the schema's (its
/// properties, whatever the order).
#[test]
fn the_reference_lists_the_fields_of_each_document_as_the_schema_does() {
    let schema: Value = serde_json::from_str(&read("schema/volmnt.schema.json")).unwrap();
    let reference = read("docs/reference.md");
    let row = regex::Regex::new(r"^\| `[a-z ]+` \| `([a-z_]+)` \| (.*) \|$").unwrap();
    let parens = regex::Regex::new(r"\([^()]*\)").unwrap();
    let field = regex::Regex::new(r"`([a-z_]+)`").unwrap();
    let mut checked = 0;
    for l in reference.lines() {
        let Some(c) = row.captures(l) else { continue };
        let (def, fields) = (&c[1], &c[2]);
        // `explain` holds reports and `rbd unlock` is `rbd status` plus more: said in words.
        if fields.starts_with("the same") || def == "explain" {
            continue;
        }
        let top = parens.replace_all(fields, "");
        let listed: Vec<String> = field
            .captures_iter(&top)
            .map(|c| c[1].to_string())
            .collect();
        let mut listed = listed;
        listed.sort();
        let mut properties: Vec<String> = schema["$defs"][def]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("schema $defs.{def} has properties"))
            .keys()
            .cloned()
            .collect();
        properties.sort();
        assert_eq!(listed, properties, "docs/reference.md's fields of {def}");
        checked += 1;
    }
    assert!(checked >= 4, "{checked} documents checked");
}

/// Every metric the watch exports is in the watch guide's table (a histogram by its name).
#[test]
fn the_watch_guide_lists_every_metric() {
    let source = read("src/sink/metrics.rs");
    let guide = read("docs/guide/watch.md");
    let re = regex::Regex::new(r#""(volmnt_[a-z_]+)"#).unwrap();
    let mut names: Vec<String> = re
        .captures_iter(&source)
        .map(|c| {
            let n = &c[1];
            ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| n.strip_suffix(s))
                .unwrap_or(n)
                .to_string()
        })
        .collect();
    names.sort();
    names.dedup();
    assert!(names.len() >= 10, "{names:?}");
    for n in names {
        assert!(
            guide.contains(&format!("| `{n}`")) || guide.contains(&format!("| `{n}{{")),
            "docs/guide/watch.md does not list {n}"
        );
    }
}
