//! Text every stage of the diagnosis reads or writes the same way: messages with their
//! whitespace collapsed, quotes clipped, and ages as kubectl prints them.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Collapse whitespace runs so tidy, wrapped and flattened copies of a message look the same.
pub fn normalize(text: &str) -> Cow<'_, str> {
    if !needs_normalizing(text.as_bytes()) {
        return Cow::Borrowed(text.trim());
    }
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    Cow::Owned(out)
}

/// A line break or tab, or two ASCII whitespace bytes in a row: found with SIMD searches,
/// since every message is asked (`\n`, `\t` and `\r` are searched at once; what else can make
/// a pair is a space or a form feed, and without a form feed only two spaces).
fn needs_normalizing(b: &[u8]) -> bool {
    if memchr::memchr3(b'\n', b'\t', b'\r', b).is_some() {
        return true;
    }
    if memchr::memchr(0x0c, b).is_some() {
        return b
            .windows(2)
            .any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace());
    }
    memchr::memmem::find(b, b"  ").is_some()
}

/// An age as kubectl prints it (`45s`, `8m49s`, `5h12m`, `2d3h`, `3y`; a describe's
/// `3s (x4 over 9s)` counts by its first part) in seconds; `None` for `<unknown>` or a time.
pub fn age_secs(age: &str) -> Option<i64> {
    let first = age.split_whitespace().next()?;
    if first.is_empty() || !first.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let mut total: i64 = 0;
    let mut num: i64 = 0;
    let mut any = false;
    for c in first.chars() {
        if let Some(d) = c.to_digit(10) {
            num = num.checked_mul(10)?.checked_add(d as i64)?;
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        total = total.checked_add(num.checked_mul(unit)?)?;
        num = 0;
        any = true;
    }
    (any && num == 0).then_some(total)
}

/// A duration as kubectl prints ages (k8s.io/apimachinery/pkg/util/duration HumanDuration):
/// `45s`, `8m45s`, `18m`, `5h12m`, `2d3h`.
pub fn human_age(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let s = secs.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let minutes = s / 60;
    if minutes < 10 {
        return match s % 60 {
            0 => format!("{minutes}m"),
            r => format!("{minutes}m{r}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = s / 3600;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    format!("{}y", hours / 24 / 365)
}

/// Shorten a quote to `max` bytes at a char boundary.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Where a message names a kernel module, by the grammar of the program that prints it: kmod's
/// `modprobe: FATAL: Module %s not found` and `could not insert '%s': %s` (tools/modprobe.c),
/// ceph-csi's `an error (...) occurred while running modprobe args: [%s]`, the rbd CLI's
/// `failed to load rbd kernel module`, libfuse's `try 'modprobe fuse' first`. A bare word after
/// `modprobe` (`modprobe failed`, mount(8)'s `maybe "modprobe driver" is necessary`) is no name.
static KERNEL_MODULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Module ([A-Za-z0-9_-]+) not found|could not insert '([A-Za-z0-9_-]+)'|modprobe\b[^\[\]\n]{0,80}?\bargs: \[([A-Za-z0-9_-]+)\]|failed to load (?:the )?([a-z0-9_]+) (?:kernel )?module|'modprobe ([a-z0-9_-]+)'")
        .expect("static regex")
});

/// The kernel module a message names, read only where its grammar puts a module name (see
/// [`KERNEL_MODULE`]); the name itself must be one a kernel module can have (MODULE_NAME_LEN:
/// under 56 characters of letters, digits, `_` and `-`, not a number).
pub fn kernel_module_in(text: &str) -> Option<String> {
    KERNEL_MODULE.captures_iter(text).find_map(|c| {
        let m = (1..=5).find_map(|i| c.get(i))?.as_str();
        let plain = !m.is_empty()
            && m.len() < 56
            && m.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
            && !m.chars().all(|ch| ch.is_ascii_digit());
        plain.then(|| m.replace('-', "_").to_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_normalizing_is_the_byte_pair_test() {
        let slow = |b: &[u8]| {
            b.windows(2)
                .any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace())
                || b.iter().any(|c| *c == b'\n' || *c == b'\t' || *c == b'\r')
        };
        let alphabet = [
            b' ', b'\n', b'\t', b'\r', 0x0c, 0x0b, b'a', b'-', 0xc2, 0xa0,
        ];
        let mut seed = 0xda94_2042_e4dd_58b5u64;
        for len in 0..40 {
            for _ in 0..500 {
                let t: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % alphabet.len() as u64) as usize]
                    })
                    .collect();
                assert_eq!(needs_normalizing(&t), slow(&t), "{t:?}");
            }
        }
    }

    #[test]
    fn normalize_makes_wrapped_and_flat_text_equal() {
        assert_eq!(normalize("a,\n       b\n\n c"), "a, b c");
        assert!(matches!(normalize("a b"), Cow::Borrowed(_)));
    }

    #[test]
    fn ages_read_like_kubectl() {
        // k8s.io/apimachinery/pkg/util/duration HumanDuration.
        for (secs, want) in [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (525, "8m45s"),
            (600, "10m"),
            (1080, "18m"),
            (3 * 3600 + 120, "3h2m"),
            (8 * 3600, "8h"),
            (50 * 3600, "2d2h"),
            (10 * 86400, "10d"),
            (3 * 365 * 86400, "3y"),
        ] {
            assert_eq!(human_age(secs), want, "{secs}");
        }
    }

    #[test]
    fn a_module_name_comes_only_from_where_the_grammar_puts_one() {
        for (text, want) in [
            (
                "modprobe: FATAL: Module rbd not found in directory /lib/modules/5.4.0",
                Some("rbd"),
            ),
            (
                "modprobe: ERROR: could not insert 'rbd': Exec format error",
                Some("rbd"),
            ),
            (
                "an error (exit status 1) occurred while running modprobe args: [ceph]",
                Some("ceph"),
            ),
            ("rbd: failed to load rbd kernel module (1)", Some("rbd")),
            (
                "fuse: device not found, try 'modprobe fuse' first",
                Some("fuse"),
            ),
            ("modprobe failed (exit status 1) args: [rbd]", Some("rbd")),
            ("modprobe failed: exit status 1", None),
            ("maybe \"modprobe driver\" is necessary", None),
            (
                "iscsiadm: Could not insert module. Module iscsi-tcp not found",
                Some("iscsi_tcp"),
            ),
        ] {
            assert_eq!(kernel_module_in(text).as_deref(), want, "{text}");
        }
    }
}
