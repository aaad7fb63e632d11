//! `volmnt doctor pod --offline -f FILE`, end to end: format sniffing, parsing, the diagnosis
//! and its rendering, on one input file.
#![no_main]
use volmnt::collect::offline::{add_source, Source};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut case = volmnt::model::Case::default();
    let src = Source { label: "fuzz".into(), text, log: None };
    if add_source(&mut case, &src).is_ok() {
        let report = volmnt::diagnose::diagnose(&case, &volmnt::diagnose::Options::default());
        let _ = volmnt::render::render(&report, volmnt::render::Format::Text, volmnt::render::text::Style::plain());
    }
});
