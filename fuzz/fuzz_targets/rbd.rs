//! `rbd lock ls`, `rbd status`, `ceph osd blocklist ls`, `ceph versions`, image specs.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::rbd::parse_lock_list(text);
        let _ = volmnt::parse::rbd::parse_status(text);
        let _ = volmnt::parse::rbd::parse_blocklist(text);
        let _ = volmnt::parse::rbd::parse_ceph_release(text);
        let _ = volmnt::parse::rbd::parse_image_spec(text);
    }
});
