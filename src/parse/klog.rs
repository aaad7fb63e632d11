//! Kubelet (and CSI sidecar) log lines in klog format, plain or behind a prefix:
//!
//! ```text
//! E0216 13:59:27.394013 1159 rbd.go:228] rbd: failed to setup mount ...
//! Jun 21 19:53:53 ip-172-23-5-42 kubelet-wrapper[2480]: E0621 19:53:53.454342    2480 x.go:259] ...
//! 2024-09-24T13:56:09+0000 w01 kubelet[123]: E0924 13:56:09.654609   13921 y.go:348] ...
//! 2025-01-07T15:15:38.371047123Z stderr F I0107 15:15:38.371047       1 csi_handler.go:243] ...
//! ```
//!
//! Speed matters (logs of 100 MB and more): the klog header is checked byte by byte, and the
//! prefix regex only runs on lines whose first bytes could start a syslog or ISO timestamp.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::LogLine;

/// Longest message kept for one entry (header line plus continuation lines), in bytes. A
/// kubelet entry with a mount's output is a few KiB; the cap keeps a runaway multi-line dump
/// (a stack trace, a binary blob) from holding the whole log in one message.
const MAX_MESSAGE: usize = 64 * 1024;
/// Appended once to a message that hit [`MAX_MESSAGE`].
const TRUNCATED: &str = "\n… (truncated)";
/// How many non-empty lines [`looks_like_klog`] samples.
const SAMPLE_LINES: usize = 20;

/// True when a klog header starts one of the first non-empty lines and most of them are log
/// lines or continuations of one.
pub fn looks_like_klog(text: &str) -> bool {
    let sample: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_LINES)
        .collect();
    let Some(first) = sample.iter().position(|l| parse_klog_line(l, 0).is_some()) else {
        return false;
    };
    // Lines after the first entry count as its continuations; before it, only lines of the
    // same journal/syslog stream count (other daemons' lines, a pasted prompt do not).
    let strangers = sample[..first]
        .iter()
        .filter(|l| log_prefix(l).is_none() && kubectl_prefix(l).is_none())
        .count();
    strangers * 2 <= sample.len()
}

/// One line with a klog header (plain or behind a journal/syslog/CRI prefix), else `None`.
pub fn parse_klog_line(line: &str, line_no: usize) -> Option<LogLine> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    match classify(line) {
        Kind::Entry(h, prefix) => Some(h.into_log_line(line_no, prefix.and_then(|p| p.host))),
        _ => None,
    }
}

/// Every entry of a klog log, continuation lines joined to their entry's message with `\n`.
pub fn parse_klog(text: &str) -> Vec<LogLine> {
    parse_klog_with(text, |_| true)
}

/// Like [`parse_klog`], keeping only the entries `keep` accepts; it sees each entry once,
/// complete with its continuation lines, so a huge log never has to be held as entries.
pub fn parse_klog_with(text: &str, keep: impl FnMut(&LogLine) -> bool) -> Vec<LogLine> {
    parse_klog_prefiltered(text, |_| true, keep)
}

/// Like [`parse_klog_with`], but an entry whose first line's message `worth` rejects is skipped
/// with its continuation lines before anything is allocated for it: on a big log, most entries
/// cost one header check.
pub fn parse_klog_prefiltered<'a>(
    text: &'a str,
    worth: impl Fn(&'a str) -> bool,
    mut keep: impl FnMut(&LogLine) -> bool,
) -> Vec<LogLine> {
    let mut out = Vec::new();
    // The strings of the last entry not kept, reused by the next one: most entries of a big
    // log are read and dropped, and need no allocation then.
    let mut spare = LogLine::default();
    let mut current: Option<Entry<'a>> = None;
    // Inside an entry that was skipped: its continuation lines are skipped too.
    let mut skipping: Option<Option<Prefix<'a>>> = None;
    for (idx, raw) in split_lines(text).enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let kind = classify(line);
        if let Some(stream) = &skipping {
            match &kind {
                Kind::Entry(..) => skipping = None,
                Kind::PrefixedText(p, _)
                    if stream.is_some_and(|s| s.host == p.host && s.ident == p.ident) =>
                {
                    continue
                }
                Kind::PrefixedText(..) => {
                    skipping = None;
                    continue;
                }
                Kind::Plain => continue,
            }
        }
        match kind {
            Kind::Entry(h, prefix) => {
                finish(current.take(), &mut out, &mut keep, &mut spare);
                if !worth(h.message) {
                    skipping = Some(prefix);
                    continue;
                }
                current = Some(Entry::new(h, prefix, idx + 1, std::mem::take(&mut spare)));
            }
            Kind::PrefixedText(prefix, rest) => {
                // journald prefixes every line of a multi-line message; a line of the same
                // stream continues the entry, any other program's line ends it.
                match current.as_mut() {
                    Some(e) if e.same_stream(&prefix) => e.append(rest),
                    // `kubectl logs --timestamps` stamps every line, continuations too, and a
                    // continuation can read like a syslog `host ident: ` behind the stamp
                    // ("Mounting command: mount", "Output: mount.nfs: ..."): after an entry
                    // stamped alone, a stamped line that starts no entry continues it.
                    Some(e) if e.stamped_alone() => match after_stamp(line) {
                        Some(text) => e.append(text),
                        None => finish(current.take(), &mut out, &mut keep, &mut spare),
                    },
                    _ => finish(current.take(), &mut out, &mut keep, &mut spare),
                }
            }
            Kind::Plain => match current.as_mut() {
                // `-- Boot 3f2a... --`, `-- Logs begin at ...`: journalctl's own markers.
                Some(e) if e.stream.is_some() && line.starts_with("-- ") => {
                    finish(current.take(), &mut out, &mut keep, &mut spare)
                }
                Some(e) => e.append(line),
                None => {}
            },
        }
    }
    finish(current, &mut out, &mut keep, &mut spare);
    out
}

