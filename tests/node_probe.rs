//! The node probe end to end: the real script run by `sh` on host-root trees
//! (`fixtures/hosts/`), on this machine itself, and on hostile and hanging trees; its output
//! parsed; the analysis per distribution.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use volmnt::collect::node::local::{self, ProbeEnv};
use volmnt::collect::node::PROBE_SCRIPT;
use volmnt::diagnose::node_check::{
    analyze, check_nfs_servers, IssueKind, NodeReport, OrphanBasis, Requirement, VolumeType,
};
use volmnt::model::{NodeFacts, Propagation};
use volmnt::parse::probe;

use crate::util::TempDir;

const TIMEOUT: Duration = Duration::from_secs(30);

fn tree(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hosts")
        .join(name)
}

/// Run the real probe on a tree and parse what it printed.
fn probe_tree(root: &Path) -> NodeFacts {
    let run = local::run(Some(root), TIMEOUT).expect("probe runs");
    assert_eq!(
        run.exit_code,
        Some(0),
        "probe on {}: stderr {}",
        root.display(),
        run.stderr
    );
    let facts = probe::parse(&String::from_utf8_lossy(&run.stdout)).expect("probe output parses");
    assert!(facts.complete, "{}: {:?}", root.display(), facts.errors);
    facts
}

fn check(name: &str, require: &[Requirement]) -> (NodeFacts, NodeReport) {
    let facts = probe_tree(&tree(name));
    let report = analyze(&facts, require, None);
    (facts, report)
}

const TREES: &[(&str, &str, &str)] = &[
    ("debian-12", "debian", "debian"),
    ("debian-12-no-nfs", "debian", "debian"),
    ("ubuntu-22.04", "ubuntu", "debian"),
    ("rocky-9", "rocky", "rhel"),
    ("rocky-9-no-nfs", "rocky", "rhel"),
    ("centos-7-no-nfs", "centos", "rhel"),
    ("opensuse-15.5", "opensuse-leap", "suse"),
    ("alpine-3.19", "alpine", "alpine"),
    ("flatcar", "flatcar", "immutable"),
];

#[test]
fn every_tree_is_probed_and_parsed() {
    for (name, id, family) in TREES {
        let (facts, report) = check(name, &[]);
        assert!(!facts.live, "{name}: a tree is not live");
        assert_eq!(facts.os.id.as_deref(), Some(*id), "{name}");
        assert_eq!(report.os_family, *family, "{name}");
        assert!(facts.os.pretty_name.is_some(), "{name}");
        // Not live: processes are unknown, never guessed.
        assert_eq!(facts.rpc_statd_running, None, "{name}");
        assert_eq!(facts.kubelet_root.as_deref(), Some("/var/lib/kubelet"));
        assert!(facts.errors.is_empty(), "{name}: {:?}", facts.errors);
        assert_eq!(report.capabilities.len(), VolumeType::ALL.len());
        // Helper paths are host paths, never the tree's.
        for p in facts.helpers.values().chain(facts.tools.values()) {
            assert!(p.starts_with('/') && !p.contains("fixtures"), "{name}: {p}");
        }
    }
}

fn nfs_result(report: &NodeReport) -> &volmnt::diagnose::node_check::RequirementResult {
    report
        .requirements
        .iter()
        .find(|r| r.requirement == Requirement::Nfs)
        .expect("nfs was required")
}

