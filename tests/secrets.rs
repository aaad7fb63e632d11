//! Secrets, proven: known secret values are planted in every kind of input volmnt reads (mount
//! options, rbd command lines and keyrings, iSCSI CHAP settings, SMB credentials, a kubeconfig's
//! token, cloud access keys, Secret objects in saved YAML and in the cluster), then every command
//! runs in every output format, verbose, with `--save`, and into its error paths; no planted
//! value, nor any 8-character piece of one, may appear in any stdout, stderr or saved file.

use std::path::{Path, PathBuf};

use crate::support::fake_api::{start_in_background, FakeCluster, Options};
use crate::util::{cmd, run_cmd, Out, TempDir};

/// The planted secrets. Each is unlike anything else in the fixtures, so a match is a leak.
const CEPH_KEY: &str = "AQBvqF5nAAAAABAAk2VJm1QZ7Qq4Ob3eXb7xkQ==";
const SMB_PASSWORD: &str = "Sup3rSecretSmbPw9";
const CHAP_PASSWORD: &str = "ChapS3cretZq7Wm";
const TOKEN: &str = "kubeTokenPlanted7f3a9c2e5b";
const AWS_KEY_ID: &str = "AKIAQXPLANTED7EXAMP2";
const AWS_SECRET: &str = "wJalrXUtnFEMIK7MDENGbPxPlantedRfiCYEXAMPLEKEY";
const AZURE_KEY: &str =
    "Zm9vYmFyUGxhbnRlZEF6dXJlU3RvcmFnZUtleTEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eg==";
const SECRET_DATA_PLAIN: &str = "dbPasswordPlantedXq81";

/// Pieces long enough to identify a secret, short enough to catch a partial leak.
fn pieces() -> Vec<String> {
    let mut out = Vec::new();
    for s in [
        CEPH_KEY,
        SMB_PASSWORD,
        CHAP_PASSWORD,
        TOKEN,
        AWS_KEY_ID,
        AWS_SECRET,
        AZURE_KEY,
        SECRET_DATA_PLAIN,
    ] {
        let b: Vec<char> = s.chars().collect();
        for i in 0..=b.len().saturating_sub(10) {
            let p: String = b[i..i + 10.min(b.len())].iter().collect();
            // Pieces of the key's fixed prefix are not secret.
            if !p.starts_with("AQBvqF5nAA") && p != "AAAAABAAk2" {
                out.push(p);
            }
        }
    }
    // The base64 of the Secret's data must not appear decoded or encoded either.
    out.push(base64_of(SECRET_DATA_PLAIN));
    out
}

fn base64_of(s: &str) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, s)
}

#[track_caller]
fn assert_clean(what: &str, text: &str) {
    for p in pieces() {
        assert!(
            !text.contains(&p),
            "{what}: a planted secret leaked ({p}):\n{text}"
        );
    }
}

#[track_caller]
fn assert_out_clean(what: &str, out: &Out) {
    out.assert_no_panic();
    assert_clean(&format!("{what} (stdout)"), &out.stdout);
    assert_clean(&format!("{what} (stderr)"), &out.stderr);
}