/// `text.split('\n')`, with the SIMD search of the memchr crate (`str::split` searches a byte
/// at a time, and every line of a big log is split off).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match memchr::memchr(b'\n', t.as_bytes()) {
            Some(i) => {
                rest = Some(&t[i + 1..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                Some(t)
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// One line

/// The fields of a klog header, borrowed from the line.
struct Header<'a> {
    severity: char,
    timestamp: &'a str,
    pid: Option<u32>,
    location: &'a str,
    message: &'a str,
}

impl Header<'_> {
    fn into_log_line(self, line_no: usize, host: Option<&str>) -> LogLine {
        let mut l = LogLine::default();
        self.fill(line_no, host, &mut l);
        l
    }

    /// Overwrite every field of `l`, reusing its strings' memory.
    fn fill(self, line_no: usize, host: Option<&str>, l: &mut LogLine) {
        fn set(to: &mut Option<String>, from: Option<&str>) {
            match (to.as_mut(), from) {
                (Some(s), Some(f)) => {
                    s.clear();
                    s.push_str(f);
                }
                (_, f) => *to = f.map(str::to_string),
            }
        }
        l.line_no = line_no;
        l.severity = Some(self.severity);
        set(&mut l.timestamp, Some(self.timestamp));
        l.pid = self.pid;
        set(&mut l.location, Some(self.location));
        set(&mut l.host, host);
        l.message.clear();
        l.message.push_str(capped(self.message));
    }
}

/// What comes before the klog header on a journal/syslog/CRI line.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Prefix<'a> {
    host: Option<&'a str>,
    /// `kubelet[1159]`, or the stream name of a CRI log line.
    ident: Option<&'a str>,
}

enum Kind<'a> {
    /// A klog header, with the prefix it stood behind, if any.
    Entry(Header<'a>, Option<Prefix<'a>>),
    /// A prefixed line whose text is not a klog header (a continuation, or another program).
    PrefixedText(Prefix<'a>, &'a str),
    /// Anything else: a continuation of the entry before it, when there is one.
    Plain,
}

fn classify(line: &str) -> Kind<'_> {
    if let Some(h) = header(line) {
        return Kind::Entry(h, None);
    }
    // A klog-looking text further into a line counts only right behind a known prefix: a
    // message quoting another log line must not split the entry.
    match log_prefix(line).or_else(|| kubectl_prefix(line)) {
        Some((prefix, rest)) => match header(rest) {
            Some(h) => Kind::Entry(h, Some(prefix)),
            None => Kind::PrefixedText(prefix, rest),
        },
        None => match viewer_prefix(line).and_then(header) {
            Some(h) => Kind::Entry(h, None),
            None => Kind::Plain,
        },
    }
}

/// `kubectl logs --prefix` (with `--all-containers` or a selector): `[pod/NAME/CONTAINER] `
/// before every line (kubectl's logs.go prefixes `[<kind>/<name>/<container>] `): the
/// `pod/NAME/CONTAINER` and the line after it.
pub(crate) fn kubectl_logs_prefix(line: &str) -> Option<(&str, &str)> {
    let inner = line.strip_prefix("[pod/")?;
    let end = inner.get(..inner.len().min(300))?.find("] ")?;
    let head = &line[1..end + 5];
    (inner[..end].matches('/').count() == 1 && !head.contains(char::is_whitespace))
        .then(|| (head, &line[end + 7..]))
}

