//! Failures and refusals in volmnt's words: a refused read as the RBAC rule that would allow it
//! ([`Access::describe`]), and an error chain as the one line an operator searches for.

use crate::model::Denied;

/// What one refused read was: verb, resource, API group, scope.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    pub resource: &'a str,
    pub group: &'a str,
    pub namespace: Option<&'a str>,
}

impl<'a> Access<'a> {
    pub fn ns(resource: &'a str, namespace: &'a str) -> Self {
        Access {
            resource,
            group: "",
            namespace: Some(namespace),
        }
    }
    pub fn group_ns(resource: &'a str, group: &'a str, namespace: &'a str) -> Self {
        Access {
            resource,
            group,
            namespace: Some(namespace),
        }
    }
    pub fn cluster(resource: &'a str) -> Self {
        Access {
            resource,
            group: "",
            namespace: None,
        }
    }
    pub fn group_cluster(resource: &'a str, group: &'a str) -> Self {
        Access {
            resource,
            group,
            namespace: None,
        }
    }
    /// The refused read as the RBAC rule that would allow it. Secret existence is optional:
    /// its role (volmnt-secret-names) is separate because RBAC cannot grant metadata alone.
    pub fn describe(&self, verb: &str) -> Denied {
        let res = if self.group.is_empty() {
            self.resource.to_string()
        } else {
            format!("{}.{}", self.resource, self.group)
        };
        let mut d = Denied::new(verb, &res, self.namespace);
        d.optional = self.resource == "secrets" && self.group.is_empty();
        d
    }
}
/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
pub(super) fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match q.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A transport failure as one human line: what went wrong, in the words an operator searches
/// for, without the library's chain of wrappers (`ServiceError: client error (Connect): ...`).
pub(crate) fn network_cause(e: &dyn std::error::Error) -> String {
    let chain = root_cause(e);
    let lower = chain.to_ascii_lowercase();
    let innermost = chain
        .rsplit(": ")
        .next()
        .unwrap_or(&chain)
        .trim()
        .to_string();
    if lower.contains("connection refused") {
        "connection refused (nothing listens at that address and port, or a firewall rejects it)"
            .into()
    } else if lower.contains("dns error")
        || lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("no such host")
    {
        "the server's host name does not resolve (DNS)".into()
    } else if lower.contains("no route to host") || lower.contains("network is unreachable") {
        "no route to the server (network unreachable)".into()
    } else if lower.contains("connection reset") {
        "the connection was reset by the server or a proxy".into()
    } else if lower.contains("certificate")
        || lower.contains("invalid peer")
        || lower.contains("tls")
    {
        format!("TLS failed: {innermost} (check the kubeconfig's certificate-authority-data and server name)")
    } else {
        innermost
    }
}

/// The innermost message of an error chain: what actually went wrong.
pub(super) fn root_cause(e: &dyn std::error::Error) -> String {
    let mut msgs = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let m = s.to_string();
        if !msgs.iter().any(|x| x.contains(&m)) {
            msgs.push(m);
        }
        cur = s.source();
    }
    msgs.join(": ")
}