fn assert_dir_clean(what: &str, dir: &Path) {
    for e in walk(dir) {
        let text = String::from_utf8_lossy(&std::fs::read(&e).unwrap()).into_owned();
        assert_clean(&format!("{what}: {}", e.display()), &text);
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Failure messages carrying every secret shape, as kubelet, drivers and tools print them.
fn messages() -> Vec<String> {
    vec![
        format!("MountVolume.SetUp failed for volume \"share\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t cifs -o username=svc,password={SMB_PASSWORD},vers=3.0 //files.example.internal/team /var/lib/kubelet/pods/3b1f0c1e-1111-2222-3333-444455556666/volumes/kubernetes.io~csi/share/mount\nOutput: mount error(13): Permission denied"),
        format!("MountVolume.MountDevice failed for volume \"fs\" : rpc error: code = Internal desc = an error (exit status 32) occurred while running mount args: [-t ceph 10.0.0.1:6789:/volumes/csi /var/lib/kubelet/plugins/kubernetes.io/csi/pv/fs/globalmount -o name=admin,secret={CEPH_KEY},mds_namespace=fs] stderr: mount error 110 = Connection timed out"),
        format!("rbd: map failed: (110) Connection timed out\nrbd map kube/img --id admin --key {CEPH_KEY} -m 10.0.0.1:6789"),
        format!("iscsiadm: Could not login to [iface: default, target: iqn.2001-05.com.example:t1, portal: 10.0.0.9,3260]: node.session.auth.password = {CHAP_PASSWORD}"),
        format!("AttachVolume.Attach failed for volume \"pvc-1\" : rpc error: code = Internal desc = could not attach: AWS_ACCESS_KEY_ID={AWS_KEY_ID} AWS_SECRET_ACCESS_KEY={AWS_SECRET} UnauthorizedOperation"),
        format!("MountVolume.SetUp failed for volume \"az\" : mount failed: exit status 32 Mounting arguments: -t cifs -o username=acct,password={AZURE_KEY} //acct.file.core.windows.net/share /mnt"),
        format!("Get \"https://10.0.0.1:6443/api/v1/pods\": Authorization: Bearer {TOKEN}: connection refused"),
    ]
}

/// A saved pod (describe + events) and objects YAML with Secret objects in it.
fn saved_case(dir: &Path) -> Vec<PathBuf> {
    let events: String = messages()
        .iter()
        .map(|m| {
            format!(
                "  Warning  FailedMount  2m    kubelet, node1  {}\n",
                m.replace('\n', " ")
            )
        })
        .collect();
    let describe = format!(
        "Name:         web-0\nNamespace:    shop\nNode:         node1/10.0.0.5\nStatus:       Pending\nContainers:\n  web:\n    State:          Waiting\n      Reason:       ContainerCreating\nVolumes:\n  share:\n    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:  share\nEvents:\n  Type     Reason       Age   From            Message\n  ----     ------       ----  ----            -------\n{events}"
    );
    let objects = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\ntype: Opaque\ndata:\n  password: {}\nstringData:\n  token: {SECRET_DATA_PLAIN}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: ceph-secret\n  namespace: shop\ndata:\n  key: {}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: azure\n  namespace: shop\nstringData:\n  azurestorageaccountkey: {AZURE_KEY}\n  azurestorageaccountname: acct\n",
        base64_of(SECRET_DATA_PLAIN),
        base64_of(CEPH_KEY)
    );
    let keyring = format!("[client.admin]\n\tkey = {CEPH_KEY}\n\tcaps mon = \"allow *\"\n");
    let d = dir.join("describe.txt");
    let o = dir.join("objects.yaml");
    let k = dir.join("ceph.client.admin.keyring");
    std::fs::write(&d, describe).unwrap();
    std::fs::write(&o, objects).unwrap();
    std::fs::write(&k, keyring).unwrap();
    vec![d, o]
}

fn volmnt(args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut c = cmd();
    c.args(args).env_remove("KUBECONFIG");
    for (k, v) in env {
        c.env(k, v);
    }
    run_cmd(&mut c, None)
}

const FORMATS: &[&str] = &["text", "json", "yaml"];

#[test]
fn explain_never_prints_a_planted_secret() {
    for fmt in FORMATS {
        for m in messages() {
            let out = volmnt(&["explain", &m, "-o", fmt, "-v"], &[]);
            assert_out_clean(&format!("explain -o {fmt}"), &out);
        }
        let all = messages().join("\n");
        let out = run_cmd(
            cmd().args(["explain", "-", "-o", fmt]),
            Some(all.as_bytes()),
        );
        assert_out_clean(&format!("explain - -o {fmt}"), &out);
    }
    // junit is refused for explain: the refusal must not echo the message either.
    let out = volmnt(&["explain", &messages()[0], "-o", "junit"], &[]);
    assert_eq!(out.code, 2);
    assert_out_clean("explain -o junit", &out);
}

#[test]
fn doctor_offline_never_prints_a_planted_secret() {
    let dir = TempDir::new("secrets-offline");
    let files = saved_case(dir.path());
    for fmt in FORMATS {
        let mut args = vec!["doctor", "pod", "--offline", "-o", fmt, "-v"];
        for f in &files {
            args.push("-f");
            args.push(f.to_str().unwrap());
        }
        let out = volmnt(&args, &[]);
        assert_ne!(out.code, 2, "{out:#?}");
        assert_out_clean(&format!("doctor pod --offline -o {fmt}"), &out);
    }
    // An input error quotes where the input went wrong: never the secret on that line.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        format!(
            "apiVersion: v1\nkind: Secret\ndata: {{password: {}\n  token: [{TOKEN}\n",
            base64_of(SECRET_DATA_PLAIN)
        ),
    )
    .unwrap();
    let out = volmnt(
        &["doctor", "pod", "--offline", "-f", bad.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.code, 2, "{out:#?}");
    assert_out_clean("doctor pod with an unparsable secret file", &out);
}