/// The container is the stream: a line of another container ends an entry.
fn kubectl_prefix(line: &str) -> Option<(Prefix<'_>, &str)> {
    kubectl_logs_prefix(line).map(|(head, rest)| {
        (
            Prefix {
                host: None,
                ident: Some(head),
            },
            rest,
        )
    })
}

/// The line after a log viewer's own time column (`Thu, Apr 6 2023 2:38:39 pm | I0406 ...`, as
/// Lens and the OpenShift console copy a log): a short head with a digit and a colon, then ` | `.
fn viewer_prefix(line: &str) -> Option<&str> {
    let head_end = line.get(..line.len().min(48))?.find(" | ")?;
    let head = &line[..head_end];
    (head.bytes().any(|c| c.is_ascii_digit()) && head.contains(':') && !head.contains('{'))
        .then(|| &line[head_end + 3..])
}

/// Parses `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` at the start of `line`, by bytes.
/// The padding before the thread id may be collapsed to one space (pasted logs).
fn header(line: &str) -> Option<Header<'_>> {
    let b = line.as_bytes();
    let severity = match b.first()? {
        b'I' => 'I',
        b'W' => 'W',
        b'E' => 'E',
        b'F' => 'F',
        _ => return None,
    };
    let fixed = b.get(..15)?;
    let digits = |r: std::ops::Range<usize>| fixed[r].iter().all(u8::is_ascii_digit);
    let fixed_ok = digits(1..5)
        && fixed[5] == b' '
        && digits(6..8)
        && fixed[8] == b':'
        && digits(9..11)
        && fixed[11] == b':'
        && digits(12..14)
        && fixed[14] == b'.';
    if !fixed_ok {
        return None;
    }
    let ts_end = skip_while(b, 15, |c| c.is_ascii_digit());
    let pid_start = skip_while(b, ts_end, |c| c == b' ');
    let pid_end = skip_while(b, pid_start, |c| c.is_ascii_digit());
    if ts_end == 15 || pid_start == ts_end || pid_end == pid_start || b.get(pid_end) != Some(&b' ')
    {
        return None;
    }
    let loc_start = pid_end + 1;
    let loc_end = skip_while(b, loc_start, |c| c != b']' && c != b' ');
    if b.get(loc_end) != Some(&b']') || !is_location(&b[loc_start..loc_end]) {
        return None;
    }
    let msg_start = if b.get(loc_end + 1) == Some(&b' ') {
        loc_end + 2
    } else {
        loc_end + 1
    };
    // All indices sit next to ASCII bytes, so every slice below is on a char boundary.
    Some(Header {
        severity,
        timestamp: line.get(1..ts_end)?,
        pid: line.get(pid_start..pid_end)?.parse().ok(),
        location: line.get(loc_start..loc_end)?,
        message: line.get(msg_start..)?,
    })
}

/// The first index from `i` on whose byte `pred` rejects (or the length).
fn skip_while(b: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && pred(b[i]) {
        i += 1;
    }
    i
}

