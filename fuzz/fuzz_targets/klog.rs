//! Kubelet logs: klog lines, journal and syslog prefixes, continuation lines; the whole-text
//! parse, and the streaming scan `doctor -f` reads a log with (sniffed, split into windows
//! and parts, prefiltered by the volume words).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::klog::looks_like_klog(text);
        let _ = volmnt::parse::klog::parse_klog(text);
        for (i, line) in text.lines().take(8).enumerate() {
            let _ = volmnt::parse::klog::parse_klog_line(line, i);
        }
        let _ = volmnt::collect::offline::volume_entries(text);
    }
    let _ = volmnt::collect::offline::read_inputs("-", 1 << 20, &mut std::io::Cursor::new(data));
});
