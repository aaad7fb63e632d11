//! Saved files → `Case`. Each input is read with a size limit, decoded as UTF-8 (clearly refused
//! when it is binary), split into sections at shell prompts (`$ kubectl ...`, `# rbd lock ls ...`)
//! and each section is recognised by its content and handed to its parser.

use std::io::Read;
use std::sync::LazyLock;

use regex::Regex;

use crate::error::{Error, Result};
use crate::model::{Case, Event, LogLine, NodeFacts, Origin, RawMessage, RbdImageState};
use crate::parse::objects::KubeObject;
use crate::parse::{describe, events, klog, objects, rbd, transcripts};

/// One input, read and decoded.
#[derive(Debug, Clone)]
pub struct Source {
    pub label: String,
    pub text: String,
    /// A kubelet log or journal read as a stream (never held whole): its volume-failure
    /// entries, the newest [`MAX_LOG_LINES`] of them. `text` is then empty.
    pub log: Option<StreamedLog>,
}

/// What streaming a log kept.
#[derive(Debug, Clone, Default)]
pub struct StreamedLog {
    pub kept: Vec<LogLine>,
    /// Entries read in all, and of those about volume failures.
    pub entries: usize,
    pub matching: usize,
    /// Invalid UTF-8 bytes replaced.
    pub replaced: usize,
    /// Line breaks read so far (the kept lines are numbered in the whole input).
    pub lines: usize,
}

/// Read `path`: a file, `-` (stdin), or a directory (every file in it, sorted, such as one
/// written by `--save`; README files are skipped).
pub fn read_inputs(path: &str, max_bytes: u64, stdin: &mut dyn Read) -> Result<Vec<Source>> {
    input_paths(path)?
        .iter()
        .map(|f| read_input(f, max_bytes, stdin))
        .collect()
}

/// The inputs `path` stands for: itself (a file, or `-`), or, for a directory, every file in
/// it, sorted, but hidden ones and README files (a `--save` directory has one). A directory
/// with no such file is an input error.
fn input_paths(path: &str) -> Result<Vec<String>> {
    if path == "-" || !std::path::Path::new(path).is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::io(format!("reading {path}"), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('.') && !name.to_ascii_uppercase().starts_with("README")
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::input(path, "is a directory with no files to read"));
    }
    Ok(files
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect())
}

/// How much of an input is read to tell whether it is a log to stream.
const SNIFF_BYTES: usize = 64 * 1024;
/// The window a streamed log is parsed in: memory stays at a few of these whatever its size.
const STREAM_CHUNK: usize = 4 << 20;

/// Read `path` (`-` = stdin) refusing more than `max_bytes`. A kubelet log or journal is not
/// held whole: it is scanned in windows, keeping its volume-failure entries.
pub fn read_input(path: &str, max_bytes: u64, stdin: &mut dyn Read) -> Result<Source> {
    if path == "-" {
        return read_sniffed("stdin", stdin, max_bytes, None);
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("reading {path}"), e))?;
    if meta.len() > max_bytes {
        return Err(too_big(path, meta.len(), max_bytes));
    }
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(format!("reading {path}"), e))?;
    read_sniffed(path, &mut f, max_bytes, Some(meta.len()))
}

/// The first [`SNIFF_BYTES`] decide: a klog stream is scanned by [`stream_klog`], anything else
/// is read whole (it is what the parsers need) within `max_bytes`.
fn read_sniffed(
    label: &str,
    r: &mut dyn Read,
    max_bytes: u64,
    size: Option<u64>,
) -> Result<Source> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut *r)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(format!("reading {label}"), e))?;
    if head.len() == SNIFF_BYTES && !head.contains(&0) {
        let sniff = String::from_utf8_lossy(&head);
        // Cut at the last line break: a partial last line is not evidence.
        let sniff = sniff.rsplit_once('\n').map_or(&*sniff, |(a, _)| a);
        if klog::looks_like_klog(sniff) && !sniff.contains(super::save::CASE_KIND) {
            return stream_klog(label, head, r, max_bytes);
        }
    }
    let mut bytes = head;
    if let Some(n) = size {
        bytes.reserve(n as usize);
    }
    r.take(max_bytes + 1 - bytes.len() as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("reading {label}"), e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(label, bytes.len() as u64, max_bytes));
    }
    let text = decode(label, bytes)?;
    Ok(Source {
        label: label.to_string(),
        text,
        log: None,
    })
}

/// Scan a kubelet log in windows of [`STREAM_CHUNK`] bytes, each cut before an entry's first
/// line so no entry is split, keeping the entries about volume failures. Lines that cannot be
/// about a volume are skipped by a literal prefilter before any parsing.
fn stream_klog(label: &str, head: Vec<u8>, r: &mut dyn Read, max_bytes: u64) -> Result<Source> {
    let mut log = StreamedLog::default();
    let mut buf = head;
    let mut read = buf.len() as u64;
    let mut eof = false;
    loop {
        if !eof && buf.len() < STREAM_CHUNK {
            let want = (STREAM_CHUNK - buf.len()) as u64;
            let before = buf.len();
            (&mut *r)
                .take(want)
                .read_to_end(&mut buf)
                .map_err(|e| Error::io(format!("reading {label}"), e))?;
            read += (buf.len() - before) as u64;
            if buf.len() - before < want as usize {
                eof = true;
            }
            if read > max_bytes {
                return Err(too_big(label, read, max_bytes));
            }
        }
        if buf.is_empty() {
            break;
        }
        // Where this window ends: before the last line that starts an entry (its continuation
        // lines may still be unread), or everything at the end of the input.
        let cut = if eof {
            buf.len()
        } else {
            last_entry_start(&buf).unwrap_or(buf.len())
        };
        let cut = if cut == 0 { buf.len() } else { cut };
        let window = &buf[..cut];
        // Checking is several times faster than what `from_utf8_lossy` does on valid text.
        let text = match std::str::from_utf8(window) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => {
                let t = String::from_utf8_lossy(window).into_owned();
                log.replaced += t.matches('\u{FFFD}').count();
                std::borrow::Cow::Owned(t)
            }
        };
        let (kept, entries, lines) = volume_entries_in_parts(&text, log.lines);
        log.lines += lines;
        log.entries += entries;
        log.matching += kept.len();
        log.kept.extend(kept);
        if log.kept.len() > 2 * MAX_LOG_LINES {
            log.kept.drain(..log.kept.len() - MAX_LOG_LINES);
        }
        buf.drain(..cut);
        if eof && buf.is_empty() {
            break;
        }
    }
    if log.replaced * 10_000 > read as usize {
        return Err(Error::input(
            label,
            "is not UTF-8 text; convert it first, e.g. `iconv -f latin1 -t utf-8`",
        ));
    }
    Ok(Source {
        label: label.to_string(),
        text: String::new(),
        log: Some(log),
    })
}

