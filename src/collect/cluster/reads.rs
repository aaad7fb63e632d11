//! Reading objects: GET, metadata-only GET, and paginated LIST filtered page by page, each
//! bounded by `--request-timeout`; a 404 is an answer (`Fetch::Missing`) and a 403 is recorded
//! and answered (`Fetch::Denied`), so a forbidden read never stops a diagnosis.

use std::collections::BTreeSet;

use k8s_openapi::api::storage::v1::VolumeAttachment;
use kube::api::{ListParams, ObjectList};
use kube::Api;
use serde::de::DeserializeOwned;

use super::client::Cluster;
use super::errors::Access;
use super::refs::ns_of_meta;
use crate::error::Result;

/// What a read gave: the object, a confirmed absence, or a refusal (already recorded).
pub enum Fetch<T> {
    Got(T),
    Missing,
    Denied,
}

impl<T> Fetch<T> {
    pub fn ok(self) -> Option<T> {
        match self {
            Fetch::Got(t) => Some(t),
            _ => None,
        }
    }

    /// The object changed by `f`; an absence or a refusal stays what it was.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Fetch<U> {
        match self {
            Fetch::Got(t) => Fetch::Got(f(t)),
            Fetch::Missing => Fetch::Missing,
            Fetch::Denied => Fetch::Denied,
        }
    }
}

/// Largest page asked for in one list call; memory stays bounded on big clusters.
pub const PAGE: u32 = 500;

/// The page of the fleet's big lists (every pod that is not Pending, every Warning event about
/// a pod), each item decoded into a few strings and mostly dropped. Pages follow each other
/// (the next needs the last one's token), so their number is what such a list costs: on the
/// real v1.36 server at 50,000 pods a page of 500 took 0.10 s and one of 5,000 0.22 to 0.24 s,
/// 94 pages of pods and 128 of events 9 to 12 s against about 3 s (issue 30). A page of 5,000
/// pods is about 15 MB of JSON, held while it is decoded.
pub const FLEET_PAGE: u32 = 5000;

/// How a list is named in `-vv`'s timings: `list pods spec.nodeName=n1 (cache)`.
/// An object's place in the API server's storage, whose order lists and their pages follow
/// (`namespace/name`, or `name` for a cluster-scoped object).
fn store_key<K: kube::Resource>(o: &K) -> String {
    let m = o.meta();
    match &m.namespace {
        Some(ns) => format!("{ns}/{}", m.name.as_deref().unwrap_or_default()),
        None => m.name.clone().unwrap_or_default(),
    }
}

pub(super) fn list_label(access: Access<'_>, params: &ListParams) -> String {
    let mut s = format!("list {}", access.resource);
    if let Some(ns) = access.namespace {
        s.push_str(&format!(" in {ns}"));
    }
    for sel in [&params.field_selector, &params.label_selector]
        .into_iter()
        .flatten()
    {
        s.push(' ');
        s.push_str(sel);
    }
    match params.resource_version.as_deref() {
        Some("0") => s.push_str(" (cache)"),
        Some(_) => s.push_str(" (cache, pages)"),
        None => {}
    }
    if params.continue_token.is_some() {
        s.push_str(" (next page)");
    }
    s
}