#[test]
fn doctor_live_and_its_saved_bundle_never_hold_a_planted_secret() {
    // The cluster holds Secret objects, and the pod's events carry every shape.
    let dir = TempDir::new("secrets-live");
    let mut cluster = FakeCluster::fixture("nfs-client-missing");
    let objects = saved_case(dir.path());
    cluster
        .objects
        .extend(FakeCluster::from_yaml(&std::fs::read_to_string(&objects[1]).unwrap()).objects);
    let pod = cluster
        .objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["status"]["phase"] == "Pending")
        .cloned()
        .expect("a stuck pod");
    let (name, ns) = (
        pod["metadata"]["name"].as_str().unwrap().to_string(),
        pod["metadata"]["namespace"].as_str().unwrap().to_string(),
    );
    for (i, m) in messages().iter().enumerate() {
        cluster.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{name}.secret{i}"), "namespace": ns},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": ns, "uid": pod["metadata"]["uid"]},
            "reason": "FailedMount", "message": m, "type": "Warning", "count": 1,
            "firstTimestamp": "2026-11-25T00:00:00Z", "lastTimestamp": "2026-11-25T00:00:00Z",
            "source": {"component": "kubelet", "host": "node1"}
        }));
    }
    let opts = Options {
        token: Some(TOKEN.into()),
        ..Options::new()
    };
    let (api, _thread) = start_in_background(cluster, opts);
    let kc = api.write_kubeconfig(dir.path(), &ns);
    let kc = kc.to_str().unwrap();
    for fmt in FORMATS {
        let out = volmnt(
            &[
                "doctor",
                "pod",
                &name,
                "-n",
                &ns,
                "--kubeconfig",
                kc,
                "-o",
                fmt,
                "-vv",
            ],
            &[],
        );
        assert!(out.code <= 1, "{out:#?}");
        assert_out_clean(&format!("doctor pod live -o {fmt}"), &out);
        let out = volmnt(
            &[
                "doctor",
                "namespace",
                "-A",
                "--min-age",
                "1s",
                "--kubeconfig",
                kc,
                "-o",
                fmt,
                "-v",
            ],
            &[],
        );
        assert_out_clean(&format!("doctor namespace -A -o {fmt}"), &out);
    }
    let save = dir.path().join("bundle");
    let out = volmnt(
        &[
            "doctor",
            "pod",
            &name,
            "-n",
            &ns,
            "--kubeconfig",
            kc,
            "--save",
            save.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.code <= 1, "{out:#?}");
    assert_out_clean("doctor pod --save", &out);
    assert!(!walk(&save).is_empty(), "nothing saved");
    assert_dir_clean("the --save bundle", &save);
    // Replaying the bundle prints nothing secret either.
    let out = volmnt(
        &[
            "doctor",
            "pod",
            &name,
            "--offline",
            "-f",
            save.to_str().unwrap(),
            "-o",
            "json",
        ],
        &[],
    );
    assert_out_clean("replay of the bundle", &out);
    // A wrong token: the refusal is reported without the token that was refused.
    let bad_kc = dir.path().join("bad-kubeconfig");
    std::fs::write(
        &bad_kc,
        std::fs::read_to_string(kc)
            .unwrap()
            .replace(TOKEN, &format!("{TOKEN}x")),
    )
    .unwrap();
    let out = volmnt(
        &[
            "doctor",
            "pod",
            &name,
            "-n",
            &ns,
            "--kubeconfig",
            bad_kc.to_str().unwrap(),
            "-vv",
        ],
        &[],
    );
    assert_eq!(out.code, 3, "{out:#?}");
    assert_out_clean("doctor pod with a refused token", &out);
}