/// [`volume_entries`] of `text`, which is whole entries, cut at entry starts into one part per
/// core (up to 4) scanned side by side: the same lines in the same order, and the same count.
/// `text` starts after `lines_before` lines of the input: the kept lines are numbered in the
/// input, not in `text`. Also returns the lines `text` ends (its line breaks).
fn volume_entries_in_parts(text: &str, lines_before: usize) -> (Vec<LogLine>, usize, usize) {
    // Below this, a thread costs more than it saves.
    const MIN_PART: usize = 256 << 10;
    static PARTS: LazyLock<usize> =
        LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)));
    let parts = (*PARTS).min(text.len() / MIN_PART).max(1);
    let scan = |p: &str| {
        let (kept, entries) = volume_entries(p);
        (
            kept,
            entries,
            memchr::memchr_iter(b'\n', p.as_bytes()).count(),
        )
    };
    if parts == 1 {
        let (mut kept, entries, lines) = scan(text);
        kept.iter_mut().for_each(|l| l.line_no += lines_before);
        return (kept, entries, lines);
    }
    let mut cuts = vec![0];
    for i in 1..parts {
        let at = text.len() * i / parts;
        // The last entry start at or before `at` (after the previous cut); a part with no
        // entry start in it is joined to the next.
        let prev = *cuts.last().expect("starts with 0");
        if at <= prev {
            continue;
        }
        if let Some(start) = last_entry_start(&text.as_bytes()[prev..at]) {
            cuts.push(prev + start);
        }
    }
    cuts.push(text.len());
    let pieces: Vec<&str> = cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    let results: Vec<(Vec<LogLine>, usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = pieces[1..]
            .iter()
            .map(|p| s.spawn(move || scan(p)))
            .collect();
        let mut out = vec![scan(pieces[0])];
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("log scan thread")),
        );
        out
    });
    let mut kept = Vec::new();
    let (mut entries, mut lines) = (0, 0);
    for (k, n, l) in results {
        let before = lines_before + lines;
        kept.extend(k.into_iter().map(|mut x| {
            x.line_no += before;
            x
        }));
        entries += n;
        lines += l;
    }
    (kept, entries, lines)
}

/// The offset of the last line in `buf` that begins a klog entry (after at least one complete
/// line), searching back at most 4096 lines; `None` when there is none.
fn last_entry_start(buf: &[u8]) -> Option<usize> {
    let mut end = buf.len();
    for _ in 0..4096 {
        let start = memchr::memrchr(b'\n', &buf[..end.saturating_sub(1)]).map(|i| i + 1)?;
        if start == 0 {
            return None;
        }
        let line = String::from_utf8_lossy(&buf[start..end]);
        if klog::parse_klog_line(line.trim_end_matches(['\n', '\r']), 0).is_some() {
            return Some(start);
        }
        end = start;
    }
    None
}

fn too_big(label: &str, len: u64, max: u64) -> Error {
    Error::input(
        label,
        format!(
            "is {} MiB, more than the {} MiB limit; pass only the relevant part (e.g. `journalctl -u kubelet --since -1h`) or raise --max-input-mib",
            len.div_ceil(1 << 20),
            max >> 20
        ),
    )
}

/// Text, or a clear refusal. Rare stray bytes in a big log are replaced (and the report says
/// so); binary data and text in another encoding are refused.
pub fn decode(label: &str, bytes: Vec<u8>) -> Result<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::input(label, "is empty: nothing to diagnose"));
    }
    if bytes.iter().take(64 * 1024).any(|&b| b == 0) {
        return Err(Error::input(
            label,
            "is binary data (it contains NUL bytes), not text output of kubectl, kubelet or rbd",
        ));
    }
    match String::from_utf8(bytes) {
        Ok(s) => Ok(plain_typography(unquote(s))),
        Err(e) => {
            let first_bad = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let lossy = String::from_utf8_lossy(&bytes);
            let bad = lossy.matches('\u{FFFD}').count();
            // One bad byte per 10,000 is a damaged log; more is another encoding or binary.
            if bad * 10_000 > bytes.len() {
                return Err(Error::input(
                    label,
                    format!(
                        "is not UTF-8 text (first invalid byte at offset {first_bad}); convert it first, e.g. `iconv -f latin1 -t utf-8`"
                    ),
                ));
            }
            Ok(plain_typography(unquote(lossy.into_owned())))
        }
    }
}

/// A web page's or word processor's typography undone: curly quotes back to the `"` and `'`
/// that kubelet, mount and the drivers print (and every pattern matches), non-breaking spaces
/// to spaces. Text without them is returned as it is, uncopied.
fn plain_typography(text: String) -> String {
    const FANCY: &[char] = &[
        '\u{201C}', '\u{201D}', '\u{201E}', '\u{2018}', '\u{2019}', '\u{00A0}',
    ];
    if !text.contains(FANCY) {
        return text;
    }
    text.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{00A0}' => ' ',
            c => c,
        })
        .collect()
}

/// Text pasted as a quotation (a mail reply, a GitHub or forum quote: `> ` before every line)
/// without the quote marks, so what it quotes is read as itself. Only when nearly every line is
/// quoted: a `>` starting a line of anything else (YAML's folded scalar) is left alone.
fn unquote(text: String) -> String {
    let lines = text.lines().filter(|l| !l.trim().is_empty());
    let (mut all, mut quoted) = (0usize, 0usize);
    for l in lines {
        all += 1;
        if l.trim_start().starts_with('>') {
            quoted += 1;
        }
    }
    if all < 2 || quoted * 10 < all * 9 {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        let t = l.trim_start();
        match t.strip_prefix('>') {
            Some(rest) => out.push_str(rest.strip_prefix(' ').unwrap_or(rest)),
            None => out.push_str(l),
        }
    }
    out
}

/// A part of a file: the command that printed it (when a prompt shows it) and its output.
#[derive(Debug, Clone, PartialEq)]
pub struct Section<'a> {
    pub command: Option<String>,
    /// Borrowed when the input has no prompt (the common case: no copy of a big log).
    pub body: std::borrow::Cow<'a, str>,
    /// Line of the input where `body` starts (1-based), so errors name the file's line.
    pub first_line: usize,
}

static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    // A `$` prompt, or one that shows the user and host (`[root@node1 ~]#`, `user@node1:~$`,
    // PowerShell's `PS C:\>`), starts a command whatever it is; a bare `#` does only before a
    // command volmnt knows, since it also starts YAML and config file comments.
    Regex::new(
        r"^\s*(?:(?:(?:\[[^\]\n]{1,80}\]\s?[#$]|[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^\n#$]{0,80}[#$])\s*|(?:\$|PS [^>\n]{0,80}>)\s+)(\S.*)|#\s+((?:sudo\s+)?(?:kubectl|oc|rbd|ceph|journalctl|mount|cat|grep|findmnt|volmnt|tail|less|kubectl-volmnt|uname|dmesg|lsmod|modprobe|modinfo|ps|pgrep|systemctl|which|ls|dpkg|dpkg-query|rpm|apk|blkid|lsblk|multipath|multipathd|iscsiadm|rpcinfo|showmount|df|sysctl|getenforce|sestatus|nsenter|docker|crictl|stat)\b.*))$",
    )
    .expect("static regex")
});

