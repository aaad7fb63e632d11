//! Pure parsers for everything an operator can paste or save. No I/O here.

pub mod describe;
pub mod events;
pub mod klog;
pub mod mount_error;
pub mod mountinfo;
pub mod objects;
pub mod probe;
pub mod rbd;

/// Words that make a message a failure report even when no pattern names its cause.
pub static FAILURE_WORDS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)fail|error|denied|timed out|timeout|not found|locked|busy|cannot|unable|refused|no such|not ready|still being used|stale|exit status|invalid|not permitted|can't|couldn't")
        .expect("static regex")
});

pub fn looks_like_failure(text: &str) -> bool {
    FAILURE_WORDS.is_match(text)
}

/// The last non-empty line of a tool's stderr: its reason (`Connection refused`, `Permission
/// denied (publickey)`, `Host key verification failed.`).
pub fn last_line(s: &str) -> Option<&str> {
    s.lines().map(str::trim).rfind(|l| !l.is_empty())
}
