//! What an operator pastes about the cluster: `kubectl get` tables (any header, aligned or
//! not, `kubectl get all`'s blocks), `No resources found`, and `kubectl logs` of a node plugin
//! (klog, JSON, plain text), read as a part after each kind of prompt.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::tables::parse_tables(text);
        for cmd in ["", "kubectl get pods -A -o wide", "kubectl get all -n x", "kubectl logs -n kube-system ds/x -c y"] {
            if let Some(p) = volmnt::parse::tables::recognise(cmd, text, "fuzz") {
                let mut case = volmnt::model::Case::default();
                let _ = p.add_to(&mut case);
                let _ = volmnt::model::cluster::node_plugins(&case);
            }
        }
        let _ = volmnt::parse::plugin_log::parse(text, 1);
    }
});
