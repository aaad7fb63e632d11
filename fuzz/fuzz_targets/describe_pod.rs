//! `kubectl describe pod` output.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::describe::looks_like_pod_describe(text);
        let _ = volmnt::parse::describe::parse_pod(text);
    }
});
