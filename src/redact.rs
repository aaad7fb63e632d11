//! Keeps secrets out of everything volmnt prints: mount options such as `password=` or
//! `secret=`, Ceph keys, bearer tokens. Applied by the renderers to every quoted string, so no
//! code path can forget it.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// `key=value` options whose value is a secret (CIFS `password=`, CephFS `secret=`, CHAP
/// `node.session.auth.password = `, cloud `*_SECRET_ACCESS_KEY=`, ...).
static KEY_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        // Any option or variable whose name ends in one of these words (`password=`,
        // `AWS_SECRET_ACCESS_KEY=`, `node.session.auth.password = `, `azurestorageaccountkey: `),
        // with `=` (spaces allowed around it, as iscsiadm prints) or `:`.
        r"(?i)\b([\w.-]*?(?:password|passwd|pass|secret|key|token|credentials?))(\s*=\s*|:[ \t]*)([^\s,;'\x22]+)",
    )
    .expect("static regex")
});

/// A cephx key: base64 of 28 bytes with the `AQ` prefix (as in `ceph auth get-key`).
static CEPHX_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bAQ[A-Za-z0-9+/]{36}==").expect("static regex"));

/// `Bearer <token>` and `--token <t>` / `--token=<t>`.
static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\bbearer\s+|--token[= ]|--key[= ]|--password[= ])([^\s'\x22]+)")
        .expect("static regex")
});

/// AWS access key ids.
static AWS_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b").expect("static regex"));

pub const REDACTED: &str = "<redacted>";

/// Replace every secret in `text` with `<redacted>`; returns the input untouched when there is none.
/// What precedes `key:` when kubelet names a key of a ConfigMap or Secret a pod mounts
/// (pkg/volume/configmap, pkg/volume/secret, pkg/volume/projected: "configmap references
/// non-existent config key: %s", "secret references non-existent secret key: %s").
const KEY_NAME_CONTEXT: &[&str] = &[
    "non-existent config ",
    "non-existent secret ",
    "non-existent configmap ",
    "non-existent config map ",
];

pub fn redact(text: &str) -> Cow<'_, str> {
    // Fast path: nothing that could start a secret.
    let lower_hit = text.bytes().any(|b| b == b'=' || b == b':')
        || text.contains("AQ")
        || text.contains("AKIA")
        || text.contains("ASIA")
        || text.to_ascii_lowercase().contains("bearer");
    if !lower_hit {
        return Cow::Borrowed(text);
    }
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    if KEY_VALUE.is_match(&out) {
        let src: &str = &out;
        out = Cow::Owned(
            KEY_VALUE
                .replace_all(src, |c: &regex::Captures| {
                    let at = c.get(0).map_or(0, |m| m.start());
                    let before = src[..at].to_ascii_lowercase();
                    if c[3].starts_with('<')
                        || src[..at].ends_with('#')
                        || (c[1].eq_ignore_ascii_case("key")
                            && KEY_NAME_CONTEXT.iter().any(|p| before.ends_with(p)))
                    {
                        // already masked by the driver (`<masked>`); or a Go SDK method
                        // (`keyvault.BaseClient#GetSecret: Failure sending request`), whose
                        // name ends in "Secret" but is followed by an error, not a value; or
                        // kubelet naming the KEY a pod mounts (`references non-existent config
                        // key: tls.crt`): a key's name is not a secret, its value is
                        c[0].to_string()
                    } else {
                        format!("{}{}{}", &c[1], &c[2], REDACTED)
                    }
                })
                .into_owned(),
        );
    }
    for re in [&*CEPHX_KEY, &*AWS_KEY] {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, REDACTED).into_owned());
        }
    }
    if TOKEN.is_match(&out) {
        out = Cow::Owned(
            TOKEN
                .replace_all(&out, |c: &regex::Captures| format!("{}{}", &c[1], REDACTED))
                .into_owned(),
        );
    }
    out
}

/// Redact every string inside a JSON value (keys stay as they are, so the structure survives).
pub fn redact_value(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => {
            if let Cow::Owned(r) = redact(s) {
                *s = r;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(redact_value),
        serde_json::Value::Object(m) => m.values_mut().for_each(redact_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_option_secrets_are_removed() {
        let s = "mount -t cifs -o username=admin,password=hunter2,vers=3.0 //srv/share /mnt";
        assert_eq!(
            redact(s),
            "mount -t cifs -o username=admin,password=<redacted>,vers=3.0 //srv/share /mnt"
        );
        let ceph = "mount -t ceph 10.0.0.1:6789:/ /mnt -o name=admin,secret=AQBZ7YhcAAAAABAAx0sCjz2Trl2VELCMsxC5Hg==";
        let r = redact(ceph);
        assert!(!r.contains("AQBZ7"), "{r}");
        assert!(r.contains("secret=<redacted>"));
    }

    #[test]
    fn the_name_of_a_key_a_pod_mounts_is_kept_and_its_value_never() {
        let m = "MountVolume.SetUp failed for volume \"cfg\" : configmap references non-existent config key: app.properties";
        assert_eq!(redact(m), m);
        let m = "secret references non-existent secret key: password";
        assert_eq!(redact(m), m);
        assert_eq!(redact("key: s3cr3t"), "key: <redacted>");
        assert_eq!(redact("password: s3cr3t"), "password: <redacted>");
    }

    #[test]
    fn bare_keys_and_tokens_are_removed() {
        assert_eq!(
            redact("key AQBZ7YhcAAAAABAAx0sCjz2Trl2VELCMsxC5Hg== left"),
            "key <redacted> left"
        );
        assert_eq!(
            redact("Authorization: Bearer eyJhbGciOi.abc.def"),
            "Authorization: Bearer <redacted>"
        );
        assert_eq!(redact("id AKIAIOSFODNN7EXAMPLE"), "id <redacted>");
        assert_eq!(redact("rbd --key=abc map x"), "rbd --key=<redacted> map x");
    }

    #[test]
    fn yaml_structure_is_not_taken_for_a_secret() {
        let yaml = "volumes:\n- name: tls\n  secret:\n    secretName: web-tls\n";
        assert_eq!(redact(yaml), yaml);
        let mut v = serde_json::json!({"secret": {"secretName": "x"}, "opts": "password=hunter2"});
        redact_value(&mut v);
        assert_eq!(v["secret"]["secretName"], "x");
        assert_eq!(v["opts"], "password=<redacted>");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let s = "mount -t nfs 10.20.172.211:/nfs /var/lib/kubelet/pods/x";
        assert!(matches!(redact(s), Cow::Borrowed(_)) || redact(s) == s);
        assert_eq!(redact("dir_mode=0777,<masked>"), "dir_mode=0777,<masked>");
        assert_eq!(redact("password=<masked>"), "password=<masked>");
    }

    #[test]
    fn a_go_sdk_method_named_secret_is_no_secret() {
        // Secrets Store CSI driver's Azure provider (go-autorest error text): the method name
        // ends in "Secret", and what follows it is the error, which the diagnosis needs.
        let s = "keyvault.BaseClient#GetSecret: Failure sending request: StatusCode=0";
        assert_eq!(redact(s), s);
        // The same words as an assignment are still a secret.
        assert_eq!(
            redact("GetSecret: hunter2 clientSecret: s3cr3t"),
            "GetSecret: <redacted> clientSecret: <redacted>"
        );
    }
}
