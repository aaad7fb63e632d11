//! The fake API server (tests/support/fake_api.rs), exercised with kube-rs itself as the client:
//! what the product will see from a real kube-apiserver.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Event, Node, PersistentVolumeClaim, Pod};
use k8s_openapi::api::events::v1::Event as EventV1;
use k8s_openapi::api::storage::v1::StorageClass;
use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::Status;
use kube::{Api, Client};
use serde_json::{json, Value};

use crate::support::fake_api::{
    self, start_in_background, Deny, FakeApi, FakeCluster, NodeLogs, Options,
};
use crate::util::TempDir;

const CLUSTER: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: node1
  labels: {kubernetes.io/hostname: node1, kubernetes.io/os: linux}
status:
  nodeInfo: {osImage: "Ubuntu 22.04.4 LTS", kubeletVersion: v1.33.1}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {kubernetes.io/hostname: node2}}
spec: {unschedulable: true}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: web-0, namespace: default, uid: 11111111-1111-4111-8111-111111111111, labels: {app: web, tier: front}}
  spec:
    nodeName: node1
    containers: [{name: web, image: nginx:1.27}]
    volumes: [{name: data, persistentVolumeClaim: {claimName: data-web-0}}]
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, labels: {app: web}}
  spec: {nodeName: node2, containers: [{name: web, image: nginx:1.27}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: default, labels: {app: db}}
  spec: {nodeName: node1, containers: [{name: db, image: postgres:16}]}
  status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: ops}
spec: {nodeName: node1, containers: [{name: c, image: busybox}]}
status: {phase: Pending}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-web-0, namespace: default}
spec: {storageClassName: nfs, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
status: {phase: Bound}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: nfs}
provisioner: nfs.csi.k8s.io
---
apiVersion: v1
kind: Event
metadata: {name: web-0.17a1, namespace: default}
involvedObject: {kind: Pod, namespace: default, name: web-0, uid: 11111111-1111-4111-8111-111111111111, apiVersion: v1}
reason: FailedMount
message: 'MountVolume.SetUp failed for volume "data" : mount failed: exit status 32'
source: {component: kubelet, host: node1}
reportingComponent: kubelet
reportingInstance: node1
firstTimestamp: "2025-01-01T10:00:00Z"
lastTimestamp: "2025-01-01T10:08:00Z"
count: 3
type: Warning
---
apiVersion: v1
kind: Event
metadata: {name: db-0.17a2, namespace: default}
involvedObject: {kind: Pod, namespace: default, name: db-0}
reason: Scheduled
message: Successfully assigned default/db-0 to node1
source: {component: default-scheduler}
count: 1
type: Normal
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: web-1.17a3, namespace: default}
eventTime: "2025-01-01T10:09:00.000000Z"
regarding: {kind: Pod, namespace: default, name: web-1}
reason: ProvisioningFailed
note: "failed to provision volume: rpc error: code = DeadlineExceeded"
action: Provisioning
reportingController: nfs.csi.k8s.io
reportingInstance: csi-nfs-controller-0
type: Warning
"#;

/// A kube client for the fake server, built the way the product builds one from a kubeconfig.
async fn client_for(api: &FakeApi, dir: &TempDir, ns: &str) -> Client {
    let path = api.write_kubeconfig(dir.path(), ns);
    client_from(&path).await
}

async fn client_from(path: &std::path::Path) -> Client {
    let kc = Kubeconfig::read_from(path).expect("kubeconfig");
    let opts = KubeConfigOptions {
        context: Some("fake".into()),
        ..Default::default()
    };
    let config = kube::Config::from_custom_kubeconfig(kc, &opts)
        .await
        .expect("config");
    Client::try_from(config).expect("client")
}

async fn start(opts: Options) -> (FakeApi, TempDir, Client) {
    let api = FakeApi::start(FakeCluster::from_yaml(CLUSTER), opts).await;
    let dir = TempDir::new("fake-api");
    let client = client_for(&api, &dir, "default").await;
    (api, dir, client)
}

fn api_error(e: kube::Error) -> Box<Status> {
    match e {
        kube::Error::Api(s) => s,
        other => panic!("want kube::Error::Api, got {other:?}"),
    }
}

fn names<K: kube::ResourceExt>(items: &[K]) -> Vec<String> {
    items.iter().map(|o| o.name_any()).collect()
}

#[tokio::test]
async fn get_pod_and_the_request_is_recorded() {
    let (api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client);
    let pod = pods.get("web-0").await.unwrap();
    assert_eq!(pod.metadata.name.as_deref(), Some("web-0"));
    assert_eq!(
        pod.metadata.uid.as_deref(),
        Some("11111111-1111-4111-8111-111111111111")
    );
    assert!(pod.metadata.resource_version.is_some());
    assert_eq!(pod.spec.unwrap().node_name.as_deref(), Some("node1"));

    let reqs = api.requests();
    let r = reqs.last().unwrap();
    assert_eq!(r.method, "GET");
    assert_eq!(r.path, "/api/v1/namespaces/default/pods/web-0");
    assert_eq!(r.verb, "get");
    assert_eq!(r.group, "");
    assert_eq!(r.resource, "pods");
    assert_eq!(r.namespace.as_deref(), Some("default"));
    assert_eq!(r.name.as_deref(), Some("web-0"));
    assert_eq!(r.status, 200);
    api.reset_requests();
    assert!(api.requests().is_empty());
}

#[tokio::test]
async fn list_pods_with_field_and_label_selectors() {
    let (api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let on_node1 = pods
        .list(&ListParams::default().fields("spec.nodeName=node1"))
        .await
        .unwrap();
    assert_eq!(names(&on_node1.items), ["db-0", "web-0"]);
    assert!(on_node1.metadata.resource_version.is_some());
    assert_eq!(on_node1.metadata.continue_, None);

    let not_node1_running = pods
        .list(&ListParams::default().fields("spec.nodeName!=node1,status.phase==Running"))
        .await
        .unwrap();
    assert_eq!(names(&not_node1_running.items), ["web-1"]);

    for (selector, want) in [
        ("app=web", vec!["web-0", "web-1"]),
        ("app in (web,db),tier", vec!["web-0"]),
        ("app notin (web),!tier", vec!["db-0"]),
        ("app!=web", vec!["db-0"]),
    ] {
        let got = pods
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(&got.items), want, "labelSelector {selector}");
    }

    // Across namespaces: /api/v1/pods, ordered by <namespace>/<name>.
    let all: Api<Pod> = Api::all(client);
    let everywhere = all
        .list(&ListParams::default().fields("spec.nodeName=node1"))
        .await
        .unwrap();
    let ns_names: Vec<String> = everywhere
        .items
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p.metadata.namespace.as_deref().unwrap(),
                p.metadata.name.as_deref().unwrap()
            )
        })
        .collect();
    assert_eq!(ns_names, ["default/db-0", "default/web-0", "ops/x"]);
    let last = api.requests().pop().unwrap();
    assert_eq!(last.path, "/api/v1/pods");
    assert_eq!(last.verb, "list");
    assert_eq!(last.namespace, None);
}

