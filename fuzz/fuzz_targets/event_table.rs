//! Event tables (`kubectl get events`, a describe's Events section) and single event rows.
#![no_main]
use volmnt::model::Origin;
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::events::looks_like_event_table(text);
        let _ = volmnt::parse::events::parse_event_table(text, Origin::EventTable);
        let _ = volmnt::parse::events::parse_event_table(text, Origin::Describe);
        if let Some(line) = text.lines().next() {
            let _ = volmnt::parse::events::parse_event_row(line, Origin::EventTable);
        }
    }
});
