//! SELinux's mode: `getenforce`, `sestatus`, /etc/selinux/config.

/// `getenforce` (`Enforcing`/`Permissive`/`Disabled`), `sestatus` (`SELinux status: enabled`,
/// `Current mode: enforcing`), /etc/selinux/config (`SELINUX=enforcing`).
pub fn parse_selinux(text: &str) -> Option<(String, &'static str)> {
    let mut status_disabled = false;
    for l in text.lines().map(str::trim) {
        match l {
            "Enforcing" | "Permissive" | "Disabled" => {
                return Some((l.to_ascii_lowercase(), "getenforce"))
            }
            _ => {}
        }
        if let Some(v) = l.strip_prefix("Current mode:") {
            return Some((v.trim().to_ascii_lowercase(), "sestatus"));
        }
        if let Some(v) = l.strip_prefix("SELinux status:") {
            status_disabled = v.trim() == "disabled";
        }
        if let Some(v) = l.strip_prefix("SELINUX=") {
            return Some((v.trim().to_ascii_lowercase(), "config"));
        }
    }
    status_disabled.then(|| ("disabled".to_string(), "sestatus"))
}

#[cfg(test)]
mod tests {
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn selinux_from_getenforce_and_sestatus() {
        let f = facts_of(fixture!("getenforce-sestatus.txt"));
        assert_eq!(f.selinux.as_deref(), Some("enforcing"));
        assert_eq!(f.selinux_source.as_deref(), Some("sestatus"));
    }
}