#[tokio::test]
async fn list_core_events_by_involved_object() {
    let (_api, _dir, client) = start(Options::default()).await;
    let events: Api<Event> = Api::default_namespaced(client);
    let got = events
        .list(&ListParams::default().fields("involvedObject.name=web-0,involvedObject.kind=Pod"))
        .await
        .unwrap();
    assert_eq!(got.items.len(), 1);
    let ev = &got.items[0];
    assert_eq!(ev.reason.as_deref(), Some("FailedMount"));
    assert_eq!(ev.count, Some(3));
    assert!(ev.message.as_deref().unwrap().contains("exit status 32"));

    // An events.k8s.io/v1 object is in the same store, converted back to core/v1.
    let from_v1 = events
        .list(&ListParams::default().fields("involvedObject.name=web-1"))
        .await
        .unwrap();
    assert_eq!(from_v1.items.len(), 1);
    let ev = &from_v1.items[0];
    assert_eq!(
        ev.message.as_deref(),
        Some("failed to provision volume: rpc error: code = DeadlineExceeded")
    );
    assert_eq!(ev.reporting_component.as_deref(), Some("nfs.csi.k8s.io"));
    assert_eq!(ev.involved_object.kind.as_deref(), Some("Pod"));

    // `source` selects on source.component.
    let by_source = events
        .list(&ListParams::default().fields("source=default-scheduler"))
        .await
        .unwrap();
    assert_eq!(names(&by_source.items), ["db-0.17a2"]);
}

#[tokio::test]
async fn events_v1_are_the_core_events_converted() {
    let (api, _dir, client) = start(Options::default()).await;
    let events: Api<EventV1> = Api::default_namespaced(client.clone());
    let got = events
        .list(&ListParams::default().fields("regarding.name=web-0"))
        .await
        .unwrap();
    assert_eq!(got.items.len(), 1);
    let ev = &got.items[0];
    let core: Api<Event> = Api::default_namespaced(client);
    let core_ev = core.get("web-0.17a1").await.unwrap();
    assert_eq!(ev.note, core_ev.message);
    assert_eq!(
        ev.regarding.as_ref().unwrap().name.as_deref(),
        Some("web-0")
    );
    assert_eq!(ev.regarding.as_ref().unwrap().kind.as_deref(), Some("Pod"));
    assert_eq!(ev.deprecated_count, Some(3));
    let src = ev.deprecated_source.as_ref().unwrap();
    assert_eq!(src.component.as_deref(), Some("kubelet"));
    assert_eq!(src.host.as_deref(), Some("node1"));
    assert_eq!(ev.reporting_controller.as_deref(), Some("kubelet"));
    assert_eq!(ev.reporting_instance.as_deref(), Some("node1"));
    assert_eq!(ev.deprecated_first_timestamp, core_ev.first_timestamp);
    assert_eq!(ev.deprecated_last_timestamp, core_ev.last_timestamp);
    assert_eq!(ev.reason.as_deref(), Some("FailedMount"));

    let last = api.requests().pop().unwrap();
    assert_eq!(
        (last.group.as_str(), last.resource.as_str()),
        ("", "events")
    );
    let v1_req = api
        .requests()
        .into_iter()
        .find(|r| r.group == "events.k8s.io")
        .unwrap();
    assert_eq!(
        v1_req.path,
        "/apis/events.k8s.io/v1/namespaces/default/events"
    );

    // The core spelling is not a field of events.k8s.io/v1.
    let err = events
        .list(&ListParams::default().fields("involvedObject.name=web-0"))
        .await
        .unwrap_err();
    let s = api_error(err);
    assert_eq!((s.code, s.reason.as_str()), (400, "BadRequest"));
    assert_eq!(s.message, "field label not supported: involvedObject.name");
}

#[tokio::test]
async fn pagination_of_25_pods_by_10() {
    let mut cluster = FakeCluster::new();
    for i in 0..25 {
        cluster.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": { "name": format!("p{i:02}"), "namespace": "many" },
            "spec": { "containers": [{ "name": "c", "image": "busybox" }] },
        }));
    }
    let api = FakeApi::start(cluster, Options::default()).await;
    let dir = TempDir::new("fake-api");
    let client = client_for(&api, &dir, "many").await;
    let pods: Api<Pod> = Api::default_namespaced(client);

    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = Vec::new();
    loop {
        let mut lp = ListParams::default().limit(10);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let page = pods.list(&lp).await.unwrap();
        pages.push((
            page.items.len(),
            page.metadata.remaining_item_count,
            page.metadata.continue_.clone(),
        ));
        seen.extend(names(&page.items));
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            break;
        }
    }
    assert_eq!(pages.len(), 3);
    assert_eq!((pages[0].0, pages[0].1), (10, Some(15)));
    assert_eq!((pages[1].0, pages[1].1), (10, Some(5)));
    assert_eq!((pages[2].0, pages[2].1), (5, None));
    assert!(pages[0].2.is_some() && pages[1].2.is_some() && pages[2].2.is_none());
    let want: Vec<String> = (0..25).map(|i| format!("p{i:02}")).collect();
    assert_eq!(seen, want);

    // A filtered page has a continue token but no remainingItemCount (etcd3 store).
    let filtered = pods
        .list(
            &ListParams::default()
                .limit(10)
                .fields("metadata.namespace=many"),
        )
        .await
        .unwrap();
    assert_eq!(filtered.items.len(), 10);
    assert!(filtered.metadata.continue_.is_some());
    assert_eq!(filtered.metadata.remaining_item_count, None);

    // A token that is not one → 400; one from before a compaction → 410 Expired.
    let err = pods
        .list(&ListParams::default().limit(10).continue_token("garbage!"))
        .await
        .unwrap_err();
    let s = api_error(err);
    assert_eq!((s.code, s.reason.as_str()), (400, "BadRequest"));
    assert!(
        s.message
            .starts_with("invalid continue token: continue key is not valid: "),
        "{}",
        s.message
    );
    let first = pods.list(&ListParams::default().limit(10)).await.unwrap();
    api.compact();
    let err = pods
        .list(
            &ListParams::default()
                .limit(10)
                .continue_token(first.metadata.continue_.as_deref().unwrap()),
        )
        .await
        .unwrap_err();
    let s = api_error(err);
    assert_eq!((s.code, s.reason.as_str()), (410, "Expired"));
    assert!(s
        .message
        .starts_with("The provided continue parameter is too old"));
    assert!(s.metadata.unwrap().continue_.is_some());
}

