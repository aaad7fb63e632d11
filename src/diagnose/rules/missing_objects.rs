//! Objects the API said do not exist (404): a claim or a ConfigMap/Secret the pod mounts.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

pub fn apply(case: &Case, _hints: &Hints, accs: &mut Accs) {
    for m in &case.missing {
        let (Some(kind), Some(name)) = (m.kind.as_deref(), m.name.as_deref()) else {
            continue;
        };
        let ns = m.namespace.as_deref().unwrap_or("");
        let line = format!("{kind} {ns}/{name} does not exist (the API answered 404 Not Found)");
        match kind {
            "PersistentVolumeClaim" => {
                let a = accs.entry("pvc_unbound_or_missing", 0.95);
                a.origins.insert("objects");
                a.fact(line);
                a.vars.insert("pvc", name.to_string());
                a.headline = Some(format!("PersistentVolumeClaim {ns}/{name} does not exist"));
            }
            "ConfigMap" | "Secret" => {
                let a = accs.entry("configmap_or_secret_missing", 0.95);
                a.origins.insert("objects");
                a.fact(line);
                let k = kind.to_ascii_lowercase();
                a.vars.insert("object_title", kind.to_string());
                a.vars.insert("object", format!("{k} {name}"));
                a.vars.insert("object_kind", k);
                a.vars.insert("object_name", name.to_string());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectRef;

    #[test]
    fn a_missing_configmap_is_named() {
        let case = Case {
            missing: vec![ObjectRef {
                kind: Some("ConfigMap".into()),
                namespace: Some("logging".into()),
                name: Some("loki-stack-promtail".into()),
                uid: None,
            }],
            ..Case::default()
        };
        let mut accs = Accs::default();
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("configmap_or_secret_missing").unwrap();
        assert_eq!(a.vars["object_name"], "loki-stack-promtail");
        assert!(a.evidence[0]
            .text
            .contains("ConfigMap logging/loki-stack-promtail does not exist"));
    }
}