#[test]
fn node_check_never_prints_secrets_from_the_mount_table() {
    // A node whose mount table has mounts with credentials in their options (a CIFS mount made
    // by hand, a kernel CephFS mount with secret=): the report quotes mounts, never those.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hosts/debian-12");
    let dir = TempDir::new("secrets-node");
    let root = dir.path().join("root");
    copy_dir(&src, &root);
    let mountinfo = root.join("proc/1/mountinfo");
    let mut mi = std::fs::read_to_string(&mountinfo).unwrap_or_default();
    mi.push_str(&format!(
        "900 30 0:90 / /var/lib/kubelet/pods/3b1f0c1e-1111-2222-3333-444455556666/volumes/kubernetes.io~csi/share/mount rw,relatime shared:500 - cifs //files.example.internal/team rw,vers=3.0,username=svc,password={SMB_PASSWORD}\n901 30 0:91 / /var/lib/kubelet/plugins/kubernetes.io/csi/pv/fs/globalmount rw,relatime shared:501 - ceph 10.0.0.1:6789:/volumes/csi rw,name=admin,secret={CEPH_KEY},acl\n"
    ));
    std::fs::create_dir_all(mountinfo.parent().unwrap()).unwrap();
    std::fs::write(&mountinfo, mi).unwrap();
    for fmt in ["text", "json", "yaml", "junit"] {
        let out = volmnt(
            &[
                "node",
                "check",
                "--local",
                "--root",
                root.to_str().unwrap(),
                "--require",
                "nfs,cifs",
                "-o",
                fmt,
                "-v",
            ],
            &[],
        );
        assert!(out.code <= 1, "{fmt}: {out:#?}");
        assert_out_clean(&format!("node check --local -o {fmt}"), &out);
        if fmt == "json" {
            // The planted mounts were read (the check is not clean by not looking).
            let mounts = out.json()["nodes"][0]["report"]["mounts_read"]
                .as_u64()
                .unwrap_or(0);
            assert!(mounts >= 2, "{}", out.stdout);
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let t = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            copy_dir(&p, &t);
        } else if ft.is_symlink() {
            let target = std::fs::read_link(&p).unwrap();
            let _ = std::os::unix::fs::symlink(target, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

#[test]
fn rbd_with_a_planted_keyring_never_prints_the_key() {
    // The key reaches rbd/ceph only through --keyring: a wrong key in it makes Ceph refuse, and
    // the refusal volmnt prints must not carry it. (The real micro-ceph, see tests/rbd.rs.)
    let c = crate::support::ceph::shared();
    let dir = TempDir::new("secrets-rbd");
    let keyring = dir.path().join("keyring");
    std::fs::write(&keyring, format!("[client.admin]\n\tkey = {CEPH_KEY}\n")).unwrap();
    let image = c.image("secret-keyring");
    for fmt in FORMATS {
        let out = volmnt(
            &[
                "rbd",
                "status",
                &image,
                "--ceph-conf",
                c.conf.to_str().unwrap(),
                "--id",
                "admin",
                "--keyring",
                keyring.to_str().unwrap(),
                "--ceph-timeout",
                "10s",
                "-o",
                fmt,
                "-v",
            ],
            &[("HOME", dir.path().to_str().unwrap())],
        );
        assert_ne!(out.code, 0, "a wrong key should be refused: {out:#?}");
        assert_out_clean(&format!("rbd status with a planted keyring -o {fmt}"), &out);
        let out = volmnt(
            &[
                "rbd",
                "unlock",
                &image,
                "--dry-run",
                "--ceph-conf",
                c.conf.to_str().unwrap(),
                "--id",
                "admin",
                "--keyring",
                keyring.to_str().unwrap(),
                "--ceph-timeout",
                "10s",
                "-o",
                fmt,
            ],
            &[("HOME", dir.path().to_str().unwrap())],
        );
        assert_out_clean(
            &format!("rbd unlock --dry-run with a planted keyring -o {fmt}"),
            &out,
        );
    }
}

/// `volmnt watch`: what it writes into the cluster (the VolumeDiagnosis Events), its log (-v)
/// and /metrics, with Secrets watched (`--read-secrets`) and every secret shape in the events.
#[test]
fn watch_events_log_and_metrics_never_hold_a_planted_secret() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = TempDir::new("secrets-watch");
    let mut cluster = FakeCluster::fixture("nfs-client-missing");
    let objects = saved_case(dir.path());
    cluster
        .objects
        .extend(FakeCluster::from_yaml(&std::fs::read_to_string(&objects[1]).unwrap()).objects);
    let pod = cluster
        .objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["status"]["phase"] == "Pending")
        .cloned()
        .expect("a stuck pod");
    let (name, ns) = (
        pod["metadata"]["name"].as_str().unwrap().to_string(),
        pod["metadata"]["namespace"].as_str().unwrap().to_string(),
    );
    for (i, m) in messages().iter().enumerate() {
        cluster.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{name}.secret{i}"), "namespace": ns},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": ns, "uid": pod["metadata"]["uid"]},
            "reason": "FailedMount", "message": m, "type": "Warning", "count": 1,
            "firstTimestamp": "2026-11-25T00:00:00Z", "lastTimestamp": "2026-11-25T00:00:00Z",
            "source": {"component": "kubelet", "host": "node1"}
        }));
    }
    let opts = Options {
        token: Some(TOKEN.into()),
        ..Options::new()
    };
    let (api, _thread) = start_in_background(cluster, opts);
    let kc = api.write_kubeconfig(dir.path(), &ns);
    let mut child = cmd()
        .args([
            "watch",
            "-A",
            "--min-age",
            "1s",
            "--listen",
            "127.0.0.1:0",
            "--read-secrets",
            "-vv",
        ])
        .arg("--kubeconfig")
        .arg(&kc)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start volmnt watch");
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(l);
        }
    });
    /// Stops the watch on every path.
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Kill(child);
    let start = std::time::Instant::now();
    let diagnoses = || -> Vec<serde_json::Value> {
        api.objects()
            .into_iter()
            .filter(|o| o["kind"] == "Event" && o["reason"] == "VolumeDiagnosis")
            .collect()
    };
    while diagnoses().is_empty() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "no VolumeDiagnosis Event:\n{}",
            lines.lock().unwrap().join("\n")
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for e in diagnoses() {
        assert_clean("the VolumeDiagnosis Event", &e.to_string());
    }
    // /metrics, at the address the start-up line gives.
    let addr = lines
        .lock()
        .unwrap()
        .iter()
        .find_map(|l| {
            l.split("on http://")
                .nth(1)
                .map(|a| a.split([';', ' ']).next().unwrap_or("").to_string())
        })
        .expect("the start-up line names the listener");
    let mut s = std::net::TcpStream::connect(&addr).expect("connect to /metrics");
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut metrics = String::new();
    s.read_to_string(&mut metrics).unwrap();
    assert!(metrics.contains("volmnt_"), "{metrics}");
    assert_clean("/metrics", &metrics);
    // The watch read Secrets (metadata only) as asked.
    assert!(
        api.requests()
            .iter()
            .any(|r| r.resource == "secrets" && r.verb == "list"),
        "--read-secrets lists Secrets"
    );
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status();
    let t = std::time::Instant::now();
    while child.0.try_wait().ok().flatten().is_none() {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "watch did not stop"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut out = String::new();
    if let Some(mut o) = child.0.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_clean("volmnt watch stdout", &out);
    assert_clean("volmnt watch log (-vv)", &lines.lock().unwrap().join("\n"));
}

