//! The structure inside a volume error message: which operation failed, for which volume and pod,
//! the mount command kubelet or the CSI driver ran, its exit status and mount's own output.
//!
//! Shapes handled (all seen in real messages, see fixtures/corpus):
//! - `MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32\nMounting
//!   command: systemd-run\nMounting arguments: --description=... --scope -- mount -t nfs SRC DST\n
//!   Output: ...` (kubelet ≥ 1.9, mount-utils `MountErrorValue`);
//! - the 1.7-era order `Mounting arguments: SRC DST FSTYPE [OPTIONS]`;
//! - `... (UniqueName: "kubernetes.io/csi/DRIVER^HANDLE") pod "P" (UID: "U") : rpc error: code =
//!   Internal desc = ...` (CSI), and `(spec.Name: "x") pod "U" (UID: "U") with: ...` (≤ 1.8);
//! - the same text flattened onto one line, or with `\"` escapes from a klog line.

use serde::Serialize;
use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// The mount command found in a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MountCommand {
    /// `systemd-run` or `mount` (as kubelet reports it).
    pub command: Option<String>,
    pub fstype: Option<String>,
    pub source: Option<String>,
    pub target: Option<String>,
    /// Options as given (`-o a,b`); secrets are redacted when the report is rendered.
    pub options: Vec<String>,
}

/// Everything that could be read out of one error message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MountError {
    /// `MountVolume.SetUp`, `MountVolume.MountDevice`, `AttachVolume.Attach`,
    /// `MountVolume.WaitForAttach`, `MountVolume.NewMounter initialization`, `Multi-Attach`...
    pub operation: Option<String>,
    pub volume: Option<String>,
    /// `kubernetes.io/csi/driver^handle`, `kubernetes.io/rbd/...`.
    pub unique_name: Option<String>,
    pub pod_name: Option<String>,
    pub pod_uid: Option<String>,
    pub exit_status: Option<i32>,
    pub mount: Option<MountCommand>,
    /// What mount (or the driver) printed, after `Output:`.
    pub output: Option<String>,
    /// gRPC status code of a CSI call (`Internal`, `Aborted`, `DeadlineExceeded`).
    pub grpc_code: Option<String>,
    /// Volume plugin: `kubernetes.io/nfs`, `kubernetes.io/csi`, `kubernetes.io/aws-ebs`...
    pub plugin: Option<String>,
    /// CSI driver name, when the message names it.
    pub driver: Option<String>,
    /// The first block device path mentioned (`/dev/rbd0`, `/dev/nvme1n1`).
    pub device: Option<String>,
    /// Volumes named in `unattached/unmounted volumes=[...]` lists.
    pub unmounted_volumes: Vec<String>,
    pub unattached_volumes: Vec<String>,
    /// A path the kernel answered ESTALE or ENOTCONN for (`stat /var/lib/kubelet/pods/.../mount:
    /// stale NFS file handle`): a mount that is there but dead.
    pub dead_path: Option<String>,
}

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($pat).expect("static regex"));
    };
}

