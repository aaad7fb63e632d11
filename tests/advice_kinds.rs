//! Issue 28: one test per kind of finding of the second advice audit ("fix the kind, not the
//! example"). Each test is named after its kind and feeds several messages of that kind (never
//! only the audit's example), on the node images the kind concerns. The rules every step of
//! every cause must follow on every image are checked by the advice matrix (tests/advice.rs);
//! these tests check that each kind of input is read as what it is.

use serde_json::Value;

use crate::util::run_stdin;

fn explain(message: &str, os: &str) -> Value {
    let out = run_stdin(
        &["explain", "--node-os", os, "-o", "json", "-"],
        message.as_bytes(),
    );
    out.assert_no_panic();
    out.json()["messages"][0].clone()
}

/// `doctor pod --from-file -`: a paste of messages and `$ command` transcripts of the node.
fn doctor(paste: &str) -> Value {
    let out = run_stdin(
        &["doctor", "pod", "--from-file", "-", "-o", "json"],
        paste.as_bytes(),
    );
    out.assert_no_panic();
    out.json()
}

fn steps(f: &Value) -> Vec<Value> {
    ["confirm", "remediation"]
        .iter()
        .flat_map(|k| f[*k].as_array().cloned().unwrap_or_default())
        .collect()
}

fn commands(f: &Value) -> Vec<String> {
    steps(f)
        .iter()
        .filter_map(|s| s["command"].as_str().map(str::to_string))
        .collect()
}