/// The command of a prompt line, if it is one.
fn prompt_command(line: &str) -> Option<&str> {
    let c = PROMPT.captures(line)?;
    c.get(1).or(c.get(2)).map(|m| m.as_str())
}

/// Split a transcript at its shell prompts. A long prompt line (a flattened paste) stays with
/// its content.
pub fn sections(text: &str) -> Vec<Section<'_>> {
    if !text.lines().any(|l| prompt_command(l).is_some()) {
        return vec![Section {
            command: None,
            body: std::borrow::Cow::Borrowed(text),
            first_line: 1,
        }];
    }
    let mut out: Vec<Section> = Vec::new();
    let fresh = |first_line| Section {
        command: None,
        body: std::borrow::Cow::Owned(String::new()),
        first_line,
    };
    let mut current = fresh(1);
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = prompt_command(line) {
            let cmd = c.trim().to_string();
            let next = fresh(i + 2);
            if !current.body.trim().is_empty() || current.command.is_some() {
                out.push(std::mem::replace(&mut current, next));
            } else {
                current = next;
            }
            if line.len() > 300 {
                // `# kubectl describe pod x Name: x Namespace: ...` pasted onto one line
                current.command =
                    Some(cmd.split_whitespace().take(6).collect::<Vec<_>>().join(" "));
                let body = current.body.to_mut();
                body.push_str(line);
                body.push('\n');
                current.first_line = i + 1;
            } else {
                current.command = Some(cmd);
            }
            continue;
        }
        let body = current.body.to_mut();
        body.push_str(line);
        body.push('\n');
    }
    if !current.body.trim().is_empty() || current.command.is_some() {
        out.push(current);
    }
    out
}

static RBD_IMAGE_ARG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"rbd\s+(?:lock\s+(?:list|ls)|status)\s+(?:-\S+\s+(?:\S+\s+)?)*?([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)")
        .expect("static regex")
});

use crate::parse::words::WordSet;
use crate::parse::FAILURE_WORDS;

/// The words a log line about a volume has one of.
static VOLUME_WORDS: LazyLock<WordSet> = LazyLock::new(|| {
    WordSet::new(&[
        "volume",
        "mount",
        "attach",
        "rbd",
        "nfs",
        "csi",
        "iscsi",
        "claim",
        "disk",
        "device",
        "subpath",
        "hostpath",
        "configmap",
        "secret",
        // The volume plugins' and filesystems' own names: their log lines often say neither
        // "volume" nor "mount" (`glusterfs: failed to get endpoints ...`, `fsck found errors`).
        "gluster",
        "ceph",
        "cifs",
        "smb",
        "fuse",
        "pvc",
        "persistentvolume",
        "fsck",
        "mkfs",
        "xfs",
        "ext4",
        "multipath",
        "flexvolume",
        "lun",
    ])
});

/// The entries of a kubelet log that [`is_volume_log_line`] keeps, and how many entries it
/// has. An entry whose first line has none of the volume words (ASCII case-insensitive, the
/// literals of the regex) cannot be kept, and is skipped with its continuation lines unread.
pub fn volume_entries(text: &str) -> (Vec<LogLine>, usize) {
    let entries = std::cell::Cell::new(0usize);
    // The last first line found worth reading, when it is ASCII, and whether it has a failure
    // word: most entries are that line alone, and are then decided without searching it again.
    let last: std::cell::Cell<Option<(&str, bool)>> = std::cell::Cell::new(None);
    let kept = klog::parse_klog_prefiltered(
        text,
        |first| {
            entries.set(entries.get() + 1);
            let (volume, failure) = VOLUME_WORDS
                .ascii_case()
                .in_text_then(FAILURE_WORDS.ascii_case(), first.as_bytes());
            last.set((volume && first.is_ascii()).then_some((first, failure)));
            volume
        },
        |l| match last.get() {
            // The message is that ASCII line (trimmed, which takes no word away): the words'
            // regexes answer as the ASCII-case searches did, and the volume words are there.
            Some((first, failure)) if l.message == first.trim_end_matches(['\n', ' ', '\t']) => {
                matches!(l.severity, Some('E' | 'W' | 'F')) || failure
            }
            _ => is_volume_log_line(l),
        },
    );
    (kept, entries.get())
}

/// Log lines worth keeping from a (possibly huge) kubelet log: failures about volumes.
pub fn is_volume_log_line(l: &LogLine) -> bool {
    let failing = matches!(l.severity, Some('E' | 'W' | 'F')) || FAILURE_WORDS.is_match(&l.message);
    failing && VOLUME_WORDS.is_match(&l.message)
}

/// The most log lines kept from one input (the newest), so memory stays bounded.
pub const MAX_LOG_LINES: usize = 5000;

/// The log lines of the node's facts (the probe's, a pasted `dmesg`, a saved case's) go into
/// the case like a saved kubelet log: kubelet's are parsed as klog/journal lines, the kernel's
/// kept as messages of their own. Called once, after every source is read.
pub fn add_node_logs(case: &mut Case) {
    let node = case.node_name().unwrap_or("the node").to_string();
    let node = node.as_str();
    let Some(facts) = case.node_facts.as_ref() else {
        return;
    };
    let (kubelet, kernel, sources) = (
        facts.kubelet_log.join("\n"),
        facts.kernel_log.clone(),
        facts.log_sources.clone(),
    );
    let mut kept = klog::parse_klog_with(&kubelet, is_volume_log_line);
    let n = kept.len();
    for l in &mut kept {
        l.location = Some(match &l.location {
            Some(loc) => format!("node {node}, {loc}"),
            None => format!("node {node}"),
        });
    }
    // A saved case keeps the log lines it read: a replay has them already.
    kept.retain(|l| {
        !case
            .logs
            .iter()
            .any(|c| c.line_no == l.line_no && c.message == l.message && c.timestamp == l.timestamp)
    });
    case.logs.extend(kept);
    for (i, line) in kernel.iter().enumerate() {
        case.messages.push(crate::model::RawMessage {
            label: format!("{} {node}, line {}", crate::model::KERNEL_LOG_LABEL, i + 1),
            text: line.clone(),
            input: 0,
        });
    }
    if !sources.is_empty() || n > 0 || !kernel.is_empty() {
        case.inputs.push(format!(
            "node {node}: {n} kubelet log line(s) about the pod, {} kernel line(s) about storage (from {})",
            kernel.len(),
            if sources.is_empty() {
                "no log the probe could read".to_string()
            } else {
                sources.join("; ")
            }
        ));
    }
}