#[tokio::test]
async fn not_found_is_a_real_status() {
    let (_api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let s = api_error(pods.get("nope").await.unwrap_err());
    assert_eq!(s.code, 404);
    assert_eq!(s.reason, "NotFound");
    assert_eq!(s.message, r#"pods "nope" not found"#);
    assert!(s.is_not_found());
    let d = s.details.unwrap();
    assert_eq!(
        (d.name.as_str(), d.kind.as_str(), d.group.as_str()),
        ("nope", "pods", "")
    );
    assert_eq!(pods.get_opt("nope").await.unwrap(), None);

    let scs: Api<StorageClass> = Api::all(client);
    let s = api_error(scs.get("fast").await.unwrap_err());
    assert_eq!(
        s.message,
        r#"storageclasses.storage.k8s.io "fast" not found"#
    );
    assert_eq!(s.details.unwrap().group, "storage.k8s.io");
    assert_eq!(scs.get("nfs").await.unwrap().provisioner, "nfs.csi.k8s.io");
}

#[tokio::test]
async fn forbidden_with_the_rbac_wording() {
    let opts = Options {
        deny: vec![
            Deny::new("get", "pods", Some("default")),
            Deny::new("list", "pods", None),
            Deny::new("list", "storageclasses", None),
        ],
        ..Options::default()
    };
    let (_api, _dir, client) = start(opts).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let s = api_error(pods.get("web-0").await.unwrap_err());
    assert_eq!((s.code, s.reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        s.message,
        r#"pods "web-0" is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot get resource "pods" in API group "" in the namespace "default""#
    );
    let d = s.details.unwrap();
    assert_eq!((d.name.as_str(), d.kind.as_str()), ("web-0", "pods"));

    let s = api_error(pods.list(&ListParams::default()).await.unwrap_err());
    assert_eq!(
        s.message,
        r#"pods is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot list resource "pods" in API group "" in the namespace "default""#
    );
    let all: Api<Pod> = Api::all(client.clone());
    let s = api_error(all.list(&ListParams::default()).await.unwrap_err());
    assert_eq!(
        s.message,
        r#"pods is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot list resource "pods" in API group "" at the cluster scope"#
    );
    let scs: Api<StorageClass> = Api::all(client.clone());
    let s = api_error(scs.list(&ListParams::default()).await.unwrap_err());
    assert_eq!(
        s.message,
        r#"storageclasses.storage.k8s.io is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope"#
    );
    assert_eq!(s.details.unwrap().group, "storage.k8s.io");

    // Not denied: get in another namespace, get nodes.
    let ops: Api<Pod> = Api::namespaced(client.clone(), "ops");
    assert!(ops.get("x").await.is_ok());
    let nodes: Api<Node> = Api::all(client);
    assert!(nodes.get("node1").await.is_ok());
}

#[tokio::test]
async fn unauthorized_with_a_wrong_token() {
    let opts = Options {
        token: Some("s3cret".into()),
        ..Options::default()
    };
    let api = FakeApi::start(FakeCluster::from_yaml(CLUSTER), opts).await;
    let dir = TempDir::new("fake-api");
    let good = api.write_kubeconfig(dir.path(), "default");
    let text = std::fs::read_to_string(&good).unwrap();
    assert!(text.contains("s3cret"));
    let client = client_from(&good).await;
    let pods: Api<Pod> = Api::default_namespaced(client);
    assert!(pods.get("web-0").await.is_ok());

    let bad = dir.write("bad-kubeconfig", text.replace("s3cret", "wrong"));
    let client = client_from(std::path::Path::new(&bad)).await;
    let pods: Api<Pod> = Api::default_namespaced(client);
    let s = api_error(pods.get("web-0").await.unwrap_err());
    assert_eq!(
        (s.code, s.reason.as_str(), s.message.as_str()),
        (401, "Unauthorized", "Unauthorized")
    );
}

#[tokio::test]
async fn unsupported_field_selector_is_400() {
    let (_api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let s = api_error(
        pods.list(&ListParams::default().fields("spec.volumes=x"))
            .await
            .unwrap_err(),
    );
    assert_eq!((s.code, s.reason.as_str()), (400, "BadRequest"));
    assert_eq!(s.message, "field label not supported: spec.volumes");

    // Kinds with no field-label conversion of their own accept only metadata.*.
    let pvcs: Api<PersistentVolumeClaim> = Api::default_namespaced(client.clone());
    let s = api_error(
        pvcs.list(&ListParams::default().fields("spec.storageClassName=nfs"))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        s.message,
        r#""spec.storageClassName" is not a known field selector: only "metadata.name", "metadata.namespace""#
    );
    let ok = pvcs
        .list(&ListParams::default().fields("metadata.name=data-web-0"))
        .await
        .unwrap();
    assert_eq!(ok.items.len(), 1);

    // Cluster-scoped Node: no metadata.namespace, but spec.unschedulable.
    let nodes: Api<Node> = Api::all(client);
    let s = api_error(
        nodes
            .list(&ListParams::default().fields("metadata.namespace=x"))
            .await
            .unwrap_err(),
    );
    assert_eq!(s.message, "field label not supported: metadata.namespace");
    let cordoned = nodes
        .list(&ListParams::default().fields("spec.unschedulable=true"))
        .await
        .unwrap();
    assert_eq!(names(&cordoned.items), ["node2"]);
    let schedulable = nodes
        .list(&ListParams::default().fields("spec.unschedulable=false"))
        .await
        .unwrap();
    assert_eq!(names(&schedulable.items), ["node1"]);
}

#[tokio::test]
async fn latency_is_per_request_and_requests_run_concurrently() {
    let opts = Options {
        latency: Duration::from_millis(50),
        ..Options::default()
    };
    let (api, _dir, client) = start(opts).await;
    let pods: Api<Pod> = Api::default_namespaced(client);
    let t0 = Instant::now();
    let results = futures::future::join_all((0..10).map(|_| pods.get("web-0"))).await;
    let elapsed = t0.elapsed();
    assert!(results.iter().all(|r| r.is_ok()));
    assert!(
        elapsed >= Duration::from_millis(50),
        "latency not applied: {elapsed:?}"
    );
    assert!(
        elapsed < Duration::from_millis(300),
        "10 concurrent gets took {elapsed:?}: not served concurrently"
    );
    assert!(
        api.max_in_flight() >= 5,
        "max_in_flight {}",
        api.max_in_flight()
    );
    assert_eq!(api.requests().len(), 10);
}

#[tokio::test]
async fn create_and_delete_a_pod() {
    let (api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client);
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "volmnt-probe", "labels": { "app.kubernetes.io/managed-by": "volmnt" } },
        "spec": { "nodeName": "node1", "containers": [{ "name": "probe", "image": "busybox:1.36" }] },
    }))
    .unwrap();
    let created = pods.create(&PostParams::default(), &pod).await.unwrap();
    assert_eq!(created.metadata.namespace.as_deref(), Some("default"));
    assert!(created.metadata.uid.is_some());
    assert!(created.metadata.creation_timestamp.is_some());
    assert!(created.metadata.resource_version.is_some());
    assert_eq!(
        created.status.as_ref().unwrap().phase.as_deref(),
        Some("Pending")
    );
    let req = api.requests().pop().unwrap();
    assert_eq!(
        (req.method.as_str(), req.verb.as_str(), req.status),
        ("POST", "create", 201)
    );
    assert!(req.body.contains("volmnt-probe"));

    let s = api_error(pods.create(&PostParams::default(), &pod).await.unwrap_err());
    assert_eq!((s.code, s.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(s.message, r#"pods "volmnt-probe" already exists"#);

    assert!(pods.get("volmnt-probe").await.is_ok());
    let gone = pods
        .delete("volmnt-probe", &DeleteParams::default())
        .await
        .unwrap();
    let gone = gone.left().expect("the deleted object");
    assert_eq!(gone.metadata.uid, created.metadata.uid);
    assert!(pods.get_opt("volmnt-probe").await.unwrap().is_none());
    let s = api_error(
        pods.delete("volmnt-probe", &DeleteParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(s.code, 404);
    assert!(!api
        .objects()
        .iter()
        .any(|o| o["metadata"]["name"] == "volmnt-probe"));

    // generateName, then delete the collection by label.
    let mut generated = pod.clone();
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("volmnt-probe-".into());
    let a = pods
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let b = pods
        .create(&PostParams::default(), &generated)
        .await
        .unwrap();
    let (a, b) = (a.metadata.name.unwrap(), b.metadata.name.unwrap());
    assert!(
        a.starts_with("volmnt-probe-") && a.len() == "volmnt-probe-".len() + 5,
        "{a}"
    );
    assert_ne!(a, b);
    let deleted = pods
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("app.kubernetes.io/managed-by=volmnt"),
        )
        .await
        .unwrap();
    let deleted = deleted.left().expect("the deleted list");
    assert_eq!(deleted.items.len(), 2);
    let left = pods.list(&ListParams::default()).await.unwrap();
    assert_eq!(names(&left.items), ["db-0", "web-0", "web-1"]);
    let verbs: Vec<String> = api.requests().into_iter().map(|r| r.verb).collect();
    assert!(verbs.contains(&"deletecollection".to_string()));
}

#[tokio::test]
async fn patch_node_labels() {
    let (api, _dir, client) = start(Options::default()).await;
    let nodes: Api<Node> = Api::all(client);
    let merged = nodes
        .patch(
            "node1",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": { "volmnt.io/probe": "true" } } })),
        )
        .await
        .unwrap();
    let labels = merged.metadata.labels.unwrap();
    assert_eq!(
        labels.get("volmnt.io/probe").map(String::as_str),
        Some("true")
    );
    assert_eq!(
        labels.get("kubernetes.io/os").map(String::as_str),
        Some("linux")
    );
    let req = api.requests().pop().unwrap();
    assert_eq!(req.verb, "patch");
    assert_eq!(
        req.content_type.as_deref(),
        Some("application/merge-patch+json")
    );

    let removed = nodes
        .patch(
            "node1",
            &PatchParams::default(),
            &Patch::Strategic(
                json!({ "metadata": { "labels": { "volmnt.io/probe": null, "extra": "1" } } }),
            ),
        )
        .await
        .unwrap();
    let labels = removed.metadata.labels.unwrap();
    assert!(!labels.contains_key("volmnt.io/probe"));
    assert_eq!(labels.get("extra").map(String::as_str), Some("1"));
    assert_eq!(
        api.requests().pop().unwrap().content_type.as_deref(),
        Some("application/strategic-merge-patch+json")
    );
    let stored = api.object("Node", None, "node1").unwrap();
    assert_eq!(stored["metadata"]["labels"]["extra"], "1");
    assert_ne!(
        stored["metadata"]["resourceVersion"],
        Value::Null,
        "a patch bumps the resourceVersion"
    );

    let s = api_error(
        nodes
            .patch("node9", &PatchParams::default(), &Patch::Merge(json!({})))
            .await
            .unwrap_err(),
    );
    assert_eq!(s.message, r#"nodes "node9" not found"#);
}

#[tokio::test]
async fn events_v1_can_be_absent() {
    let opts = Options {
        events_v1: false,
        ..Options::default()
    };
    let (_api, _dir, client) = start(opts).await;
    let events: Api<EventV1> = Api::default_namespaced(client.clone());
    let s = api_error(events.list(&ListParams::default()).await.unwrap_err());
    assert_eq!(s.code, 404);
    let groups = client.list_api_groups().await.unwrap();
    let names: Vec<&str> = groups.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "apps",
            "authorization.k8s.io",
            "storage.k8s.io",
            "coordination.k8s.io"
        ]
    );
    // The core Events are still there.
    let core: Api<Event> = Api::default_namespaced(client);
    assert_eq!(
        core.list(&ListParams::default()).await.unwrap().items.len(),
        3
    );
}

#[tokio::test]
async fn discovery_legacy_and_aggregated() {
    let (_api, _dir, client) = start(Options::default()).await;
    let version = client.apiserver_version().await.unwrap();
    assert_eq!(version.major, "1");
    let core = client.list_core_api_versions().await.unwrap();
    assert_eq!(core.versions, ["v1"]);
    let v1 = client.list_core_api_resources("v1").await.unwrap();
    let names: Vec<&str> = v1.resources.iter().map(|r| r.name.as_str()).collect();
    for want in [
        "pods",
        "pods/exec",
        "events",
        "persistentvolumeclaims",
        "persistentvolumes",
        "nodes",
        "configmaps",
        "secrets",
        "namespaces",
        "endpoints",
    ] {
        assert!(
            names.contains(&want),
            "{want} missing from /api/v1: {names:?}"
        );
    }
    let groups = client.list_api_groups().await.unwrap();
    let gnames: Vec<&str> = groups.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        gnames,
        [
            "apps",
            "events.k8s.io",
            "authorization.k8s.io",
            "storage.k8s.io",
            "coordination.k8s.io"
        ]
    );
    let storage = client
        .list_api_group_resources("storage.k8s.io/v1")
        .await
        .unwrap();
    let snames: Vec<&str> = storage.resources.iter().map(|r| r.name.as_str()).collect();
    for want in [
        "storageclasses",
        "csidrivers",
        "csinodes",
        "volumeattachments",
    ] {
        assert!(snames.contains(&want), "{want}: {snames:?}");
    }

    for aggregated in [false, true] {
        let d = kube::Discovery::new(client.clone());
        let d = if aggregated {
            d.run_aggregated().await.unwrap()
        } else {
            d.run().await.unwrap()
        };
        let (ar, caps) = d
            .resolve_gvk(&kube::api::GroupVersionKind::gvk(
                "storage.k8s.io",
                "v1",
                "StorageClass",
            ))
            .expect("StorageClass discovered");
        assert_eq!(ar.plural, "storageclasses");
        assert_eq!(caps.scope, kube::discovery::Scope::Cluster);
        let (ar, caps) = d
            .resolve_gvk(&kube::api::GroupVersionKind::gvk("", "v1", "Pod"))
            .expect("Pod discovered");
        assert_eq!(ar.plural, "pods");
        assert_eq!(caps.scope, kube::discovery::Scope::Namespaced);
        assert!(d.has_group("events.k8s.io"), "aggregated={aggregated}");
    }
}

#[tokio::test]
async fn watch_streams_changes() {
    let (api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let list = pods.list(&ListParams::default()).await.unwrap();
    let rv = list.metadata.resource_version.unwrap();
    let stream = pods
        .watch(&WatchParams::default().timeout(5), &rv)
        .await
        .unwrap();
    let mut stream = stream.boxed();
    let mut pod = pods.get("web-0").await.unwrap();
    pod.metadata.name = Some("web-2".into());
    pod.metadata.uid = None;
    pod.metadata.resource_version = None;
    pods.create(&PostParams::default(), &pod).await.unwrap();
    // A change elsewhere is not seen by a namespaced watch.
    api.apply(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "y", "namespace": "ops" },
        "spec": { "containers": [] },
    }));
    api.apply(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "web-2", "namespace": "default" },
        "spec": { "nodeName": "node1", "containers": [] },
        "status": { "phase": "Running" },
    }));
    let mut seen = Vec::new();
    while seen.len() < 2 {
        match tokio::time::timeout(Duration::from_secs(5), stream.try_next())
            .await
            .expect("watch event in time")
            .unwrap()
        {
            Some(WatchEvent::Added(p)) => seen.push(("ADDED", p.metadata.name.unwrap())),
            Some(WatchEvent::Modified(p)) => {
                assert_eq!(p.status.unwrap().phase.as_deref(), Some("Running"));
                seen.push(("MODIFIED", p.metadata.name.unwrap()))
            }
            Some(WatchEvent::Bookmark(_)) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        seen,
        [
            ("ADDED", "web-2".to_string()),
            ("MODIFIED", "web-2".to_string())
        ]
    );
    // Resuming from a compacted resourceVersion: a 410 ERROR event.
    api.compact();
    let stream = pods
        .watch(&WatchParams::default().timeout(5), &rv)
        .await
        .unwrap();
    let mut stream = stream.boxed();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Error(e)) => assert_eq!(e.code, 410),
        other => panic!("want a 410 ERROR event, got {other:?}"),
    }
}

