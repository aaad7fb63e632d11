//! Leader election through a coordination.k8s.io/v1 Lease, so that of several `volmnt watch`
//! replicas exactly one writes Events. The algorithm is client-go's
//! (k8s.io/client-go/tools/leaderelection/leaderelection.go, tryAcquireOrRenew):
//!
//! - the Lease names its holder (`holderIdentity`), how long a claim lasts
//!   (`leaseDurationSeconds`), when the holder took it (`acquireTime`), last renewed it
//!   (`renewTime`), and how many times it changed hands (`leaseTransitions`);
//! - a candidate takes the Lease when nobody holds it, or when the record has not changed for a
//!   whole lease duration **as measured on this machine's clock** since it was last seen to
//!   change (never by comparing `renewTime` with the local clock: clocks differ);
//! - every write is an update carrying the `resourceVersion` read, so of two candidates racing
//!   for an expired Lease one gets 409 Conflict and stays a follower;
//! - the leader renews every `retry_period`; if it cannot renew for `renew_deadline` (shorter
//!   than the lease duration) it stops leading before anyone else may take over;
//! - on a clean shutdown the leader releases the Lease (empty holder, duration 1 s), so the
//!   next replica takes over at once instead of after a lease duration.

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::PostParams;
use kube::{Api, Client};
use tokio::sync::watch;

/// Where the Lease is and how it is held.
#[derive(Debug, Clone)]
pub struct LeaseConfig {
    pub namespace: String,
    pub name: String,
    /// This replica's name in `holderIdentity` (the pod's name in a cluster).
    pub identity: String,
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
}

/// What the election loop reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Acquired,
    Lost(String),
    /// Someone else holds it (logged once per holder).
    Follower(String),
}

/// The observable side of an election: `is_leader()` is what gates writes.
#[derive(Clone)]
pub struct Leadership {
    rx: watch::Receiver<bool>,
    /// Keeps the channel open for `always()` (no elector owns the sender then).
    _fixed: Option<std::sync::Arc<watch::Sender<bool>>>,
}

impl Leadership {
    /// Always the leader: dry runs and `--leader-elect=false`.
    pub fn always() -> Leadership {
        let (tx, rx) = watch::channel(true);
        Leadership {
            rx,
            _fixed: Some(std::sync::Arc::new(tx)),
        }
    }

    pub fn is_leader(&self) -> bool {
        *self.rx.borrow()
    }

    /// Resolves when leadership changes.
    pub async fn changed(&mut self) -> bool {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
        *self.rx.borrow_and_update()
    }
}

/// The record as last seen, and when (local clock) it was seen to change.
struct Observed {
    holder: String,
    renew: Option<String>,
    duration: Duration,
    at: Instant,
}

/// Runs the election until `stop` fires; then releases the Lease if held. Changes are sent to
/// `log` as they happen.
pub struct Elector {
    api: Api<Lease>,
    cfg: LeaseConfig,
    tx: watch::Sender<bool>,
    observed: Option<Observed>,
    last_renew: Option<Instant>,
}

fn now() -> MicroTime {
    MicroTime(k8s_openapi::jiff::Timestamp::now())
}

fn holder_of(l: &Lease) -> String {
    l.spec
        .as_ref()
        .and_then(|s| s.holder_identity.clone())
        .unwrap_or_default()
}

impl Elector {
    pub fn new(client: Client, cfg: LeaseConfig) -> (Elector, Leadership) {
        let (tx, rx) = watch::channel(false);
        let api = Api::namespaced(client, &cfg.namespace);
        (
            Elector {
                api,
                cfg,
                tx,
                observed: None,
                last_renew: None,
            },
            Leadership { rx, _fixed: None },
        )
    }

    fn leading(&self) -> bool {
        *self.tx.borrow()
    }

    fn set_leading(&self, v: bool) {
        self.tx.send_replace(v);
    }