/// Read one input into the case. Fails when nothing in it is recognised.
pub fn add_source(case: &mut Case, src: &Source) -> Result<()> {
    // What this input adds is marked as its own (diagnose/scope.rs: the first input that asks
    // about a pod says which pod; a later one is read against it).
    let input = case.inputs.len() as u32 + 1;
    if let Some(log) = &src.log {
        let mut kept = log.kept.clone();
        for l in &mut kept {
            l.input = input;
        }
        if kept.len() > MAX_LOG_LINES {
            kept.drain(..kept.len() - MAX_LOG_LINES);
        }
        if log.matching > kept.len() {
            case.notes.push(format!(
                "{}: kept the newest {} of {} volume-related log lines",
                src.label,
                kept.len(),
                log.matching
            ));
        }
        if log.replaced > 0 {
            case.notes.push(format!(
                "{}: {} invalid UTF-8 byte(s) replaced",
                src.label, log.replaced
            ));
        }
        let n = kept.len();
        case.logs.extend(kept);
        case.inputs.push(format!(
            "{}: kubelet log ({n} of {} entries about volume failures; read as a stream)",
            src.label, log.entries
        ));
        return Ok(());
    }
    let (events_before, messages_before) = (case.events.len(), case.messages.len());
    let (logs_before, plugin_before) = (case.logs.len(), case.plugin_logs.len());
    let mut recognised = Vec::new();
    let mut skipped = Vec::new();
    // The first part that looked like a format volmnt reads but did not parse: when nothing else
    // in the input is read, its error says more than "not recognised".
    let mut first_error: Option<Error> = None;
    for (i, s) in sections(&src.text).iter().enumerate() {
        let part = || {
            s.command
                .clone()
                .map(|c| format!("output of `{c}`"))
                .unwrap_or_else(|| format!("part {}", i + 1))
        };
        match add_section(case, &src.label, s) {
            Ok(Some(what)) => recognised.push(what),
            Ok(None) => {
                if !s.body.trim().is_empty() {
                    skipped.push(part());
                }
            }
            Err(e) => {
                skipped.push(format!("{} ({})", part(), short_reason(&e)));
                first_error.get_or_insert(e);
            }
        }
    }
    if recognised.is_empty() {
        if let Some(e) = first_error {
            return Err(e);
        }
        let mut msg = String::from(
            "not recognised: expected kubectl describe/get -o yaml|json output, events, a kubelet log, rbd lock/status output, or a node's command output (uname, os-release, dmesg, lsmod, ps of the kubelet, blkid, findmnt/mount, df, ...)",
        );
        if !skipped.is_empty() && skipped.iter().any(|s| s.starts_with("output of")) {
            msg.push_str(&format!(" (found {})", skipped.join(", ")));
        }
        if skipped
            .iter()
            .any(|s| s.contains("`kubectl get") && !s.contains(" -o"))
        {
            msg.push_str("; `kubectl get` tables carry no reasons: save `kubectl describe pod` or `kubectl get ... -o yaml` instead");
        }
        return Err(Error::input(&src.label, msg));
    }
    for e in &mut case.events[events_before..] {
        e.input = input;
    }
    for m in &mut case.messages[messages_before..] {
        m.input = input;
    }
    for l in &mut case.logs[logs_before..] {
        l.input = input;
    }
    for l in &mut case.plugin_logs[plugin_before..] {
        l.line.input = input;
    }
    case.inputs
        .push(format!("{}: {}", src.label, recognised.join(", ")));
    if !skipped.is_empty() {
        case.notes.push(format!(
            "{}: skipped what volmnt does not read: {}",
            src.label,
            skipped.join(", ")
        ));
    }
    Ok(())
}

/// An error as a short reason in a note (its first line, without the input's name).
fn short_reason(e: &Error) -> String {
    let s = match e {
        Error::Input { message, .. } => message.clone(),
        Error::Parse { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    let first = s.lines().next().unwrap_or("").to_string();
    if first.chars().count() > 200 {
        format!("{}...", first.chars().take(200).collect::<String>())
    } else {
        first
    }
}

/// An input named and skipped: its label, and why.
pub type Skipped = (String, Error);

/// Whether an input error is about that input alone (it is then named and skipped when other
/// inputs are read), rather than about the command line or the machine.
pub fn skippable(e: &Error) -> bool {
    matches!(e, Error::Input { .. } | Error::Parse { .. })
}

/// Read every input, naming and skipping those that cannot be read as text (empty, binary, not
/// UTF-8, over the size limit): `(sources, skipped)`. A path that does not exist, or a
/// directory with no file, is still an error: that is the command line's, not the input's.
pub fn read_inputs_lenient(
    path: &str,
    max_bytes: u64,
    stdin: &mut dyn Read,
) -> Result<(Vec<Source>, Vec<Skipped>)> {
    let mut sources = Vec::new();
    let mut skipped = Vec::new();
    for f in input_paths(path)? {
        match read_input(&f, max_bytes, stdin) {
            Ok(s) => sources.push(s),
            Err(e) if skippable(&e) => skipped.push((if f == "-" { "stdin".into() } else { f }, e)),
            Err(e) => return Err(e),
        }
    }
    Ok((sources, skipped))
}

/// A node transcript (`$ uname -r`, a pasted `dmesg`, ...) into the case's node facts, with
/// where it came from; `None` when the text does not fit the format after all.
fn add_node_transcript(
    case: &mut Case,
    label: &str,
    kind: transcripts::Kind,
    cmd: Option<&str>,
    text: &str,
) -> Option<String> {
    let fresh = case.node_facts.is_none();
    let source = match cmd {
        Some(c) => format!("file {label}: {c}"),
        None => format!("file {label}: {} (recognised by its shape)", kind.label()),
    };
    let source = crate::redact::redact(&source).into_owned();
    let facts = case.node_facts.get_or_insert_with(NodeFacts::default);
    match transcripts::apply(kind, cmd, text, facts, &source) {
        Some(a) => {
            Some(crate::redact::redact(&format!("{}: {}", kind.label(), a.summary)).into_owned())
        }
        None => {
            if fresh {
                case.node_facts = None;
            }
            None
        }
    }
}

/// One section as the section readers see it.
struct SectionInput<'a> {
    label: &'a str,
    /// The prompt's command, if any.
    command: Option<&'a str>,
    /// The command, `""` without a prompt.
    cmd: &'a str,
    text: &'a str,
    trimmed: &'a str,
    /// The rbd image the command names (`rbd lock ls pool/image`).
    image: Option<String>,
    /// Lines of the input before the section's body.
    offset: usize,
}

impl<'a> SectionInput<'a> {
    fn new(label: &'a str, s: &'a Section) -> SectionInput<'a> {
        let text: &str = &s.body;
        let cmd = s.command.as_deref().unwrap_or("");
        SectionInput {
            label,
            command: s.command.as_deref(),
            cmd,
            text,
            trimmed: text.trim_start(),
            image: RBD_IMAGE_ARG.captures(cmd).map(|c| c[1].to_string()),
            offset: s.first_line.saturating_sub(1),
        }
    }

    /// A parser's error, at the input's line.
    fn error(&self, mut e: crate::error::ParseError) -> Error {
        e.line = e.line.map(|l| l + self.offset);
        Error::Parse {
            context: self.label.to_string(),
            source: e,
        }
    }
}

/// What a section reader made of a section.
enum Took {
    /// Read: what it was.
    Read(String),
    /// Not this reader's: the next one is asked.
    Pass,
    /// Not something volmnt reads: no later reader is asked.
    Unread,
}

/// A section reader: an `Err` is the section's (it names the input and line).
type SectionReader = fn(&mut Case, &SectionInput) -> Result<Took>;

