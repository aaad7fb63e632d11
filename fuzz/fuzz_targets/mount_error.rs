//! The structure of a mount failure (operation, volume, mount command, options, output).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::mount_error::parse(text);
        let _ = volmnt::parse::mount_error::unescape(text);
    }
});