#[test]
fn rhel_like_without_nfs_client_names_nfs_utils_and_dnf() {
    let (_, report) = check("rocky-9-no-nfs", &[Requirement::Nfs]);
    let r = nfs_result(&report);
    assert!(!r.ok);
    assert!(!report.requirements_met() && report.has_problems());
    let install = r.install.as_ref().expect("install hint");
    assert_eq!(install.package.as_deref(), Some("nfs-utils"));
    assert_eq!(
        install.command.as_deref(),
        Some("sudo dnf install -y nfs-utils")
    );
    assert!(r.detail.contains("Rocky Linux 9.3"), "{}", r.detail);
    assert!(r.detail.contains("nfs-utils"), "{}", r.detail);
    // One line per package; what Rocky 9's default repositories lack (ceph-common,
    // glusterfs-fuse) gets no package and no command, only where it comes from.
    let pkgs: Vec<_> = report
        .missing_packages
        .iter()
        .filter_map(|m| Some((m.install.package.clone()?, m.for_volumes.clone())))
        .collect();
    assert_eq!(
        pkgs[0],
        ("nfs-utils".into(), vec![VolumeType::Nfs, VolumeType::Nfs4])
    );
    assert!(!pkgs.iter().any(|(p, _)| p == "ceph-common"), "{pkgs:?}");
    let ceph = report
        .missing_packages
        .iter()
        .find(|m| m.for_volumes.contains(&VolumeType::Rbd))
        .expect("rbd tools are missing");
    assert_eq!(ceph.install.command, None);
    assert!(ceph
        .install
        .advice
        .as_deref()
        .unwrap_or("")
        .contains("Ceph's own repository"));
    assert_eq!(report.selinux.as_deref(), Some("enforcing"));

    let (facts, report) = check("rocky-9", &[Requirement::Nfs, Requirement::Xfs]);
    assert!(report.requirements_met(), "{:?}", report.requirements);
    assert_eq!(facts.helpers["mount.nfs"], "/sbin/mount.nfs");
}

#[test]
fn centos_7_gets_yum() {
    let (_, report) = check("centos-7-no-nfs", &[Requirement::Nfs]);
    let r = nfs_result(&report);
    assert!(!r.ok);
    assert_eq!(
        r.install.as_ref().and_then(|i| i.command.as_deref()),
        Some("sudo yum install -y nfs-utils")
    );
}

#[test]
fn debian_with_and_without_nfs_common() {
    let (_, report) = check("debian-12-no-nfs", &[Requirement::Nfs]);
    let r = nfs_result(&report);
    assert!(!r.ok);
    let install = r.install.as_ref().unwrap();
    assert_eq!(install.package.as_deref(), Some("nfs-common"));
    assert_eq!(
        install.command.as_deref(),
        Some("sudo apt-get update && sudo apt-get install -y nfs-common")
    );

    let (facts, report) = check("debian-12", &[Requirement::Nfs, Requirement::Ext4]);
    assert!(report.requirements_met(), "{:?}", report.requirements);
    let nfs = report.capability(VolumeType::Nfs).unwrap();
    assert!(!nfs.kernel_unknown, "the tree has a module list");
    assert_eq!(facts.kernel.as_deref(), Some("6.1.0-18-amd64"));
    // cifs: no helper and the kernel module list lacks it.
    let cifs = report.capability(VolumeType::Cifs).unwrap();
    assert!(!cifs.ok);
    assert!(cifs
        .missing
        .iter()
        .any(|m| m.contains("kernel module cifs")));
}

#[test]
fn ubuntu_ceph_iscsi_and_propagation() {
    let (facts, report) = check(
        "ubuntu-22.04",
        &[
            Requirement::Rbd,
            Requirement::Cephfs,
            Requirement::Iscsi,
            Requirement::Nfs,
        ],
    );
    let ok: Vec<_> = report
        .requirements
        .iter()
        .map(|r| (r.requirement, r.ok))
        .collect();
    assert_eq!(
        ok,
        [
            (Requirement::Rbd, true),
            (Requirement::Cephfs, true),
            (Requirement::Iscsi, true),
            (Requirement::Nfs, false)
        ]
    );
    // Found through the merged-/usr symlinks of the tree.
    assert_eq!(facts.tools["rbd"], "/bin/rbd");
    assert_eq!(facts.kubelet_root_propagation, Some(Propagation::Private));
    let prop: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::KubeletRootNotShared)
        .collect();
    assert_eq!(prop.len(), 1, "{:?}", report.issues);
    assert_eq!(prop[0].fix.as_deref(), Some("sudo mount --make-rshared /"));
}

#[test]
fn opensuse_kubelet_root_read_only() {
    let (_, report) = check("opensuse-15.5", &[Requirement::Nfs]);
    assert!(report.requirements_met());
    let ro: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::ReadOnlyRemount)
        .collect();
    assert_eq!(ro.len(), 1, "{:?}", report.issues);
    assert_eq!(ro[0].mount_point.as_deref(), Some("/var/lib/kubelet"));
    assert!(report.has_problems());
    assert_eq!(report.kubelet_root_propagation, Some(Propagation::Shared));
}