/// The blocking variant, and the raw wire format (what any client, not only kube-rs, sees).
#[test]
fn background_server_raw_http() {
    let (api, thread) = start_in_background(FakeCluster::from_yaml(CLUSTER), Options::default());
    let get = |path: &str| -> (u16, String, String) {
        let mut s = std::net::TcpStream::connect(api.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
            api.addr()
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let code = head.split(' ').nth(1).unwrap().parse().unwrap();
        let ct = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-type: ")
                    .map(String::from)
            })
            .unwrap_or_default();
        (code, ct, body.to_string())
    };

    let (code, ct, body) = get("/api/v1/namespaces/default/pods?limit=2");
    assert_eq!((code, ct.as_str()), (200, "application/json"));
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["kind"], "PodList");
    assert_eq!(v["apiVersion"], "v1");
    assert!(v["metadata"]["resourceVersion"].is_string());
    assert_eq!(v["metadata"]["remainingItemCount"], 1);
    assert_eq!(v["items"].as_array().unwrap().len(), 2);
    assert!(v["items"][0].get("kind").is_none() && v["items"][0].get("apiVersion").is_none());

    let (code, _, body) = get("/api/v1/namespaces/default/pods/x");
    assert_eq!(code, 404);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v,
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404})
    );

    let (code, ct, body) = get("/apis/example.com/v1/widgets");
    assert_eq!(
        (code, ct.as_str(), body.as_str()),
        (404, "text/plain; charset=utf-8", "404 page not found\n")
    );

    let (code, _, body) = get("/apis/events.k8s.io/v1/namespaces/default/events/web-0.17a1");
    assert_eq!(code, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["apiVersion"], "events.k8s.io/v1");
    assert_eq!(v["regarding"]["name"], "web-0");
    assert_eq!(v["deprecatedCount"], 3);

    assert_eq!(api.requests().len(), 4);
    drop(api);
    thread.join().unwrap();
}

