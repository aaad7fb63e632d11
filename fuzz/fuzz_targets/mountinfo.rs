//! /proc/*/mountinfo and `mount` output.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::mountinfo::parse_mountinfo(text);
        let _ = volmnt::parse::mountinfo::parse_any(text);
    }
});