#[test]
fn alpine_and_flatcar() {
    let (_, report) = check("alpine-3.19", &[Requirement::Nfs, Requirement::Cifs]);
    assert!(!report.requirements[0].ok);
    assert!(report.requirements[1].ok);
    assert_eq!(
        report.requirements[0]
            .install
            .as_ref()
            .and_then(|i| i.command.as_deref()),
        Some("sudo apk add nfs-utils")
    );

    let (_, report) = check("flatcar", &[Requirement::Nfs, Requirement::Cephfs]);
    assert!(report.requirements[0].ok);
    let ceph = &report.requirements[1];
    assert!(!ceph.ok);
    let install = ceph.install.as_ref().unwrap();
    assert_eq!(
        install.command, None,
        "an immutable OS gets no install command"
    );
    assert!(install.advice.as_ref().unwrap().contains("image-based"));
    assert!(
        ceph.detail.contains("cannot be installed"),
        "{}",
        ceph.detail
    );
}

#[test]
fn orphaned_and_duplicate_nfs_mounts_from_the_captured_table() {
    let facts = probe_tree(&tree("debian-12"));
    assert_eq!(facts.mounts.len(), 9);
    // Judged by the pod directories present.
    let report = analyze(&facts, &[], None);
    assert_eq!(report.orphan_basis, OrphanBasis::PodDirectories);
    let orphans: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::OrphanedMount)
        .collect();
    assert_eq!(orphans.len(), 1, "{:?}", report.issues);
    let o = orphans[0];
    assert_eq!(
        o.pod_uid.as_deref(),
        Some("c4b1998b-f5c1-440a-b9bc-7fbf87f3c267")
    );
    assert_eq!(o.fstype.as_deref(), Some("nfs"));
    assert_eq!(o.source.as_deref(), Some("10.20.172.211:/nfs"));
    assert_eq!(
        o.fix.as_deref(),
        Some("sudo umount -f -l /var/lib/kubelet/pods/c4b1998b-f5c1-440a-b9bc-7fbf87f3c267/volumes/kubernetes.io~nfs/nfs211")
    );
    let dups: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::DuplicateMount)
        .collect();
    assert_eq!(dups.len(), 1, "{:?}", report.issues);
    assert!(dups[0].detail.contains("mounted 2 times"));
    assert_eq!(report.kubelet_root_propagation, Some(Propagation::Shared));
    assert!(report.has_problems());

    // Judged by the API: the pod with the duplicate mount is gone too.
    let api = vec!["45c55c5e-ce96-47fd-94b3-60a334e5a44d".to_string()];
    let report = analyze(&facts, &[], Some(&api));
    assert_eq!(report.orphan_basis, OrphanBasis::Api);
    let mut uids: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::OrphanedMount)
        .filter_map(|i| i.pod_uid.clone())
        .collect();
    uids.dedup();
    assert_eq!(
        uids,
        [
            "c4b1998b-f5c1-440a-b9bc-7fbf87f3c267",
            "73fed6f3-4cbe-46a7-af7b-6fd912e6ebd4"
        ]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["issues"][0]["kind"], "orphaned_mount");
}

