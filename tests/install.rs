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
                // Issue 29: a node that could not be checked never lets the deploy through by
                // default (the job used to allow exit 3).
                assert!(
                    job["allow_failure"].is_null(),
                    "{file}: the preflight job must not allow failures"
                );
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

/// The shell script of the GitHub job's check step (its `run:`), as the runner gets it.
pub(crate) fn github_check_script() -> String {
    let y: serde_yaml::Value =
        serde_yaml::from_str(&read("ci/nfs-preflight.github-actions.yml")).unwrap();
    let steps = y["jobs"]["nfs-preflight"]["steps"].as_sequence().unwrap();
    let step = steps
        .iter()
        .find(|s| s["id"].as_str() == Some("check"))
        .expect("a step with id: check");
    step["run"].as_str().unwrap().to_string()
}

/// The GitLab job's script after volmnt is installed, as the runner runs it: every line in one
/// shell, with errexit (gitlab-runner's bash shell starts with `set -eo pipefail`).
pub(crate) fn gitlab_check_script() -> String {
    let y: serde_yaml::Value =
        serde_yaml::from_str(&read("ci/nfs-preflight.gitlab-ci.yml")).unwrap();
    let lines: Vec<&str> = y["nfs-preflight"]["script"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|l| l.as_str())
        .filter(|l| !l.starts_with("cargo install"))
        .collect();
    format!("set -eo pipefail\n{}\n", lines.join("\n"))
}

/// The job's own default for VOLMNT_ALLOW_UNCHECKED (GitLab's `variables:`).
fn gitlab_default_allow() -> String {
    let y: serde_yaml::Value =
        serde_yaml::from_str(&read("ci/nfs-preflight.gitlab-ci.yml")).unwrap();
    y["nfs-preflight"]["variables"]["VOLMNT_ALLOW_UNCHECKED"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs a job's script with `dir` first on the PATH (where `volmnt` is), in `dir`, with
/// VOLMNT_ALLOW_UNCHECKED set as given; the job's exit code.
pub(crate) fn run_job(script: &str, dir: &Path, allow: &str, env: &[(&str, &str)]) -> i32 {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("--noprofile")
        .arg("--norc")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_OUTPUT", dir.join("github-output"))
        .env("VOLMNT_ALLOW_UNCHECKED", allow)
        .envs(env.iter().copied())
        .output()
        .expect("bash");
    out.status.code().unwrap_or(-1)
}

/// Issue 29: the shipped jobs fail closed. With a `volmnt` that exits 0..3, each job passes only
/// on 0, and on 3 only when VOLMNT_ALLOW_UNCHECKED=true is set explicitly.
#[test]
fn the_shipped_preflight_jobs_fail_closed_unless_told_otherwise() {
    let dir = crate::util::TempDir::new("ci-jobs");
    assert_eq!(gitlab_default_allow(), "false");
    for code in 0..=3 {
        let stub = dir.path().join("volmnt");
        std::fs::write(
            &stub,
            format!("#!/bin/sh\necho '<testsuites/>'\nexit {code}\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
        for (job, script) in [
            ("github", github_check_script()),
            ("gitlab", gitlab_check_script()),
        ] {
            let default = run_job(&script, dir.path(), "false", &[]);
            assert_eq!(
                default == 0,
                code == 0,
                "{job}: volmnt exit {code} -> job {default}"
            );
            let allowed = run_job(&script, dir.path(), "true", &[]);
            assert_eq!(
                allowed == 0,
                code == 0 || code == 3,
                "{job} with VOLMNT_ALLOW_UNCHECKED=true: volmnt exit {code} -> job {allowed}"
            );
            assert!(
                std::fs::read_to_string(dir.path().join("node-check.xml"))
                    .unwrap()
                    .contains("testsuites"),
                "{job}: the report is kept"
            );
        }
    }
}
