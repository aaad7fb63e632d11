//! Saved objects: `kubectl get -o yaml|json`, lists, several documents.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::objects::looks_like_objects(text);
        let _ = volmnt::parse::objects::parse_objects(text);
    }
});