/// The section readers, in the order they are asked; the first that reads a section has it.
/// The order is a priority: a reader that recognises more loosely comes after the ones it
/// would take sections from.
const SECTION_READERS: &[SectionReader] = &[
    rbd_lock_list,
    rbd_status,
    node_transcript_by_command,
    empty_output,
    kubectl_tables,
    saved_case_facts,
    kubelet_log,
    objects_section,
    describe_pod,
    describe_pvc,
    describe_node,
    describe_pv,
    event_table,
    event_rows,
    node_transcript_by_shape,
    chosen_fields_refused,
    structured_not_kubernetes_refused,
    raw_failure_message,
];

/// Recognise one section and add it; `Ok(None)` when it is not something volmnt reads.
fn add_section(case: &mut Case, label: &str, s: &Section) -> Result<Option<String>> {
    let input = SectionInput::new(label, s);
    for read in SECTION_READERS {
        match read(case, &input)? {
            Took::Read(what) => return Ok(Some(what)),
            Took::Unread => return Ok(None),
            Took::Pass => {}
        }
    }
    Ok(None)
}

/// `rbd lock ls`: the image's locks (nothing printed: no lock).
fn rbd_lock_list(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !(s.cmd.contains("rbd lock")
        || s.trimmed.starts_with("There is ")
        || s.trimmed.starts_with("There are "))
    {
        return Ok(Took::Pass);
    }
    let mut state = if s.trimmed.is_empty() {
        RbdImageState::default() // `rbd lock ls` prints nothing when there is no lock
    } else {
        rbd::parse_lock_list(s.text).map_err(|e| s.error(e))?
    };
    state.image = state.image.or(s.image.clone());
    let n = state.locks.len();
    merge_rbd(case, state);
    Ok(Took::Read(format!("rbd lock list ({n} lock(s))")))
}

/// `rbd status`: the image's watchers.
fn rbd_status(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !(s.cmd.contains("rbd status")
        || s.trimmed.starts_with("Watchers:")
        || (s.trimmed.starts_with('{') && s.trimmed.contains("\"watchers\"")))
    {
        return Ok(Took::Pass);
    }
    let watchers = rbd::parse_status(s.text).map_err(|e| s.error(e))?;
    let n = watchers.len();
    merge_rbd(
        case,
        RbdImageState {
            image: s.image.clone(),
            watchers: Some(watchers),
            ..RbdImageState::default()
        },
    );
    Ok(Took::Read(format!("rbd status ({n} watcher(s))")))
}

/// What a command run on the node printed, by its command (an empty output says something
/// too: `which jq` printing nothing).
fn node_transcript_by_command(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if let Some(kind) = s.command.and_then(transcripts::kind_of_command) {
        if let Some(what) = add_node_transcript(case, s.label, kind, s.command, s.text) {
            return Ok(Took::Read(what));
        }
    }
    Ok(Took::Pass)
}

/// An empty output no node reader took: nothing else reads it.
fn empty_output(_: &mut Case, s: &SectionInput) -> Result<Took> {
    Ok(if s.trimmed.is_empty() {
        Took::Unread
    } else {
        Took::Pass
    })
}

/// `kubectl get` tables of the cluster around the pod and `kubectl logs` of a node plugin
/// (parse/tables.rs); before the kubelet log, which a plugin's klog lines would look like.
fn kubectl_tables(case: &mut Case, s: &SectionInput) -> Result<Took> {
    Ok(
        match crate::parse::tables::recognise(s.cmd, s.text, s.label) {
            Some(pasted) => Took::Read(pasted.add_to(case)),
            None => Took::Pass,
        },
    )
}

/// What `--save` wrote besides the objects: absences, refusals, names, the cluster's and the
/// node's facts (before the kubelet log check: the facts may quote kubelet's lines).
fn saved_case_facts(case: &mut Case, s: &SectionInput) -> Result<Took> {
    let text = s.text;
    if !(text.contains(super::save::CASE_KIND) && text.contains(super::save::CASE_API_VERSION)) {
        return Ok(Took::Pass);
    }
    let facts: super::save::CaseFacts = serde_yaml::from_str(text)
        .map_err(|e| Error::input(s.label, format!("case.yaml does not parse: {e}")))?;
    case.missing.extend(facts.missing);
    case.denied.extend(facts.denied);
    case.configmaps.extend(facts.configmaps);
    case.secrets.extend(facts.secrets);
    for w in facts.workloads {
        case.add_workload(w);
    }
    case.plugin_logs.extend(facts.plugin_logs);
    case.logs.extend(facts.logs);
    for u in facts.unavailable {
        case.note_unavailable(u);
    }
    case.empty_listings.extend(facts.empty_listings);
    if let Some(nf) = facts.node_facts {
        match case.node_facts.as_mut() {
            Some(into) => transcripts::merge(into, nf),
            None => case.node_facts = Some(nf),
        }
    }
    if case.pod_name.is_none() {
        case.pod_name = facts.pod;
    }
    if case.namespace.is_none() {
        case.namespace = facts.namespace;
    }
    if let Some(t) = facts
        .saved_at
        .as_deref()
        .and_then(|t| t.parse::<k8s_openapi::jiff::Timestamp>().ok())
    {
        case.captured_at = Some(t.as_second());
    }
    Ok(Took::Read("volmnt case facts (saved)".into()))
}

/// A kubelet log: first of the logs, as it is the big input and the checks below would scan
/// all of it.
fn kubelet_log(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !klog::looks_like_klog(s.text) {
        return Ok(Took::Pass);
    }
    let (mut kept, total) = volume_entries(s.text);
    if kept.len() > MAX_LOG_LINES {
        case.notes.push(format!(
            "{}: kept the newest {MAX_LOG_LINES} of {} volume-related log lines",
            s.label,
            kept.len()
        ));
        kept.drain(..kept.len() - MAX_LOG_LINES);
    }
    let n = kept.len();
    case.logs.extend(kept);
    Ok(Took::Read(format!(
        "kubelet log ({n} of {total} entries about volume failures)"
    )))
}

/// Kubernetes objects (`-o yaml|json`); text that names apiVersion but does not parse still
/// goes to the parser, for its error.
fn objects_section(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !(objects::looks_like_objects(s.text)
        || s.text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("apiVersion:") || l.starts_with("\"apiVersion\"")
        }))
    {
        return Ok(Took::Pass);
    }
    let objs = objects::parse_objects(s.text).map_err(|e| s.error(e))?;
    Ok(Took::Read(add_objects(case, objs)))
}

