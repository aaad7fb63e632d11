//! The kubeconfig as kubectl reads it.

use std::path::PathBuf;

use kube::config::Kubeconfig;

use super::errors::root_cause;
use crate::error::{Error, Result};

/// The kubeconfig as kubectl finds it: `--kubeconfig`, else every existing file listed in
/// KUBECONFIG merged in order (kubectl skips missing ones), else ~/.kube/config.
pub(super) fn load_kubeconfig(explicit: Option<&std::path::Path>) -> Result<Option<Kubeconfig>> {
    let read = |p: &std::path::Path| {
        Kubeconfig::read_from(p).map_err(|e| {
            Error::Unreachable(format!(
                "reading kubeconfig {}: {}",
                p.display(),
                root_cause(&e)
            ))
        })
    };
    if let Some(p) = explicit {
        // A path given on the command line that is not there is a usage error (exit 2).
        if !p.is_file() {
            return Err(Error::Usage(format!(
                "--kubeconfig {}: no such file",
                p.display()
            )));
        }
        return read(p).map(Some);
    }
    if let Some(list) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        let mut merged: Option<Kubeconfig> = None;
        for p in std::env::split_paths(&list).filter(|p| p.is_file()) {
            let kc = read(&p)?;
            merged = Some(match merged {
                Some(m) => m.merge(kc).map_err(|e| {
                    Error::Unreachable(format!("merging kubeconfig {}: {e}", p.display()))
                })?,
                None => kc,
            });
        }
        return Ok(merged);
    }
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/config"));
    match home.filter(|p| p.is_file()) {
        Some(p) => read(&p).map(Some),
        None => Ok(None),
    }
}

pub(super) fn config_error(context: &str, e: kube::config::KubeconfigError) -> Error {
    let msg = root_cause(&e);
    Error::Unreachable(format!("loading the kubeconfig for {context}: {msg}"))
}

/// The kubeconfig's context names (no network): `--kubeconfig`, else KUBECONFIG, else
/// ~/.kube/config, as kubectl reads them.
pub fn context_names(kubeconfig: Option<&std::path::Path>) -> Vec<String> {
    let kc = match kubeconfig {
        Some(p) => Kubeconfig::read_from(p),
        None => Kubeconfig::read(),
    };
    kc.map(|k| k.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default()
}

/// kubectl's connection flags (`--server`, `--token`, `--certificate-authority`,
/// `--client-certificate`, `--client-key`, `--insecure-skip-tls-verify`, `--cluster`, `--user`,
/// `--as`, `--as-group`), applied over the kubeconfig as kubectl's clientcmd applies its
/// ConfigOverrides (k8s.io/client-go/tools/clientcmd/client_config.go): the context's cluster
/// and user are picked (or replaced by `--cluster`/`--user`), then each flag given replaces the
/// matching field. `--server` works without any kubeconfig.
#[derive(Clone, Default, PartialEq)]
pub struct Overrides {
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub server: Option<String>,
    pub token: Option<String>,
    pub certificate_authority: Option<PathBuf>,
    pub client_certificate: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
}

impl std::fmt::Debug for Overrides {
    // The token never reaches a log or an error, even through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overrides")
            .field("cluster", &self.cluster)
            .field("user", &self.user)
            .field("server", &self.server)
            .field("token", &self.token.as_ref().map(|_| "(given)"))
            .field("certificate_authority", &self.certificate_authority)
            .field("client_certificate", &self.client_certificate)
            .field("client_key", &self.client_key)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .field("impersonate", &self.impersonate)
            .field("impersonate_groups", &self.impersonate_groups)
            .finish()
    }
}

impl Overrides {
    /// No flag given: the kubeconfig is used as it is.
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
}

/// The name the context, cluster and user made from the flags alone are given.
const FROM_FLAGS: &str = "volmnt-flags";

