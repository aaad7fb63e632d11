//! `volmnt doctor pod --offline -f -`, end to end, the way the binary reads it: the size limit,
//! the sniffing of the first 64 KiB, the UTF-8 check, a log streamed in windows or any other
//! input parsed whole, then the diagnosis and its text and JSON renderings.
#![no_main]
use volmnt::collect::offline::{add_source, read_input};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut input = std::io::Cursor::new(data);
    let Ok(src) = read_input("-", 1 << 20, &mut input) else {
        return;
    };
    let mut case = volmnt::model::Case::default();
    if add_source(&mut case, &src).is_ok() {
        let report = volmnt::diagnose::diagnose(&case, &volmnt::diagnose::Options::default());
        let _ = volmnt::render::render(
            &report,
            volmnt::render::Format::Text,
            volmnt::render::text::Style::plain(),
        );
        let _ = volmnt::render::render(
            &report,
            volmnt::render::Format::Json,
            volmnt::render::text::Style::plain(),
        );
    }
});