/// A kubeconfig's client key (and certificate) never reach an error or a log line, whether the
/// key is unusable or the server refuses the user.
#[test]
fn a_kubeconfig_client_key_never_reaches_any_output() {
    let dir = TempDir::new("secrets-client-key");
    let (api, _thread) = start_in_background(
        FakeCluster::fixture("nfs-client-missing"),
        Options {
            token: Some("only-this-token".into()),
            ..Options::new()
        },
    );
    let good = std::fs::read_to_string(api.write_kubeconfig(dir.path(), "ops-test")).unwrap();
    let key_pem = format!(
        "-----BEGIN PRIVATE KEY-----\nMIIEv{SECRET_DATA_PLAIN}{AWS_SECRET}\n-----END PRIVATE KEY-----\n"
    );
    let cert_pem = format!(
        "-----BEGIN CERTIFICATE-----\nMIIBk{SECRET_DATA_PLAIN}\n-----END CERTIFICATE-----\n"
    );
    // Replace the user's token with a client certificate and key (both unusable).
    let mut kc: serde_yaml::Value = serde_yaml::from_str(&good).unwrap();
    let user = &mut kc["users"][0]["user"];
    *user = serde_yaml::from_str(&format!(
        "client-certificate-data: {}\nclient-key-data: {}\n",
        base64_of(&cert_pem),
        base64_of(&key_pem)
    ))
    .unwrap();
    let path = dir.path().join("client-key-kubeconfig");
    std::fs::write(&path, serde_yaml::to_string(&kc).unwrap()).unwrap();
    for args in [
        &["doctor", "pod", "x", "-n", "ops-test", "-vv"][..],
        &["doctor", "namespace", "-A", "-o", "json", "-v"][..],
        &["node", "check", "--all", "-o", "json"][..],
        &["watch", "-A", "--listen", "127.0.0.1:0", "--dry-run"][..],
    ] {
        let mut c = cmd();
        c.args(args).arg("--kubeconfig").arg(&path);
        let out = run_cmd(&mut c, None);
        assert!(out.code >= 2, "{args:?} should fail: {out:#?}");
        assert_out_clean(&format!("{args:?} with a client key"), &out);
        assert!(
            !out.stderr.contains(&base64_of(&key_pem)[..40]),
            "{args:?}: the key's base64 leaked: {}",
            out.stderr
        );
    }
}

