//! `kubectl describe pvc` output.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::describe::looks_like_pvc_describe(text);
        let _ = volmnt::parse::describe::parse_pvc(text);
        let _ = volmnt::parse::describe::pvc_used_by(text);
    }
});
