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
