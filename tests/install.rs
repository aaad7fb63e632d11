//! Installing volmnt as users of a kubectl plugin expect: the krew manifest is valid by krew's
//! rules, and the CI preflight jobs we publish (GitLab, GitHub Actions) are valid YAML whose
//! volmnt command lines parse with volmnt's own command line.

use std::path::Path;

use clap::Parser;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// krew's rules for a plugin manifest (krew.sigs.k8s.io/docs/developer-guide/plugin-manifest and
/// krew's pkg/index/validation): apiVersion/kind, a name that matches the file, a `v`-prefixed
/// semantic version, a short description, and platforms each with a selector, an https uri, a
/// sha256 of 64 hex digits, a bin that is among the files installed (with .exe on Windows).
fn krew_errors(manifest: &serde_yaml::Value, file_stem: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let s = |v: &serde_yaml::Value| v.as_str().unwrap_or("").to_string();
    if s(&manifest["apiVersion"]) != "krew.googlecontainertools.github.com/v1alpha2" {
        errs.push("apiVersion must be krew.googlecontainertools.github.com/v1alpha2".into());
    }
    if s(&manifest["kind"]) != "Plugin" {
        errs.push("kind must be Plugin".into());
    }
    let name = s(&manifest["metadata"]["name"]);
    if name != file_stem {
        errs.push(format!(
            "metadata.name {name:?} must match the file name {file_stem:?}"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        || name.is_empty()
    {
        errs.push(format!("metadata.name {name:?} is not a valid plugin name"));
    }
    let spec = &manifest["spec"];
    let version = s(&spec["version"]);
    let semver = version.strip_prefix('v').is_some_and(|v| {
        let core = v.split(['-', '+']).next().unwrap_or("");
        let parts: Vec<&str> = core.split('.').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    });
    if !semver {
        errs.push(format!(
            "spec.version {version:?} must be a semantic version with a v prefix"
        ));
    }
    if s(&spec["shortDescription"]).is_empty() {
        errs.push("spec.shortDescription is required".into());
    }
    let platforms = spec["platforms"].as_sequence().cloned().unwrap_or_default();
    if platforms.is_empty() {
        errs.push("spec.platforms must not be empty".into());
    }
    for (i, p) in platforms.iter().enumerate() {
        let sel = &p["selector"];
        if sel["matchLabels"].as_mapping().is_none_or(|m| m.is_empty())
            && sel["matchExpressions"]
                .as_sequence()
                .is_none_or(|m| m.is_empty())
        {
            errs.push(format!("platform {i}: a selector is required"));
        }
        let os = s(&sel["matchLabels"]["os"]);
        if !os.is_empty() && !["linux", "darwin", "windows"].contains(&os.as_str()) {
            errs.push(format!("platform {i}: unknown os {os:?}"));
        }
        let uri = s(&p["uri"]);
        if !uri.starts_with("https://") || !(uri.ends_with(".tar.gz") || uri.ends_with(".zip")) {
            errs.push(format!(
                "platform {i}: uri {uri:?} must be an https .tar.gz or .zip"
            ));
        }
        let sha = s(&p["sha256"]);
        if sha.len() != 64
            || !sha
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            errs.push(format!(
                "platform {i}: sha256 {sha:?} must be 64 lowercase hex digits"
            ));
        }
        let bin = s(&p["bin"]);
        if bin.is_empty() {
            errs.push(format!("platform {i}: bin is required"));
        }
        if os == "windows" && !bin.ends_with(".exe") {
            errs.push(format!("platform {i}: a Windows bin must end in .exe"));
        }
        let files = p["files"].as_sequence().cloned().unwrap_or_default();
        let installs_bin = files.is_empty()
            || files.iter().any(|f| {
                let from = s(&f["from"]);
                from.trim_start_matches("./") == bin || from == "*" || from.ends_with("/*")
            });
        if !installs_bin {
            errs.push(format!(
                "platform {i}: bin {bin:?} is not among the files installed"
            ));
        }
        for f in &files {
            if s(&f["from"]).is_empty() || s(&f["to"]).is_empty() {
                errs.push(format!("platform {i}: every file needs from and to"));
            }
        }
    }
    errs
}

#[test]
fn the_krew_manifest_follows_krews_rules() {
    let text = read("plugins/volmnt.yaml");
    let m: serde_yaml::Value = serde_yaml::from_str(&text).expect("plugins/volmnt.yaml is YAML");
    let errs = krew_errors(&m, "volmnt");
    assert!(errs.is_empty(), "plugins/volmnt.yaml: {errs:#?}");
    // The manifest is for the version being built.
    assert_eq!(
        m["spec"]["version"].as_str(),
        Some(format!("v{}", env!("CARGO_PKG_VERSION")).as_str())
    );
    // When this checkout built the archives (scripts/release-archives.sh), the manifest pins them.
    for p in m["spec"]["platforms"].as_sequence().into_iter().flatten() {
        let uri = p["uri"].as_str().unwrap();
        let file = uri.rsplit('/').next().unwrap();
        let local = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("dist")
            .join(file);
        if let Ok(sum) = std::fs::read_to_string(format!("{}.sha256", local.display())) {
            assert_eq!(
                sum.split_whitespace().next(),
                p["sha256"].as_str(),
                "{file}: the manifest's sha256 is not that of dist/{file}"
            );
        }
    }
}

#[test]
fn the_validator_rejects_what_krew_rejects() {
    let bad: serde_yaml::Value = serde_yaml::from_str(
        "apiVersion: v1\nkind: Plugin\nmetadata: {name: other}\nspec:\n  version: 0.1.0\n  platforms:\n  - uri: http://x/a.tar.gz\n    sha256: abc\n    bin: kubectl-volmnt\n    selector: {matchLabels: {os: windows}}\n    files: [{from: ./other, to: .}]\n",
    )
    .unwrap();
    let errs = krew_errors(&bad, "volmnt");
    for want in [
        "apiVersion",
        "match the file",
        "semantic version",
        "shortDescription",
        "https",
        "sha256",
        ".exe",
        "not among the files",
    ] {
        assert!(
            errs.iter().any(|e| e.contains(want)),
            "no error about {want}: {errs:#?}"
        );
    }
}

/// Every `volmnt ...` command line in a CI file (shell lines of script:/run: entries).
fn volmnt_lines(yaml: &serde_yaml::Value) -> Vec<String> {
    fn walk(v: &serde_yaml::Value, out: &mut Vec<String>) {
        match v {
            serde_yaml::Value::String(s) => {
                for line in s.lines() {
                    let line = line.trim();
                    if let Some(rest) = line.strip_prefix("- ") {
                        if rest.starts_with("volmnt ") {
                            out.push(rest.to_string());
                        }
                    } else if line.starts_with("volmnt ") {
                        out.push(line.to_string());
                    }
                }
            }
            serde_yaml::Value::Sequence(s) => s.iter().for_each(|x| walk(x, out)),
            serde_yaml::Value::Mapping(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(yaml, &mut out);
    out
}

/// The words of a shell command line up to a redirection or a comment (no quoting in ours).
fn argv(line: &str) -> Vec<String> {
    line.split_whitespace()
        .take_while(|w| !w.starts_with('>') && !w.starts_with('#') && *w != "|" && *w != "&&")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_ci_preflight_jobs_parse_and_run_valid_volmnt_commands() {
    for (file, kind) in [
        ("ci/nfs-preflight.gitlab-ci.yml", "gitlab"),
        ("ci/nfs-preflight.github-actions.yml", "github"),
    ] {
        let y: serde_yaml::Value =
            serde_yaml::from_str(&read(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        match kind {
            "gitlab" => {
                let job = &y["nfs-preflight"];
                assert!(job["script"].is_sequence(), "{file}: no script");
                assert_eq!(
                    job["artifacts"]["reports"]["junit"].as_str(),
                    Some("node-check.xml")
                );
                assert_eq!(job["allow_failure"]["exit_codes"][0].as_u64(), Some(3));
            }
            _ => {
                let job = &y["jobs"]["nfs-preflight"];
                assert!(job["steps"].is_sequence(), "{file}: no steps");
                assert_eq!(y["jobs"]["deploy"]["needs"].as_str(), Some("nfs-preflight"));
            }
        }
        let lines = volmnt_lines(&y);
        assert!(!lines.is_empty(), "{file}: no volmnt command");
        for line in &lines {
            let words = argv(line);
            let cli = volmnt::cli::Cli::try_parse_from(&words)
                .unwrap_or_else(|e| panic!("{file}: `{line}` does not parse: {e}"));
            // The preflight is a node check that requires NFS and reports JUnit.
            assert!(
                matches!(cli.command, volmnt::cli::Command::Node(_)),
                "{file}: {line}"
            );
            assert!(
                line.contains("--require nfs") && line.contains("-o junit"),
                "{file}: {line}"
            );
        }
    }
    // The README shows the GitLab job from the file, not a copy that can drift.
    assert!(read("README.md").contains("ci/nfs-preflight.gitlab-ci.yml"));
}