#[tokio::test]
async fn writes_edge_cases() {
    let (api, _dir, client) = start(Options::default()).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());

    // replace with a stale resourceVersion → 409 Conflict; with the current one → 200.
    let mut pod = pods.get("web-1").await.unwrap();
    let current = pod.metadata.resource_version.clone();
    pod.metadata.resource_version = Some("1".into());
    let s = api_error(
        pods.replace("web-1", &PostParams::default(), &pod)
            .await
            .unwrap_err(),
    );
    assert_eq!((s.code, s.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        s.message,
        r#"Operation cannot be fulfilled on pods "web-1": the object has been modified; please apply your changes to the latest version and try again"#
    );
    pod.metadata.resource_version = current.clone();
    let replaced = pods
        .replace("web-1", &PostParams::default(), &pod)
        .await
        .unwrap();
    assert_ne!(replaced.metadata.resource_version, current);

    // Server-side apply (a merge here) creates a missing object and needs a field manager.
    let nodes: Api<Node> = Api::all(client.clone());
    let applied = nodes
        .patch(
            "node3",
            &PatchParams::apply("volmnt"),
            &Patch::Apply(json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": { "name": "node3", "labels": { "a": "b" } },
            })),
        )
        .await
        .unwrap();
    assert!(applied.metadata.uid.is_some());
    assert_eq!(api.requests().pop().unwrap().status, 201);

    // JSON patch (RFC 6902), sent raw since kube's Patch::Json needs a crate feature.
    let req = http::Request::patch("/api/v1/nodes/node3")
        .header("content-type", "application/json-patch+json")
        .body(
            serde_json::to_vec(&json!([
                { "op": "add", "path": "/metadata/labels/c", "value": "d" },
                { "op": "remove", "path": "/metadata/labels/a" },
            ]))
            .unwrap(),
        )
        .unwrap();
    let node: Node = client.request(req).await.unwrap();
    let labels = node.metadata.labels.unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!(labels.get("c").map(String::as_str), Some("d"));

    // An unknown patch type → 415.
    let req = http::Request::patch("/api/v1/nodes/node3")
        .header("content-type", "text/plain")
        .body(b"x".to_vec())
        .unwrap();
    let s = api_error(client.request::<Node>(req).await.unwrap_err());
    assert_eq!((s.code, s.reason.as_str()), (415, "UnsupportedMediaType"));

    // dryRun=All changes nothing.
    let dp = DeleteParams {
        dry_run: true,
        ..DeleteParams::default()
    };
    pods.delete("web-1", &dp).await.unwrap();
    assert!(pods.get("web-1").await.is_ok());

    // Routes the real server does not have.
    let req = http::Request::get("/api/v1/namespaces/default/nodes/node1")
        .body(vec![])
        .unwrap();
    let s = api_error(client.request::<Node>(req).await.unwrap_err());
    assert_eq!(s.code, 404);
    let all: Api<Pod> = Api::all(client.clone());
    let s = api_error(all.create(&PostParams::default(), &pod).await.unwrap_err());
    assert_eq!((s.code, s.reason.as_str()), (405, "MethodNotAllowed"));

    // A namespace is its own namespace for RBAC and request attributes.
    let _ = client
        .request_text(
            http::Request::get("/api/v1/namespaces/nowhere")
                .body(vec![])
                .unwrap(),
        )
        .await;
    let r = api.requests().pop().unwrap();
    assert_eq!(
        (
            r.resource.as_str(),
            r.name.as_deref(),
            r.namespace.as_deref(),
            r.status
        ),
        ("namespaces", Some("nowhere"), Some("nowhere"), 404)
    );
}