/// The kubeconfig with the flags applied (see [`Overrides`]). Files the flags name must exist
/// (a usage error otherwise, as a typo is). `None` in, `None` out unless `--server` is given.
pub(super) fn apply_overrides(
    kc: Option<Kubeconfig>,
    context: Option<&str>,
    o: &Overrides,
) -> Result<Option<Kubeconfig>> {
    use kube::config::{AuthInfo, Cluster, Context, NamedAuthInfo, NamedCluster, NamedContext};
    for (flag, path) in [
        ("--certificate-authority", &o.certificate_authority),
        ("--client-certificate", &o.client_certificate),
        ("--client-key", &o.client_key),
    ] {
        if let Some(p) = path.as_ref().filter(|p| !p.is_file()) {
            return Err(Error::Usage(format!(
                "{flag} {}: no such file",
                p.display()
            )));
        }
    }
    if o.is_empty() {
        return Ok(kc);
    }
    let mut kc = match (kc, &o.server) {
        (Some(kc), _) => kc,
        (None, Some(_)) => Kubeconfig::default(),
        (None, None) => return Ok(None),
    };
    // The context: the one asked for, else the current one, else (flags only) a new one.
    let ctx_name = context
        .map(str::to_string)
        .or_else(|| kc.current_context.clone().filter(|c| !c.is_empty()))
        .filter(|n| kc.contexts.iter().any(|c| &c.name == n))
        .unwrap_or_else(|| {
            kc.contexts.push(NamedContext {
                name: FROM_FLAGS.into(),
                context: Some(Context {
                    cluster: FROM_FLAGS.into(),
                    user: Some(FROM_FLAGS.into()),
                    ..Context::default()
                }),
                other: Default::default(),
            });
            FROM_FLAGS.to_string()
        });
    kc.current_context = Some(ctx_name.clone());
    let ctx = kc
        .contexts
        .iter_mut()
        .find(|c| c.name == ctx_name)
        .and_then(|c| c.context.as_mut())
        .expect("the context was found or made above");
    if let Some(c) = &o.cluster {
        ctx.cluster = c.clone();
    }
    if let Some(u) = &o.user {
        ctx.user = Some(u.clone());
    }
    // A context may name no user; the flags then need one of their own.
    if ctx.user.as_deref().is_none_or(str::is_empty) {
        ctx.user = Some(FROM_FLAGS.into());
    }
    let (cluster_name, user_name) = (ctx.cluster.clone(), ctx.user.clone().unwrap_or_default());
    if o.cluster.is_some() && !kc.clusters.iter().any(|c| c.name == cluster_name) {
        return Err(Error::Usage(format!(
            "--cluster {cluster_name}: no such cluster in the kubeconfig (it has: {})",
            names_or_none(kc.clusters.iter().map(|c| c.name.as_str()))
        )));
    }
    if o.user.is_some() && !kc.auth_infos.iter().any(|u| u.name == user_name) {
        return Err(Error::Usage(format!(
            "--user {user_name}: no such user in the kubeconfig (it has: {})",
            names_or_none(kc.auth_infos.iter().map(|u| u.name.as_str()))
        )));
    }
    if !kc.clusters.iter().any(|c| c.name == cluster_name) {
        kc.clusters.push(NamedCluster {
            name: cluster_name.clone(),
            cluster: Some(Cluster::default()),
            other: Default::default(),
        });
    }
    if !kc.auth_infos.iter().any(|u| u.name == user_name) {
        kc.auth_infos.push(NamedAuthInfo {
            name: user_name.clone(),
            auth_info: Some(AuthInfo::default()),
            other: Default::default(),
        });
    }
    let cluster = kc
        .clusters
        .iter_mut()
        .find(|c| c.name == cluster_name)
        .expect("present")
        .cluster
        .get_or_insert_with(Cluster::default);
    if let Some(s) = &o.server {
        cluster.server = Some(s.clone());
    }
    if let Some(ca) = &o.certificate_authority {
        cluster.certificate_authority = Some(ca.display().to_string());
        cluster.certificate_authority_data = None;
    }
    if o.insecure_skip_tls_verify {
        cluster.insecure_skip_tls_verify = Some(true);
        // clientcmd: --insecure-skip-tls-verify without a CA of its own clears the file's CA.
        if o.certificate_authority.is_none() {
            cluster.certificate_authority = None;
            cluster.certificate_authority_data = None;
        }
    }
    let user = kc
        .auth_infos
        .iter_mut()
        .find(|u| u.name == user_name)
        .expect("present")
        .auth_info
        .get_or_insert_with(AuthInfo::default);
    if let Some(t) = &o.token {
        // A token given on the command line is the credential: nothing else in the file is
        // tried first (an exec plugin, a token file, basic auth).
        user.token = Some(t.clone().into());
        user.token_file = None;
        user.exec = None;
        user.auth_provider = None;
        user.username = None;
        user.password = None;
    }
    if let Some(c) = &o.client_certificate {
        user.client_certificate = Some(c.display().to_string());
        user.client_certificate_data = None;
    }
    if let Some(k) = &o.client_key {
        user.client_key = Some(k.display().to_string());
        user.client_key_data = None;
    }
    if let Some(a) = &o.impersonate {
        user.impersonate = Some(a.clone());
    }
    if !o.impersonate_groups.is_empty() {
        user.impersonate_groups = Some(o.impersonate_groups.clone());
    }
    Ok(Some(kc))
}