    /// One round: try to take or renew the Lease. Ok(true) when this replica holds it now.
    pub async fn try_acquire_or_renew(&mut self) -> Result<bool, String> {
        let me = self.cfg.identity.clone();
        let duration_secs = self.cfg.lease_duration.as_secs().max(1) as i32;
        let current = match self.api.get_opt(&self.cfg.name).await {
            Ok(c) => c,
            Err(e) => return Err(format!("reading lease: {e}")),
        };
        let Some(mut lease) = current else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.cfg.name.clone()),
                    namespace: Some(self.cfg.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(me.clone()),
                    lease_duration_seconds: Some(duration_secs),
                    acquire_time: Some(now()),
                    renew_time: Some(now()),
                    lease_transitions: Some(0),
                    ..LeaseSpec::default()
                }),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(l) => {
                    self.observe(&l);
                    Ok(true)
                }
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
                Err(e) => Err(format!("creating lease: {e}")),
            };
        };
        self.observe(&lease);
        let holder = holder_of(&lease);
        let obs = self.observed.as_ref().expect("observed above");
        let expired = obs.at.elapsed() >= obs.duration;
        if !holder.is_empty() && holder != me && !expired {
            return Ok(false);
        }
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        if holder != me {
            spec.acquire_time = Some(now());
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec.holder_identity = Some(me);
        spec.lease_duration_seconds = Some(duration_secs);
        spec.renew_time = Some(now());
        // The resourceVersion read above makes this a compare-and-swap.
        match self
            .api
            .replace(&self.cfg.name, &PostParams::default(), &lease)
            .await
        {
            Ok(l) => {
                self.observe(&l);
                Ok(true)
            }
            Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
            Err(e) => Err(format!("updating lease: {e}")),
        }
    }

    fn observe(&mut self, l: &Lease) {
        let holder = holder_of(l);
        let renew = l
            .spec
            .as_ref()
            .and_then(|s| s.renew_time.as_ref())
            .map(|t| t.0.to_string());
        let duration = l
            .spec
            .as_ref()
            .and_then(|s| s.lease_duration_seconds)
            .map(|s| Duration::from_secs(s.max(0) as u64))
            .unwrap_or(self.cfg.lease_duration);
        let changed = self
            .observed
            .as_ref()
            .is_none_or(|o| o.holder != holder || o.renew != renew);
        if changed {
            self.observed = Some(Observed {
                holder,
                renew,
                duration,
                at: Instant::now(),
            });
        }
    }

    /// The election loop. Returns when `stop` resolves, after releasing the Lease if held.
    pub async fn run(
        mut self,
        stop: impl std::future::Future<Output = ()>,
        mut log: impl FnMut(Change),
    ) {
        tokio::pin!(stop);
        let mut last_holder = String::new();
        loop {
            let round = tokio::time::timeout(self.cfg.renew_deadline, self.try_acquire_or_renew());
            let result = tokio::select! {
                _ = &mut stop => break,
                r = round => r.unwrap_or_else(|_| Err("no answer within the renew deadline".into())),
            };
            match result {
                Ok(true) => {
                    self.last_renew = Some(Instant::now());
                    if !self.leading() {
                        self.set_leading(true);
                        log(Change::Acquired);
                    }
                }
                Ok(false) => {
                    if self.leading() {
                        self.set_leading(false);
                        log(Change::Lost("another replica holds the lease".into()));
                    }
                    let holder = self
                        .observed
                        .as_ref()
                        .map(|o| o.holder.clone())
                        .unwrap_or_default();
                    if holder != last_holder && !holder.is_empty() {
                        log(Change::Follower(holder.clone()));
                    }
                    last_holder = holder;
                }
                Err(e) => {
                    // A leader that cannot renew steps down before its lease could expire
                    // for the others (renew_deadline < lease_duration).
                    let stale = self
                        .last_renew
                        .is_none_or(|t| t.elapsed() >= self.cfg.renew_deadline);
                    if self.leading() && stale {
                        self.set_leading(false);
                        log(Change::Lost(e));
                    }
                }
            }
            tokio::select! {
                _ = &mut stop => break,
                _ = tokio::time::sleep(self.cfg.retry_period) => {}
            }
        }
        if self.leading() {
            self.set_leading(false);
            let _ = tokio::time::timeout(self.cfg.renew_deadline, self.release()).await;
        }
    }

    /// Give the Lease up: empty holder, 1 s duration (client-go's ReleaseOnCancel).
    async fn release(&mut self) {
        let Ok(Some(mut lease)) = self.api.get_opt(&self.cfg.name).await else {
            return;
        };
        if holder_of(&lease) != self.cfg.identity {
            return;
        }
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        spec.holder_identity = None;
        spec.lease_duration_seconds = Some(1);
        spec.renew_time = Some(now());
        spec.acquire_time = Some(now());
        let _ = self
            .api
            .replace(&self.cfg.name, &PostParams::default(), &lease)
            .await;
    }
}