#[tokio::test]
async fn watch_bookmarks_selector_transitions_and_restarts() {
    let opts = Options {
        bookmark_interval: Duration::from_millis(100),
        ..Options::default()
    };
    let (api, _dir, client) = start(opts).await;
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let rv = pods
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    // Bookmarks only when asked for (allowWatchBookmarks=true), with the current revision.
    let mut wp = WatchParams::default().timeout(5).labels("tier=web");
    wp.bookmarks = true;
    let mut stream = pods.watch(&wp, &rv).await.unwrap().boxed();
    async fn next(
        s: &mut futures::stream::BoxStream<'static, kube::Result<WatchEvent<Pod>>>,
    ) -> WatchEvent<Pod> {
        tokio::time::timeout(Duration::from_secs(5), s.try_next())
            .await
            .expect("an event in time")
            .unwrap()
            .unwrap()
    }
    match next(&mut stream).await {
        WatchEvent::Bookmark(b) => assert_eq!(b.metadata.resource_version, rv),
        other => panic!("want a bookmark, got {other:?}"),
    }
    // An object that starts matching the selector is ADDED, one that stops is DELETED.
    api.apply(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "web-0", "namespace": "default", "labels": { "tier": "web" } },
        "spec": { "containers": [] },
    }));
    let mut got = Vec::new();
    while got.len() < 2 {
        match next(&mut stream).await {
            WatchEvent::Added(p) => got.push(("ADDED", p.metadata.name.unwrap())),
            WatchEvent::Deleted(p) => got.push(("DELETED", p.metadata.name.unwrap())),
            WatchEvent::Bookmark(_) => {
                if got.is_empty() {
                    continue;
                }
                api.apply(json!({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": { "name": "web-0", "namespace": "default", "labels": { "tier": "db" } },
                    "spec": { "containers": [] },
                }));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        got,
        [
            ("ADDED", "web-0".to_string()),
            ("DELETED", "web-0".to_string())
        ]
    );
    // An apiserver restart ends every open watch.
    assert_eq!(api.open_watches(), 1);
    api.close_watches();
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = stream.try_next().await {}
    })
    .await;
    assert!(end.is_ok(), "the watch did not end");
}

#[tokio::test]
async fn leases_are_compare_and_swap_and_events_are_validated() {
    use k8s_openapi::api::coordination::v1::Lease;
    let (_api, _dir, client) = start(Options::default()).await;
    let leases: Api<Lease> = Api::default_namespaced(client.clone());
    let l: Lease = serde_json::from_value(json!({
        "metadata": { "name": "volmnt-watch" },
        "spec": { "holderIdentity": "a", "leaseDurationSeconds": 15, "leaseTransitions": 0 },
    }))
    .unwrap();
    let created = leases.create(&PostParams::default(), &l).await.unwrap();
    let mut mine = created.clone();
    mine.spec.as_mut().unwrap().holder_identity = Some("a".into());
    leases
        .replace("volmnt-watch", &PostParams::default(), &mine)
        .await
        .unwrap();
    // A second writer with the old resourceVersion loses.
    let mut theirs = created;
    theirs.spec.as_mut().unwrap().holder_identity = Some("b".into());
    let s = api_error(
        leases
            .replace("volmnt-watch", &PostParams::default(), &theirs)
            .await
            .unwrap_err(),
    );
    assert_eq!(s.code, 409);
    // An Event whose involvedObject is in another namespace is refused, as by the apiserver.
    let events: Api<Event> = Api::default_namespaced(client);
    let ev: Event = serde_json::from_value(json!({
        "metadata": { "name": "x.1" },
        "involvedObject": { "kind": "Pod", "name": "x", "namespace": "elsewhere" },
        "reason": "VolumeDiagnosis", "type": "Warning", "message": "m",
    }))
    .unwrap();
    let s = api_error(
        events
            .create(&PostParams::default(), &ev)
            .await
            .unwrap_err(),
    );
    assert_eq!(s.code, 422);
    assert!(
        s.message
            .contains("involvedObject.namespace: Invalid value: \"elsewhere\": does not match event.namespace"),
        "{}",
        s.message
    );
}

/// A node plugin's pod with two containers, one of them restarting, and a kubelet journal.
const PLUGIN_CLUSTER: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: node1}
---
apiVersion: v1
kind: Node
metadata: {name: node2}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ebs-csi-node, namespace: kube-system, uid: 22222222-2222-4222-8222-222222222222}
spec:
  selector: {matchLabels: {app: ebs-csi-node}}
  template:
    metadata: {labels: {app: ebs-csi-node}}
    spec: {containers: [{name: ebs-plugin, image: ebs}, {name: node-driver-registrar, image: reg}]}
status: {desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1, numberMisscheduled: 0}
---
apiVersion: v1
kind: Pod
metadata:
  name: ebs-csi-node-x7k2p
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ebs-csi-node, uid: 22222222-2222-4222-8222-222222222222, controller: true}]
spec:
  nodeName: node1
  initContainers: [{name: init, image: busybox}]
  containers: [{name: ebs-plugin, image: ebs}, {name: node-driver-registrar, image: reg}]
status:
  phase: Running
  containerStatuses:
  - {name: ebs-plugin, ready: false, restartCount: 3, image: ebs, imageID: "", state: {waiting: {reason: CrashLoopBackOff}}}
  - {name: node-driver-registrar, ready: true, restartCount: 0, image: reg, imageID: "", state: {running: {}}}