#[test]
fn node_plugin_and_kubelet_log_lines_never_bring_a_planted_secret() {
    // The plugin's container log and the kubelet's journal carry every shape, each line about
    // the pod's volume, so each is read and kept (redacted).
    use crate::support::fake_api::NodeLogs;
    use std::time::Duration;
    let dir = TempDir::new("secrets-plugin-logs");
    let lines: Vec<String> = messages()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format!(
                "E1121 10:07:{:02}.000001       1 node.go:{i}] vol-02d38d88d79844a04: {}",
                10 + i,
                m.replace('\n', " ")
            )
        })
        .collect();
    let aged: Vec<(Duration, &str)> = lines
        .iter()
        .map(|l| (Duration::from_secs(60), l.as_str()))
        .collect();
    let cluster = FakeCluster::fixture("csi-node-plugin-logs")
        .with_pod_log(
            "kube-system",
            "ebs-csi-node-9fz2w",
            "ebs-plugin",
            false,
            &aged,
        )
        .with_node_logs(
            "ip-192-168-41-7.ec2.internal",
            NodeLogs::Journal(
                lines
                    .iter()
                    .map(|l| (Duration::from_secs(60), l.replace("node.go", "kubelet.go")))
                    .collect(),
            ),
        );
    let (api, _thread) = start_in_background(cluster, Options::new());
    let kc = api.write_kubeconfig(dir.path(), "data");
    let kc = kc.to_str().unwrap();
    for fmt in FORMATS {
        let out = volmnt(
            &[
                "doctor",
                "pod",
                "db-0",
                "-n",
                "data",
                "--kubeconfig",
                kc,
                "-o",
                fmt,
                "-vv",
            ],
            &[],
        );
        assert!(out.code <= 1, "{out:#?}");
        assert_out_clean(&format!("doctor pod (plugin logs) -o {fmt}"), &out);
    }
    let save = dir.path().join("bundle");
    let out = volmnt(
        &[
            "doctor",
            "pod",
            "db-0",
            "-n",
            "data",
            "--kubeconfig",
            kc,
            "--save",
            save.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.code <= 1, "{out:#?}");
    assert_dir_clean("the --save bundle with plugin logs", &save);
    // The lines were kept (redacted), or this test would prove nothing.
    let facts = std::fs::read_to_string(save.join("case.yaml")).unwrap();
    let kept = facts.matches("vol-02d38d88d79844a04:").count();
    // Every plugin line names the volume; the kubelet's are kept when about a volume failure.
    assert!(kept > lines.len(), "{kept} lines kept:\n{facts}");
    assert!(facts.contains("<redacted>"), "{facts}");
    let out = volmnt(
        &[
            "doctor",
            "pod",
            "db-0",
            "--offline",
            "-f",
            save.to_str().unwrap(),
            "-o",
            "json",
        ],
        &[],
    );
    assert_out_clean("replay of the bundle with plugin logs", &out);
    // Pasted: `kubectl logs` of the plugin in a ticket.
    let pasted = dir.path().join("plugin.txt");
    std::fs::write(
        &pasted,
        format!(
            "$ kubectl -n kube-system logs ebs-csi-node-9fz2w -c ebs-plugin\n{}\n",
            lines.join("\n")
        ),
    )
    .unwrap();
    let described = saved_case(dir.path());
    for fmt in FORMATS {
        let out = volmnt(
            &[
                "doctor",
                "pod",
                "-f",
                described[0].to_str().unwrap(),
                "-f",
                pasted.to_str().unwrap(),
                "-o",
                fmt,
                "-v",
            ],
            &[],
        );
        assert!(out.code <= 1, "{out:#?}");
        assert_out_clean(
            &format!("doctor pod with a pasted plugin log -o {fmt}"),
            &out,
        );
    }
    let save2 = dir.path().join("bundle2");
    let out = volmnt(
        &[
            "doctor",
            "pod",
            "-f",
            described[0].to_str().unwrap(),
            "-f",
            pasted.to_str().unwrap(),
            "--save",
            save2.to_str().unwrap(),
        ],
        &[],
    );
    assert_out_clean("doctor offline --save with a pasted plugin log", &out);
    assert_dir_clean("the offline --save bundle", &save2);
}

