//! Bounded inputs (issue 11): every pathological shape is refused with one clear line, or read
//! within its stated limit, never a panic, a hang or an allocation many times its size. The
//! figures (seconds, peak RSS) are printed by `scripts/bench-pathological.sh` against the
//! release binary; here the behaviour is checked: the error says what the limit is, the notes
//! say what was left out.

use crate::util::{cmd, run_cmd, Out, TempDir};

fn doctor_on(dir: &TempDir, name: &str, text: &str, extra: &[&str]) -> Out {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let mut c = cmd();
    c.args(["doctor", "pod", "--offline", "-f"])
        .arg(&path)
        .args(extra);
    let out = run_cmd(&mut c, None);
    out.assert_no_panic();
    out
}

fn first_error_line(out: &Out) -> &str {
    out.stderr.lines().next().unwrap_or("")
}

/// Exit 2, and the first line of the error says the nesting limit.
fn assert_refused_as_too_deep(out: &Out) {
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        first_error_line(out).contains("nested more than 256 levels deep"),
        "{}",
        out.stderr
    );
}

#[test]
fn deep_nesting_is_refused_before_any_parse() {
    let dir = TempDir::new("bounds-nesting");
    // 50,000 nested flow sequences in a 100 KB pod: quadratic in the YAML parser.
    let flow = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: x}}\nspec: {}{}\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let out = doctor_on(&dir, "flow.yaml", &flow, &[]);
    assert_refused_as_too_deep(&out);
    // Block sequences opened on one line, the same depth without brackets.
    let block = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: x}}\nspec:\n  {}x\n",
        "- ".repeat(30_000)
    );
    let out = doctor_on(&dir, "block.yaml", &block, &[]);
    assert_refused_as_too_deep(&out);
    // 100,000 nested JSON arrays: serde_json's own depth limit, one line.
    let json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let out = doctor_on(&dir, "deep.json", &json, &[]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.lines().count() <= 3, "{}", out.stderr);
}

#[test]
fn deep_json_nesting_is_refused_the_same_way() {
    let dir = TempDir::new("bounds-json-nesting");
    let json = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{{\"name\":\"x\"}},\"spec\":{}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let out = doctor_on(&dir, "deep.json", &json, &[]);
    assert_refused_as_too_deep(&out);
}

/// More objects than a case can need (documents, or the items of a list) are refused with the
/// limit named, before they are all held in memory.
#[test]
fn more_objects_than_the_limit_are_refused() {
    let dir = TempDir::new("bounds-objects");
    let items: Vec<String> = (0..50_001)
        .map(|i| format!("{{\"metadata\":{{\"name\":\"c{i}\",\"namespace\":\"shop\"}}}}"))
        .collect();
    let list = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMapList\",\"items\":[{}]}}",
        items.join(",")
    );
    let out = doctor_on(&dir, "many.json", &list, &[]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        first_error_line(&out).contains("more than 50000 objects"),
        "{}",
        out.stderr
    );
    // At the limit it is read (and says there is nothing to diagnose in ConfigMaps alone).
    let list = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMapList\",\"items\":[{}]}}",
        items[..50_000].join(",")
    );
    let out = doctor_on(&dir, "enough.json", &list, &[]);
    assert!(
        !out.stderr.contains("more than 50000 objects"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_yaml_alias_bomb_is_refused() {
    let dir = TempDir::new("bounds-bomb");
    let mut y = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10u8 {
        let (p, c) = ((b'a' + i - 1) as char, (b'a' + i) as char);
        y.push_str(&format!(
            "  {c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
        ));
    }
    let out = doctor_on(&dir, "bomb.yaml", &y, &[]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(
        first_error_line(&out).contains("repetition limit exceeded"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_50_mb_single_line_is_read_and_quoted_short() {
    let dir = TempDir::new("bounds-line");
    let line = format!(
        "E1125 00:00:00.000000 1 x.go:1] MountVolume.SetUp failed for volume \"v\" : {}\n",
        "x".repeat(50_000_000)
    );
    let out = doctor_on(&dir, "long.log", &line, &["-o", "json"]);
    assert!(out.code <= 1, "{out:#?}");
    // Evidence quotes a window of the line, not 50 MB of it.
    assert!(
        out.stdout.len() < 200_000,
        "{} bytes of output",
        out.stdout.len()
    );
}

#[test]
fn a_huge_event_table_is_read_from_its_newest_rows() {
    let dir = TempDir::new("bounds-events");
    let rows = 200_000;
    let mut t = String::from("LAST SEEN   TYPE      REASON        OBJECT          MESSAGE\n");
    for i in 0..rows {
        t.push_str(&format!("2m          Warning   FailedMount   pod/web-0       MountVolume.SetUp failed for volume \"pvc-{i}\" : mount failed: exit status 32\n"));
    }
    let out = doctor_on(&dir, "events.txt", &t, &["-o", "json"]);
    assert!(out.code <= 1, "{out:#?}");
    let notes = out.json()["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "has {} more rows than the 20000 newest read",
            rows - 20_000
        )),
        "{notes}"
    );

    // The same in a describe's Events section.
    let describe = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/seed/nfs-describe-pod.txt"
    ))
    .unwrap();
    let mut d = describe[..describe.find("\nEvents:").unwrap()].to_string();
    d.push_str("\nEvents:\n  Type     Reason       Age   From            Message\n  ----     ------       ----  ----            -------\n");
    for _ in 0..rows {
        d.push_str("  Warning  FailedMount  2m    kubelet, node1  MountVolume.SetUp failed for volume \"pvc-1\" : mount failed: exit status 32\n");
    }
    let out = doctor_on(&dir, "describe.txt", &d, &["-o", "json"]);
    assert!(out.code <= 1, "{out:#?}");
    let notes = out.json()["notes"].to_string();
    assert!(
        notes.contains("more rows than the 20000 newest read"),
        "{notes}"
    );
}

#[test]
fn an_input_over_the_size_limit_is_refused_with_the_limit_named() {
    let dir = TempDir::new("bounds-size");
    let big = "x".repeat(2 * 1024 * 1024);
    let out = doctor_on(&dir, "big.txt", &big, &["--max-input-mib", "1"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(first_error_line(&out).contains("MiB"), "{}", out.stderr);
}

/// Every input the fuzzers found a problem with, minimized into fixtures/fuzz/<target>/, is
/// replayed through volmnt end to end: it must end in a report or one clear error.
#[test]
fn fuzz_findings_stay_fixed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz");
    assert!(
        root.join("README.md").is_file(),
        "fixtures/fuzz/README.md says how findings get here"
    );
    let mut replayed = 0;
    for target in std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
    {
        for f in std::fs::read_dir(target.path()).unwrap().flatten() {
            let p = f.path();
            for args in [
                &["doctor", "pod", "--offline", "-f"][..],
                &["explain", "-"][..],
            ] {
                let mut c = cmd();
                c.args(args);
                let stdin = std::fs::read(&p).unwrap();
                let out = if args[0] == "explain" {
                    run_cmd(&mut c, Some(&stdin))
                } else {
                    c.arg(&p);
                    run_cmd(&mut c, None)
                };
                out.assert_no_panic();
                assert!(out.code <= 3, "{}: {out:#?}", p.display());
            }
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} fuzz finding(s)");
}