re!(
    OPERATION,
    r"\b((?:MountVolume|UnmountVolume|UnmountDevice|AttachVolume|DetachVolume|MapVolume|UnmapVolume|UnmapDevice|NodeExpandVolume|ExpandVolume)\.[A-Za-z]+(?: initialization)?) failed"
);
re!(MULTI_ATTACH, r"\bMulti-Attach error\b");
re!(VOLUME, r#"failed for volume "([^"]+)""#);
re!(VOLUME_MULTI, r#"Multi-Attach error for volume "([^"]+)""#);
re!(SPEC_NAME, r#"\(spec\.Name: "([^"]+)"\)"#);
re!(UNIQUE_NAME, r#"\(UniqueName: "([^"]+)"\)"#);
re!(POD_UID, r#"\(UID: "([0-9a-fA-F-]{36})"\)"#);
re!(POD_NAME, r#"\bpod "([^"]+)" \(UID"#);
re!(
    POD_PATH_UID,
    r"/pods/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/"
);
re!(EXIT_STATUS, r"exit status (\d+)");
// `Mounting arguments:\s*(.*?)(?:\s*\bOutput:|\n\s*\n|$)`, (?s), in two searches (see
// `mounting_arguments`): capturing the lazy group over hundreds of bytes takes the regex crate's
// slowest engine, and was most of the time `parse` took.
re!(MOUNTING_ARGS_HEAD, r"Mounting arguments:\s*");
re!(MOUNTING_ARGS_END, r"\s*\bOutput:|\n\s*\n");
re!(MOUNTING_COMMAND, r"Mounting command:\s*(\S+)");
re!(EXEC_MOUNT_ARGS, r"occurred while running mount args: \[");
// `(?s)\bOutput:\s?(.*)$` without capturing the rest of the text (see `output_of`).
re!(OUTPUT_HEAD, r"\bOutput:\s?");
re!(GRPC, r"rpc error: code = (\w+)");
re!(
    PLUGIN_PATH,
    r"/volumes/([a-z0-9.-]+)~([a-z0-9.-]+)/|/plugins/(kubernetes\.io)/([a-z0-9-]+)/"
);
re!(CSI_UNIQUE, r"kubernetes\.io/csi/([^/^\s]+)\^");
re!(
    CSI_DRIVER_NAMED,
    r"(?:driver name|CSI driver|of) ([a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+)(?: not found| CSI driver|\b)"
);
re!(
    CSI_PLUGIN_DIR,
    r"/plugins/kubernetes\.io/csi/(?:pv/[^/\s]+/|volumeDevices/)?([a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+)/"
);
re!(DEVICE, r"(/dev/[A-Za-z0-9._/-]*[A-Za-z0-9])");
re!(
    DEAD_PATH,
    r#"(?i)\b(?:l?stat|open|access|readdir|statfs)\s+(/[^\s:"]+):?\s+(?:stale (?:nfs )?file handle|transport endpoint is not connected)"#
);
re!(
    VOLUME_LIST,
    r"\b(unmounted|unattached|unattached/unmounted) volumes=\[([^\]]*)\]"
);

/// Undo the escaping a message picks up inside a klog line (`\"` and `\\\"`).
pub fn unescape(text: &str) -> Cow<'_, str> {
    if text.contains("\\\"") {
        Cow::Owned(text.replace("\\\\\\\"", "\"").replace("\\\"", "\""))
    } else {
        Cow::Borrowed(text)
    }
}

/// Read the structure out of one error message. Never fails: unknown parts stay `None`.
pub fn parse(message: &str) -> MountError {
    let text = unescape(message);
    let text = text.as_ref();
    let mut e = MountError {
        operation: OPERATION
            .captures(text)
            .map(|c| c[1].to_string())
            .or_else(|| {
                MULTI_ATTACH
                    .is_match(text)
                    .then(|| "Multi-Attach".to_string())
            }),
        ..MountError::default()
    };
    e.volume = SPEC_NAME
        .captures(text)
        .or_else(|| VOLUME.captures(text))
        .or_else(|| VOLUME_MULTI.captures(text))
        .map(|c| c[1].to_string());
    e.unique_name = UNIQUE_NAME
        .captures(text)
        .map(|c| c[1].to_string())
        // ≤ 1.8 put the unique name where the volume name is now.
        .or_else(|| {
            VOLUME
                .captures(text)
                .map(|c| c[1].to_string())
                .filter(|v| v.starts_with("kubernetes.io/"))
        });
    e.pod_uid = POD_UID
        .captures(text)
        .or_else(|| POD_PATH_UID.captures(text))
        .map(|c| c[1].to_string());
    e.pod_name = POD_NAME
        .captures(text)
        .map(|c| c[1].to_string())
        .filter(|n| Some(n) != e.pod_uid.as_ref());
    e.exit_status = EXIT_STATUS.captures(text).and_then(|c| c[1].parse().ok());
    e.grpc_code = GRPC.captures(text).map(|c| c[1].to_string());
    e.output = output_of(text).map(|o| o.trim().to_string());
    e.mount = parse_mount_command(text);
    e.plugin = plugin_of(text, e.unique_name.as_deref());
    e.driver = driver_of(text, e.unique_name.as_deref());
    if e.plugin.is_none() && e.driver.is_some() {
        e.plugin = Some("kubernetes.io/csi".into());
    }
    e.device = e
        .mount
        .as_ref()
        .and_then(|m| m.source.clone())
        .filter(|s| s.starts_with("/dev/"))
        .or_else(|| DEVICE.captures(text).map(|c| c[1].to_string()));
    e.dead_path = DEAD_PATH.captures(text).map(|c| c[1].to_string());
    for c in VOLUME_LIST.captures_iter(text) {
        let names: Vec<String> = c[2].split_whitespace().map(str::to_string).collect();
        match &c[1] {
            "unattached" => e.unattached_volumes = names,
            "unmounted" => e.unmounted_volumes = names,
            _ => {
                e.unmounted_volumes = names.clone();
                e.unattached_volumes = names;
            }
        }
    }
    e
}

fn plugin_of(text: &str, unique: Option<&str>) -> Option<String> {
    if let Some(u) = unique {
        // kubernetes.io/csi/driver^handle, kubernetes.io/rbd/...
        let mut parts = u.splitn(3, '/');
        if let (Some(a), Some(b)) = (parts.next(), parts.next()) {
            if a == "kubernetes.io" && !b.is_empty() {
                return Some(format!("{a}/{b}"));
            }
        }
    }
    PLUGIN_PATH
        .captures(text)
        .map(|c| match (c.get(1), c.get(2)) {
            (Some(a), Some(b)) => format!("{}/{}", a.as_str(), b.as_str()),
            _ => format!("{}/{}", &c[3], &c[4]),
        })
}

fn driver_of(text: &str, unique: Option<&str>) -> Option<String> {
    unique
        .and_then(|u| CSI_UNIQUE.captures(u))
        .or_else(|| CSI_PLUGIN_DIR.captures(text))
        .or_else(|| CSI_DRIVER_NAMED.captures(text))
        .map(|c| c[1].to_string())
        .filter(|d| d != "kubernetes.io" && !d.ends_with(".go"))
}

/// What `(?s)Mounting arguments:\s*(.*?)(?:\s*\bOutput:|\n\s*\n|$)` captures, found by two
/// searches that need no capture engine. That regex matches from the first `Mounting
/// arguments:` (its `$` branch always can), its greedy `\s*` takes all the whitespace after it,
/// and its lazy group ends at the first position from which one of the three endings matches:
/// the start of the leftmost match of the first two, searched from there (`find_at` sees the
/// text before, for `\b`), or the end of the text.
fn mounting_arguments(text: &str) -> Option<&str> {
    let start = MOUNTING_ARGS_HEAD.find(text)?.end();
    let end = MOUNTING_ARGS_END
        .find_at(text, start)
        .map_or(text.len(), |m| m.start());
    Some(&text[start..end])
}

/// What `(?s)\bOutput:\s?(.*)$` captures: everything after its first match of `\bOutput:\s?`.
fn output_of(text: &str) -> Option<&str> {
    OUTPUT_HEAD.find(text).map(|m| &text[m.end()..])
}

/// ceph-csi internal/util ExecCommand ("an error (%v) occurred while running %s args: %v"), for
/// mount: the arguments as a Go slice, `[-t ceph SRC DST -o OPTS]`.
fn exec_mount_arguments(text: &str) -> Option<&str> {
    let start = EXEC_MOUNT_ARGS.find(text)?.end();
    let end = text[start..].find(']')? + start;
    Some(&text[start..end])
}

/// Parse `Mounting arguments:` in either order kubelet has printed it, or the argument list of
/// a driver that ran mount itself (ceph-csi).
fn parse_mount_command(text: &str) -> Option<MountCommand> {
    let (args, command) = match mounting_arguments(text) {
        Some(a) => (a, MOUNTING_COMMAND.captures(text).map(|c| c[1].to_string())),
        None => (exec_mount_arguments(text)?, Some("mount".to_string())),
    };
    // A Go slice printed with %v: `[--description=Kubernetes transient mount for /x --scope --
    // mount -t nfs SRC DST]` (kubelets whose mount-utils logged the argument list itself, and
    // drivers that wrap it). The brackets belong to the list, not to its first and last words.
    let args = args.trim();
    let args = match args.strip_prefix('[') {
        Some(inner) if inner.starts_with('-') => inner
            .trim_end_matches(|c: char| c == '.' || c.is_whitespace())
            .strip_suffix(']')
            .unwrap_or(inner),
        _ => args,
    };
    let tokens: Vec<&str> = args.split_whitespace().collect();
    // systemd-run ... --scope -- mount <args>: everything after the `mount` word. Markdown
    // sometimes turned `--` into `-`, so look for the word itself.
    // The description itself contains the word (`Kubernetes transient mount for ...`), so
    // start looking after `--scope`.
    let start = if tokens
        .first()
        .is_some_and(|t| t.starts_with("--description") || t.starts_with("-description"))
    {
        let scope = tokens
            .iter()
            .position(|t| *t == "--scope" || *t == "-scope")
            .unwrap_or(0);
        tokens[scope..]
            .iter()
            .position(|t| *t == "mount")
            .map(|i| scope + i + 1)
            .unwrap_or(tokens.len())
    } else {
        0
    };
    let rest = &tokens[start..];
    let mut m = MountCommand {
        command,
        ..MountCommand::default()
    };
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let t = rest[i];
        match t {
            "-t" => {
                m.fstype = rest.get(i + 1).map(|s| s.to_string());
                i += 2;
                continue;
            }
            "-o" => {
                if let Some(o) = rest.get(i + 1) {
                    m.options
                        .extend(o.split(',').filter(|s| !s.is_empty()).map(str::to_string));
                }
                i += 2;
                continue;
            }
            _ if t.starts_with("-t") && t.len() > 2 && !t.starts_with("--") => {
                m.fstype = Some(t[2..].to_string());
            }
            _ if t.starts_with("--types=") => m.fstype = Some(t["--types=".len()..].to_string()),
            _ if t.starts_with("--options=") => m.options.extend(
                t["--options=".len()..]
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            ),
            _ if t.starts_with('-') && t.len() > 1 => {} // -w, -r, --bind, -w-w ...
            _ => positional.push(t),
        }
        i += 1;
    }
    // 1.7-era order: SOURCE TARGET FSTYPE [OPTIONS], where OPTIONS prints as `[]` or `[a b]`.
    if m.fstype.is_none() && positional.len() >= 3 && !positional[2].starts_with('/') {
        let fstype = positional[2];
        if fstype
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        {
            m.fstype = Some(fstype.to_string());
            let opts: Vec<String> = positional[3..]
                .iter()
                .map(|s| s.trim_matches(|c| c == '[' || c == ']'))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            m.options.extend(opts);
            positional.truncate(2);
        }
    }
    m.source = positional.first().map(|s| s.to_string());
    m.target = positional.get(1).map(|s| s.to_string());
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_output_are_what_the_capturing_regexes_captured() {
        let args_re =
            Regex::new(r"(?s)Mounting arguments:\s*(.*?)(?:\s*\bOutput:|\n\s*\n|$)").unwrap();
        let output_re = Regex::new(r"(?s)\bOutput:\s?(.*)$").unwrap();
        let pieces = [
            "Mounting arguments:",
            "Mounting arguments: ",
            "Output:",
            "Output: ",
            "xOutput:",
            "éOutput:",
            "-o ro",
            " ",
            "  ",
            "\n",
            "\n\n",
            "\n \n",
            "\t",
            "\u{a0}",
            "\u{2003}",
            "a",
            "é",
            "/dev/x",
            "Mounting",
            ":",
            "_",
        ];
        let mut texts: Vec<String> = vec![
            String::new(),
            "Mounting arguments:".into(),
            "Mounting arguments:Output:".into(),
            "Mounting arguments: \u{a0} Output: done".into(),
            "Mounting arguments: -t nfs a b\n\nrest Output: x".into(),
            "Mounting arguments: a Mounting arguments: b Output: c Output: d".into(),
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 1..12 {
            for _ in 0..3000 {
                let mut t = String::new();
                for _ in 0..len {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    t.push_str(pieces[(seed % pieces.len() as u64) as usize]);
                }
                texts.push(t);
            }
        }
        texts.push(NFS.to_string());
        texts.push(NFS.replace('\n', " "));
        for t in &texts {
            let want = args_re
                .captures(t)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str());
            assert_eq!(mounting_arguments(t), want, "{t:?}");
            let want = output_re
                .captures(t)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str());
            assert_eq!(output_of(t), want, "{t:?}");
        }
    }

    const NFS: &str = "MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32
Mounting command: systemd-run
Mounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211 --scope -- mount -t nfs 10.20.172.211:/nfs /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211
Output: Running scope as unit run-38284.scope.
mount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,
       missing codepage or helper program, or other error";

    #[test]
    fn nfs_incident_message_is_taken_apart() {
        let e = parse(NFS);
        assert_eq!(e.operation.as_deref(), Some("MountVolume.SetUp"));
        assert_eq!(e.volume.as_deref(), Some("nfs211"));
        assert_eq!(e.exit_status, Some(32));
        assert_eq!(
            e.pod_uid.as_deref(),
            Some("cddc94e7-8033-4150-bed5-d141e3b71e49")
        );
        assert_eq!(e.plugin.as_deref(), Some("kubernetes.io/nfs"));
        let m = e.mount.expect("mount command");
        assert_eq!(m.command.as_deref(), Some("systemd-run"));
        assert_eq!(m.fstype.as_deref(), Some("nfs"));
        assert_eq!(m.source.as_deref(), Some("10.20.172.211:/nfs"));
        assert!(m.target.unwrap().ends_with("kubernetes.io~nfs/nfs211"));
        assert!(e
            .output
            .unwrap()
            .starts_with("Running scope as unit run-38284.scope.\nmount: wrong fs type"));
    }

    #[test]
    fn flattened_message_still_separates_arguments_from_output() {
        let flat = NFS.replace('\n', " ");
        let e = parse(&flat);
        let m = e.mount.expect("mount command");
        assert_eq!(m.fstype.as_deref(), Some("nfs"));
        assert_eq!(m.source.as_deref(), Some("10.20.172.211:/nfs"));
        assert!(m.target.unwrap().ends_with("/nfs211"));
        assert!(e.output.unwrap().contains("wrong fs type"));
    }

    #[test]
    fn old_argument_order_from_kubelet_1_7() {
        let msg = "MountVolume.SetUp failed for volume \"kubernetes.io/nfs/fa7984c6-6f1a-11e7-b489-021fcfb21298-storage-es-data-0\" (spec.Name: \"storage-es-data-0\") pod \"fa7984c6-6f1a-11e7-b489-021fcfb21298\" (UID: \"fa7984c6-6f1a-11e7-b489-021fcfb21298\") with: mount failed: exit status 32 Mounting command: mount Mounting arguments: 10.7.135.250:/vol/multiint/dev01/esearch/es001 /var/lib/kubelet/pods/fa7984c6-6f1a-11e7-b489-021fcfb21298/volumes/kubernetes.io~nfs/storage-es-data-0 nfs [] Output: mount.nfs: rpc.statd is not running but is required for remote locking.";
        let e = parse(msg);
        assert_eq!(e.volume.as_deref(), Some("storage-es-data-0"));
        assert_eq!(
            e.unique_name.as_deref(),
            Some("kubernetes.io/nfs/fa7984c6-6f1a-11e7-b489-021fcfb21298-storage-es-data-0")
        );
        assert_eq!(e.plugin.as_deref(), Some("kubernetes.io/nfs"));
        assert_eq!(
            e.pod_name, None,
            "the old format puts the UID where the name goes"
        );
        let m = e.mount.unwrap();
        assert_eq!(m.fstype.as_deref(), Some("nfs"));
        assert_eq!(
            m.source.as_deref(),
            Some("10.7.135.250:/vol/multiint/dev01/esearch/es001")
        );
        assert!(m.options.is_empty());
    }

    #[test]
    fn csi_message_with_unique_name_and_grpc_code() {
        let msg = "Error: MountVolume.MountDevice failed for volume \"pvc-90aba057-181e-408d-9eef-adf0b8d5d0ff\" (UniqueName: \"kubernetes.io/csi/csi.hpe.com^0635370e1e208cb2220000000000000000000011bc\") pod \"minio-4\" (UID: \"8ba70c16-31c5-4ebb-993e-8bcd01a2adb7\") : rpc error: code = Internal desc = Failed to stage volume";
        let e = parse(msg);
        assert_eq!(e.operation.as_deref(), Some("MountVolume.MountDevice"));
        assert_eq!(e.driver.as_deref(), Some("csi.hpe.com"));
        assert_eq!(e.plugin.as_deref(), Some("kubernetes.io/csi"));
        assert_eq!(e.pod_name.as_deref(), Some("minio-4"));
        assert_eq!(e.grpc_code.as_deref(), Some("Internal"));
    }

    #[test]
    fn cifs_options_and_block_device() {
        let msg = "MountVolume.MountDevice failed for volume \"my-pv\" : rpc error: code = Internal desc = volume(UB7GTX) mount \"//xx.xx.xx.xx/mYShare\" on \"/var/lib/kubelet/plugins/kubernetes.io/csi/pv/my-pv/globalmount\" failed with mount failed: exit status 32
Mounting command: mount
Mounting arguments: -t cifs -o dir_mode=0777,file_mode=0777,vers=3.0,<masked> //xx.xx.xx.xx/mYShare /var/lib/kubelet/plugins/kubernetes.io/csi/pv/my-pv/globalmount
Output: mount error(13): Permission denied";
        let e = parse(msg);
        let m = e.mount.unwrap();
        assert_eq!(m.fstype.as_deref(), Some("cifs"));
        assert_eq!(
            m.options,
            ["dir_mode=0777", "file_mode=0777", "vers=3.0", "<masked>"]
        );
        assert_eq!(m.source.as_deref(), Some("//xx.xx.xx.xx/mYShare"));
        assert_eq!(
            e.output.as_deref(),
            Some("mount error(13): Permission denied")
        );

        let xfs = parse("Mounting arguments: --description=Kubernetes transient mount for /x --scope -- mount -t xfs -o debug,defaults /dev/xvdbq /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/aws/us-east-2a/vol-087b3e95d1aa21e03\nOutput: mount: wrong fs type");
        assert_eq!(xfs.device.as_deref(), Some("/dev/xvdbq"));
        assert_eq!(xfs.plugin.as_deref(), Some("kubernetes.io/aws-ebs"));
        assert_eq!(xfs.mount.unwrap().options, ["debug", "defaults"]);
    }

    #[test]
    fn volume_lists_of_the_timeout_messages() {
        let new = parse("Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-x]: timed out waiting for the condition");
        assert_eq!(new.unmounted_volumes, ["data"]);
        assert_eq!(new.unattached_volumes, ["data", "kube-api-access-x"]);
        let old = parse("timeout expired waiting for volumes to attach/mount for pod \"index-api-3362878852-9tm9j\"/\"default\". list of unattached/unmounted volumes=[index-api-pv]");
        assert_eq!(old.unmounted_volumes, ["index-api-pv"]);
    }

    #[test]
    fn klog_escaped_quotes_are_undone() {
        let e = parse(
            r#"Error: "MountVolume.WaitForAttach failed for volume \"pvc-b838b5fb-3772-11ea-8470-246e968203b8\" (UniqueName: \"kubernetes.io/rbd/test-k8s-radis:kubernetes-dynamic-pvc-b839dd3e\") pod \"runner\" (UID: \"20a96c62-ccbb-11ea-b04c-e4434b038dc8\") : rbd image x is still being used""#,
        );
        assert_eq!(e.operation.as_deref(), Some("MountVolume.WaitForAttach"));
        assert_eq!(e.plugin.as_deref(), Some("kubernetes.io/rbd"));
        assert_eq!(e.pod_name.as_deref(), Some("runner"));
    }

    #[test]
    fn nothing_to_find_is_not_an_error() {
        assert_eq!(parse(""), MountError::default());
        assert_eq!(
            parse("Mounting arguments:").mount,
            Some(MountCommand::default())
        );
    }

    #[test]
    fn a_bracketed_systemd_run_argument_list_gives_the_real_source() {
        let e = parse("MountVolume.SetUp failed for volume \"pv-nfs\" : mount failed: exit status 32\nMounting command: systemd-run\nMounting arguments: [--description=Kubernetes transient mount for /var/lib/kubelet/pods/7d3e/volumes/kubernetes.io~nfs/pv-nfs --scope -- mount -t nfs -o nfsvers=4.1 10.0.0.5:/exports/data /var/lib/kubelet/pods/7d3e/volumes/kubernetes.io~nfs/pv-nfs]\nOutput: mount.nfs: access denied by server while mounting 10.0.0.5:/exports/data");
        let m = e.mount.expect("the mount command");
        assert_eq!(m.fstype.as_deref(), Some("nfs"));
        assert_eq!(m.source.as_deref(), Some("10.0.0.5:/exports/data"));
        assert_eq!(
            m.target.as_deref(),
            Some("/var/lib/kubelet/pods/7d3e/volumes/kubernetes.io~nfs/pv-nfs")
        );
        assert_eq!(m.options, ["nfsvers=4.1"]);
    }

    #[test]
    fn a_drivers_own_mount_argument_list_is_read() {
        let e = parse("MountVolume.MountDevice failed for volume \"pvc-5\" : rpc error: code = Internal desc = an error (exit status 22) occurred while running mount args: [-t ceph 10.0.0.1:6789:/volumes/csi/x /var/lib/kubelet/plugins/kubernetes.io/csi/cephfs.csi.ceph.com/abc/globalmount -o name=csi-cephfs-node,mds_namespace=fs,discard] stderr: mount error 22 = Invalid argument");
        let m = e.mount.expect("the mount command");
        assert_eq!(m.fstype.as_deref(), Some("ceph"));
        assert_eq!(m.source.as_deref(), Some("10.0.0.1:6789:/volumes/csi/x"));
        assert_eq!(
            m.options,
            ["name=csi-cephfs-node", "mds_namespace=fs", "discard"]
        );
    }
}