fn names_or_none<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kc() -> Kubeconfig {
        Kubeconfig::from_yaml(
            "apiVersion: v1\nkind: Config\ncurrent-context: a\n\
             clusters:\n- name: c1\n  cluster:\n    server: https://one:6443\n    certificate-authority-data: QUJD\n\
             - name: c2\n  cluster:\n    server: https://two:6443\n\
             contexts:\n- name: a\n  context:\n    cluster: c1\n    user: u1\n    namespace: shop\n\
             users:\n- name: u1\n  user:\n    token: file-token\n- name: u2\n  user:\n    token: other\n",
        )
        .unwrap()
    }

    fn cluster_of<'a>(k: &'a Kubeconfig, name: &str) -> &'a kube::config::Cluster {
        k.clusters
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .cluster
            .as_ref()
            .unwrap()
    }

    #[test]
    fn flags_replace_what_the_context_says() {
        let o = Overrides {
            server: Some("https://elsewhere:6443".into()),
            token: Some("flag-token".into()),
            insecure_skip_tls_verify: true,
            impersonate: Some("lowpriv".into()),
            ..Overrides::default()
        };
        let k = apply_overrides(Some(kc()), None, &o).unwrap().unwrap();
        let c = cluster_of(&k, "c1");
        assert_eq!(c.server.as_deref(), Some("https://elsewhere:6443"));
        assert_eq!(c.insecure_skip_tls_verify, Some(true));
        assert!(
            c.certificate_authority_data.is_none(),
            "insecure drops the file's CA"
        );
        let u = k.auth_infos.iter().find(|u| u.name == "u1").unwrap();
        let u = u.auth_info.as_ref().unwrap();
        // (secrecy's SecretString: its Debug never shows the value.)
        assert!(u.token.is_some() && u.exec.is_none() && u.token_file.is_none());
        assert!(!format!("{:?}", u.token).contains("file-token"));
        assert_eq!(u.impersonate.as_deref(), Some("lowpriv"));
        // The token never shows in a debug print.
        assert!(!format!("{o:?}").contains("flag-token"));
    }

    #[test]
    fn cluster_and_user_pick_other_entries() {
        let o = Overrides {
            cluster: Some("c2".into()),
            user: Some("u2".into()),
            ..Overrides::default()
        };
        let k = apply_overrides(Some(kc()), None, &o).unwrap().unwrap();
        let ctx = k.contexts[0].context.as_ref().unwrap();
        assert_eq!(
            (ctx.cluster.as_str(), ctx.user.as_deref()),
            ("c2", Some("u2"))
        );
        assert_eq!(ctx.namespace.as_deref(), Some("shop"));
        let bad = Overrides {
            cluster: Some("c3".into()),
            ..Overrides::default()
        };
        let e = apply_overrides(Some(kc()), None, &bad).unwrap_err();
        assert!(e.to_string().contains("it has: c1, c2"), "{e}");
    }

    #[test]
    fn server_alone_needs_no_kubeconfig() {
        let o = Overrides {
            server: Some("https://127.0.0.1:6443".into()),
            token: Some("t".into()),
            ..Overrides::default()
        };
        let k = apply_overrides(None, None, &o).unwrap().unwrap();
        assert_eq!(k.current_context.as_deref(), Some(FROM_FLAGS));
        assert_eq!(
            cluster_of(&k, FROM_FLAGS).server.as_deref(),
            Some("https://127.0.0.1:6443")
        );
        assert!(apply_overrides(None, None, &Overrides::default())
            .unwrap()
            .is_none());
    }
}
