//! The node probe's output (what every transport brings back), and the judgement of it.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::probe::parse_os_release(text);
        if let Ok(facts) = volmnt::parse::probe::parse(text) {
            let _ = volmnt::diagnose::node_check::analyze(&facts, &[], None);
        }
    }
});