fn texts(f: &Value) -> String {
    steps(f)
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["text"].as_str().unwrap_or(""),
                s["command"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn causes(r: &Value) -> Vec<String> {
    r["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["cause"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn finding<'a>(r: &'a Value, cause: &str) -> &'a Value {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["cause"] == cause)
        .unwrap_or_else(|| panic!("no {cause} finding in {r:#}"))
}

/// Every command of every finding of a report.
fn all_commands(r: &Value) -> Vec<String> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(commands)
        .collect()
}

const UBUNTU: &str = "Ubuntu 22.04.4 LTS";
const ROCKY: &str = "Rocky Linux 9.3 (Blue Onyx)";

// --- Harmful ---------------------------------------------------------------------------------

#[test]
fn kind_no_root_squash_never_offered_and_never_for_what_is_not_nfs() {
    let msgs = [
        // A cephx caps refusal while breaking an RBD lock.
        "MountVolume.MountDevice failed for volume \"pvc-6\" : rpc error: code = Internal desc = rbd: map failed with error an error (exit status 13) occurred while running rbd args: [--id csi-rbd-node -m 10.0.0.1:6789 --keyfile=***stripped*** map replicapool/csi-vol-0a1b2c --device-type krbd --options noudev], rbd error output: rbd: unable to blacklist client: (13) Permission denied",
        // SELinux refusing the exec of a FUSE helper.
        "MountVolume.SetUp failed for volume \"s3\" : rpc error: code = Internal desc = mount failed: exit status 1 Mounting command: s3fs Output: fuse: failed to exec fusermount3: Permission denied\ntype=AVC msg=audit(1700000000.123:456): avc:  denied  { execute } for  pid=4242 comm=\"s3fs\" name=\"fusermount3\" scontext=system_u:system_r:container_t:s0:c1,c2 tcontext=system_u:object_r:container_file_t:s0 tclass=file permissive=0",
        // fsGroup's chmod on a CephFS volume.
        "MountVolume.SetUp failed for volume \"pvc-7\" : applyFSGroup failed for vol 0001-0009-rook-ceph-0000000000000001-abcd: chmod /var/lib/kubelet/pods/2a3b4c5d-1111-4222-8333-444455556666/volumes/kubernetes.io~csi/pvc-7/mount: operation not permitted",
        // An NFS ownership refusal: even there root squashing stays on.
        "MountVolume.SetUp failed for volume \"nfs\" : chown /var/lib/kubelet/pods/2a3b4c5d-1111-4222-8333-444455556666/volumes/kubernetes.io~nfs/nfs: operation not permitted",
    ];
    for os in [UBUNTU, ROCKY, "Bottlerocket OS 1.20.3 (aws-k8s-1.29)"] {
        for m in msgs {
            let r = explain(m, os);
            let s = serde_json::to_string(&r).unwrap();
            assert!(!s.contains("no_root_squash"), "{os}: {m}\n{r:#}");
            assert!(
                !s.contains("setenforce 0") && !s.contains("chmod 777"),
                "{r:#}"
            );
        }
    }
    // The cephx refusal is Ceph's, and its fix is on the Ceph side.
    let r = explain(msgs[0], UBUNTU);
    assert_eq!(causes(&r)[0], "ceph_auth_failed", "{r:#}");
    assert!(
        !causes(&r).contains(&"permission_denied_or_selinux".to_string()),
        "{r:#}"
    );
    // The CephFS denial says the cephx MDS caps, never an NFS export.
    let r = explain(msgs[2], UBUNTU);
    let f = finding(&r, "permission_denied_or_selinux");
    assert!(texts(f).contains("Keep root squashing on"), "{}", texts(f));
}

#[test]
fn kind_lazy_unmount_of_a_running_pods_nfs_mount() {
    // A stale handle seen while the pod runs, with and without its UID in the path; and a dead
    // FUSE mount: whatever unmounts a pod's path comes after deleting the pod and after a
    // read-only check that no sandbox of it is left on the node.
    let msgs = [
        "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/5d1c9a3e-2b7f-4c1d-9e0f-8a7b6c5d4e3f/volumes/kubernetes.io~nfs/nfs Output: mount.nfs: Stale file handle",
        "Warning  FailedMount  1m  kubelet  MountVolume.SetUp failed for volume \"data\" : stat /var/lib/kubelet/pods/0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9/volumes/kubernetes.io~nfs/data: stale NFS file handle",
        "MountVolume.SetUp failed for volume \"pvc-s3\" : stat /var/lib/kubelet/pods/77aa88bb-1111-4222-8333-444455556666/volumes/kubernetes.io~csi/pvc-s3/mount: transport endpoint is not connected",
    ];
    for os in [
        UBUNTU,
        ROCKY,
        "Alpine Linux v3.19",
        "Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)",
    ] {
        for m in msgs {
            let r = explain(m, os);
            for f in r["findings"].as_array().unwrap() {
                let fix = f["remediation"].as_array().cloned().unwrap_or_default();
                let all: Vec<Value> = steps(f);
                for (i, s) in all.iter().enumerate() {
                    let Some(c) = s["command"].as_str() else {
                        continue;
                    };
                    if !(c.contains("umount") && c.contains("/pods/")) {
                        continue;
                    }
                    assert!(
                        all[..i].iter().any(|b| b["kind"] == "check"
                            && b["command"]
                                .as_str()
                                .is_some_and(|c| c.contains("crictl pods"))),
                        "{os}: an unmount with no pod-gone check before it: {f:#}"
                    );
                    let at = fix.iter().position(|x| x == s).unwrap_or(usize::MAX);
                    assert!(
                        !fix[at.min(fix.len())..].iter().any(|x| x["command"]
                            .as_str()
                            .is_some_and(|c| c.contains("kubectl delete pod"))),
                        "{os}: the pod is deleted after its path is unmounted: {f:#}"
                    );
                    assert_eq!(s["needs_confirmation"], true, "{s}");
                }
            }
        }
    }
}

// --- Wrong cause or wrong reading ------------------------------------------------------------

#[test]
fn kind_a_word_of_the_message_taken_for_a_module_name() {
    let msgs = [
        "MountVolume.MountDevice failed for volume \"pvc-8\" : rpc error: code = Internal desc = modprobe failed (an error (exit status 1) occurred while running modprobe args: [rbd]): \"modprobe: FATAL: Module rbd not found in directory /lib/modules/5.15.0-1051-azure\\n\"",
        "MountVolume.MountDevice failed for volume \"pvc-8\" : rpc error: code = Internal desc = nbd modprobe failed (an error (exit status 1) occurred while running modprobe args: [nbd]): \"modprobe: FATAL: Module nbd not found\"",
        "MountVolume.SetUp failed for volume \"pvc-9\" : rpc error: code = Internal desc = failed to load kernel module: modprobe: FATAL: Module ceph not found in directory /lib/modules/6.1.0-18-cloud-amd64",
    ];
    let grammar = regex::Regex::new(r"^[a-z0-9_-]+$").unwrap();
    let use_ = regex::Regex::new(r"\b(?:modprobe|modinfo(?:\s+-n)?)\s+([^\s;&|]+)").unwrap();
    let words = [
        "failed", "error", "fatal", "not", "module", "the", "could", "args",
    ];
    for os in [
        UBUNTU,
        ROCKY,
        "Debian GNU/Linux 12 (bookworm)",
        "Amazon Linux 2",
    ] {
        for m in msgs {
            let r = explain(m, os);
            assert_eq!(causes(&r)[0], "kernel_module_missing", "{os}: {r:#}");
            for c in all_commands(&r) {
                for cap in use_.captures_iter(&c) {
                    let name = &cap[1];
                    assert!(
                        grammar.is_match(name) && !words.contains(&name),
                        "{os}: `{name}` is not a module name: {c}"
                    );
                }
            }
        }
    }
    let r = explain(msgs[0], UBUNTU);
    assert!(
        all_commands(&r)
            .iter()
            .any(|c| c.contains("modinfo -n rbd")),
        "{r:#}"
    );
}

#[test]
fn kind_exec_format_error_from_modprobe_read_as_a_missing_module() {
    let msgs = [
        "MountVolume.MountDevice failed for volume \"pvc-8\" : rpc error: code = Internal desc = modprobe failed (an error (exit status 1) occurred while running modprobe args: [rbd]): \"modprobe: ERROR: could not insert 'rbd': Exec format error\\n\"",
        "MountVolume.SetUp failed for volume \"pvc-9\" : rpc error: code = Internal desc = modprobe: ERROR: could not insert 'ceph': Exec format error",
        "MountVolume.SetUp failed for volume \"nfs\" : insmod: ERROR: could not insert module /lib/modules/5.14.0/kernel/fs/nfs/nfs.ko: Invalid module format",
    ];
    for m in msgs {
        let r = explain(m, UBUNTU);
        assert_eq!(causes(&r)[0], "kernel_module_mismatch", "{r:#}");
        assert!(
            !causes(&r).contains(&"kernel_module_missing".to_string()),
            "{r:#}"
        );
        let f = finding(&r, "kernel_module_mismatch");
        // The running kernel against the one the module was built for.
        assert!(
            commands(f).iter().any(|c| c.contains("uname -r")),
            "{}",
            texts(f)
        );
        assert!(
            texts(f).contains("kernel whose modules are installed"),
            "{}",
            texts(f)
        );
        // Installing a package for a module that is there would change nothing.
        assert!(
            !commands(f).iter().any(|c| c.contains("apt-get install")),
            "{}",
            texts(f)
        );
    }
}

#[test]
fn kind_cephx_caps_read_as_ownership_selinux_or_fuse() {
    let msgs = [
        "MountVolume.MountDevice failed for volume \"pvc-6\" : rpc error: code = Internal desc = rbd: map failed with error an error (exit status 13) occurred while running rbd args: [--id csi-rbd-node -m 10.0.0.1:6789 --keyfile=***stripped*** map replicapool/csi-vol-0a1b2c --device-type krbd --options noudev], rbd error output: rbd: unable to blacklist client: (13) Permission denied",
        "MountVolume.MountDevice failed for volume \"pvc-6\" : rpc error: code = Internal desc = failed to get connection: connecting failed: rados: ret=-13, Permission denied",
        "MountVolume.MountDevice failed for volume \"pvc-7\" : rpc error: code = Internal desc = an error (exit status 13) occurred while running mount args: [-t ceph 10.0.0.1:6789:/volumes/csi/x /var/lib/kubelet/plugins/kubernetes.io/csi/cephfs.csi.ceph.com/abc/globalmount -o name=csi-cephfs-node,mds_namespace=fs] stderr: mount error 13 = Permission denied",
    ];
    for m in msgs {
        let r = explain(m, ROCKY);
        assert_eq!(causes(&r)[0], "ceph_auth_failed", "{r:#}");
        for wrong in [
            "permission_denied_or_selinux",
            "fuse_mount_broken",
            "fuse_daemon_failed",
        ] {
            assert!(!causes(&r).contains(&wrong.to_string()), "{wrong}: {r:#}");
        }
        let f = finding(&r, "ceph_auth_failed");
        assert!(texts(f).contains("caps"), "{}", texts(f));
    }
}

#[test]
fn kind_mkfs_refusing_the_drivers_options_read_as_a_bad_superblock() {
    let msgs = [
        "MountVolume.MountDevice failed for volume \"pvc-10\" : rpc error: code = Internal desc = format of disk \"/dev/nvme2n1\" failed: type:(\"xfs\") target:(\"/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/abc/globalmount\") options:(\"defaults\") errcode:(exit status 1) output:(unknown option -i nrext64=0\nUsage: mkfs.xfs\n/* blocksize */\t\t[-b size=num]) ",
        "MountVolume.MountDevice failed for volume \"pvc-11\" : rpc error: code = Internal desc = format of disk \"/dev/sdc\" failed: type:(\"ext4\") target:(\"/var/lib/kubelet/plugins/kubernetes.io/csi/pd.csi.storage.gke.io/x/globalmount\") options:(\"defaults\") errcode:(exit status 1) output:(mke2fs: invalid option -- 'Z')",
    ];
    for m in msgs {
        let r = explain(m, UBUNTU);
        assert_eq!(causes(&r)[0], "mkfs_options_rejected", "{r:#}");
        for wrong in ["block_fs_corrupt_or_unformatted", "xfs_duplicate_uuid"] {
            assert!(!causes(&r).contains(&wrong.to_string()), "{wrong}: {r:#}");
        }
        // Nothing was written: no repair, no format by hand.
        assert!(
            all_commands(&r)
                .iter()
                .all(|c| !c.contains("xfs_repair") && !c.contains("fsck") && !c.contains("mkfs")),
            "{r:#}"
        );
    }
}

#[test]
fn kind_a_read_only_root_by_design_read_as_a_damaged_filesystem() {
    for (os, path) in [
        ("Bottlerocket OS 1.20.3 (aws-k8s-1.29)", "/data/app"),
        ("Talos (v1.7.6)", "/opt/local-data"),
        ("Container-Optimized OS from Google", "/data/app"),
        (
            "Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)",
            "/usr/local-data",
        ),
    ] {
        let m = format!(
            "MountVolume.SetUp failed for volume \"data\" : mkdir {path}: read-only file system"
        );
        let r = explain(&m, os);
        let s = serde_json::to_string(&r).unwrap();
        assert!(s.contains("read-only by design"), "{os}: {r:#}");
        for c in all_commands(&r) {
            assert!(
                !c.contains("fsck")
                    && !c.contains("xfs_repair")
                    && !c.contains("mount -o remount,rw"),
                "{os}: {c}"
            );
        }
    }
}

#[test]
fn kind_a_hostpath_socket_answered_by_creating_it_as_a_file() {
    let msgs = [
        ("/var/run/docker.sock", "MountVolume.SetUp failed for volume \"docker-sock\" : hostPath type check failed: /var/run/docker.sock is not a socket file"),
        ("/run/containerd/containerd.sock", "MountVolume.SetUp failed for volume \"cri\" : hostPath type check failed: /run/containerd/containerd.sock is not a file"),
        ("/dev/kvm", "MountVolume.SetUp failed for volume \"kvm\" : hostPath type check failed: /dev/kvm is not a character device"),
    ];
    for (path, m) in msgs {
        let r = explain(m, UBUNTU);
        let f = finding(&r, "hostpath_type_mismatch");
        for c in commands(f) {
            assert!(
                !c.contains("touch")
                    && !c.contains("rm ")
                    && !c.contains("mkdir")
                    && !c.contains("mknod"),
                "{path}: replaces what is there: {c}"
            );
        }
        let t = texts(f);
        assert!(t.contains("never remove or replace it"), "{t}");
        assert!(
            commands(f).iter().any(|c| c == &format!("ls -ld {path}")),
            "{t}"
        );
    }
    // A missing socket is made by the program that serves it, never by hand; a path named as
    // a socket is not offered as a file to create even where the pod asks for a file.
    let r = explain(msgs[0].1, UBUNTU);
    let t = texts(finding(&r, "hostpath_type_mismatch"));
    assert!(t.contains("never create the path by hand"), "{t}");
    for (_, m) in &msgs[..2] {
        let t = texts(finding(&explain(m, UBUNTU), "hostpath_type_mismatch"));
        assert!(
            !t.contains("as a file") && !t.contains("FileOrCreate"),
            "{t}"
        );
        assert!(t.contains("type: Socket"), "{t}");
    }
    // A file the pod asks for that is not named as a socket may still be created.
    let r = explain(
        "MountVolume.SetUp failed for volume \"cfg\" : hostPath type check failed: /etc/app/config.yaml is not a file",
        UBUNTU,
    );
    let t = texts(finding(&r, "hostpath_type_mismatch"));
    assert!(t.contains("FileOrCreate"), "{t}");
}

#[test]
fn kind_csinode_without_the_driver_answered_as_no_failure() {
    for m in [
        "AttachVolume.Attach failed for volume \"pvc-9\" : CSINode node-1 does not contain driver ebs.csi.aws.com",
        "MountVolume.MountDevice failed for volume \"pvc-9\" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name rook-ceph.rbd.csi.ceph.com not found in the list of registered CSI drivers",
    ] {
        let out = run_stdin(&["explain", "-o", "json", "-"], m.as_bytes());
        assert_ne!(out.code, 0, "a failure is not `no failure`: {}", out.stdout);
        let r = out.json()["messages"][0].clone();
        assert_eq!(r["status"], "stuck", "{r:#}");
        assert_eq!(causes(&r)[0], "csi_driver_not_registered", "{r:#}");
    }
}

#[test]
fn kind_the_export_read_from_systemd_runs_bracketed_argument_list() {
    let pod = "/var/lib/kubelet/pods/7c1d2e3f-aaaa-4bbb-8ccc-ddddeeeeffff/volumes/kubernetes.io~nfs/nfs-pv";
    for args in [
        format!("[--description=Kubernetes transient mount for {pod} --scope -- mount -t nfs 10.0.0.5:/exports/data {pod}]"),
        format!("--description=Kubernetes transient mount for {pod} --scope -- mount -t nfs 10.0.0.5:/exports/data {pod}"),
        format!("[--description=Kubernetes transient mount for {pod} --scope -- mount -t nfs -o nfsvers=4.1 10.0.0.5:/exports/data {pod}]"),
    ] {
        let m = format!("MountVolume.SetUp failed for volume \"nfs-pv\" : mount failed: exit status 32 Mounting command: systemd-run Mounting arguments: {args} Output: Running scope as unit: run-r1234.scope\nmount.nfs: access denied by server while mounting 10.0.0.5:/exports/data");
        let r = explain(&m, UBUNTU);
        let f = finding(&r, "nfs_access_denied");
        let t = texts(f);
        assert!(!t.contains("[--description") && !t.contains("--scope"), "{t}");
        assert!(t.contains("/exports/data"), "{t}");
        assert!(commands(f).iter().any(|c| c.contains("10.0.0.5:/exports/data")), "{t}");
    }
}

#[test]
fn kind_a_duplicate_uuid_blamed_although_the_mount_used_nouuid() {
    for opts in ["nouuid,defaults", "defaults,nouuid", "nouuid"] {
        let m = format!("MountVolume.MountDevice failed for volume \"pvc-11\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t xfs -o {opts} /dev/sdc /var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/x/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/x/globalmount: wrong fs type, bad option, bad superblock on /dev/sdc, missing codepage or helper program, or other error.");
        let r = explain(&m, UBUNTU);
        assert!(
            !causes(&r).contains(&"xfs_duplicate_uuid".to_string()),
            "{opts}: {r:#}"
        );
        assert!(
            all_commands(&r).iter().all(|c| !c.contains("xfs_admin -U")),
            "{r:#}"
        );
    }
}

#[test]
fn kind_cephfs_mount_error_22_not_tied_to_the_option() {
    for opt in ["discard", "nodiscard", "dax"] {
        let m = format!("MountVolume.MountDevice failed for volume \"pvc-5\" : rpc error: code = Internal desc = an error (exit status 22) occurred while running mount args: [-t ceph 10.0.0.1:6789:/volumes/csi/x /var/lib/kubelet/plugins/kubernetes.io/csi/cephfs.csi.ceph.com/abc/globalmount -o name=csi-cephfs-node,mds_namespace=fs,{opt}] stderr: mount error 22 = Invalid argument");
        let r = explain(&m, UBUNTU);
        assert_eq!(causes(&r)[0], "invalid_mount_option", "{r:#}");
        let f = finding(&r, "invalid_mount_option");
        let ev = serde_json::to_string(&f["evidence"]).unwrap();
        assert!(
            ev.contains(&format!("not listed by mount(8) or ceph(5): {opt}")),
            "{ev}"
        );
    }
}

#[test]
fn kind_iscsi_authorization_failures_not_tied_to_chap() {
    let msgs = [
        "MountVolume.WaitForAttach failed for volume \"iscsi-pv\" : failed to get any path for iscsi disk, last err seen:\niscsi: failed to attach disk: Error: iscsiadm: Could not login to [iface: default, target: iqn.2003-01.org.linux-iscsi.target:sn.1234, portal: 10.0.0.9,3260].\niscsiadm: initiator reported error (24 - iSCSI login failed due to authorization failure)\niscsiadm: Could not log into all portals\n (exit status 24)",
        "MountVolume.WaitForAttach failed for volume \"iscsi-pv\" : rpc error: code = Internal desc = iscsiadm -m node -T iqn.2003-01.org.linux-iscsi.target:sn.1234 -p 10.0.0.9:3260 --login failed: exit status 24",
        "MountVolume.WaitForAttach failed for volume \"iscsi-pv\" : iscsi: failed to sendtargets to portal 10.0.0.9:3260 output: iscsiadm: Connection to Discovery Address 10.0.0.9 closed\n$ sudo journalctl -u iscsid | tail -n 3\nNov 29 04:00:01 node-1 iscsid[812]: Login failed to authenticate with target iqn.2003-01.org.linux-iscsi.target:sn.1234\nNov 29 04:00:01 node-1 iscsid[812]: session 1 login rejected: initiator failed authorization with target",
    ];
    for m in msgs {
        let r = explain(m, UBUNTU);
        assert_eq!(causes(&r)[0], "storage_credentials_rejected", "{r:#}");
        let f = finding(&r, "storage_credentials_rejected");
        let t = texts(f);
        assert!(t.contains("CHAP"), "{t}");
        assert!(
            commands(f).iter().any(|c| c.contains("node.session.auth")),
            "{t}"
        );
    }
}

// --- Wrong for the service -------------------------------------------------------------------

#[test]
fn kind_a_managed_file_service_treated_as_a_linux_nfs_server() {
    let pod = "/var/lib/kubelet/pods/9a8b7c6d-1111-4222-8333-444455556666/volumes/kubernetes.io~csi/v/mount";
    let cases = [
        ("Amazon EFS", format!("MountVolume.SetUp failed for volume \"efs-pv\" : rpc error: code = Internal desc = Could not mount \"fs-0123456789abcdef0:/\" at \"{pod}\": mount failed: exit status 32 Mounting command: mount Mounting arguments: -t efs -o tls fs-0123456789abcdef0:/ {pod} Output: mount.nfs4: access denied by server while mounting 127.0.0.1:/")),
        ("Amazon EFS", format!("MountVolume.SetUp failed for volume \"efs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs4 fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/ {pod} Output: mount.nfs4: access denied by server while mounting fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/")),
        ("Azure Files", format!("MountVolume.MountDevice failed for volume \"pvc-az\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs -o vers=4,minorversion=1,sec=sys acct.file.core.windows.net:/acct/pvc-az {pod} Output: mount.nfs: access denied by server while mounting acct.file.core.windows.net:/acct/pvc-az")),
        ("Amazon FSx", format!("MountVolume.SetUp failed for volume \"fsx\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs svm-0123456789abcdef0.fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com:/vol1 {pod} Output: mount.nfs: access denied by server while mounting svm-0123456789abcdef0.fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com:/vol1")),
        ("Google Cloud Filestore", String::from("MountVolume.MountDevice failed for volume \"pvc-fs\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.20.0.2:/vol1 /var/lib/kubelet/plugins/kubernetes.io/csi/filestore.csi.storage.gke.io/x/globalmount Output: mount.nfs: access denied by server while mounting 10.20.0.2:/vol1")),
    ];
    let server_side = regex::Regex::new(r"\b(showmount|exportfs|rpcinfo)\b|/etc/exports").unwrap();
    for os in [
        UBUNTU,
        "Amazon Linux 2023.6.20241111",
        "Microsoft Azure Linux 3.0",
    ] {
        for (service, m) in &cases {
            let r = explain(m, os);
            for f in r["findings"].as_array().unwrap() {
                for c in commands(f) {
                    assert!(!server_side.is_match(&c), "{service} on {os}: {c}");
                }
                assert!(
                    !texts(f).contains("On the server "),
                    "{service}: a Linux server's step: {}",
                    texts(f)
                );
            }
            let f = finding(&r, "nfs_access_denied");
            assert!(
                texts(f).contains(service.split(' ').next_back().unwrap())
                    || texts(f).contains(service),
                "{service}: {}",
                texts(f)
            );
        }
    }
    // Access denied on EFS is the file system policy or IAM.
    let r = explain(&cases[0].1, UBUNTU);
    let t = texts(finding(&r, "nfs_access_denied"));
    assert!(t.contains("file system policy") && t.contains("IAM"), "{t}");
    assert!(
        t.contains("aws efs describe-file-system-policy --file-system-id fs-0123456789abcdef0"),
        "{t}"
    );
}

#[test]
fn kind_a_disk_owned_by_another_vm_with_no_step_about_that_vm() {
    for (vm, m) in [
        ("aks-nodepool1-12345678-vmss_0", "AttachVolume.Attach failed for volume \"pvc-0cb70641\" : rpc error: code = Unknown desc = Attach volume /subscriptions/0000/resourceGroups/mc_rg/providers/Microsoft.Compute/disks/pvc-0cb70641 to instance aks-nodepool1-12345678-vmss000001 failed with Retriable: false, RetryAfter: 0s, HTTPStatusCode: 409, RawError: {\"error\": {\"code\": \"OperationNotAllowed\", \"message\": \"Cannot attach data disk 'pvc-0cb70641' to VM 'aks-nodepool1-12345678-vmss_1' because the disk is currently being detached or the last detach operation failed. The disk is already owned by VM 'aks-nodepool1-12345678-vmss_0'.\"}}"),
        ("gke-pool-1-abcd", "AttachVolume.Attach failed for volume \"pvc-1\" : rpc error: code = Internal desc = unknown Attach error: failed when waiting for zonal op: operation operation-123 failed (RESOURCE_IN_USE_BY_ANOTHER_RESOURCE): The disk resource 'projects/p/zones/us-central1-a/disks/pvc-1' is already being used by 'projects/p/zones/us-central1-a/instances/gke-pool-1-abcd'"),
    ] {
        let r = explain(m, UBUNTU);
        let f = &r["findings"][0];
        let t = texts(f);
        assert!(t.contains(vm), "{vm}: {t}");
        assert!(
            steps(f).iter().any(|s| s["acts_at"] == "storage"),
            "a step on the cloud's side: {t}"
        );
    }
}

// --- Wrong for the node image ----------------------------------------------------------------

const NFS_HELPER: &str = "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount: wrong fs type, bad option, bad superblock on 10.0.0.5:/exports, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";
const CIFS_HELPER: &str = "MountVolume.SetUp failed for volume \"smb\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t cifs //srv/share /var/lib/kubelet/pods/1/volumes/kubernetes.io~csi/smb/mount Output: mount: wrong fs type, bad option, bad superblock on //srv/share, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";
const RBD_MISSING: &str = "MountVolume.WaitForAttach failed for volume \"pvc-3\" : error: exec: \"rbd\": executable file not found in $PATH";

fn install_steps_of(os: &str) -> Vec<String> {
    [NFS_HELPER, CIFS_HELPER, RBD_MISSING]
        .iter()
        .flat_map(|m| all_commands(&explain(m, os)))
        .collect()
}

#[test]
fn kind_ubuntu_core_given_apt() {
    for os in ["Ubuntu Core 22", "Ubuntu Core 24"] {
        let cmds = install_steps_of(os);
        assert!(
            cmds.iter()
                .all(|c| !c.contains("apt") && !c.contains("dpkg") && !c.contains("tee /etc")),
            "{os}: {cmds:?}"
        );
        let t = texts(finding(&explain(NFS_HELPER, os), "nfs_client_missing"));
        assert!(t.contains("image-based") || t.contains("snap"), "{t}");
    }
}

#[test]
fn kind_nixos_given_an_imperative_install() {
    let os = "NixOS 24.05 (Uakari)";
    let cmds = install_steps_of(os);
    assert!(
        cmds.iter()
            .all(|c| !c.contains("nix-env") && !c.contains("nix profile install")),
        "{cmds:?}"
    );
    let t = texts(finding(&explain(NFS_HELPER, os), "nfs_client_missing"));
    assert!(
        t.contains("configuration") && t.contains("nixos-rebuild switch"),
        "{t}"
    );
    // Its helpers are not under /sbin: the check looks where NixOS's mount looks.
    assert!(
        t.contains("ls -l /run/wrappers/bin/mount.nfs /run/current-system/sw/bin/mount.nfs"),
        "{t}"
    );
    assert!(!t.contains("/sbin/mount.nfs"), "{t}");
}

#[test]
fn kind_k3os_given_systemd_or_an_nfs_install() {
    let os = "k3OS v0.21.5-k3s2r1";
    let t = texts(finding(&explain(NFS_HELPER, os), "nfs_client_missing"));
    assert!(t.contains("ships the NFS client"), "{t}");
    let statd = "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/x /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/data Output: mount.nfs: rpc.statd is not running but is required for remote locking. mount.nfs: Either use '-o nolock' to keep locks local, or start statd.";
    let mut cmds = install_steps_of(os);
    cmds.extend(all_commands(&explain(statd, os)));
    assert!(
        cmds.iter().all(|c| !c.contains("systemctl")
            && !c.contains("journalctl")
            && !c.contains("apk add")),
        "{cmds:?}"
    );
    assert!(cmds.iter().any(|c| c.contains("rc-service")), "{cmds:?}");
}

#[test]
fn kind_azure_linux_mariner_and_photon_given_another_package_manager() {
    for os in [
        "Microsoft Azure Linux 3.0",
        "CBL-Mariner/Linux",
        "Common Base Linux Mariner 2.0",
        "VMware Photon OS/Linux",
    ] {
        let cmds = install_steps_of(os);
        let installs: Vec<&String> = cmds.iter().filter(|c| c.contains(" install ")).collect();
        assert!(!installs.is_empty(), "{os}: {cmds:?}");
        assert!(
            installs
                .iter()
                .all(|c| c.starts_with("sudo tdnf install -y ")),
            "{os}: {installs:?}"
        );
    }
    // Photon's repositories have no Ceph: no ceph-common install there.
    let cmds = all_commands(&explain(RBD_MISSING, "VMware Photon OS/Linux"));
    assert!(cmds.iter().all(|c| !c.contains("ceph-common")), "{cmds:?}");
}

const STATD: &str = "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/x /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/data Output: mount.nfs: rpc.statd is not running but is required for remote locking. mount.nfs: Either use '-o nolock' to keep locks local, or start statd. mount.nfs: an incorrect mount option was specified";

#[test]
fn kind_bottlerocket_told_to_run_rpcbind_or_statd() {
    let os = "Bottlerocket OS 1.20.3 (aws-k8s-1.29)";
    let r = explain(STATD, os);
    let f = finding(&r, "nfs_statd_missing");
    for s in steps(f) {
        let t = s["text"].as_str().unwrap();
        assert!(!t.starts_with("Start rpcbind"), "{t}");
        if let Some(c) = s["command"].as_str() {
            assert!(!c.contains("systemctl") && !c.contains("rpcbind"), "{c}");
        }
    }
    assert!(
        texts(f).contains("no rpcbind and no rpc.statd"),
        "{}",
        texts(f)
    );
    assert!(
        texts(f).contains("nolock") && texts(f).contains("NFSv4"),
        "{}",
        texts(f)
    );
}

#[test]
fn kind_ceph_common_on_centos_7_and_amazon_linux_2() {
    // CentOS 7: `base` has ceph-common 10.2.5 (a real yum transaction named the repository), too
    // old for a current cluster, and the text says so. Amazon Linux 2: not verified, so the
    // package manager's own availability check comes first.
    let r = explain(RBD_MISSING, "CentOS Linux 7 (Core)");
    let f = finding(&r, "fs_helper_missing");
    assert!(
        commands(f)
            .iter()
            .any(|c| c == "sudo yum install -y ceph-common"),
        "{}",
        texts(f)
    );
    assert!(texts(f).contains("10.2"), "{}", texts(f));
    let r = explain(RBD_MISSING, "Amazon Linux 2");
    let f = finding(&r, "fs_helper_missing");
    let cmds = commands(f);
    let check = cmds
        .iter()
        .position(|c| c == "yum -q list available ceph-common");
    let install = cmds
        .iter()
        .position(|c| c == "sudo yum install -y ceph-common");
    assert!(
        check.is_some() && install.is_some() && check < install,
        "{cmds:?}"
    );
    assert!(
        texts(f).contains("only if the check above lists it"),
        "{}",
        texts(f)
    );
}

#[test]
fn kind_talos_not_recognised_from_talosctl_output() {
    let dmesg = include_str!("../fixtures/node/talosctl-dmesg.txt");
    let paste = format!("{dmesg}$ kubectl get events -n shop\nLAST SEEN   TYPE      REASON        OBJECT      MESSAGE\n2m          Warning   FailedMount   pod/web-0   MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/sdb.\n");
    let d = doctor(&paste);
    assert_eq!(d["node_os"]["os"], "talos", "{:#}", d["node_os"]);
    // The kernel line talosctl printed is read: the duplicate UUID it names.
    assert_eq!(causes(&d)[0], "xfs_duplicate_uuid", "{d:#}");
    // Talos has no shell: no shell command at all.
    for c in all_commands(&d) {
        assert!(!c.starts_with("sudo ") && !c.contains("blkid"), "{c}");
    }
    // `talosctl version` names it too.
    let paste = "$ talosctl -n 10.5.0.2 version\nClient:\n\tTag:         v1.7.6\nServer:\n\tNODE:        10.5.0.2\n\tTag:         v1.7.6\n".to_string()
        + &paste[dmesg.len()..];
    let d = doctor(&paste);
    assert_eq!(d["node_os"]["os"], "talos", "{:#}", d["node_os"]);
}

#[test]
fn kind_microk8s_strict_snap_told_to_install_host_helpers() {
    let pod = "/var/snap/microk8s/common/var/lib/kubelet/pods/3f2e1d0c-1111-4222-8333-444455556666/volumes/kubernetes.io~nfs/nfs";
    let m = format!("MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports {pod} Output: mount: {pod}: bad option; for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program.");
    for os in [UBUNTU, "Ubuntu 24.04.1 LTS", "Ubuntu Core 24"] {
        let r = explain(&m, os);
        let t = texts(finding(&r, "nfs_client_missing"));
        assert!(
            t.contains("MicroK8s") && t.contains("strictly confined"),
            "{os}: {t}"
        );
        assert!(t.contains("changes nothing"), "{os}: {t}");
    }
}

#[test]
fn kind_rhcos_oc_debug_running_volmnt_or_writing_its_root() {
    let os = "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)";
    let msgs = [
        NFS_HELPER,
        STATD,
        RBD_MISSING,
        "MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/sdb.",
        "MountVolume.SetUp failed for volume \"pvc-0\" : rbd: map failed exit status 2 modprobe: FATAL: Module rbd not found in directory /lib/modules/5.14.0-284.el9.x86_64",
        "MountVolume.SetUp failed for volume \"data\" : mkdir /var/lib/app/data: permission denied",
    ];
    // RHCOS's /usr is read-only (ostree); /etc is kept, but changed by MachineConfigs.
    let writes_root =
        regex::Regex::new(r"tee (-a )?/(usr|lib|sbin|bin)/|> ?/(usr|lib|sbin|bin)/|sed -i /usr/")
            .unwrap();
    for m in msgs {
        let r = explain(m, os);
        for c in all_commands(&r) {
            assert!(!(c.contains("oc debug") && c.contains("volmnt")), "{c}");
            assert!(
                !c.contains("dnf install") && !c.contains("yum install"),
                "{c}"
            );
            assert!(
                !writes_root.is_match(&c),
                "writes RHCOS's read-only root: {c}"
            );
        }
    }
}

// --- Not pasteable or not bounded ------------------------------------------------------------

#[test]
fn kind_an_unbounded_remote_command() {
    // Every ssh in the knowledge, filled, carries its connect timeout and never asks.
    let lock = "MountVolume.MountDevice failed for volume \"pvc-14\" : rpc error: code = Internal desc = rbd image replicapool/csi-vol-9a9b is locked by other nodes\n$ rbd lock ls replicapool/csi-vol-9a9b\nThere is 1 exclusive lock on this image.\nLocker         ID                    Address\nclient.44120   auto 139960341460224  10.0.0.22:0/1718431093\n";
    let msgs = [
        lock,
        NFS_HELPER,
        STATD,
        "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount.nfs: Connection timed out",
        "MountVolume.WaitForAttach failed for volume \"pv\" : iscsiadm: cannot make connection to 10.0.0.9: connection refused; dial tcp 10.0.0.9:3260: i/o timeout",
        "mount.nfs: access denied by server while mounting 10.0.0.5:/exports/data",
    ];
    let network = regex::Regex::new(r"(?:^|[;&|(]\s*|sudo\s+)(ssh|scp|showmount|rpcinfo|smbclient|curl|wget|nc|ncat)\s|\boc\s+debug\s|/dev/tcp/|\bmount\s+-t\s+(nfs4?|cifs|ceph)\b").unwrap();
    for os in [
        UBUNTU,
        ROCKY,
        "Alpine Linux v3.19",
        "CentOS Linux 7 (Core)",
        "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)",
    ] {
        for m in msgs {
            let cmds = all_commands(&doctor(m));
            let cmds2 = all_commands(&explain(m, os));
            for c in cmds.iter().chain(&cmds2) {
                for part in c.split(['&', ';', '|']) {
                    if !network.is_match(part) {
                        continue;
                    }
                    let p = part.trim();
                    let ok = if p.contains("ssh ") {
                        p.contains("-o ConnectTimeout=") && p.contains("-o BatchMode=yes")
                    } else {
                        p.contains("timeout ") || p.contains(" -w ")
                    };
                    assert!(ok, "{os}: unbounded `{p}` in {c}");
                }
            }
        }
    }
}

#[test]
fn kind_the_filesystem_type_placeholder_leaks_into_prose() {
    for m in [
        "MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/sdb.",
        "MountVolume.MountDevice failed for volume \"pvc-2\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/rbd0, missing codepage or helper program, or other error.",
        "MountVolume.SetUp failed for volume \"v\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/pods/1/volumes/kubernetes.io~csi/v/mount: bad option; mount option 'foo' unknown",
    ] {
        let out = run_stdin(&["explain", "--node-os", UBUNTU, "-"], m.as_bytes());
        assert!(!out.stdout.contains("the filesystem type"), "{}", out.stdout);
        assert!(!out.stdout.contains("{fstype}"), "{}", out.stdout);
    }
}

#[test]
fn kind_the_rbd_image_withheld_though_the_message_names_it() {
    let m = "MountVolume.MountDevice failed for volume \"pvc-13\" : rpc error: code = Internal desc = rbd: map failed with error an error (exit status 6) occurred while running rbd args: [--id csi-rbd-node -m 10.0.0.1:6789 --keyfile=***stripped*** map replicapool/csi-vol-77aa --device-type krbd --options noudev], rbd error output: rbd: sysfs write failed\nRBD image feature set mismatch. You can disable features unsupported by the kernel with \"rbd feature disable replicapool/csi-vol-77aa object-map fast-diff deep-flatten\".\nIn some cases useful info is found in syslog - try \"dmesg | tail\".\nrbd: map failed: (6) No such device or address";
    let r = explain(m, UBUNTU);
    let f = finding(&r, "rbd_image_features_unsupported");
    let t = texts(f);
    assert!(!t.contains("[needs the RBD image"), "{t}");
    assert!(
        commands(f)
            .iter()
            .any(|c| c == "rbd info replicapool/csi-vol-77aa"),
        "{t}"
    );
    // What the message names is what gets disabled; deep-flatten is never said to come back.
    assert!(
        commands(f).iter().any(
            |c| c.contains("rbd feature disable replicapool/csi-vol-77aa")
                && c.contains("deep-flatten")
        ),
        "{t}"
    );
    assert!(
        t.contains("deep-flatten and journaling can never be enabled again")
            || t.contains("deep-flatten and journaling never"),
        "{t}"
    );
    let lower = t.to_lowercase();
    assert!(!lower.contains("deep-flatten can be"), "{t}");
    // The image from the map arguments alone (no hint line).
    let m2 = "MountVolume.MountDevice failed for volume \"pvc-15\" : rpc error: code = Internal desc = rbd: map failed with error an error (exit status 6) occurred while running rbd args: [--id csi-rbd-node -m 10.0.0.1:6789 --keyfile=***stripped*** map replicapool/csi-vol-88bb --device-type krbd --options noudev], rbd error output: rbd: sysfs write failed\nRBD image feature set mismatch. Try disabling features unsupported by the kernel with \"rbd feature disable\".\nrbd: map failed: (6) No such device or address";
    let r = explain(m2, UBUNTU);
    let f = finding(&r, "rbd_image_features_unsupported");
    assert!(
        commands(f)
            .iter()
            .any(|c| c == "rbd info replicapool/csi-vol-88bb"),
        "{}",
        texts(f)
    );
}

#[test]
fn kind_a_device_without_a_by_id_name_gets_no_partition_listing_or_repair() {
    for dev in [
        "/dev/longhorn/pvc-2",
        "/dev/drbd1000",
        "/dev/mapper/vg0-lv_data",
        "/dev/disk/azure/scsi1/lun0",
    ] {
        let m = format!("MountVolume.MountDevice failed for volume \"pvc-5\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 -o defaults {dev} /var/lib/kubelet/plugins/kubernetes.io/csi/x/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/x/globalmount: wrong fs type, bad option, bad superblock on {dev}, missing codepage or helper program, or other error.");
        let r = explain(&m, UBUNTU);
        let f = finding(&r, "block_fs_corrupt_or_unformatted");
        let cmds = commands(f);
        assert!(
            cmds.iter().any(|c| c.contains(&format!("blkid -p {dev}"))),
            "{dev}: {cmds:?}"
        );
        assert!(
            cmds.iter()
                .any(|c| c.contains(&format!("e2fsck -fn {dev}"))),
            "{dev}: {cmds:?}"
        );
        assert!(
            cmds.iter()
                .any(|c| c.contains(&format!("e2fsck -fy {dev}"))),
            "{dev}: {cmds:?}"
        );
        assert!(!texts(f).contains("[needs"), "{dev}: {}", texts(f));
        // The partition listing too, on the device as the message names it.
        let f = finding(&r, "partitioned_disk");
        assert!(
            commands(f).iter().any(|c| c == &format!("lsblk -f {dev}")),
            "{dev}: {}",
            texts(f)
        );
    }
}

#[test]
fn kind_a_path_the_message_gives_said_to_be_missing() {
    for (path, m) in [
        ("/mnt/disks/ssd1", "MountVolume.NewMounter initialization failed for volume \"local-pv\" : path \"/mnt/disks/ssd1\" does not exist"),
        ("/data/app", "MountVolume.SetUp failed for volume \"data\" : hostPath type check failed: /data/app is not a directory"),
        ("/var/lib/app/data", "MountVolume.SetUp failed for volume \"data\" : mkdir /var/lib/app/data: permission denied"),
    ] {
        let r = explain(m, ROCKY);
        let f = &r["findings"][0];
        let t = texts(f);
        assert!(!t.contains("[needs the path"), "{path}: {t}");
        assert!(commands(f).iter().any(|c| c.contains(path)), "{path}: {t}");
    }
}

#[test]
fn kind_an_empty_host_name_in_a_command() {
    let empty = regex::Regex::new(
        r"node/\s|node/$|//\s|/dev/tcp//|\bssh(\s+-o\s+\S+)*\s+(rbd|sudo|$)|@\s|-n\s+(--|$)",
    )
    .unwrap();
    let msgs = [
        "MountVolume.MountDevice failed for volume \"pvc-14\" : rpc error: code = Internal desc = rbd image replicapool/csi-vol-9a9b is locked by other nodes",
        "MountVolume.WaitForAttach failed for volume \"pv\" : iscsiadm: cannot make connection to 10.0.0.9: connection refused; dial tcp 10.0.0.9:3260: i/o timeout",
        "mount.nfs: Connection timed out",
        STATD,
    ];
    for os in [
        UBUNTU,
        "Talos (v1.7.6)",
        "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)",
        "Bottlerocket OS 1.20.3 (aws-k8s-1.29)",
    ] {
        for m in msgs {
            for c in all_commands(&explain(m, os)) {
                assert!(!empty.is_match(&c), "{os}: an empty host in {c}");
            }
        }
    }
    // The host a transcript names is the one the commands use.
    let r = explain(msgs[1], UBUNTU);
    assert!(
        all_commands(&r).iter().any(|c| c.contains("10.0.0.9")),
        "{r:#}"
    );
}

#[test]
fn kind_dmesg_notime_not_read() {
    for (cmd, line) in [
        ("dmesg --notime | tail -n 20", "XFS (sdb): Filesystem has duplicate UUID 9e1f0c2a-6a51-4b2e-9c43-0d3f5a2b7e11 - can't mount"),
        ("sudo dmesg --notime", "XFS (sdb): Filesystem has duplicate UUID 9e1f0c2a-6a51-4b2e-9c43-0d3f5a2b7e11 - can't mount"),
        ("dmesg -t", "XFS (sdb): Filesystem has duplicate UUID 9e1f0c2a-6a51-4b2e-9c43-0d3f5a2b7e11 - can't mount"),
    ] {
        let paste = format!("$ {cmd}\nEXT4-fs (sda1): re-mounted. Quota mode: none.\n{line}\n$ kubectl get events -n shop\nLAST SEEN   TYPE      REASON        OBJECT      MESSAGE\n2m          Warning   FailedMount   pod/web-0   MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/sdb.\n");
        let d = doctor(&paste);
        assert_eq!(causes(&d)[0], "xfs_duplicate_uuid", "{cmd}: {d:#}");
    }
}

// --- Misleading ------------------------------------------------------------------------------

#[test]
fn kind_statd_started_for_this_boot_only() {
    for os in [
        UBUNTU,
        ROCKY,
        "Debian GNU/Linux 12 (bookworm)",
        "SUSE Linux Enterprise Server 15 SP5",
        "Amazon Linux 2023.6.20241111",
    ] {
        let cmds = all_commands(&explain(STATD, os));
        for c in cmds
            .iter()
            .filter(|c| c.contains("systemctl start rpc-statd"))
        {
            assert!(
                c.contains("add-wants multi-user.target rpc-statd.service"),
                "{os}: {c}"
            );
        }
        assert!(
            cmds.iter().any(|c| c.contains("rpc-statd")),
            "{os}: {cmds:?}"
        );
        assert!(
            !cmds
                .iter()
                .any(|c| c.contains("enable rpc-statd") || c.contains("enable --now rpc-statd")),
            "{os}: {cmds:?}"
        );
    }
    let cmds = all_commands(&explain(STATD, "Alpine Linux v3.19"));
    assert!(
        cmds.iter().any(|c| c.contains("rc-update add rpc.statd")),
        "{cmds:?}"
    );
}

const MULTIPATH_LL: &str = "$ sudo multipath -ll\nmpatha (3600508b4000156d700012000000b0000) dm-2 HP,HSV200\nsize=10G features='1 queue_if_no_path' hwhandler='0' wp=rw\n|-+- policy='round-robin 0' prio=1 status=active\n| `- 0:0:0:1 sdb 8:16 active ready running\n`-+- policy='round-robin 0' prio=1 status=enabled\n  `- 1:0:0:1 sdc 8:32 active ready running\n";

#[test]
fn kind_a_repair_of_a_device_multipathd_holds() {
    for dev in ["sdb", "sdc"] {
        let paste = format!("{MULTIPATH_LL}$ kubectl get events -n shop\nLAST SEEN   TYPE      REASON        OBJECT      MESSAGE\n2m          Warning   FailedMount   pod/web-0   MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 -o defaults /dev/{dev} /var/lib/kubelet/plugins/x/globalmount Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/{dev}, missing codepage or helper program, or other error.\n");
        let d = doctor(&paste);
        for f in d["findings"].as_array().unwrap() {
            for c in commands(f) {
                let repairs = c.contains("fsck -y")
                    || c.contains("e2fsck -fy")
                    || c.contains("xfs_repair")
                    || c.contains("dd if=")
                    || c.contains("mkfs");
                assert!(
                    !(repairs && c.contains(&format!("/dev/{dev}"))),
                    "{dev}: {c}"
                );
            }
        }
        let s = serde_json::to_string(&d).unwrap();
        assert!(s.contains("mpatha"), "{d:#}");
    }
}

#[test]
fn kind_find_multipaths_strict_with_an_empty_multipath_ll_not_named() {
    let paste = "$ cat /etc/multipath.conf\ndefaults {\n    user_friendly_names yes\n    find_multipaths strict\n}\n$ sudo multipath -ll\n$ kubectl get events -n shop\nLAST SEEN   TYPE      REASON        OBJECT      MESSAGE\n2m          Warning   FailedMount   pod/web-0   MountVolume.MountDevice failed for volume \"pvc-1\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 /dev/mapper/3600a098038303634722b4d59646c4436 /var/lib/kubelet/plugins/x/globalmount Output: mount: /var/lib/kubelet/plugins/x/globalmount: special device /dev/mapper/3600a098038303634722b4d59646c4436 does not exist.\n";
    let d = doctor(paste);
    let s = serde_json::to_string(&d).unwrap();
    assert!(s.contains("find_multipaths"), "{d:#}");
    assert!(
        s.contains("the empty `multipath -ll` of this node"),
        "{d:#}"
    );
    // Without the listing, the strict setting is named but no empty listing is claimed.
    let d = doctor(&paste.replace("$ sudo multipath -ll\n", ""));
    let s = serde_json::to_string(&d).unwrap();
    assert!(s.contains("find_multipaths"), "{d:#}");
    assert!(!s.contains("the empty `multipath -ll`"), "{d:#}");
}