/// `file.go:123`: a name, a colon, digits.
fn is_location(b: &[u8]) -> bool {
    match b.iter().rposition(|c| *c == b':') {
        Some(colon) => {
            colon > 0 && colon + 1 < b.len() && b[colon + 1..].iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// syslog / `journalctl` (short, short-precise, short-iso) prefix with host and identifier, or
/// a CRI log file / `kubectl logs --timestamps` prefix without them.
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^
        (?:
            (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\ +\d{1,2}\ \d{2}:\d{2}:\d{2}(?:\.\d+)?
            \ +\S+\ +[^\s:\[]+(?:\[\d+\])?:\ 
          | \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?
            (?:
                \ +\S+\ +[^\s:\[]+(?:\[\d+\])?:\ 
              | \ +(?:stdout|stderr)\ [FP]\ 
              | \ 
            )
        )",
    )
    .expect("log prefix regex")
});

/// The prefix of a journal/syslog/CRI line and the text after it.
fn log_prefix(line: &str) -> Option<(Prefix<'_>, &str)> {
    let b = line.as_bytes();
    // Cheap gate: a month name (`Jun 21 ...`) or a year (`2024-09-24T...`) first.
    let maybe = match b.first()? {
        b'A'..=b'S' => b.get(3) == Some(&b' '),
        b'0'..=b'9' => b.get(4) == Some(&b'-'),
        _ => false,
    };
    if !maybe {
        return None;
    }
    // `find` runs on the DFA and is several times faster than capture groups; the parts are
    // then picked out of the short matched prefix by hand.
    let end = PREFIX.find(line)?.end();
    let matched = line.get(..end)?;
    let prefix = if let Some(head) = matched.strip_suffix(": ") {
        // `<time> host ident[pid]: `
        let mut words = head.split_whitespace().rev();
        let ident = words.next();
        Prefix {
            host: words.next(),
            ident,
        }
    } else {
        // `<time> stderr F ` (CRI log file) or `<time> ` (`kubectl logs --timestamps`)
        let mut words = matched.split_whitespace().rev();
        let stream = words.nth(1).filter(|w| matches!(*w, "stdout" | "stderr"));
        Prefix {
            host: None,
            ident: stream,
        }
    };
    Some((prefix, line.get(end..)?))
}

/// The text behind an RFC 3339 stamp in UTC (`2026-11-20T10:30:00.123456789Z `), as `kubectl
/// logs --timestamps` writes it before every line.
pub(crate) fn after_stamp(line: &str) -> Option<&str> {
    let (head, rest) = line.split_once(' ')?;
    let b = head.as_bytes();
    let stamp = b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && head.ends_with('Z')
        && b[..4].iter().all(u8::is_ascii_digit);
    stamp.then_some(rest)
}

// ---------------------------------------------------------------------------------------------
// Entries across lines

/// The entry being read, until the next header ends it.
struct Entry<'a> {
    line: LogLine,
    /// Host and identifier of its prefix, to tell its own continuation lines from others'.
    stream: Option<Prefix<'a>>,
    truncated: bool,
}

impl<'a> Entry<'a> {
    /// The entry a header starts, written into `line` (a spare one whose memory is reused).
    fn new(h: Header<'a>, prefix: Option<Prefix<'a>>, line_no: usize, mut line: LogLine) -> Self {
        let truncated = h.message.len() > MAX_MESSAGE;
        h.fill(line_no, prefix.and_then(|p| p.host), &mut line);
        Entry {
            line,
            stream: prefix,
            truncated,
        }
    }

    /// Its prefix was a timestamp alone (`kubectl logs --timestamps`).
    fn stamped_alone(&self) -> bool {
        self.stream
            .is_some_and(|s| s.host.is_none() && s.ident.is_none())
    }

    fn same_stream(&self, prefix: &Prefix<'_>) -> bool {
        self.stream
            .is_some_and(|s| s.host == prefix.host && s.ident == prefix.ident)
    }

    fn append(&mut self, text: &str) {
        if self.truncated {
            return;
        }
        let msg = &mut self.line.message;
        if msg.len() + 1 + text.len() > MAX_MESSAGE {
            self.truncated = true;
            return;
        }
        msg.push('\n');
        msg.push_str(text);
    }
}

/// End an entry: `keep` decides whether it goes to `out`; one it drops becomes the `spare`.
fn finish(
    entry: Option<Entry<'_>>,
    out: &mut Vec<LogLine>,
    keep: &mut impl FnMut(&LogLine) -> bool,
    spare: &mut LogLine,
) {
    let Some(mut e) = entry else { return };
    // Blank lines between entries belong to neither.
    let kept_len = e.line.message.trim_end_matches(['\n', ' ', '\t']).len();
    e.line.message.truncate(kept_len);
    if e.truncated {
        e.line.message.push_str(TRUNCATED);
    }
    if keep(&e.line) {
        // A copy: the strings of a reused line can be much bigger than their text.
        out.push(e.line.clone());
    }
    *spare = e.line;
}

/// `s` cut to at most [`MAX_MESSAGE`] bytes, on a char boundary.
fn capped(s: &str) -> &str {
    if s.len() <= MAX_MESSAGE {
        return s;
    }
    let mut end = MAX_MESSAGE;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kubectl logs --prefix --all-containers` of a node plugin: the container's prefix on
    /// every line; its continuation lines stay with its entry, another container's line ends it.
    #[test]
    fn kubectl_prefixed_lines_are_read_per_container() {
        let text = "[pod/csi-nfs-node-7xk2p/nfs] E1120 10:30:00.123456       1 utils.go:111] GRPC error: mount failed: exit status 32
[pod/csi-nfs-node-7xk2p/nfs] Mounting command: mount
[pod/csi-nfs-node-7xk2p/nfs] Output: mount.nfs: access denied by server while mounting 10.0.0.5:/data
[pod/csi-nfs-node-7xk2p/liveness-probe] I1120 10:30:01.000000       1 main.go:149] calling CSI driver
[pod/csi-nfs-node-7xk2p/liveness-probe] some line of its own
";
        assert!(looks_like_klog(text));
        let l = parse_klog(text);
        assert_eq!(l.len(), 2, "{l:#?}");
        assert_eq!(
            l[0].message,
            "GRPC error: mount failed: exit status 32\nMounting command: mount\nOutput: mount.nfs: access denied by server while mounting 10.0.0.5:/data"
        );
        assert_eq!(l[1].message, "calling CSI driver\nsome line of its own");
    }

    /// `kubectl logs --timestamps` of a CSI node plugin: every line stamped, and mount's lines
    /// ("Mounting command: mount", "Output: mount.nfs: ...") read like a syslog prefix behind
    /// the stamp; they continue the entry.
    #[test]
    fn stamped_continuation_lines_stay_with_their_entry() {
        let text = "2026-11-20T10:30:00.123456789Z E1120 10:30:00.123456       1 utils.go:111] GRPC error: rpc error: code = Internal desc = mount failed: exit status 32
2026-11-20T10:30:00.123556789Z Mounting command: mount
2026-11-20T10:30:00.123656789Z Mounting arguments: -t nfs 10.0.0.5:/data /mnt/x
2026-11-20T10:30:00.123756789Z Output: mount.nfs: Connection timed out
2026-11-20T10:30:01.000000000Z I1120 10:30:01.000000       1 utils.go:100] GRPC call: /csi.v1.Node/NodeGetCapabilities
";
        let l = parse_klog(text);
        assert_eq!(l.len(), 2, "{l:#?}");
        assert!(
            l[0].message
                .ends_with("Output: mount.nfs: Connection timed out"),
            "{}",
            l[0].message
        );
        assert!(l[0].message.contains("\nMounting arguments: -t nfs"));
        assert_eq!(l[1].location.as_deref(), Some("utils.go:100"));
    }

    const SEED: &str = include_str!("../../fixtures/seed/rbd-kubelet.log");

    #[test]
    fn lines_copied_from_a_log_viewer_are_entries_of_their_own() {
        let text = "E0406 18:38:06.196268 3608220 utils.go:80] GRPC error: first\nThu, Apr 6 2023 2:38:39 pm | E0406 18:38:39.298706 3608220 nodeserver.go:371] second\nThu, Apr 6 2023 2:38:39 pm | continued\n";
        let l = parse_klog(text);
        assert_eq!(l.len(), 2, "{l:#?}");
        assert_eq!(
            l[1].message,
            "second\nThu, Apr 6 2023 2:38:39 pm | continued"
        );
        // A message that quotes a pipe is not a viewer's column.
        assert!(viewer_prefix("mount | grep nfs").is_none());
    }

    #[test]
    fn seed_log() {
        assert!(looks_like_klog(SEED));
        let lines = parse_klog(SEED);
        assert_eq!(lines.len(), 6);
        let sev: String = lines.iter().filter_map(|l| l.severity).collect();
        assert_eq!(sev, "IEEEEE");
        assert!(lines
            .iter()
            .all(|l| l.pid == Some(1159) && l.host.is_none()));
        let locations: Vec<&str> = lines.iter().filter_map(|l| l.location.as_deref()).collect();
        assert_eq!(
            locations,
            [
                "reconciler.go:294",
                "disk_manager.go:56",
                "rbd.go:228",
                "nestedpendingoperations.go:254",
                "kubelet.go:1958",
                "pod_workers.go:183"
            ]
        );
        assert_eq!(lines[0].timestamp.as_deref(), Some("0216 13:59:27.380007"));
        assert_eq!(lines[0].line_no, 1);
        assert_eq!(lines[5].line_no, 6);
        assert_eq!(lines[1].message, "failed to attach disk");
        assert_eq!(
            lines[2].message,
            "rbd: failed to setup mount /var/lib/kubelet/pods/7e6c415a-f40c-11e6-ad11-00163e1625a9/volumes/kubernetes.io~rbd/index-api-pv rbd: image index-api-image is locked by other nodes"
        );
        assert!(lines[3]
            .message
            .starts_with("Operation for \"\\\"kubernetes.io/rbd/"));
        assert!(lines[3]
            .message
            .ends_with("with: rbd: image index-api-image is locked by other nodes"));
        assert!(lines[4]
            .message
            .starts_with("Unable to mount volumes for pod \"index-api-3362878852-pzxm8_default("));
    }

    #[test]
    fn keep_filters_complete_entries() {
        let mut seen = 0;
        let kept = parse_klog_with(SEED, |l| {
            seen += 1;
            l.message.contains("locked by other nodes")
        });
        assert_eq!(seen, 6);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].location.as_deref(), Some("rbd.go:228"));
    }

    #[test]
    fn journal_prefix_short() {
        let line = "Jun 21 19:53:53 ip-172-23-5-42.us-west-2.compute.internal kubelet-wrapper[2480]: E0621 19:53:53.454342    2480 desired_state_of_world_populator.go:259] Error processing volume \"mysql-vol-01cde893508d2eda8-claim\" for pod \"mysql-5-7-dhf67_default(5a6efa37-56bb-11e7-84d1-0209264c7cea)\": error processing PVC \"default\"/\"vol-01cde893508d2eda8-claim\": PVC default/vol-01cde893508d2eda8-claim has non-bound phase (\"Pending\") or empty pvc.Spec.VolumeName (\"vol-01cde893508d2eda8\")";
        assert!(looks_like_klog(line));
        let l = parse_klog_line(line, 7).expect("entry");
        assert_eq!(l.line_no, 7);
        assert_eq!(l.severity, Some('E'));
        assert_eq!(l.timestamp.as_deref(), Some("0621 19:53:53.454342"));
        assert_eq!(l.pid, Some(2480));
        assert_eq!(
            l.location.as_deref(),
            Some("desired_state_of_world_populator.go:259")
        );
        assert_eq!(
            l.host.as_deref(),
            Some("ip-172-23-5-42.us-west-2.compute.internal")
        );
        assert!(l
            .message
            .starts_with("Error processing volume \"mysql-vol-01cde893508d2eda8-claim\""));
        assert!(l.message.ends_with("(\"vol-01cde893508d2eda8\")"));
    }

    #[test]
    fn journal_prefix_bash_and_short_iso() {
        let line = "Sep 24 13:56:09 w01.example.com bash[13921]: E0924 13:56:09.654609   13921 nestedpendingoperations.go:348] Operation for \"{volumeName:kubernetes.io/csi/csi.hpe.com^0635370e1e208cb2220000000000000000000011bc podName: nodeName:}\" failed. No retries permitted until 2024-09-24 13:56:10.154590919 +0000 UTC m=+9005564.785891942 (durationBeforeRetry 500ms). Error: MountVolume.MountDevice failed for volume \"pvc-90aba057-181e-408d-9eef-adf0b8d5d0ff\"";
        let l = parse_klog_line(line, 1).expect("entry");
        assert_eq!(l.host.as_deref(), Some("w01.example.com"));
        assert_eq!(l.pid, Some(13921));
        assert_eq!(
            l.location.as_deref(),
            Some("nestedpendingoperations.go:348")
        );
        assert!(l.message.starts_with("Operation for \"{volumeName:"));

        let iso = "2024-09-24T13:56:09+0000 w01 kubelet[123]: W0924 13:56:09.000001     123 mount_linux.go:219] Mount failed: exit status 32";
        let l = parse_klog_line(iso, 3).expect("short-iso entry");
        assert_eq!(l.host.as_deref(), Some("w01"));
        assert_eq!(l.severity, Some('W'));
        assert_eq!(l.message, "Mount failed: exit status 32");
        let precise =
            "Sep 24 13:56:09.123456 w01 kubelet[123]: I0924 13:56:09.123400     123 a.go:1] ok";
        assert_eq!(
            parse_klog_line(precise, 1).map(|l| l.message),
            Some("ok".into())
        );
    }

    #[test]
    fn cri_and_timestamps_prefix() {
        let cri = "2025-01-07T15:15:38.371047123Z stderr F I0107 15:15:38.371047       1 csi_handler.go:243] \"Error processing\" VolumeAttachment=\"csi-cc29\" err=\"failed to attach\"";
        let l = parse_klog_line(cri, 1).expect("cri entry");
        assert_eq!(l.host, None);
        assert_eq!(l.location.as_deref(), Some("csi_handler.go:243"));
        let ts = "2025-01-07T15:15:38.371047123Z E0107 15:15:38.371047       1 a.go:9] boom";
        assert_eq!(
            parse_klog_line(ts, 1).map(|l| l.message),
            Some("boom".into())
        );
    }

    #[test]
    fn corpus_lines() {
        let cases = [
            ("I0421 00:02:55.574912       1 attacher.go:104] Attach volume \"/subscriptions/c44da295\" failed", 'I', 1, "attacher.go:104"),
            ("E0405 23:55:54.284970    7404 utils.go:123] GRPC error: rpc error: code = Aborted desc = An operation with the given Volume ID test-csi-driver-smb already exists", 'E', 7404, "utils.go:123"),
            ("E0723 16:16:01.382497 1389900 nestedpendingoperations.go:267] Operation for \"\\\"kubernetes.io/rbd/test-k8s-radis:kubernetes-dynamic-pvc-b839dd3e\\\"\" failed.", 'E', 1389900, "nestedpendingoperations.go:267"),
            ("E0514 19:05:03.027156       1 driver.go:120] GRPC error: rpc error: code = Internal desc = Could not attach volume \"vol-095ece5c3a6da49a8\"", 'E', 1, "driver.go:120"),
            ("I1119 14:37:06.656391       1 csi_handler.go:456] Can't get CSINodeInfo kube-node-67ca: csinodeinfo.csi.storage.k8s.io \"kube-node-67ca\" not found", 'I', 1, "csi_handler.go:456"),
        ];
        for (line, sev, pid, loc) in cases {
            let l = parse_klog_line(line, 1).expect(line);
            assert_eq!(
                (l.severity, l.pid, l.location.as_deref()),
                (Some(sev), Some(pid), Some(loc))
            );
        }
        let structured = "I0107 15:15:38.371047       1 csi_handler.go:243] \"Error processing\" VolumeAttachment=\"csi-cc29ece6825cb80acfaa7bbf24fcf236f3838c0dc1125bba9407b4c55744ae4c\" err=\"failed to attach: rpc error: code = Aborted desc = volume pvc-62702773-9386-4d7c-8bf3-8a3171a167a4 is not ready for workloads\"";
        let l = parse_klog_line(structured, 1).expect("structured");
        assert!(l
            .message
            .starts_with("\"Error processing\" VolumeAttachment=\"csi-cc29"));
        assert!(l.message.ends_with("is not ready for workloads\""));
    }

    #[test]
    fn continuation_lines_join_the_entry() {
        let text = "E0809 20:45:58.053442    6432 nestedpendingoperations.go:233] Operation for ... failed. No retries permitted until 2016-08-09 20:46:14.053397506 +0000 UTC (durationBeforeRetry 16s). Error: MountVolume.SetUp failed for volume ... with: mount failed: exit status 32\nMounting arguments: ...\nOutput: mount: wrong fs type, bad option, bad superblock on ...,\n       missing codepage or helper program, or other error\n       (for several filesystems (e.g. nfs, cifs) you might\n       need a /sbin/mount.<type> helper program)\n\n       In some cases useful info is found in syslog - try\n       dmesg | tail or so.\n\nI0809 20:45:59.000001    6432 reconciler.go:1] next\n";
        assert!(looks_like_klog(text));
        let lines = parse_klog(text);
        assert_eq!(lines.len(), 2);
        assert!(lines[0]
            .message
            .contains("exit status 32\nMounting arguments: ...\nOutput: mount:"));
        assert!(lines[0]
            .message
            .contains("helper program)\n\n       In some cases"));
        assert!(lines[0].message.ends_with("dmesg | tail or so."));
        assert_eq!(lines[1].line_no, 11);
        assert_eq!(lines[1].message, "next");
    }

    #[test]
    fn journal_continuations_follow_their_stream() {
        let text = "-- Logs begin at Mon 2024-09-23 00:00:00 UTC. --\n\
Sep 24 13:56:09 w01 kubelet[123]: E0924 13:56:09.1     123 mount_linux.go:219] Mount failed: exit status 32\n\
Sep 24 13:56:09 w01 kubelet[123]: Mounting command: mount\n\
Sep 24 13:56:09 w01 systemd[1]: Started Session 5.\n\
Sep 24 13:56:09 w01 kubelet[123]: Output: mount.nfs: Protocol not supported\n\
Sep 24 13:56:10 w01 kubelet[123]: I0924 13:56:10.2     123 a.go:1] next\n";
        assert!(looks_like_klog(text));
        let lines = parse_klog(text);
        assert_eq!(lines.len(), 2);
        // The systemd line ends the entry; the stray kubelet line after it has no entry.
        assert_eq!(
            lines[0].message,
            "Mount failed: exit status 32\nMounting command: mount"
        );
        assert_eq!(lines[0].host.as_deref(), Some("w01"));
        assert_eq!(lines[1].line_no, 6);
    }

    #[test]
    fn header_in_the_middle_is_not_a_header() {
        let text = "E0216 13:59:27.393946 1159 disk_manager.go:56] failed to attach disk\n\
            see also: E0216 13:59:27.394013 1159 rbd.go:228] quoted\n\
            > I0216 13:59:27.394013 1159 rbd.go:228] quoted too\n";
        let lines = parse_klog(text);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].message.ends_with("quoted too"));
        assert!(parse_klog_line(
            "text: 'I0421 00:02:55.574912       1 attacher.go:104] x'",
            1
        )
        .is_none());
        // Behind a syslog prefix the same text is an entry.
        let prefixed =
            "Feb 16 13:59:27 node2 kubelet[1159]: E0216 13:59:27.394013 1159 rbd.go:228] x";
        assert!(parse_klog_line(prefixed, 1).is_some());
        // A prefix that is not a journal prefix does not count.
        assert!(parse_klog_line(
            "Feb 16 something E0216 13:59:27.394013 1159 rbd.go:228] x",
            1
        )
        .is_none());
    }

    #[test]
    fn near_headers_are_rejected() {
        for line in [
            "",
            "I",
            "I0216",
            "I0216 13:59:27.380007",
            "I0216 13:59:27.380007 1159",
            "I0216 13:59:27.380007 1159 reconciler.go] no line number",
            "I0216 13:59:27.380007 1159 reconciler.go:294 no bracket",
            "I0216 13:59:27.380007 abc reconciler.go:294] pid not a number",
            "X0216 13:59:27.380007 1159 reconciler.go:294] bad severity",
            "I0216 13:59:27 1159 reconciler.go:294] no fraction",
            "Information 13:59:27.380007 1159 a.go:1] words",
            "I0216 13:59:27.380007 1159 :294] no file",
            "Jun",
            "2024-",
            "Ünïcödé 0216 13:59:27.380007 1159 a.go:1] x",
        ] {
            assert!(parse_klog_line(line, 1).is_none(), "{line:?}");
        }
        let l = parse_klog_line("I0216 13:59:27.380007 1159 a.go:1]", 1).expect("empty message");
        assert_eq!(l.message, "");
    }

    #[test]
    fn other_formats_do_not_look_like_klog() {
        for text in [
            include_str!("../../fixtures/seed/nfs-describe-pod.txt"),
            include_str!("../../fixtures/seed/nfs-deployment.yaml"),
            include_str!("../../fixtures/seed/rbd-lock-list.txt"),
            include_str!("../../fixtures/corpus/real-mount-failures.yaml"),
            "",
            "one\ntwo\nthree\nI0216 13:59:27.380007 1159 a.go:1] late\n",
        ] {
            assert!(!looks_like_klog(text));
        }
        assert!(looks_like_klog(
            "# journalctl -u kubelet | grep rbd\nI0216 13:59:27.380007 1159 a.go:1] x\n"
        ));
    }

    #[test]
    fn long_entries_are_capped() {
        let mut text = String::from("E0216 13:59:27.380007 1159 a.go:1] start\n");
        for _ in 0..10_000 {
            text.push_str("continuation line of some length, again and again\n");
        }
        text.push_str("I0216 13:59:28.000000 1159 a.go:2] after\n");
        let lines = parse_klog(&text);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].message.len() <= MAX_MESSAGE + TRUNCATED.len());
        assert!(lines[0].message.ends_with(TRUNCATED));
        assert_eq!(lines[1].message, "after");
        let huge = format!(
            "E0216 13:59:27.380007 1159 a.go:1] {}é",
            "x".repeat(MAX_MESSAGE)
        );
        let l = parse_klog_line(&huge, 1).expect("entry");
        assert!(l.message.len() <= MAX_MESSAGE);
    }

    #[test]
    fn a_dropped_entry_leaves_nothing_in_the_next() {
        // Entries not kept lend their strings to the next one: no field may carry over.
        let text = "Feb 16 13:59:27 node2 kubelet[1159]: E0216 13:59:27.394013 1159 rbd.go:228] drop, long long long\n\
Feb 16 13:59:27 node2 kubelet[1159]: continuation\n\
I0216 13:59:28.000000 7 a.go:2] keep\n\
W0216 13:59:29.000000 8 bb.go:3] drop\n\
E0216 13:59:30.000001 9 c.go:4] keep too\n";
        let kept = parse_klog_with(text, |l| l.message.starts_with("keep"));
        let all = parse_klog(text);
        assert_eq!(kept, [all[1].clone(), all[3].clone()]);
        assert_eq!(kept[0].host, None);
        assert_eq!(kept[0].message, "keep");
        assert_eq!(kept[0].location.as_deref(), Some("a.go:2"));
        assert_eq!(kept[1].pid, Some(9));
        assert_eq!(all[0].host.as_deref(), Some("node2"));
        assert_eq!(all[0].message, "drop, long long long\ncontinuation");
    }

    #[test]
    fn lines_split_like_str_split() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "\na",
            "a\nb",
            "a\n\nb\n",
            "\n\n",
            "é\nü\r\n",
        ] {
            let want: Vec<&str> = text.split('\n').collect();
            assert_eq!(split_lines(text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    #[test]
    fn crlf_and_garbage() {
        let text = "I0216 13:59:27.380007 1159 a.go:1] windows\r\nmore\r\n";
        let lines = parse_klog(text);
        assert_eq!(lines[0].message, "windows\nmore");
        let garbage: String = (0u8..=255).map(char::from).cycle().take(5000).collect();
        assert!(parse_klog(&garbage).is_empty());
        assert!(!looks_like_klog(&garbage));
    }
}
