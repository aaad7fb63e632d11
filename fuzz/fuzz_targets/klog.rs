//! Kubelet logs: klog lines, journal and syslog prefixes, continuation lines.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = volmnt::parse::klog::looks_like_klog(text);
        let _ = volmnt::parse::klog::parse_klog(text);
        for (i, line) in text.lines().take(8).enumerate() {
            let _ = volmnt::parse::klog::parse_klog_line(line, i);
        }
    }
});