impl Cluster {
    /// GET one object; 404 and 403 are answers, not errors.
    pub async fn get<K>(&self, api: Api<K>, name: &str, access: Access<'_>) -> Result<Fetch<K>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let action = match access.namespace {
            Some(ns) => format!("reading {} {ns}/{name}", access.resource),
            None => format!("reading {} {name}", access.resource),
        };
        match self.timed(&action, api.get(name)).await? {
            Ok(o) => Ok(Fetch::Got(o)),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(Fetch::Missing),
            Err(kube::Error::Api(s)) if s.code == 403 => {
                self.record_denied(access.describe("get"));
                Ok(Fetch::Denied)
            }
            Err(e) => Err(self.fail(&action, e)),
        }
    }

    /// GET only an object's metadata (used for Secrets and ConfigMaps: existence only).
    pub async fn exists<K>(&self, api: Api<K>, name: &str, access: Access<'_>) -> Result<Fetch<()>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let action = format!("checking {} {name}", access.resource);
        match self.timed(&action, api.get_metadata(name)).await? {
            Ok(_) => Ok(Fetch::Got(())),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(Fetch::Missing),
            Err(kube::Error::Api(s)) if s.code == 403 => {
                self.record_denied(access.describe("get"));
                Ok(Fetch::Denied)
            }
            Err(e) => Err(self.fail(&action, e)),
        }
    }

    /// LIST with pagination; `keep` filters each page so memory holds only what is kept.
    pub async fn list<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        keep: impl FnMut(&K) -> bool,
    ) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        self.list_pages(api, params.limit(PAGE), access, keep).await
    }

    /// Every object of a list the API server answers whole from its watch cache
    /// (`resourceVersion=0`), decoded one item at a time as the answer arrives and handed to
    /// `keep`: one request, no page tokens (so no 410 when the cache's version is older than
    /// etcd's compaction), and never the whole answer in memory. For the biggest list of a
    /// fleet run, every pod that is not Pending: on the real v1.36 server at 50,000 pods the
    /// cache serves it in one answer of 128 MB in about 2.3 s, against 3 to 5 s in pages of
    /// 5,000 (issue 30). Each read of the answer waits at most `--request-timeout`; the whole
    /// list at most ten times that.
    pub async fn list_streamed<K>(
        &self,
        namespace: Option<&str>,
        params: ListParams,
        access: Access<'_>,
        mut keep: impl FnMut(K),
    ) -> Result<Fetch<()>>
    where
        K: kube::Resource + DeserializeOwned,
        <K as kube::Resource>::DynamicType: Default,
    {
        use futures::AsyncBufReadExt;
        let params = params.at("0");
        let what = format!("{} (streamed)", list_label(access, &params));
        let url = K::url_path(&Default::default(), namespace);
        let req = kube::core::Request::new(url)
            .list(&params)
            .map_err(|e| crate::error::Error::Unreachable(format!("{what}: {e}")))?;
        let idle = self.timeout;
        let read = async {
            let mut stream = self.client.request_stream(req).await?;
            let mut split = crate::parse::list_items::ItemSplitter::new();
            let bad = |m: String| {
                kube::Error::ReadEvents(std::io::Error::new(std::io::ErrorKind::InvalidData, m))
            };
            loop {
                let chunk = match tokio::time::timeout(idle, stream.fill_buf()).await {
                    Ok(r) => r.map_err(kube::Error::ReadEvents)?,
                    Err(_) => {
                        return Err(kube::Error::ReadEvents(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            format!("the answer stopped for {idle:?} (--request-timeout)"),
                        )))
                    }
                };
                if chunk.is_empty() {
                    break;
                }
                let n = chunk.len();
                split
                    .feed(chunk, |item| {
                        serde_json::from_slice::<K>(item)
                            .map(&mut keep)
                            .map_err(|e| format!("an item of the list: {e}"))
                    })
                    .map_err(bad)?;
                stream.consume_unpin(n);
            }
            if !split.complete() {
                return Err(bad("the answer ended inside the list".into()));
            }
            Ok(())
        };
        match self.within(&what, idle * 10, read).await {
            Ok(Ok(())) => Ok(Fetch::Got(())),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => Ok(Fetch::Missing),
            Ok(Err(kube::Error::Api(s))) if s.code == 403 => {
                self.record_denied(access.describe("list"));
                Ok(Fetch::Denied)
            }
            Ok(Err(e)) => Err(self.fail(&what, e)),
            Err(()) => Err(crate::error::Error::Unreachable(format!(
                "{what}: not read whole from {} within {:?} (ten times --request-timeout)",
                self.target,
                idle * 10
            ))),
        }
    }

    /// LIST answered by the API server's watch cache: `resourceVersion=0` ("any version"),
    /// which the server answers from memory (for pods on a node, from its index of
    /// `spec.nodeName`) instead of reading and decoding every object of the kind from etcd, as
    /// a default list does wherever etcd cannot confirm the cache is fresh (etcd before 3.4.31
    /// and 3.5.13): the pods of one node among 50,000 took 5 s that way on a real v1.36 server,
    /// 0.03 s from the cache. The cache ignores `limit` at version 0, so the answer comes whole:
    /// for reads a selector keeps small (one node's pods, the VolumeAttachments, the
    /// DaemonSets). The data may be a moment older than etcd's, which a diagnosis tolerates.
    /// Servers without a watch cache for the kind answer it from etcd, as before.
    pub async fn list_any<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        keep: impl FnMut(&K) -> bool,
    ) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        self.list_pages(api, params.match_any(), access, keep).await
    }

    /// LIST in pages answered by the watch cache: `resourceVersionMatch=NotOlderThan` (any
    /// data at least as new as version 1, which the server answers from its cache, honouring
    /// `limit`, where a default list would read etcd); the next pages follow the continue
    /// token (from the cache's snapshot of that version on servers that keep them, v1.34 on;
    /// from etcd at that version before). For lists too big for one answer: every pod or claim
    /// of a cluster.
    pub async fn list_cached<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let cached = params
            .clone()
            .matching(kube::api::VersionMatch::NotOlderThan)
            .at("1")
            .limit(FLEET_PAGE);
        let mut last: Option<String> = None;
        let mut out = Vec::new();
        let first = self
            .pages(&api, cached, access, true, &mut out, &mut |o: &K| {
                last = Some(store_key(o));
                keep(o)
            })
            .await?;
        if let Some(done) = first {
            return Ok(done.map(|()| out));
        }
        // A continue token the server no longer honours (410 Expired): the cache answered at
        // its own version, which on a kind nobody changed for a while is older than etcd's
        // last compaction, and the next page went to etcd at that version (seen on the real
        // v1.36 server with etcd 3.4 after other namespaces' churn). The rest is read as a
        // default list does, from etcd at its current version, in the same key order, past
        // the last object already handed to `keep`.
        let last = last.unwrap_or_default();
        let done = self
            .pages(
                &api,
                params.limit(FLEET_PAGE),
                access,
                false,
                &mut out,
                &mut |o: &K| store_key(o) > last && keep(o),
            )
            .await?;
        Ok(done.unwrap_or(Fetch::Missing).map(|()| out))
    }

    /// LIST in pages of the size `params` asks for (`limit`), each filtered by `keep`.
    pub(super) async fn list_pages<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let done = self
            .pages(&api, params, access, false, &mut out, &mut keep)
            .await?;
        Ok(done.unwrap_or(Fetch::Missing).map(|()| out))
    }

    /// The pages of one list into `out`, each filtered by `keep`. `Ok(None)` when
    /// `expired_ok` and a continue token was refused as too old (410 Expired); otherwise that
    /// is an error like any other.
    async fn pages<K>(
        &self,
        api: &Api<K>,
        params: ListParams,
        access: Access<'_>,
        expired_ok: bool,
        out: &mut Vec<K>,
        keep: &mut impl FnMut(&K) -> bool,
    ) -> Result<Option<Fetch<()>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut params = params;
        let what = list_label(access, &params);
        loop {
            let action = what.clone();
            let page: ObjectList<K> = match self.timed(&action, api.list(&params)).await? {
                Ok(p) => p,
                Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Some(Fetch::Missing)),
                Err(kube::Error::Api(s)) if s.code == 403 => {
                    self.record_denied(access.describe("list"));
                    return Ok(Some(Fetch::Denied));
                }
                Err(kube::Error::Api(s))
                    if s.code == 410 && expired_ok && params.continue_token.is_some() =>
                {
                    return Ok(None);
                }
                Err(e) => return Err(self.fail(&action, e)),
            };
            out.extend(page.items.into_iter().filter(|o| keep(o)));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => return Ok(Some(Fetch::Got(()))),
            }
        }
    }

    /// Names of objects (metadata only, paginated) matching `params`; `None` when not allowed or
    /// not answered (the caller is composing an error: nothing here may fail it further).
    pub(super) async fn names_matching<K>(
        &self,
        api: Api<K>,
        params: ListParams,
    ) -> Option<Vec<(String, String)>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let mut params = params.limit(PAGE);
        loop {
            let page = tokio::time::timeout(self.timeout, api.list_metadata(&params))
                .await
                .ok()?
                .ok()?;
            out.extend(page.items.iter().map(|m| {
                (
                    ns_of_meta(&m.metadata),
                    m.metadata.name.clone().unwrap_or_default(),
                )
            }));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(t) => params = params.continue_token(&t),
                None => return Some(out),
            }
        }
    }

    /// The VolumeAttachments of these PVs, from the watch cache (none asked: no request).
    pub(super) async fn attachments_of(
        &self,
        pvs: BTreeSet<String>,
    ) -> Result<Fetch<Vec<VolumeAttachment>>> {
        if pvs.is_empty() {
            return Ok(Fetch::Got(Vec::new()));
        }
        self.list_any(
            Api::<VolumeAttachment>::all(self.client.clone()),
            ListParams::default(),
            Access::group_cluster("volumeattachments", "storage.k8s.io"),
            move |va: &VolumeAttachment| {
                va.spec
                    .source
                    .persistent_volume_name
                    .as_ref()
                    .is_some_and(|p| pvs.contains(p))
            },
        )
        .await
    }

    /// Every object of a small cluster-scoped storage.k8s.io kind (CSIDrivers, StorageClasses),
    /// from the watch cache.
    pub(super) async fn list_all<K>(&self, resource: &'static str) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope>
            + Clone
            + DeserializeOwned
            + std::fmt::Debug,
        <K as kube::Resource>::DynamicType: Default,
    {
        self.list_any(
            Api::<K>::all(self.client.clone()),
            ListParams::default(),
            Access::group_cluster(resource, "storage.k8s.io"),
            |_| true,
        )
        .await
    }

    /// (namespace, name) of every object of a kind, read as metadata only (Secrets included).
    pub(super) async fn list_names<K>(
        &self,
        api: Api<K>,
        access: Access<'_>,
    ) -> Result<Fetch<Vec<(String, String)>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        // Metadata only, from the watch cache (as `list_cached`).
        let mut params = ListParams::default()
            .matching(kube::api::VersionMatch::NotOlderThan)
            .at("1")
            .limit(PAGE);
        loop {
            let action = format!("{} (metadata)", list_label(access, &params));
            let page = match self.timed(&action, api.list_metadata(&params)).await? {
                Ok(p) => p,
                Err(kube::Error::Api(s)) if s.code == 403 => {
                    self.record_denied(access.describe("list"));
                    return Ok(Fetch::Denied);
                }
                Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Fetch::Missing),
                Err(e) => return Err(self.fail(&action, e)),
            };
            out.extend(page.items.iter().map(|m| {
                (
                    ns_of_meta(&m.metadata),
                    m.metadata.name.clone().unwrap_or_default(),
                )
            }));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(t) => params = params.continue_token(&t),
                None => break,
            }
        }
        Ok(Fetch::Got(out))
    }
}