---
apiVersion: v1
kind: Pod
metadata: {name: waiting, namespace: kube-system}
spec: {nodeName: node1, containers: [{name: c, image: busybox}]}
status: {phase: Pending, containerStatuses: [{name: c, ready: false, restartCount: 0, image: busybox, imageID: "", state: {waiting: {reason: ContainerCreating}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: unscheduled, namespace: kube-system}
spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8f
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: 33333333-3333-4333-8333-333333333333, controller: true}]
spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {spec: {containers: [{name: web, image: nginx}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, uid: 33333333-3333-4333-8333-333333333333}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  template: {spec: {containers: [{name: web, image: nginx}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec: {replicas: 1, serviceName: db, selector: {matchLabels: {app: db}}, updateStrategy: {type: OnDelete}, template: {spec: {containers: [{name: db, image: pg}]}}}
"#;

fn plugin_cluster() -> FakeCluster {
    let s = Duration::from_secs;
    FakeCluster::from_yaml(PLUGIN_CLUSTER)
        .with_pod_log(
            "kube-system",
            "ebs-csi-node-x7k2p",
            "ebs-plugin",
            false,
            &[
                (s(3 * 3600), "I1126 19:00:00.000001       1 node.go:1] an old line"),
                (s(120), "E1126 21:58:00.000001       1 node.go:2] NodeStageVolume vol-0abc failed"),
                (s(60), "E1126 21:59:00.000001       1 node.go:3] NodeStageVolume vol-0abc failed again"),
            ],
        )
        .with_pod_log(
            "kube-system",
            "ebs-csi-node-x7k2p",
            "ebs-plugin",
            true,
            &[(s(300), "F1126 21:55:00.000001       1 main.go:9] cannot reach the metadata service")],
        )
        .with_node_logs(
            "node1",
            NodeLogs::Journal(vec![
                (s(3 * 3600), "E1126 19:00:00.000001    1187 old.go:1] MountVolume failed for pod uid-1, long ago".into()),
                (s(90), "E1126 21:58:30.000001    1187 nestedpendingoperations.go:348] MountVolume.MountDevice failed for volume \"pvc-1\" pod uid-1".into()),
                (s(30), "I1126 21:59:30.000001    1187 kubelet.go:1] another pod uid-2".into()),
            ]),
        )
        .with_node_logs("node2", NodeLogs::HandlerDisabled)
}

/// A raw GET through the client (pods/log and node proxy answers are text).
async fn raw_get(client: &Client, path: &str) -> Result<String, kube::Error> {
    let req = http::Request::get(path).body(Vec::new()).unwrap();
    client.request_text(req).await
}

#[tokio::test]
async fn pod_logs_with_the_apiservers_options_and_errors() {
    let api = FakeApi::start(plugin_cluster(), Options::default()).await;
    let dir = TempDir::new("fake-api-logs");
    let client = client_for(&api, &dir, "kube-system").await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "kube-system");
    let lp = |c: Option<&str>| kube::api::LogParams {
        container: c.map(str::to_string),
        ..Default::default()
    };
    // Two containers: one must be named (the init container too is offered).
    let s = api_error(
        pods.logs("ebs-csi-node-x7k2p", &lp(None))
            .await
            .unwrap_err(),
    );
    assert_eq!((s.code, s.reason.as_str()), (400, "BadRequest"));
    assert_eq!(
        s.message,
        "a container name must be specified for pod ebs-csi-node-x7k2p, choose one of: [ebs-plugin node-driver-registrar] or one of the init containers: [init]"
    );
    let s = api_error(
        pods.logs("ebs-csi-node-x7k2p", &lp(Some("nope")))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        s.message,
        "container nope is not valid for pod ebs-csi-node-x7k2p"
    );
    let all = pods
        .logs("ebs-csi-node-x7k2p", &lp(Some("ebs-plugin")))
        .await
        .unwrap();
    assert_eq!(all.lines().count(), 3);
    // The newest lines, then the first bytes of those; since a time.
    let tail = kube::api::LogParams {
        tail_lines: Some(2),
        limit_bytes: Some(30),
        ..lp(Some("ebs-plugin"))
    };
    let t = pods.logs("ebs-csi-node-x7k2p", &tail).await.unwrap();
    assert_eq!(t, "E1126 21:58:00.000001       1 ");
    let since = kube::api::LogParams {
        since_seconds: Some(3600),
        timestamps: true,
        ..lp(Some("ebs-plugin"))
    };
    let t = pods.logs("ebs-csi-node-x7k2p", &since).await.unwrap();
    assert_eq!(t.lines().count(), 2, "{t}");
    let first = t.lines().next().unwrap();
    assert!(
        first.len() > 31 && &first[4..5] == "-" && first[..30].ends_with('Z'),
        "an RFC3339Nano time first: {first}"
    );
    // The instance before the restart; none for a container that never restarted.
    let prev = kube::api::LogParams {
        previous: true,
        ..lp(Some("ebs-plugin"))
    };
    assert!(pods
        .logs("ebs-csi-node-x7k2p", &prev)
        .await
        .unwrap()
        .contains("metadata service"));
    let prev_reg = kube::api::LogParams {
        previous: true,
        ..lp(Some("node-driver-registrar"))
    };
    let s = api_error(
        pods.logs("ebs-csi-node-x7k2p", &prev_reg)
            .await
            .unwrap_err(),
    );
    assert_eq!(
        s.message,
        r#"previous terminated container "node-driver-registrar" in pod "ebs-csi-node-x7k2p" not found"#
    );
    // Invalid options are 422 Invalid, worded as the apiserver's validation.
    let s = api_error(
        raw_get(&client, "/api/v1/namespaces/kube-system/pods/ebs-csi-node-x7k2p/log?container=ebs-plugin&tailLines=-1")
            .await
            .unwrap_err(),
    );
    assert_eq!((s.code, s.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        s.message,
        r#"PodLogOptions "ebs-csi-node-x7k2p" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0"#
    );
    let s = api_error(
        raw_get(&client, "/api/v1/namespaces/kube-system/pods/ebs-csi-node-x7k2p/log?container=ebs-plugin&limitBytes=0")
            .await
            .unwrap_err(),
    );
    assert!(s
        .message
        .ends_with("limitBytes: Invalid value: 0: must be greater than 0"));
    // A container not started yet, a pod on no node, a pod that does not exist.
    let s = api_error(pods.logs("waiting", &lp(None)).await.unwrap_err());
    assert_eq!(
        s.message,
        r#"container "c" in pod "waiting" is waiting to start: ContainerCreating"#
    );
    let s = api_error(pods.logs("unscheduled", &lp(None)).await.unwrap_err());
    assert_eq!(s.message, "pod unscheduled does not have a host assigned");
    let s = api_error(pods.logs("gone", &lp(None)).await.unwrap_err());
    assert_eq!(
        (s.code, s.message.as_str()),
        (404, r#"pods "gone" not found"#)
    );
    let r = api.requests();
    let r = r
        .iter()
        .find(|r| r.subresource.as_deref() == Some("log"))
        .unwrap();
    assert_eq!((r.verb.as_str(), r.resource.as_str()), ("get", "pods"));
}

#[tokio::test]
async fn pod_logs_refused_by_rbac() {
    let opts = Options {
        deny: vec![Deny::new("get", "pods/log", Some("kube-system"))],
        ..Options::default()
    };
    let api = FakeApi::start(plugin_cluster(), opts).await;
    let dir = TempDir::new("fake-api-logs-403");
    let client = client_for(&api, &dir, "kube-system").await;
    let pods: Api<Pod> = Api::namespaced(client, "kube-system");
    let lp = kube::api::LogParams {
        container: Some("ebs-plugin".into()),
        ..Default::default()
    };
    let s = api_error(pods.logs("ebs-csi-node-x7k2p", &lp).await.unwrap_err());
    // As the real apiserver (v1.36.2) words it.
    assert_eq!(
        s.message,
        r#"pods "ebs-csi-node-x7k2p" is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot get resource "pods/log" in API group "" in the namespace "kube-system""#
    );
    let d = s.details.unwrap();
    assert_eq!(
        (d.name.as_str(), d.kind.as_str()),
        ("ebs-csi-node-x7k2p", "pods")
    );
}

#[tokio::test]
async fn the_node_log_query_as_each_kubelet_answers_it() {
    let cluster = plugin_cluster()
        .with_node_logs("node3", NodeLogs::AddressNotAllowed)
        .with_node_logs("node4", NodeLogs::NotJournald)
        .with_node_logs("node5", NodeLogs::Unreachable);
    let mut cluster = cluster;
    for n in ["node3", "node4", "node5", "node6"] {
        cluster.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}}));
    }
    let api = FakeApi::start(cluster, Options::default()).await;
    let dir = TempDir::new("fake-api-nodelogs");
    // No retries of the 503 (kube's default client retries it, as volmnt's does not).
    let kc = Kubeconfig::read_from(api.write_kubeconfig(dir.path(), "default")).unwrap();
    let opts = KubeConfigOptions {
        context: Some("fake".into()),
        ..Default::default()
    };
    let mut config = kube::Config::from_custom_kubeconfig(kc, &opts)
        .await
        .unwrap();
    config.default_retry = false;
    let client = Client::try_from(config).unwrap();
    // The journal, filtered by pattern (case-insensitively, as journalctl --grep), since a time,
    // the newest lines, in journalctl's short-precise format.
    let since = fake_api::rfc3339_secs(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
            - 3600,
    );
    let q = format!(
        "/api/v1/nodes/node1/proxy/logs/?query=kubelet&pattern=UID-1&tailLines=10&sinceTime={since}"
    );
    let body = raw_get(&client, &q).await.unwrap();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 1, "{body}");
    assert!(
        lines[0].contains(" node1 kubelet[1187]: E1126 21:58:30.000001"),
        "{body}"
    );
    assert_eq!(&lines[0][3..4], " ");
    assert_eq!(
        raw_get(
            &client,
            "/api/v1/nodes/node1/proxy/logs/?query=kubelet&pattern=nothing-matches"
        )
        .await
        .unwrap(),
        "-- No entries --\n"
    );
    let s = api_error(
        raw_get(
            &client,
            "/api/v1/nodes/node1/proxy/logs/?query=kubelet&tailLines=100001",
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(s.code, 406);
    // The kubelet's defaults: the query ignored, /var/log listed.
    let listing = raw_get(&client, "/api/v1/nodes/node6/proxy/logs/?query=kubelet")
        .await
        .unwrap();
    assert!(
        listing.starts_with("<!doctype html>\n<meta name=\"viewport\""),
        "{listing}"
    );
    // Handler off (405, the kubelet's text), loopback address (400 from the apiserver), not
    // journald, unreachable, no such node.
    let s = api_error(
        raw_get(&client, "/api/v1/nodes/node2/proxy/logs/?query=kubelet")
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (s.code, s.message.as_str()),
        (405, "logs endpoint is disabled.")
    );
    let s = api_error(
        raw_get(&client, "/api/v1/nodes/node3/proxy/logs/?query=kubelet")
            .await
            .unwrap_err(),
    );
    assert_eq!((s.code, s.message.as_str()), (400, "address not allowed"));
    let b = raw_get(
        &client,
        "/api/v1/nodes/node4/proxy/logs/?query=kubelet&tailLines=5",
    )
    .await
    .unwrap();
    assert!(
        b.contains("options present and query resolved to log files for [kubelet]"),
        "{b}"
    );
    let s = api_error(
        raw_get(&client, "/api/v1/nodes/node5/proxy/logs/?query=kubelet")
            .await
            .unwrap_err(),
    );
    assert_eq!(s.code, 503);
    let s = api_error(
        raw_get(&client, "/api/v1/nodes/nope/proxy/logs/?query=kubelet")
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (s.code, s.message.as_str()),
        (404, r#"nodes "nope" not found"#)
    );
    // The apiserver authorizes it as get on nodes/proxy.
    let r = api.requests();
    let r = r.iter().find(|r| r.resource == "nodes").unwrap();
    assert_eq!(
        (r.verb.as_str(), r.subresource.as_deref(), r.name.as_deref()),
        ("get", Some("proxy"), Some("node1"))
    );
}

#[tokio::test]
async fn node_proxy_refused_by_rbac() {
    let opts = Options {
        deny: vec![Deny::new("get", "nodes/proxy", None)],
        ..Options::default()
    };
    let api = FakeApi::start(plugin_cluster(), opts).await;
    let dir = TempDir::new("fake-api-proxy-403");
    let client = client_for(&api, &dir, "default").await;
    let s = api_error(
        raw_get(&client, "/api/v1/nodes/node1/proxy/logs/?query=kubelet")
            .await
            .unwrap_err(),
    );
    assert_eq!(
        s.message,
        r#"nodes "node1" is forbidden: User "system:serviceaccount:volmnt:volmnt" cannot get resource "nodes/proxy" in API group "" at the cluster scope"#
    );
}

#[tokio::test]
async fn self_subject_access_reviews_answer_from_the_denials() {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let opts = Options {
        deny: vec![
            Deny::new("get", "pods/log", Some("kube-system")),
            Deny::new("get", "nodes/proxy", None),
        ],
        ..Options::default()
    };
    let api = FakeApi::start(plugin_cluster(), opts).await;
    let dir = TempDir::new("fake-api-ssar");
    let client = client_for(&api, &dir, "default").await;
    let reviews: Api<SelfSubjectAccessReview> = Api::all(client);
    let ask = |verb: &str, res: &str, sub: &str, ns: Option<&str>| SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some(res.into()),
                subresource: Some(sub.into()),
                namespace: ns.map(str::to_string),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let allowed = |r: SelfSubjectAccessReview| r.status.unwrap().allowed;
    let pp = PostParams::default();
    assert!(!allowed(
        reviews
            .create(&pp, &ask("get", "pods", "log", Some("kube-system")))
            .await
            .unwrap()
    ));
    assert!(allowed(
        reviews
            .create(&pp, &ask("get", "pods", "log", Some("default")))
            .await
            .unwrap()
    ));
    // Every namespace: refused in one, not allowed in all.
    assert!(!allowed(
        reviews
            .create(&pp, &ask("get", "pods", "log", None))
            .await
            .unwrap()
    ));
    assert!(!allowed(
        reviews
            .create(&pp, &ask("get", "nodes", "proxy", None))
            .await
            .unwrap()
    ));
    assert!(allowed(
        reviews
            .create(&pp, &ask("list", "daemonsets", "", None))
            .await
            .unwrap()
    ));
    // The answer echoes the question; nothing is stored; the request is a create.
    let r = reviews
        .create(&pp, &ask("get", "pods", "log", Some("kube-system")))
        .await
        .unwrap();
    assert_eq!(
        r.spec.resource_attributes.unwrap().namespace.as_deref(),
        Some("kube-system")
    );
    assert!(api
        .objects()
        .iter()
        .all(|o| o["kind"] != "SelfSubjectAccessReview"));
    let last = api.requests().pop().unwrap();
    assert_eq!(
        (last.verb.as_str(), last.group.as_str(), last.status),
        ("create", "authorization.k8s.io", 201)
    );
}

#[tokio::test]
async fn the_apps_kinds_a_pods_owners_are_read_from() {
    use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
    let api = FakeApi::start(plugin_cluster(), Options::default()).await;
    let dir = TempDir::new("fake-api-apps");
    let client = client_for(&api, &dir, "default").await;
    let rs = Api::<ReplicaSet>::default_namespaced(client.clone())
        .get("web-5d8f")
        .await
        .unwrap();
    assert_eq!(rs.metadata.owner_references.unwrap()[0].name, "web");
    let d = Api::<Deployment>::default_namespaced(client.clone())
        .get("web")
        .await
        .unwrap();
    assert_eq!(
        d.spec.unwrap().strategy.unwrap().type_.as_deref(),
        Some("RollingUpdate")
    );
    let s = Api::<StatefulSet>::default_namespaced(client.clone())
        .get("db")
        .await
        .unwrap();
    assert_eq!(
        s.spec.unwrap().update_strategy.unwrap().type_.as_deref(),
        Some("OnDelete")
    );
    let all = Api::<DaemonSet>::all(client.clone())
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(names(&all.items), ["ebs-csi-node"]);
    let s = api_error(
        Api::<Deployment>::default_namespaced(client)
            .get("nope")
            .await
            .unwrap_err(),
    );
    assert_eq!(s.message, r#"deployments.apps "nope" not found"#);
}