/// The object a describe shows, as its events' involved object.
fn object_ref(
    kind: &str,
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> crate::model::ObjectRef {
    crate::model::ObjectRef {
        kind: Some(kind.to_string()),
        namespace: meta.namespace.clone(),
        name: meta.name.clone(),
        uid: meta.uid.clone(),
    }
}

/// An event of a describe, about the described object unless it says otherwise (a describe
/// cut to its Events block names no object: its events stay the question's own).
fn about_object(mut e: Event, about: &crate::model::ObjectRef) -> Event {
    if e.object.is_none() && about.name.is_some() {
        e.object = Some(about.clone());
    }
    e
}

/// `kubectl describe pod`: the pod and its events.
fn describe_pod(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !describe::looks_like_pod_describe(s.text) {
        return Ok(Took::Pass);
    }
    let d = describe::parse_pod(s.text).map_err(|e| s.error(e))?;
    let n = d.events.len();
    let name = d.pod.metadata.name.clone().unwrap_or_default();
    // A describe's events are its pod's: said on each, so that a second pod's describe beside
    // it is never taken for this pod's (issue 26).
    let about = object_ref("Pod", &d.pod.metadata);
    set_pod(case, d.pod);
    case.events
        .extend(d.events.into_iter().map(|e| about_object(e, &about)));
    case.notes
        .extend(d.notes.into_iter().map(|n| format!("{}: {n}", s.label)));
    Ok(Took::Read(format!(
        "kubectl describe pod {name} ({n} event(s))"
    )))
}

/// `kubectl describe pvc`: the claim and its events.
fn describe_pvc(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !describe::looks_like_pvc_describe(s.text) {
        return Ok(Took::Pass);
    }
    let (pvc, evs) = describe::parse_pvc(s.text).map_err(|e| s.error(e))?;
    let name = pvc.metadata.name.clone().unwrap_or_default();
    let about = object_ref("PersistentVolumeClaim", &pvc.metadata);
    case.add_pvc(pvc);
    case.events
        .extend(evs.into_iter().map(|e| about_object(e, &about)));
    Ok(Took::Read(format!("kubectl describe pvc {name}")))
}

/// `kubectl describe node`: the node, unless it was saved whole (`-o yaml` says more).
fn describe_node(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !crate::parse::describe_node::looks_like_node_describe(s.text) {
        return Ok(Took::Pass);
    }
    let Some(node) = crate::parse::describe_node::parse_node(s.text) else {
        return Ok(Took::Pass);
    };
    let name = node.metadata.name.clone().unwrap_or_default();
    // A node saved whole (`-o yaml`) says more than its describe.
    if !case
        .nodes
        .iter()
        .any(|n| n.metadata.name == node.metadata.name)
    {
        case.nodes.push(node);
    }
    Ok(Took::Read(format!("kubectl describe node {name}")))
}

/// `kubectl describe pv`: the volume.
fn describe_pv(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !describe::looks_like_pv_describe(s.text) {
        return Ok(Took::Pass);
    }
    let pv = describe::parse_pv(s.text).map_err(|e| s.error(e))?;
    let name = pv.metadata.name.clone().unwrap_or_default();
    case.add_pv(pv);
    Ok(Took::Read(format!("kubectl describe pv {name}")))
}

/// `kubectl get events` (its newest rows, when it is long).
fn event_table(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !events::looks_like_event_table(s.text) {
        return Ok(Took::Pass);
    }
    let (evs, skipped) =
        events::parse_event_table_bounded(s.text, Origin::EventTable).map_err(|e| s.error(e))?;
    let n = evs.len();
    if skipped > 0 {
        case.notes.push(format!(
            "the event table has {skipped} more rows than the {} newest read",
            events::MAX_EVENT_LINES
        ));
    }
    case.events.extend(evs);
    Ok(Took::Read(format!("event table ({n} event(s))")))
}

/// Event rows pasted without their header (the Events: block's lines).
fn event_rows(case: &mut Case, s: &SectionInput) -> Result<Took> {
    let text = s.text;
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let Some(ev) = events::parse_event_row(first, Origin::EventTable) else {
        return Ok(Took::Pass);
    };
    if !(text.lines().filter(|l| !l.trim().is_empty()).count() == 1 || ev.message.len() > 20) {
        return Ok(Took::Pass);
    }
    // Each line that is a row of its own starts an event; any other line continues the message
    // before it (mount output).
    let mut evs = vec![ev];
    for l in text.lines().skip_while(|l| l.trim().is_empty()).skip(1) {
        match events::parse_event_row(l, Origin::EventTable) {
            Some(next) if !l.trim().is_empty() => evs.push(next),
            _ => {
                let last = evs.last_mut().expect("one event at least");
                last.message.push('\n');
                last.message.push_str(l);
            }
        }
    }
    let n = evs.len();
    case.events.extend(evs);
    Ok(Took::Read(if n == 1 {
        "an event row".into()
    } else {
        format!("{n} event rows")
    }))
}

/// A node's command output pasted without its prompt (or shown by a log viewer or pager),
/// recognised by its own shape.
fn node_transcript_by_shape(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if s.command.is_none_or(transcripts::shows_text) {
        if let Some(kind) = transcripts::sniff(s.text) {
            if let Some(what) = add_node_transcript(case, s.label, kind, None, s.text) {
                return Ok(Took::Read(what));
            }
        }
    }
    Ok(Took::Pass)
}

/// Refused: output of chosen fields (`-o jsonpath|go-template|custom-columns`), which does not
/// say what they are.
fn chosen_fields_refused(_: &mut Case, s: &SectionInput) -> Result<Took> {
    let cmd = s.cmd;
    if ["jsonpath", "go-template", "custom-columns"]
        .iter()
        .any(|o| cmd.contains(o))
    {
        return Err(Error::input(
            s.label,
            format!("`{cmd}` prints chosen fields without saying what they are; save the objects with `kubectl get ... -o yaml` instead"),
        ));
    }
    Ok(Took::Pass)
}

/// Refused: JSON or YAML that is no Kubernetes object.
fn structured_not_kubernetes_refused(_: &mut Case, s: &SectionInput) -> Result<Took> {
    if looks_structured(s.trimmed) {
        return Err(Error::input(
            s.label,
            "is JSON/YAML but not a Kubernetes object (no apiVersion and kind); save objects with `kubectl get ... -o yaml`",
        ));
    }
    Ok(Took::Pass)
}

/// Text that reports a failure in words: a raw message, read like the kubelet's report.
fn raw_failure_message(case: &mut Case, s: &SectionInput) -> Result<Took> {
    if !FAILURE_WORDS.is_match(s.text) {
        return Ok(Took::Pass);
    }
    // `# mount -t nfs SRC DST` followed by mount's output: read it like kubelet's report.
    let text = match s
        .cmd
        .strip_prefix("sudo ")
        .unwrap_or(s.cmd)
        .strip_prefix("mount ")
    {
        Some(args) => format!(
            "Mounting command: mount\nMounting arguments: {args}\nOutput: {}",
            s.text.trim()
        ),
        None => s.text.trim().to_string(),
    };
    case.messages.push(RawMessage {
        label: format!("{} (text)", s.label),
        text,
        input: 0,
    });
    Ok(Took::Read("a raw message".into()))
}

/// JSON, or a YAML mapping/sequence (not plain prose that YAML would read as a string).
/// Prose such as `mount: wrong fs type, ...` is a one-key YAML mapping, so ask for more.
fn looks_structured(t: &str) -> bool {
    if t.starts_with('{') {
        return true;
    }
    // A JSON or YAML list; not a log whose lines start with a bracket (`kubectl logs --prefix`:
    // `[pod/NAME/CONTAINER] ...`, `[2026-11-20 10:30:00] ...`).
    if t.starts_with('[') {
        return serde_json::from_str::<serde_json::Value>(t).is_ok()
            || serde_yaml::from_str::<serde_yaml::Value>(t).is_ok_and(|v| v.is_sequence());
    }
    match serde_yaml::from_str::<serde_yaml::Value>(t) {
        // Keys of real YAML are words (`kind`, `spec`, `node-name`); prose read as YAML has
        // keys with spaces or tabs in them (`11:53:59 AM<TAB>pod<TAB>FailedMount<TAB>...
        // skipping`, from a web console's event list).
        Ok(serde_yaml::Value::Mapping(m)) => {
            let wordy = m.keys().any(|k| {
                k.as_str()
                    .is_some_and(|k| !k.is_empty() && !k.contains(char::is_whitespace))
                    || k.is_number()
            });
            wordy && (m.len() >= 2 || m.values().any(|v| v.is_mapping() || v.is_sequence()))
        }
        Ok(serde_yaml::Value::Sequence(s)) => s.iter().any(|v| v.is_mapping()),
        _ => false,
    }
}

fn merge_rbd(case: &mut Case, state: RbdImageState) {
    if let Some(existing) = case
        .rbd
        .iter_mut()
        .find(|r| r.image.is_none() || state.image.is_none() || r.image == state.image)
    {
        if existing.image.is_none() {
            existing.image = state.image;
        }
        if !state.locks.is_empty() {
            existing.locks = state.locks;
            existing.lock_kind = state.lock_kind;
        }
        if state.watchers.is_some() {
            existing.watchers = state.watchers;
        }
    } else {
        case.rbd.push(state);
    }
}

fn set_pod(case: &mut Case, pod: k8s_openapi::api::core::v1::Pod) {
    let wanted = case.pod_name.clone();
    let name = pod.metadata.name.clone();
    let is_target = match (&wanted, &name) {
        (Some(w), Some(n)) => w == n,
        _ => case.pod.is_none(),
    };
    let same_as_current =
        name.is_some() && case.pod.as_ref().and_then(|p| p.metadata.name.clone()) == name;
    if same_as_current {
        // The same pod from two inputs (describe and -o yaml): the saved object has the spec.
        let from_describe = pod.metadata.uid.is_none();
        if !from_describe {
            case.pod = Some(pod);
        }
    } else if is_target {
        case.pod_input = case.inputs.len() as u32 + 1;
        if let Some(old) = case.pod.replace(pod) {
            case.other_pods.push(old);
        }
    } else {
        case.other_pods.push(pod);
    }
}

fn add_objects(case: &mut Case, objs: Vec<KubeObject>) -> String {
    let mut kinds: Vec<String> = Vec::new();
    let mut count = |k: &str| kinds.push(k.to_string());
    for o in objs {
        match o {
            KubeObject::Pod(p) => {
                count("Pod");
                set_pod(case, *p);
            }
            KubeObject::Event(e) => {
                count("Event");
                case.events.push(e);
            }
            KubeObject::PersistentVolumeClaim(p) => {
                count("PersistentVolumeClaim");
                case.add_pvc(*p);
            }
            KubeObject::PersistentVolume(p) => {
                count("PersistentVolume");
                case.add_pv(*p);
            }
            KubeObject::StorageClass(s) => {
                count("StorageClass");
                case.storage_classes.push(*s);
            }
            KubeObject::CsiDriver(d) => {
                count("CSIDriver");
                case.csi_drivers.push(*d);
            }
            KubeObject::VolumeAttachment(v) => {
                count("VolumeAttachment");
                case.volume_attachments.push(*v);
            }
            KubeObject::Node(n) => {
                count("Node");
                case.nodes.push(*n);
            }
            KubeObject::DaemonSet(d) => {
                count("DaemonSet");
                case.add_daemonset(*d);
            }
            KubeObject::Workload(w) => {
                count(&w.kind.clone());
                case.add_workload(w);
            }
            KubeObject::CsiNode(n) => {
                count("CSINode");
                case.csi_nodes.push(*n);
            }
            KubeObject::ConfigMap(m) => {
                count("ConfigMap");
                case.configmaps.extend(m.name);
            }
            KubeObject::Secret(m) => {
                count("Secret");
                case.secrets.extend(m.name);
            }
            KubeObject::Other { kind, .. } => count(&format!("{kind} (not used)")),
        }
    }
    summarise_kinds(&kinds)
}

fn summarise_kinds(kinds: &[String]) -> String {
    let mut uniq: Vec<(String, usize)> = Vec::new();
    for k in kinds {
        match uniq.iter_mut().find(|(n, _)| n == k) {
            Some((_, c)) => *c += 1,
            None => uniq.push((k.clone(), 1)),
        }
    }
    let parts: Vec<String> = uniq
        .into_iter()
        .map(|(k, c)| if c > 1 { format!("{c} {k}") } else { k })
        .collect();
    if parts.is_empty() {
        "an empty object list".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_log_keeps_what_reading_it_whole_keeps_numbered_in_the_input() {
        // Over three stream windows, each cut into parts scanned side by side: kept lines, their
        // line numbers and the entry count are those of reading the text whole.
        let mut text = String::new();
        let mut i = 0usize;
        while text.len() < 3 * STREAM_CHUNK + 12_345 {
            i += 1;
            let line = match i % 97 {
                0 => format!(
                    "E0924 13:00:00.{i:06} 1 nestedpendingoperations.go:348] MountVolume.SetUp failed for volume \"v{i}\" : mount failed: exit status 32\nMounting command: mount\n"
                ),
                5 => format!("I0924 13:00:00.{i:06} 1 a.go:1] no word here\n  but a continuation: mount failed {i}\n"),
                7 => format!("W0924 13:00:00.{i:06} 1 b.go:2] attach of disk {i} timed out\n"),
                _ => format!("I0924 13:00:00.{i:06} 1 pod_workers.go:965] \"Processing pod event done\" pod=\"ns/p{i}\"\n"),
            };
            text.push_str(&line);
        }
        let whole = volume_entries(&text);
        assert!(
            whole.0.len() > 500 && whole.0.len() < MAX_LOG_LINES,
            "{}",
            whole.0.len()
        );
        let sources =
            read_inputs("-", u64::MAX, &mut std::io::Cursor::new(text.as_bytes())).unwrap();
        let log = sources[0].log.as_ref().expect("streamed");
        assert_eq!(log.entries, whole.1);
        assert_eq!(log.lines, text.matches('\n').count());
        let key = |l: &LogLine| (l.line_no, l.location.clone(), l.message.clone());
        let streamed: Vec<_> = log.kept.iter().map(key).collect();
        let expected: Vec<_> = whole.0.iter().map(key).collect();
        assert_eq!(streamed.len(), expected.len());
        assert!(
            streamed == expected,
            "first difference at {:?}",
            streamed.iter().zip(&expected).position(|(a, b)| a != b)
        );
    }

    #[test]
    fn volume_entries_keeps_what_the_plain_filter_keeps() {
        // The plain way: every entry whose first line has a volume word, read whole, then
        // judged by is_volume_log_line.
        let plain = |text: &str| {
            let n = std::cell::Cell::new(0);
            let kept = klog::parse_klog_prefiltered(
                text,
                |first| {
                    n.set(n.get() + 1);
                    VOLUME_WORDS.in_text_ascii_case(first.as_bytes())
                },
                is_volume_log_line,
            );
            (kept, n.get())
        };
        let long = "x".repeat(70_000);
        let text = [
            "I0924 13:00:00.000001 1 a.go:1] MountVolume.SetUp succeeded for volume \"v\"",
            "I0924 13:00:00.000002 1 a.go:2] MountVolume.SetUp failed for volume \"v\"   ",
            "E0924 13:00:00.000003 1 disk_manager.go:3] the location has a word, the line not",
            "E0924 13:00:00.000004 1 b.go:4] attach done",
            "I0924 13:00:00.000005 1 c.go:5] no word on the first line",
            "  but the continuation says: mount failed",
            "I0924 13:00:00.000006 1 c.go:6] mount ok on the first line",
            "  and the continuation: exit status 32",
            "I0924 13:00:00.000007 1 c.go:7] mount with CRLF failed\r",
            "continuation\r",
            "I0924 13:00:00.000008 1 c.go:8] ſecret mount, non-ASCII: unable",
            "I0924 13:00:00.000009 1 c.go:9] DEVICE BUSY",
            "I0924 13:00:00.000010 1 c.go:10] device bu\u{17f}y (a regex-only failure word)",
            &format!("I0924 13:00:00.000011 1 c.go:11] volume {long} failed"),
            &format!("I0924 13:00:00.000012 1 c.go:12] volume failed {long}"),
            "",
            "I0924 13:00:00.000013 1 c.go:13] claim is fine",
            "",
            "  ",
            "Sep 24 13:56:09 w01 kubelet[123]: E0924 13:56:09.1 123 m.go:219] Mount failed",
            "Sep 24 13:56:09 w01 kubelet[123]: Mounting command: mount",
            "Sep 24 13:56:09 w01 systemd[1]: Started Session 5.",
            "Sep 24 13:56:09 w01 kubelet[123]: I0924 13:56:10.2 123 a.go:1] nfs timed out",
        ]
        .join("\n");
        // Every way of cutting it into two windows, as the stream does.
        let lines: Vec<&str> = text.split('\n').collect();
        for cut in 0..=lines.len() {
            for part in [lines[..cut].join("\n"), lines[cut..].join("\n")] {
                assert_eq!(volume_entries(&part), plain(&part), "{part:?}");
            }
        }
        let (kept, n) = volume_entries(&text);
        assert_eq!(n, 15);
        let kept: Vec<&str> = kept.iter().filter_map(|l| l.location.as_deref()).collect();
        // c.go:5 has its volume word in a continuation only; c.go:11's failure word is past
        // the 64 KiB cap; c.go:13 and the systemd line are no failures.
        assert_eq!(
            kept,
            [
                "a.go:2", "b.go:4", "c.go:6", "c.go:7", "c.go:8", "c.go:9", "c.go:10", "c.go:12",
                "m.go:219", "a.go:1"
            ]
        );
    }

    #[test]
    fn a_web_pages_typography_is_undone() {
        assert_eq!(
            plain_typography("by external provisioner \u{201C}k8s.io/minikube-hostpath\u{201D} isn\u{2019}t\u{00A0}ready".into()),
            "by external provisioner \"k8s.io/minikube-hostpath\" isn't ready"
        );
        let plain = "nothing to change".to_string();
        assert_eq!(plain_typography(plain.clone()), plain);
    }

    #[test]
    fn a_quoted_paste_is_read_as_what_it_quotes() {
        let q = "> Events:\n>   Type     Reason       Age   From     Message\n>\n>   Warning  FailedMount  1m    kubelet  MountVolume.SetUp failed\n".to_string();
        assert_eq!(
            unquote(q),
            "Events:\n  Type     Reason       Age   From     Message\n\n  Warning  FailedMount  1m    kubelet  MountVolume.SetUp failed\n"
        );
        // YAML with a folded scalar keeps its `>`.
        let y = "kind: ConfigMap\ndata:\n  a: >\n    text\n".to_string();
        assert_eq!(unquote(y.clone()), y);
    }

    #[test]
    fn volume_words_are_the_regex_they_always_were() {
        assert_eq!(
            VOLUME_WORDS.regex().as_str(),
            r"(?i)volume|mount|attach|rbd|nfs|csi|iscsi|claim|disk|device|subpath|hostpath|configmap|secret|gluster|ceph|cifs|smb|fuse|pvc|persistentvolume|fsck|mkfs|xfs|ext4|multipath|flexvolume|lun"
        );
    }

    #[test]
    fn transcripts_split_at_prompts() {
        let t = "# rbd lock list mioss/index-api-image\nThere is 1 exclusive lock on this image.\nLocker ID Address\nclient.24128 kubelet_lock_magic_node1 10.47.136.60:0/1864102866\n";
        let s = sections(t);
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].command.as_deref(),
            Some("rbd lock list mioss/index-api-image")
        );
        assert!(s[0].body.starts_with("There is 1"));
        let image = RBD_IMAGE_ARG
            .captures(s[0].command.as_deref().unwrap())
            .unwrap();
        assert_eq!(&image[1], "mioss/index-api-image");

        let two = "[root@k8s-master-01 opt]# kubectl get pod -n x\nNAME READY\n[root@k8s-master-01 opt]# kubectl describe pv nfs211\nName: nfs211\n";
        let s = sections(two);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].command.as_deref(), Some("kubectl describe pv nfs211"));
    }

    #[test]
    fn yaml_comments_are_not_prompts() {
        let s = sections("# a comment\napiVersion: v1\nkind: Pod\n");
        assert_eq!(s.len(), 1);
        assert!(s[0].command.is_none());
    }

    #[test]
    fn decode_refuses_binary_and_other_encodings_but_tolerates_rare_damage() {
        assert!(decode("x", vec![])
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(decode("x", b" \n\t".to_vec()).is_err());
        assert!(decode("x", vec![0, 1, 2, 3])
            .unwrap_err()
            .to_string()
            .contains("binary"));
        let latin1 = b"caf\xe9 mount failed".to_vec();
        assert!(decode("x", latin1)
            .unwrap_err()
            .to_string()
            .contains("not UTF-8"));
        let mut log = "E0216 13:59:27.393946 1159 x.go:1] failed\n"
            .repeat(1000)
            .into_bytes();
        log.push(0xff);
        assert!(decode("x", log).is_ok());
    }

    #[test]
    fn rbd_lock_rows_from_commands_are_merged_per_image() {
        let mut case = Case::default();
        merge_rbd(
            &mut case,
            RbdImageState {
                image: Some("p/i".into()),
                ..Default::default()
            },
        );
        merge_rbd(
            &mut case,
            RbdImageState {
                image: Some("p/i".into()),
                watchers: Some(vec![]),
                ..Default::default()
            },
        );
        assert_eq!(case.rbd.len(), 1);
        assert_eq!(case.rbd[0].watchers, Some(vec![]));
    }
}