/// A node's command output with secrets in it (issue 18): kubelet flags, a k3s config's token, a
/// CIFS mount's password in the mount table, a Ceph key and a password in kernel lines, CHAP in
/// iscsid.conf, a cloud key as a filesystem label. Read offline in every format and into a
/// saved case: none of them appears anywhere.
#[test]
fn node_transcripts_never_print_a_planted_secret() {
    let dir = TempDir::new("secrets-node-transcripts");
    let files = saved_case(dir.path());
    let node = dir.path().join("node.txt");
    std::fs::write(
        &node,
        format!(
            "$ ps -ef | grep kubelet\n\
             root 812 1 1 09:00 ? 00:00:01 /usr/bin/kubelet --root-dir=/var/lib/kubelet --token={TOKEN} --azure-storage-key={AZURE_KEY}\n\
             $ mount | grep cifs\n\
             //files.example.internal/team on /var/lib/kubelet/pods/3b1f0c1e-1111-2222-3333-444455556666/volumes/kubernetes.io~csi/share/mount type cifs (rw,vers=3.0,username=svc,password={SMB_PASSWORD})\n\
             $ dmesg | tail -2\n\
             [   12.300000] libceph: mon0 10.0.0.1:6789 auth failed with key {CEPH_KEY}\n\
             [   12.400000] CIFS: VFS: cifs_mount failed w/return code = -13 password={SMB_PASSWORD}\n\
             $ cat /etc/rancher/k3s/config.yaml\n\
             token: {TOKEN}\n\
             kubelet-arg:\n  - root-dir=/var/lib/kubelet\n\
             $ cat /etc/iscsi/iscsid.conf\n\
             node.session.auth.password = {CHAP_PASSWORD}\n\
             $ blkid\n\
             /dev/sdb: LABEL=\"{AWS_KEY_ID}\" TYPE=\"xfs\"\n\
             $ docker inspect kubelet --format '{{{{join .Args \"\\n\"}}}}'\n\
             --root-dir=/var/lib/kubelet\n\
             --aws-secret-access-key={AWS_SECRET}\n"
        ),
    )
    .unwrap();
    for fmt in FORMATS {
        let mut args = vec!["doctor", "pod", "--offline", "-o", fmt, "-v"];
        for f in files.iter().chain(std::iter::once(&node)) {
            args.push("-f");
            args.push(f.to_str().unwrap());
        }
        let out = volmnt(&args, &[]);
        assert_eq!(out.code, 1, "{out:#?}");
        assert_out_clean(
            &format!("doctor pod --offline with node transcripts -o {fmt}"),
            &out,
        );
        if *fmt == "json" {
            // The transcripts were read (clean by reading them, not by skipping them).
            let inputs = out.json()["inputs"].to_string();
            assert!(inputs.contains("kubelet command line"), "{inputs}");
            assert!(inputs.contains("kernel log"), "{inputs}");
            assert!(inputs.contains("blkid"), "{inputs}");
        }
    }
    // The transcripts alone: nothing to diagnose, an input error that quotes nothing secret.
    let out = volmnt(
        &["doctor", "pod", "--offline", "-f", node.to_str().unwrap()],
        &[],
    );
    assert_out_clean("doctor pod with node transcripts only", &out);

    // Into a saved case, beside a live read.
    let mut cluster = FakeCluster::fixture("nfs-client-missing");
    cluster.objects.retain(|o| o["kind"] != "Secret");
    let pod = cluster
        .objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["status"]["phase"] == "Pending")
        .cloned()
        .expect("a stuck pod");
    let (name, ns) = (
        pod["metadata"]["name"].as_str().unwrap().to_string(),
        pod["metadata"]["namespace"].as_str().unwrap().to_string(),
    );
    let (api, _thread) = start_in_background(cluster, Options::new());
    let kc = api.write_kubeconfig(dir.path(), &ns);
    let save = dir.path().join("bundle");
    let out = volmnt(
        &[
            "doctor",
            "pod",
            &name,
            "-n",
            &ns,
            "--kubeconfig",
            kc.to_str().unwrap(),
            "-f",
            node.to_str().unwrap(),
            "--save",
            save.to_str().unwrap(),
            "-o",
            "json",
        ],
        &[],
    );
    assert!(out.code <= 1, "{out:#?}");
    assert_out_clean("doctor pod live with node transcripts --save", &out);
    let case_yaml = std::fs::read_to_string(save.join("case.yaml")).unwrap();
    assert!(case_yaml.contains("nodeFacts:"), "{case_yaml}");
    assert_dir_clean("the --save bundle with node facts", &save);
}
