//! `volmnt explain MESSAGE`, end to end: classification, the report, its rendering.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let report = volmnt::diagnose::explain("fuzz", text, &volmnt::diagnose::Options::default());
        let _ = volmnt::render::render(&report, volmnt::render::Format::Json, volmnt::render::text::Style::plain());
        let _ = volmnt::render::render(&report, volmnt::render::Format::Text, volmnt::render::text::Style::plain());
    }
});