#[test]
fn a_real_local_run_on_this_machine() {
    let run = local::run(None, TIMEOUT).unwrap();
    assert_eq!(run.exit_code, Some(0), "{}", run.stderr);
    assert_eq!(run.target, "local");
    let facts = probe::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
    assert!(facts.complete && facts.live, "{:?}", facts.errors);
    let uname = Command::new("uname").arg("-r").output().unwrap();
    assert_eq!(
        facts.kernel.as_deref(),
        Some(String::from_utf8_lossy(&uname.stdout).trim())
    );
    assert!(facts.mounts.iter().any(|m| m.mount_point == "/"));
    assert!(facts
        .mounts_source
        .as_deref()
        .unwrap()
        .starts_with("/proc/"));
    assert!(!facts.filesystems.is_empty());
    // Live: processes were looked at (yes or no), SELinux has a mode.
    assert!(facts.rpc_statd_running.is_some() && facts.kubelet_running.is_some());
    assert!(facts.selinux.is_some());
    if let Ok(text) = std::fs::read_to_string("/etc/os-release") {
        let os = probe::parse_os_release(&text);
        assert_eq!(facts.os.id, os.id);
    }
    // The analysis runs on it whatever this machine has.
    let report = analyze(&facts, &[Requirement::Ext4], None);
    assert_eq!(report.mounts_read, facts.mounts.len());
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

#[test]
fn network_mounts_and_fifos_are_never_opened() {
    // /etc and the kubelet root are "NFS mounts" in the tree's table, and what lies there are
    // FIFOs: opening one for reading blocks until a writer comes, like a dead NFS server.
    let t = TempDir::new("probe-nfs-fifo");
    let root = t.path();
    for d in ["etc", "proc/1", "var/lib", "usr/sbin", "mnt"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    mkfifo(&root.join("etc/os-release"));
    mkfifo(&root.join("etc/hostname"));
    mkfifo(&root.join("var/lib/kubelet"));
    mkfifo(&root.join("mnt/data"));
    std::fs::write(
        root.join("proc/1/mountinfo"),
        "1 0 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n\
         2 1 0:40 / /etc rw shared:2 - nfs 127.0.0.1:/etc rw,hard,addr=127.0.0.1\n\
         3 1 0:41 / /var/lib/kubelet rw shared:3 - nfs4 127.0.0.1:/k rw,hard,addr=127.0.0.1\n\
         4 1 0:42 / /usr/sbin rw shared:4 - fuse.glusterfs gl:/v rw\n\
         5 1 0:43 / /mnt/data rw shared:5 - cifs //127.0.0.1/s rw\n",
    )
    .unwrap();
    let start = Instant::now();
    let run = local::run(Some(root), Duration::from_secs(20)).unwrap();
    assert_eq!(run.exit_code, Some(0), "the probe blocked: {}", run.stderr);
    assert!(start.elapsed() < Duration::from_secs(10));
    let facts = probe::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
    assert!(facts.complete);
    let skipped = facts.errors.join("\n");
    assert!(skipped.contains("skipped /etc"), "{skipped}");
    assert!(
        skipped.contains("skipped /var/lib/kubelet/pods"),
        "{skipped}"
    );
    assert!(skipped.contains("skipped /usr/sbin"), "{skipped}");
    assert_eq!(facts.pod_uids, None);
    assert_eq!(facts.mounts.len(), 5);

    // The same FIFOs without the mount table: a FIFO is never read as a file.
    std::fs::remove_file(root.join("proc/1/mountinfo")).unwrap();
    let run = local::run(Some(root), Duration::from_secs(20)).unwrap();
    assert_eq!(run.exit_code, Some(0), "the probe blocked: {}", run.stderr);
    let facts = probe::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
    assert!(facts.complete);
    assert_eq!(facts.os.id, None);
    assert_eq!(facts.hostname, None);
}

#[test]
fn the_probe_is_killed_at_the_time_limit() {
    // A limit far shorter than the probe needs: the run is cut (process group killed) and
    // returns at once with what had been printed.
    let start = Instant::now();
    let run = local::run(Some(&tree("debian-12")), Duration::from_millis(1)).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    if run.exit_code.is_none() {
        // Killed: whatever was printed parses, and says it is incomplete.
        if let Ok(f) = probe::parse(&String::from_utf8_lossy(&run.stdout)) {
            assert!(!f.complete);
        }
    }
}

#[test]
fn hostile_names_are_data_and_nothing_runs() {
    let unique = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let marker = |n: u32| PathBuf::from(format!("/tmp/pwned-{unique}-{n}"));
    let rel_marker = |n: u32| format!("pwned-{unique}-{n}");
    let t = TempDir::new("probe-hostile");
    // The root itself has shell in its name.
    let root = t
        .path()
        .join(format!("root $(touch {}) ; `id`", rel_marker(1)));
    let kroot = format!("/var/lib/kubelet; touch /tmp/pwned-{unique}-2");
    let pods = root.join(kroot.trim_start_matches('/')).join("pods");
    std::fs::create_dir_all(&pods).unwrap();
    let names = [
        "$(id)".to_string(),
        format!("x; touch {}", rel_marker(3)),
        format!("`touch {}`", rel_marker(4)),
        "tab\there".to_string(),
        "back\\slash".to_string(),
        format!("$(touch $(printf '\\057tmp\\057pwned-{unique}-5'))"),
    ];
    for n in &names {
        std::fs::create_dir_all(pods.join(n)).unwrap();
    }
    std::fs::create_dir_all(root.join("proc/1")).unwrap();
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(
        root.join("etc/os-release"),
        format!("ID=\"$(touch /tmp/pwned-{unique}-6)\"\nPRETTY_NAME='`id`'\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("proc/1/mountinfo"),
        format!(
            "1 0 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n\
             7 1 0:50 / /var/lib/kubelet;\\040touch\\040/tmp/pwned-{unique}-2/pods/x;\\040touch\\040pwned-{unique}-7/volumes/kubernetes.io~nfs/v rw - nfs 127.0.0.1:/$(id) rw,hard\n"
        ),
    )
    .unwrap();
    let env = ProbeEnv {
        root: Some(root.clone()),
        kubelet_root: Some(kroot.clone()),
        ..ProbeEnv::default()
    };
    let run = local::run_env(&env, TIMEOUT).unwrap();
    assert_eq!(run.exit_code, Some(0), "{}", run.stderr);
    let facts = probe::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
    assert!(facts.complete, "{:?}", facts.errors);
    assert_eq!(facts.root.as_deref(), root.to_str());
    assert_eq!(facts.kubelet_root.as_deref(), Some(kroot.as_str()));
    let mut got = facts.pod_uids.clone().unwrap();
    got.sort();
    let mut want = names.to_vec();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(
        facts.os.id.as_deref(),
        Some(format!("$(touch /tmp/pwned-{unique}-6)").as_str())
    );
    let m = &facts.mounts[1];
    assert!(m.mount_point.contains("/pods/x; touch pwned-"), "{m:?}");
    assert_eq!(m.source, "127.0.0.1:/$(id)");
    // The fix quotes the path for a shell.
    let report = analyze(&facts, &[Requirement::Nfs], None);
    let orphan = report
        .issues
        .iter()
        .find(|i| i.kind == IssueKind::OrphanedMount)
        .expect("the mount's pod dir is not among the pods");
    let fix = orphan.fix.as_deref().unwrap();
    assert!(
        fix.starts_with("sudo umount -f -l '/var/lib/kubelet; touch "),
        "{fix}"
    );
    assert!(fix.ends_with("kubernetes.io~nfs/v'"), "{fix}");

    for n in 1..=7 {
        assert!(!marker(n).exists(), "{} was created", marker(n).display());
        assert!(!Path::new("/").join(rel_marker(n)).exists());
        assert!(!t.path().join(rel_marker(n)).exists());
    }
}

/// The same script under other POSIX shells gives the same facts (busybox ash as on Alpine and
/// in minimal images, bash); shells this machine lacks are skipped.
#[test]
fn other_shells_give_the_same_facts() {
    let root = tree("debian-12");
    let reference = probe_tree(&root);
    for shell in [&["busybox", "sh"][..], &["bash"], &["dash"]] {
        let Some(bin) = local::find_in_path(shell[0]) else {
            eprintln!("skipped: no {} here", shell[0]);
            continue;
        };
        let mut child = Command::new(bin)
            .args(&shell[1..])
            .arg("-s")
            .env("VOLMNT_ROOT", &root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(PROBE_SCRIPT.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{shell:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let facts = probe::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert_eq!(facts, reference, "{shell:?}");
    }
}

#[test]
fn nfs_reachability_only_on_request_and_only_to_loopback() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().port();
    // A port that was free a moment ago and is closed now.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let text = format!(
        "volmnt-probe 1\nlive\t1\nmountinfo_source\t/proc/1/mountinfo\n[mountinfo]\n\
         |1 0 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n\
         |2 1 0:40 / /mnt/up rw - nfs 127.0.0.1:/up rw,hard,port={open},addr=127.0.0.1\n\
         |3 1 0:41 / /mnt/down rw - nfs4 127.0.0.1:/down rw,hard,port={closed},addr=127.0.0.1\n\
         |4 1 0:42 / /mnt/soft rw - nfs 127.0.0.1:/soft rw,soft,port={closed},addr=127.0.0.1\n\
         end\n"
    );
    let facts = probe::parse(&text).unwrap();
    let mut report = analyze(&facts, &[], None);
    assert!(report.nfs_servers.is_none(), "not without being asked");
    assert!(!report
        .issues
        .iter()
        .any(|i| i.kind == IssueKind::NfsServerUnreachable));
    let start = Instant::now();
    check_nfs_servers(&mut report, &facts, Duration::from_secs(2));
    assert!(start.elapsed() < Duration::from_secs(5));
    let servers = report.nfs_servers.as_ref().unwrap();
    assert_eq!(servers.len(), 2, "{servers:?}");
    let up = servers.iter().find(|s| s.mounts == ["/mnt/up"]).unwrap();
    assert!(up.reachable, "{up:?}");
    let down = servers
        .iter()
        .find(|s| s.mounts.contains(&"/mnt/down".to_string()))
        .unwrap();
    assert!(!down.reachable && down.hard, "{down:?}");
    let issues: Vec<_> = report
        .issues
        .iter()
        .filter(|i| i.kind == IssueKind::NfsServerUnreachable)
        .collect();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(issues[0].detail.contains("hard"));
    drop(listener);
}

/// Asked for a pod's log lines (VOLMNT_LOG_MATCH), every shell reads the same lines: only
/// those naming the pod from kubelet's logs, only storage lines from the kernel's, and a name
/// that looks like shell text is only ever a grep pattern.
#[test]
fn log_lines_about_the_pod_under_every_shell() {
    let dir = crate::util::TempDir::new("probe-logs");
    let root = dir.path();
    std::fs::create_dir_all(root.join("var/log")).unwrap();
    std::fs::write(
        root.join("var/log/messages"),
        "Nov 21 10:09 n1 kubelet[9]: E1121 10:09:49.1 9 nestedpendingoperations.go:348] MountVolume.SetUp failed for volume \"data\" pod \"3b1f0c1e-1111-2222-3333-444455556666\" : mount failed: exit status 32\n\
         Nov 21 10:09 n1 kubelet[9]: I1121 10:09:50.1 9 kubelet.go:1 SyncLoop (PLEG): some-other-pod\n\
         Nov 21 10:09 n1 kernel: [ 12.3] XFS (rbd0): Filesystem has duplicate UUID 2d3e - can't mount\n\
         Nov 21 10:09 n1 kernel: [ 12.4] e1000: eth0 NIC Link is Up\n",
    )
    .unwrap();
    let mut outputs = Vec::new();
    for shell in [&["sh"][..], &["busybox", "sh"], &["bash"], &["dash"]] {
        let Some(bin) = local::find_in_path(shell[0]) else {
            eprintln!("skipped: no {} here", shell[0]);
            continue;
        };
        let mut child = Command::new(bin)
            .args(&shell[1..])
            .arg("-s")
            .env("VOLMNT_ROOT", root)
            .env("VOLMNT_LIVE", "0")
            .env(
                "VOLMNT_LOG_MATCH",
                "3b1f0c1e-1111-2222-3333-444455556666\n$(touch pwned)\ndata",
            )
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(PROBE_SCRIPT.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let facts = probe::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert!(facts.complete, "{shell:?}");
        assert_eq!(
            facts.kubelet_log.len(),
            1,
            "{shell:?}: {:#?}",
            facts.kubelet_log
        );
        assert!(facts.kubelet_log[0].contains("MountVolume.SetUp failed"));
        assert_eq!(
            facts.kernel_log.len(),
            1,
            "{shell:?}: {:#?}",
            facts.kernel_log
        );
        assert!(facts.kernel_log[0].contains("duplicate UUID"));
        assert!(
            !root.join("pwned").exists(),
            "{shell:?}: a name ran as a command"
        );
        outputs.push(facts);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}
