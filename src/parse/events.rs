//! Event tables as kubectl prints them: the Events section of `kubectl describe`, `kubectl get
//! events` (plain, `-A`, `-o wide`, and the pre-1.14 column order) and the 1.5-era table.
//!
//! Rows are read with a small token grammar per layout instead of column offsets, because pasted
//! tables often have their runs of spaces collapsed (or lose every line break).
//!
//! Conventions: `source` is today's `component, host`; the 1.5-era `{kubelet 10.46.181.146}` is
//! stored without braces as `kubelet 10.46.181.146`, and a dangling `kubelet,` as `kubelet`.
//! `count` comes from `(xN over ...)` or a Count column, and is None otherwise. Multi-line
//! messages keep their line breaks, lose the indentation common to their continuation lines, and
//! drop blank lines. Layouts come from
//! kubectl's printers: `DescribeEvents` in kubernetes/kubectl pkg/describe/describe.go and
//! `printEvent`/`EventColumnDefinitions` in kubernetes/kubernetes pkg/printers/internalversion.

use std::sync::LazyLock;

use regex::Regex;

use crate::error::ParseError;
use crate::model::{Event, ObjectRef, Origin};

const WHAT: &str = "event table";

/// One cell of a row, in the order a layout prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    /// The age shown as the event's age: `8m49s`, `<unknown>`, `3s (x4 over 9s)`.
    LastSeen,
    /// A second age column that volmnt does not keep (FirstSeen).
    FirstSeen,
    /// An integer count.
    Count,
    /// Involved object's name (pre-1.14 `get events`).
    ObjectName,
    /// Involved object's kind (pre-1.14 `get events`).
    ObjectKind,
    /// `kind/name` (today's `get events`).
    Object,
    /// Field path such as `spec.containers{app}`; often empty, so optional.
    Subobject,
    /// `Normal` or `Warning`.
    Type,
    Reason,
    /// `kubelet, node1`, `kubelet`, `{kubelet 10.46.181.146}`.
    Source,
    /// The message: everything up to the next row (or the trailing cells).
    Message,
    /// The Event object's own name (last column of `-o wide`).
    EventName,
}

/// A table layout: its header words and the grammar of its rows.
struct Layout {
    /// Header words, upper-cased, with `LAST SEEN` / `FIRST SEEN` merged into one word.
    header: &'static [&'static str],
    /// Cells up to and including the message.
    cells: &'static [Cell],
    /// Cells printed after the message (`-o wide` only).
    trailing: &'static [Cell],
}

use Cell::*;

/// Every layout volmnt reads; a leading NAMESPACE column is handled separately.
static LAYOUTS: &[Layout] = &[
    // kubectl describe, 1.6 onwards.
    Layout {
        header: &["TYPE", "REASON", "AGE", "FROM", "MESSAGE"],
        cells: &[Type, Reason, LastSeen, Source, Message],
        trailing: &[],
    },
    // kubectl describe / get events, 1.5.
    Layout {
        header: &[
            "FIRSTSEEN",
            "LASTSEEN",
            "COUNT",
            "FROM",
            "SUBOBJECTPATH",
            "TYPE",
            "REASON",
            "MESSAGE",
        ],
        cells: &[
            FirstSeen, LastSeen, Count, Source, Subobject, Type, Reason, Message,
        ],
        trailing: &[],
    },
    // kubectl describe before 1.5: no Type column.
    Layout {
        header: &[
            "FIRSTSEEN",
            "LASTSEEN",
            "COUNT",
            "FROM",
            "SUBOBJECTPATH",
            "REASON",
            "MESSAGE",
        ],
        cells: &[
            FirstSeen, LastSeen, Count, Source, Subobject, Reason, Message,
        ],
        trailing: &[],
    },
    // kubectl get events -o wide, 1.14 onwards.
    Layout {
        header: &[
            "LASTSEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRSTSEEN",
            "COUNT",
            "NAME",
        ],
        cells: &[LastSeen, Type, Reason, Object, Subobject, Source, Message],
        trailing: &[FirstSeen, Count, EventName],
    },
    // kubectl get events (and kubectl events), 1.14 onwards.
    Layout {
        header: &["LASTSEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        cells: &[LastSeen, Type, Reason, Object, Message],
        trailing: &[],
    },
    // kubectl get events, 1.5 to 1.13.
    Layout {
        header: &[
            "LASTSEEN",
            "FIRSTSEEN",
            "COUNT",
            "NAME",
            "KIND",
            "SUBOBJECT",
            "TYPE",
            "REASON",
            "SOURCE",
            "MESSAGE",
        ],
        cells: &[
            LastSeen, FirstSeen, Count, ObjectName, ObjectKind, Subobject, Type, Reason, Source,
            Message,
        ],
        trailing: &[],
    },
];

/// The describe layout, also used for a single pasted row.
fn describe_layout() -> &'static Layout {
    &LAYOUTS[0]
}

/// A single age as kubectl's HumanDuration prints it, or a placeholder for a missing time.
static AGE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:<unknown>|<invalid>|\d+(?:ms|[smhdy])(?:\d+(?:ms|[smhdy]))*)$")
        .expect("age regex")
});
/// `(x4` of `(x4 over 9s)`.
static SERIES_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\(x(\d+)$").expect("series regex"));
/// A node name or address after `kubelet, `; lower case because node names are DNS names.
static HOST_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|[0-9a-f:]*:[0-9a-f:.]+)$").expect("host")
});
/// An event reason: CamelCase in practice.
static REASON_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9_.-]*$").expect("reason regex"));
/// A field path of the Subobject column.
static SUBOBJECT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?:spec|status|metadata)\.\S*|[A-Za-z]\w*\{[^}]*\})$").expect("subobject")
});
/// A shell prompt line that ends a pasted table: `[root@host dir]# ...`, `user@host:~$ ...`.
static PROMPT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[[^\]\s]+@[^\]]+\]\s*[#$]|[\w.-]+@[\w.-]+:\S*[#$](?:\s|$))").expect("prompt")
});

/// A whitespace-separated token of the input, with where it sits.
#[derive(Debug, Clone, Copy)]
struct Tok {
    start: usize,
    end: usize,
    /// 0-based line number.
    line: usize,
    /// First token of its line.
    line_start: bool,
}

/// Splits text into tokens; offsets are always on char boundaries.
fn tokenize(text: &str) -> Vec<Tok> {
    let mut toks = Vec::new();
    let mut line = 0;
    let mut line_has_tok = false;
    let mut cur: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = cur.take() {
                toks.push(Tok {
                    start: s,
                    end: i,
                    line,
                    line_start: !line_has_tok,
                });
                line_has_tok = true;
            }
            if c == '\n' {
                line += 1;
                line_has_tok = false;
            }
        } else if cur.is_none() {
            cur = Some(i);
        }
    }
    if let Some(s) = cur {
        toks.push(Tok {
            start: s,
            end: text.len(),
            line,
            line_start: !line_has_tok,
        });
    }
    toks
}

/// Where a header was found and which layout it names.
struct HeaderHit {
    layout: &'static Layout,
    namespaced: bool,
    /// Token index of the header's first word.
    first: usize,
    /// Token index just past the header (and its dashed underline).
    data: usize,
}

/// Matches one header word list at token `i`, merging `LAST SEEN` into `LASTSEEN`.
/// Returns the token index after the header.
fn match_words(text: &str, toks: &[Tok], mut i: usize, words: &[&str]) -> Option<usize> {
    for w in words {
        let t = toks.get(i)?;
        let s = &text[t.start..t.end];
        if s.eq_ignore_ascii_case(w) {
            i += 1;
            continue;
        }
        // `LAST SEEN` / `FIRST SEEN` printed as two words.
        let (a, b) = match *w {
            "LASTSEEN" => ("LAST", "SEEN"),
            "FIRSTSEEN" => ("FIRST", "SEEN"),
            _ => return None,
        };
        let t2 = toks.get(i + 1)?;
        if s.eq_ignore_ascii_case(a) && text[t2.start..t2.end].eq_ignore_ascii_case(b) {
            i += 2;
        } else {
            return None;
        }
    }
    Some(i)
}

/// The header starting at token `i`, if any.
fn header_at(text: &str, toks: &[Tok], i: usize) -> Option<HeaderHit> {
    let first = toks.get(i)?;
    let namespaced = text[first.start..first.end].eq_ignore_ascii_case("NAMESPACE");
    let start = if namespaced { i + 1 } else { i };
    for layout in LAYOUTS {
        let Some(mut end) = match_words(text, toks, start, layout.header) else {
            continue;
        };
        // No two layouts share a full header prefix, so the first match is the layout.
        // Skip the dashed underline (`----`, or `───` in kubectl before 1.5).
        while let Some(t) = toks.get(end) {
            if text[t.start..t.end].chars().all(|c| c == '-' || c == '─') {
                end += 1;
            } else {
                break;
            }
        }
        return Some(HeaderHit {
            layout,
            namespaced,
            first: i,
            data: end,
        });
    }
    None
}

/// Every header in the text, in order.
fn find_headers(text: &str, toks: &[Tok]) -> Vec<HeaderHit> {
    let mut hits = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // Cheap pre-filter: every header starts with one of these words.
        let s = &text[toks[i].start..toks[i].end];
        let plausible = ["TYPE", "FIRSTSEEN", "LAST", "LASTSEEN", "NAMESPACE"]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w));
        if plausible {
            if let Some(hit) = header_at(text, toks, i) {
                i = hit.data;
                hits.push(hit);
                continue;
            }
        }
        i += 1;
    }
    hits
}

/// True when the text holds a known event table header.
pub fn looks_like_event_table(text: &str) -> bool {
    // The header is near the top: sniff the first lines only, not a whole million-row table.
    let head = match memchr::memchr_iter(b'\n', text.as_bytes()).nth(200) {
        Some(i) => &text[..i],
        None => text,
    };
    let toks = tokenize(head);
    !find_headers(head, &toks).is_empty()
}

/// The cells of one row, before the message is cut out.
#[derive(Debug, Default)]
struct RowCells {
    kind: Option<String>,
    reason: String,
    age: Option<String>,
    count: Option<u32>,
    source: Option<String>,
    source_host: Option<String>,
    namespace: Option<String>,
    object_kind: Option<String>,
    object_name: Option<String>,
}

/// How strictly a row is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Rows start at line starts and their cells sit on one line.
    Lines,
    /// Line breaks are lost: rows may start anywhere.
    Stream,
    /// A single pasted describe row: Age and From may be missing.
    Relaxed,
}

/// Reads row cells at token `i`; returns them and the token index where the message starts.
fn parse_row_at(
    text: &str,
    toks: &[Tok],
    i: usize,
    layout: &Layout,
    namespaced: bool,
    mode: Mode,
) -> Option<(RowCells, usize)> {
    let row_line = toks.get(i)?.line;
    // In line mode every cell before the message must be on the row's own line.
    let get = |j: usize| -> Option<&str> {
        let t = toks.get(j)?;
        if mode != Mode::Stream && t.line != row_line {
            return None;
        }
        Some(&text[t.start..t.end])
    };
    // Tidy rows separate columns by two or more spaces; collapsed ones by one.
    let tidy = match (toks.get(i), toks.get(i + 1)) {
        (Some(a), Some(b)) if a.line == b.line => b.start.saturating_sub(a.end) >= 2,
        _ => false,
    };
    let mut cells = RowCells::default();
    let mut j = i;
    if namespaced {
        let ns = get(j)?;
        if !HOST_RE.is_match(ns) {
            return None;
        }
        cells.namespace = Some(ns.to_string());
        j += 1;
    }
    for cell in layout.cells {
        match cell {
            EventName => {
                get(j)?;
                j += 1;
            }
            LastSeen => {
                if mode == Mode::Relaxed && get(j).is_none_or(|s| !AGE_RE.is_match(s)) {
                    // A pasted row without Age and From: the message follows the reason.
                    return Some((cells, j));
                }
                let (next, age, count) = take_age(&get, j)?;
                cells.age = Some(age);
                if count.is_some() {
                    cells.count = count;
                }
                j = next;
            }
            FirstSeen => {
                if !AGE_RE.is_match(get(j)?) {
                    return None;
                }
                j += 1;
            }
            Count => {
                cells.count = Some(get(j)?.parse().ok()?);
                j += 1;
            }
            ObjectName => {
                cells.object_name = Some(get(j)?.to_string());
                j += 1;
            }
            ObjectKind => {
                cells.object_kind = Some(get(j)?.to_string());
                j += 1;
            }
            Object => {
                let s = get(j)?;
                match s.split_once('/') {
                    Some((k, n)) => {
                        cells.object_kind = Some(kind_from_lower(k));
                        cells.object_name = Some(n.to_string());
                    }
                    None => cells.object_kind = Some(kind_from_lower(s)),
                }
                j += 1;
            }
            Subobject => {
                if get(j).is_some_and(|s| SUBOBJECT_RE.is_match(s)) {
                    j += 1;
                }
            }
            Type => {
                let s = get(j)?;
                if s != "Normal" && s != "Warning" {
                    return None;
                }
                cells.kind = Some(s.to_string());
                j += 1;
            }
            Reason => {
                let s = get(j)?;
                if !REASON_RE.is_match(s) {
                    return None;
                }
                cells.reason = s.to_string();
                j += 1;
            }
            Source => match take_source(toks, &get, j, tidy) {
                Some((next, source, host)) => {
                    cells.source = Some(source);
                    cells.source_host = host;
                    j = next;
                }
                None if mode == Mode::Relaxed => return Some((cells, j)),
                None => return None,
            },
            Message => return Some((cells, j)),
        }
    }
    Some((cells, j))
}

/// Reads an age, with an optional `(xN over AGE)` series suffix.
fn take_age<'a>(
    get: &impl Fn(usize) -> Option<&'a str>,
    j: usize,
) -> Option<(usize, String, Option<u32>)> {
    let first = get(j)?;
    if !AGE_RE.is_match(first) {
        return None;
    }
    if let (Some(a), Some("over"), Some(c)) = (get(j + 1), get(j + 2), get(j + 3)) {
        let n = SERIES_RE
            .captures(a)
            .and_then(|m| m.get(1))
            .and_then(|m| m.as_str().parse::<u32>().ok());
        let over_ok = c
            .strip_suffix(')')
            .is_some_and(|inner| AGE_RE.is_match(inner));
        if let (Some(n), true) = (n, over_ok) {
            return Some((j + 4, format!("{first} {a} over {c}"), Some(n)));
        }
    }
    Some((j + 1, first.to_string(), None))
}

/// Reads the From/SOURCE cell; returns the next token index, the source and the node.
fn take_source<'a>(
    toks: &[Tok],
    get: &impl Fn(usize) -> Option<&'a str>,
    j: usize,
    tidy: bool,
) -> Option<(usize, String, Option<String>)> {
    let first = get(j)?;
    if first.starts_with('{') {
        // 1.5-era `{kubelet 10.46.181.146}` or `{default-scheduler }`: up to the closing brace.
        let mut parts = Vec::new();
        for k in j..j + 4 {
            let s = get(k)?;
            parts.push(s);
            if s.ends_with('}') {
                let joined = parts.join(" ");
                let inner = joined.trim_start_matches('{').trim_end_matches('}');
                let words: Vec<&str> = inner.split_whitespace().collect();
                words.first()?;
                let host = words.get(1).map(|h| h.to_string());
                return Some((k + 1, words.join(" "), host));
            }
        }
        return None;
    }
    if !first.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    if let Some(component) = first.strip_suffix(',') {
        // `kubelet, node1`; `kubelet,` alone when the host was cut from the paste.
        if let Some(host) = get(j + 1).filter(|h| HOST_RE.is_match(h)) {
            let gap_after = match (toks.get(j + 1), toks.get(j + 2)) {
                (Some(h), Some(n)) if n.line == h.line => n.start.saturating_sub(h.end),
                _ => usize::MAX,
            };
            // In a tidy row the host is followed by a column gap, not a single space.
            if !tidy || gap_after >= 2 {
                let source = format!("{component}, {host}");
                return Some((j + 2, source, Some(host.to_string())));
            }
        }
        return Some((j + 1, component.to_string(), None));
    }
    if let Some((component, host)) = first.split_once(',') {
        if !host.is_empty() && HOST_RE.is_match(host) {
            return Some((
                j + 1,
                format!("{component}, {host}"),
                Some(host.to_string()),
            ));
        }
    }
    Some((j + 1, first.to_string(), None))
}

/// `persistentvolumeclaim` → `PersistentVolumeClaim`, as `get events` lower-cases kinds.
fn kind_from_lower(lower: &str) -> String {
    const KINDS: &[&str] = &[
        "Pod",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "Node",
        "VolumeAttachment",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "ReplicaSet",
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CronJob",
        "ReplicationController",
        "Service",
        "Endpoints",
        "ConfigMap",
        "Secret",
        "Namespace",
        "Ingress",
        "HorizontalPodAutoscaler",
    ];
    if let Some(k) = KINDS.iter().find(|k| k.eq_ignore_ascii_case(lower)) {
        return (*k).to_string();
    }
    let mut chars = lower.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Turns the raw message slice into the message: continuation lines keep their breaks, lose
/// their common indentation, and blank lines are dropped.
fn clean_message(raw: &str) -> String {
    let mut lines = raw.split('\n').map(|l| l.trim_end());
    let first = lines.next().unwrap_or("").trim();
    let rest: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    let indent = rest
        .iter()
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count())
        .min()
        .unwrap_or(0);
    let mut out = String::from(first);
    for l in rest {
        // `indent` counts whitespace chars, so skipping that many chars stays on boundaries.
        let body: String = l.chars().skip(indent).collect();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&body);
    }
    out
}

/// Parses every event table in the text (header-driven); an error when no header is found.
pub fn parse_event_table(text: &str, origin: Origin) -> Result<Vec<Event>, ParseError> {
    parse_event_table_bounded(text, origin).map(|(events, _)| events)
}

/// At most this many table lines are read: the header and the newest rows (both `kubectl
/// describe` and `kubectl get events` print the newest last). A million-row table would
/// otherwise cost gigabytes for rows that say the same thing.
pub const MAX_EVENT_LINES: usize = 20_000;

/// [`parse_event_table`], and how many lines past [`MAX_EVENT_LINES`] were skipped (the oldest
/// rows), so the caller can say so.
pub fn parse_event_table_bounded(
    text: &str,
    origin: Origin,
) -> Result<(Vec<Event>, usize), ParseError> {
    let (text, skipped) = newest_rows(text);
    let events = parse_event_table_all(&text, origin)?;
    Ok((events, skipped))
}

/// The table's first lines up to its header (and the dashes under it), then its last
/// [`MAX_EVENT_LINES`] lines; the number of lines left out between.
fn newest_rows(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    if lines <= MAX_EVENT_LINES + 64 {
        return (std::borrow::Cow::Borrowed(text), 0);
    }
    // The header: the first line naming the columns (both layouts have Reason and Message).
    let mut head_end = 0;
    for (n, line) in text.split_inclusive('\n').enumerate().take(64) {
        head_end += line.len();
        let l = line.to_ascii_lowercase();
        if l.contains("reason") && l.contains("message") {
            // and the dashes under it, when there are
            let rest = &text[head_end..];
            if let Some(next) = rest.split_inclusive('\n').next() {
                if next.trim_start().starts_with("----") {
                    head_end += next.len();
                }
            }
            let _ = n;
            break;
        }
    }
    let head_end = head_end.min(text.len());
    // The start of the last MAX_EVENT_LINES lines.
    let mut tail_start = text.len();
    let mut seen = 0;
    for i in memchr::memrchr_iter(b'\n', &text.as_bytes()[head_end..]) {
        if i + head_end + 1 >= text.len() {
            continue; // a trailing newline ends the last line
        }
        seen += 1;
        tail_start = head_end + i + 1;
        if seen == MAX_EVENT_LINES {
            break;
        }
    }
    let skipped_text = &text[head_end..tail_start];
    let skipped = memchr::memchr_iter(b'\n', skipped_text.as_bytes()).count();
    let mut out = String::with_capacity(head_end + text.len() - tail_start);
    out.push_str(&text[..head_end]);
    out.push_str(&text[tail_start..]);
    (std::borrow::Cow::Owned(out), skipped)
}

fn parse_event_table_all(text: &str, origin: Origin) -> Result<Vec<Event>, ParseError> {
    let toks = tokenize(text);
    let headers = find_headers(text, &toks);
    if headers.is_empty() {
        return Err(ParseError::new(
            WHAT,
            "no event table header found (expected e.g. `Type Reason Age From Message` or \
             `LAST SEEN TYPE REASON OBJECT MESSAGE`)",
        ));
    }
    let mut events = Vec::new();
    for (n, hit) in headers.iter().enumerate() {
        let end = headers.get(n + 1).map_or(toks.len(), |h| h.first);
        events.extend(parse_region(text, &toks, hit, end, origin));
    }
    Ok(events)
}

/// Parses the rows between a header and `end` (a token index).
fn parse_region(
    text: &str,
    toks: &[Tok],
    hit: &HeaderHit,
    end: usize,
    origin: Origin,
) -> Vec<Event> {
    let data = hit.data.min(end);
    // Rows on the header's own line mean the line breaks were lost.
    let mode = match (toks.get(hit.first), toks.get(data)) {
        (Some(h), Some(d)) if data < end && h.line == d.line => Mode::Stream,
        _ => Mode::Lines,
    };
    let end = if mode == Mode::Lines {
        prompt_cut(text, toks, data, end)
    } else {
        end
    };
    let mut rows: Vec<(usize, RowCells, usize)> = Vec::new();
    let mut i = data;
    while i < end {
        if mode == Mode::Lines && !toks[i].line_start {
            i += 1;
            continue;
        }
        match parse_row_at(text, &toks[..end], i, hit.layout, hit.namespaced, mode) {
            Some((cells, msg)) => {
                rows.push((i, cells, msg));
                // A row cannot start inside its own cells.
                i = msg.max(i + 1);
            }
            None => i += 1,
        }
    }
    let mut events = Vec::with_capacity(rows.len());
    for (n, (_, cells, msg)) in rows.iter().enumerate() {
        let msg_end = rows.get(n + 1).map_or(end, |r| r.0);
        events.push(build_event(
            text, toks, cells, *msg, msg_end, hit.layout, origin,
        ));
    }
    events
}

/// The first line start (at or after `from`) that is a shell prompt, else `end`.
fn prompt_cut(text: &str, toks: &[Tok], from: usize, end: usize) -> usize {
    (from..end)
        .find(|&i| {
            let t = toks[i];
            t.line_start && {
                let line_end = text[t.start..]
                    .find('\n')
                    .map_or(text.len(), |p| t.start + p);
                PROMPT_RE.is_match(&text[t.start..line_end])
            }
        })
        .unwrap_or(end)
}

/// Builds the Event of one row whose message spans tokens `msg..msg_end`.
fn build_event(
    text: &str,
    toks: &[Tok],
    cells: &RowCells,
    msg: usize,
    mut msg_end: usize,
    layout: &Layout,
    origin: Origin,
) -> Event {
    let mut count = cells.count;
    if !layout.trailing.is_empty() {
        if let Some((cut, c)) = take_trailing(text, toks, msg, msg_end, layout.trailing) {
            msg_end = cut;
            count = count.or(c);
        }
    }
    let message = if msg < msg_end {
        clean_message(&text[toks[msg].start..toks[msg_end - 1].end])
    } else {
        String::new()
    };
    let object = (cells.object_kind.is_some() || cells.object_name.is_some()).then(|| ObjectRef {
        kind: cells.object_kind.clone(),
        namespace: cells.namespace.clone(),
        name: cells.object_name.clone(),
        uid: None,
    });
    Event {
        kind: cells.kind.clone(),
        reason: cells.reason.clone(),
        message,
        source: cells.source.clone(),
        source_host: cells.source_host.clone(),
        count,
        age: cells.age.clone(),
        first_seen: None,
        last_seen: None,
        object,
        origin,
        input: 0,
    }
}

/// Reads the cells printed after the message (`-o wide`) from the end of the row.
/// Returns where the message ends and the count found there.
fn take_trailing(
    text: &str,
    toks: &[Tok],
    msg: usize,
    msg_end: usize,
    trailing: &[Cell],
) -> Option<(usize, Option<u32>)> {
    let start = msg_end.checked_sub(trailing.len())?;
    if start < msg {
        return None;
    }
    let mut count = None;
    for (k, cell) in trailing.iter().enumerate() {
        let t = toks.get(start + k)?;
        let s = &text[t.start..t.end];
        match cell {
            FirstSeen if !AGE_RE.is_match(s) => return None,
            Count => count = Some(s.parse::<u32>().ok()?),
            _ => {}
        }
    }
    Some((start, count))
}

/// Parses one row in today's describe layout, without a header (a pasted row). Lines after the
/// first continue the message. Age and From may be missing. None when it is not such a row.
pub fn parse_event_row(line: &str, origin: Origin) -> Option<Event> {
    let toks = tokenize(line);
    let layout = describe_layout();
    let (cells, msg) = parse_row_at(line, &toks, 0, layout, false, Mode::Relaxed)?;
    // A row is `Type Reason ...`: both must be there, with a capitalised reason.
    if cells.kind.is_none() || !cells.reason.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let event = build_event(line, &toks, &cells, msg, toks.len(), layout, origin);
    (!event.message.is_empty()).then_some(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K15: &str = include_str!("../../fixtures/seed/rbd-describe-events-k8s15.txt");
    const POD: &str = include_str!("../../fixtures/seed/nfs-describe-pod.txt");
    const CORPUS: &str = include_str!("../../fixtures/corpus/real-mount-failures.yaml");

    /// The Events section of the tidy NFS describe.
    fn nfs_events_section() -> &'static str {
        let at = POD.find("\nEvents:").expect("fixture has Events");
        &POD[at + "\nEvents:".len()..]
    }

    #[test]
    fn describe_table_keeps_multiline_message() {
        let ev = parse_event_table(nfs_events_section(), Origin::Describe).unwrap();
        assert_eq!(ev.len(), 2);
        for e in &ev {
            assert_eq!(e.kind.as_deref(), Some("Warning"));
            assert_eq!(e.reason, "FailedMount");
            assert_eq!(e.source.as_deref(), Some("kubelet, node1"));
            assert_eq!(e.source_host.as_deref(), Some("node1"));
            assert_eq!(e.count, None);
            assert_eq!(e.origin, Origin::Describe);
        }
        assert_eq!(ev[0].age.as_deref(), Some("8m49s"));
        assert_eq!(ev[1].age.as_deref(), Some("8m48s"));
        let m = &ev[0].message;
        assert!(m.starts_with("MountVolume.SetUp failed for volume \"nfs211\" : mount failed"));
        assert!(m.contains("\nMounting command: systemd-run\nMounting arguments: --description=Kubernetes transient mount for"));
        assert!(m.contains("mount -t nfs 10.20.172.211:/nfs"));
        // mount(8)'s own indentation is kept; the blank line is dropped.
        assert!(m.contains(",\n       missing codepage or helper program, or other error\n"));
        assert!(m.contains("helper program)\n       In some cases"));
        assert!(m.ends_with("dmesg | tail or so."));
        assert_eq!(
            ev[1].message,
            "MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32"
        );
    }

    #[test]
    fn k15_table() {
        assert!(looks_like_event_table(K15));
        let ev = parse_event_table(K15, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0].reason, "Scheduled");
        assert_eq!(ev[0].kind.as_deref(), Some("Normal"));
        assert_eq!(ev[0].source.as_deref(), Some("default-scheduler"));
        assert_eq!(ev[0].source_host, None);
        assert_eq!(ev[0].age.as_deref(), Some("2m"));
        assert!(ev[0]
            .message
            .starts_with("Successfully assigned index-api-3362878852-9tm9j"));
        for e in &ev[1..] {
            assert_eq!(e.kind.as_deref(), Some("Warning"));
            assert_eq!(e.source.as_deref(), Some("kubelet 10.46.181.146"));
            assert_eq!(e.source_host.as_deref(), Some("10.46.181.146"));
            assert_eq!(e.count, Some(1));
            assert!(e
                .message
                .contains("list of unattached/unmounted volumes=[index-api-pv]"));
        }
        assert_eq!(ev[1].reason, "FailedMount");
        assert_eq!(ev[2].reason, "FailedSync");
        assert!(ev[2]
            .message
            .starts_with("Error syncing pod, skipping: timeout expired"));
    }

    #[test]
    fn pre_15_table_without_type() {
        let text = "\
FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tReason\t\tMessage
  ─────────\t────────\t─────\t────\t\t\t─────────────\t──────\t\t───────
  1m\t\t1m\t\t1\t{scheduler }\t\t\t\t\tScheduled\tSuccessfully assigned web-1 to node-3
  45s\t\t10s\t\t4\t{kubelet node-3}\t\t\t\tFailedMount\tUnable to mount volumes for pod \"web-1\": timeout
";
        let ev = parse_event_table(text, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[1].kind, None);
        assert_eq!(ev[1].reason, "FailedMount");
        assert_eq!(ev[1].count, Some(4));
        assert_eq!(ev[1].age.as_deref(), Some("10s"));
        assert_eq!(ev[1].source_host.as_deref(), Some("node-3"));
        assert_eq!(
            ev[1].message,
            "Unable to mount volumes for pod \"web-1\": timeout"
        );
    }

    // Shapes from kubectl's printEvent (pkg/printers/internalversion/printers.go):
    // LAST SEEN, TYPE, REASON, OBJECT (lower-case kind/name), MESSAGE; -o wide adds SUBOBJECT,
    // SOURCE before MESSAGE and FIRST SEEN, COUNT, NAME after it; -A adds NAMESPACE first.
    const GET_EVENTS: &str = "\
LAST SEEN   TYPE      REASON               OBJECT                                   MESSAGE
12m         Normal    Scheduled            pod/web-0                                Successfully assigned shop/web-0 to worker-2
2m3s        Warning   FailedAttachVolume   pod/web-0                                Multi-Attach error for volume \"pvc-7a81d56f\" Volume is already exclusively attached to one node and can't be attached to another
95s         Warning   FailedMount          pod/web-0                                Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-x2f9q]: timed out waiting for the condition
5m (x3 over 12m)  Normal  ExternalProvisioning  persistentvolumeclaim/data-web-0  waiting for a volume to be created, either by external provisioner \"rbd.csi.ceph.com\" or manually created by system administrator
";

    #[test]
    fn get_events_plain() {
        assert!(looks_like_event_table(GET_EVENTS));
        let ev = parse_event_table(GET_EVENTS, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 4);
        let obj = ev[1].object.as_ref().unwrap();
        assert_eq!(obj.kind.as_deref(), Some("Pod"));
        assert_eq!(obj.name.as_deref(), Some("web-0"));
        assert_eq!(obj.namespace, None);
        assert_eq!(ev[1].reason, "FailedAttachVolume");
        assert_eq!(ev[1].age.as_deref(), Some("2m3s"));
        assert_eq!(ev[1].source, None);
        assert!(ev[1].message.starts_with("Multi-Attach error"));
        let pvc = ev[3].object.as_ref().unwrap();
        assert_eq!(pvc.kind.as_deref(), Some("PersistentVolumeClaim"));
        assert_eq!(ev[3].count, Some(3));
        assert_eq!(ev[3].age.as_deref(), Some("5m (x3 over 12m)"));
    }

    #[test]
    fn get_events_all_namespaces_collapsed() {
        let text = "NAMESPACE LAST SEEN TYPE REASON OBJECT MESSAGE\n\
                    shop 95s Warning FailedMount pod/web-0 MountVolume.MountDevice failed for volume \"pvc-1\" : rpc error: code = Internal desc = exit status 32\n\
                    kube-system 3m Normal Pulled pod/csi-rbdplugin-abcde Container image already present on machine\n";
        let ev = parse_event_table(text, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 2);
        let obj = ev[0].object.as_ref().unwrap();
        assert_eq!(obj.namespace.as_deref(), Some("shop"));
        assert_eq!(obj.name.as_deref(), Some("web-0"));
        assert_eq!(
            ev[1].object.as_ref().unwrap().namespace.as_deref(),
            Some("kube-system")
        );
    }

    #[test]
    fn get_events_wide() {
        let text = "\
LAST SEEN   TYPE      REASON        OBJECT      SUBOBJECT                SOURCE                MESSAGE                                                        FIRST SEEN   COUNT   NAME
3m          Warning   FailedMount   pod/web-0                            kubelet, worker-2     MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32   40m          19      web-0.17a2b3c4d5e6f789
10m         Normal    Pulling       pod/web-1   spec.containers{nginx}   kubelet, worker-1     Pulling image \"nginx\"                                          10m          1       web-1.17a2b3c4d5e6f790
";
        let ev = parse_event_table(text, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].count, Some(19));
        assert_eq!(ev[0].source.as_deref(), Some("kubelet, worker-2"));
        assert_eq!(ev[0].source_host.as_deref(), Some("worker-2"));
        assert_eq!(
            ev[0].message,
            "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32"
        );
        assert_eq!(ev[1].count, Some(1));
        assert_eq!(ev[1].message, "Pulling image \"nginx\"");
    }

    #[test]
    fn get_events_pre_114_layout() {
        // kubectl 1.5 to 1.13 printed LASTSEEN FIRSTSEEN COUNT NAME KIND SUBOBJECT TYPE REASON SOURCE MESSAGE.
        let text = "\
LAST SEEN   FIRST SEEN   COUNT     NAME                     KIND      SUBOBJECT   TYPE      REASON        SOURCE            MESSAGE
1m          1h           31        mysql-0                  Pod                   Warning   FailedMount   kubelet, node-a   Unable to mount volumes for pod \"mysql-0_db\": timeout expired waiting for volumes to attach/mount
";
        let ev = parse_event_table(text, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].count, Some(31));
        assert_eq!(ev[0].age.as_deref(), Some("1m"));
        assert_eq!(ev[0].source_host.as_deref(), Some("node-a"));
        let obj = ev[0].object.as_ref().unwrap();
        assert_eq!(
            (obj.kind.as_deref(), obj.name.as_deref()),
            (Some("Pod"), Some("mysql-0"))
        );
    }

    #[test]
    fn flattened_describe_events_stream() {
        let text = "Type Reason Age From Message ---- ------ ---- ---- ------- Warning FailedMount 8m49s kubelet, node1 MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32 Mounting command: systemd-run Output: mount: bad option\nIn some cases useful info is found in syslog - try dmesg | tail or so. Warning FailedMount 8m48s kubelet, node1 MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32\n";
        let ev = parse_event_table(text, Origin::Describe).unwrap();
        assert_eq!(ev.len(), 2);
        assert!(ev[0].message.ends_with("dmesg | tail or so."));
        assert_eq!(ev[1].source_host.as_deref(), Some("node1"));
    }

    #[test]
    fn no_header_is_an_error_and_empty_table_is_empty() {
        assert!(parse_event_table("just some text", Origin::Raw).is_err());
        assert!(!looks_like_event_table("Type Status\nReady True"));
        let ev = parse_event_table(
            "  Type  Reason  Age  From  Message\n  ----  ------  ---  ----  -------\n",
            Origin::Describe,
        )
        .unwrap();
        assert!(ev.is_empty());
    }

    #[test]
    fn table_ends_at_shell_prompt() {
        let text = "LAST SEEN   TYPE      REASON        OBJECT      MESSAGE\n\
                    3m          Warning   FailedMount   pod/web-0   MountVolume.SetUp failed\n\
                    [root@master ~]# kubectl get pvc\n\
                    NAME STATUS VOLUME\n";
        let ev = parse_event_table(text, Origin::EventTable).unwrap();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].message, "MountVolume.SetUp failed");
    }

    /// The `text:` fields of corpus entries that are single rows in today's describe layout.
    fn corpus_rows() -> Vec<String> {
        let docs: serde_yaml::Value = serde_yaml::from_str(CORPUS).unwrap();
        docs.as_sequence()
            .unwrap()
            .iter()
            .filter_map(|d| d.get("text").and_then(|t| t.as_str()).map(str::to_string))
            .filter(|t| t.starts_with("Warning ") || t.starts_with("Warning\t"))
            .collect()
    }

    #[test]
    fn corpus_rows_parse() {
        let rows = corpus_rows();
        assert!(rows.len() >= 10, "corpus rows: {}", rows.len());
        for r in &rows {
            let e = parse_event_row(r, Origin::Raw).unwrap_or_else(|| panic!("row: {r}"));
            assert_eq!(e.kind.as_deref(), Some("Warning"), "{r}");
            assert!(!e.message.is_empty(), "{r}");
            // The message never begins with a column value.
            assert!(!e.message.starts_with("kubelet"), "{r}");
        }
    }

    #[test]
    fn single_rows() {
        let e = parse_event_row("Warning  FailedMount             3s (x4 over 9s)  kubelet                  MountVolume.MountDevice failed for volume \"pvc-95794d96\" : rpc error", Origin::Raw).unwrap();
        assert_eq!(e.count, Some(4));
        assert_eq!(e.age.as_deref(), Some("3s (x4 over 9s)"));
        assert_eq!(e.source.as_deref(), Some("kubelet"));
        assert_eq!(e.source_host, None);
        assert!(e.message.starts_with("MountVolume.MountDevice failed"));

        let e = parse_event_row("Warning  FailedAttachVolume  83s (x5 over 91s)  attachdetach-controller  AttachVolume.Attach failed for volume \"pvc-47b8628b\" : node \"worker01\" has no NodeID annotation", Origin::Raw).unwrap();
        assert_eq!(e.reason, "FailedAttachVolume");
        assert_eq!(e.source.as_deref(), Some("attachdetach-controller"));
        assert_eq!(e.count, Some(5));

        // `kubelet,` with the host cut out of the paste.
        let e = parse_event_row("Warning  FailedMount  94s (x13 over 11m)  kubelet, MountVolume.NewMounter initialization failed for volume \"pvc-4121ec0e\" : path \"/data/openebs/local/pvc-4121ec0e\" does not exist", Origin::Raw).unwrap();
        assert_eq!(e.source.as_deref(), Some("kubelet"));
        assert_eq!(e.source_host, None);
        assert!(e
            .message
            .starts_with("MountVolume.NewMounter initialization failed"));

        let e = parse_event_row("Warning  FailedMount             1s (x3 over 3s)  kubelet, ip-172-31-16-243.ec2.internal  MountVolume.SetUp failed for volume \"pvc-43edb969ce3511e8\" : rpc error: code = Unknown desc = executable file not found in $PATH", Origin::Raw).unwrap();
        assert_eq!(
            e.source_host.as_deref(),
            Some("ip-172-31-16-243.ec2.internal")
        );

        let e = parse_event_row("Warning  FailedAttachVolume      71s   attachdetach-controller  Multi-Attach error for volume \"pvc-7a81d56f\" Volume is already exclusively attached to one node and can't be attached to another", Origin::Raw).unwrap();
        assert_eq!(e.count, None);
        assert_eq!(e.age.as_deref(), Some("71s"));

        // Tab-separated, no Age or From, message on the following lines.
        let e = parse_event_row("Warning\t\tFailedMount\nMountVolume.SetUp failed for volume \"pvc-a4e6099d\" : \nrbd: image k8s-dynamic-pvc-a4e6 is locked by other nodes", Origin::Raw).unwrap();
        assert_eq!(e.reason, "FailedMount");
        assert_eq!(e.age, None);
        assert_eq!(e.source, None);
        assert_eq!(
            e.message,
            "MountVolume.SetUp failed for volume \"pvc-a4e6099d\" :\nrbd: image k8s-dynamic-pvc-a4e6 is locked by other nodes"
        );

        // Collapsed whitespace with a host.
        let e = parse_event_row("Warning FailedMount 45s kubelet, 113-node01 MountVolume.SetUp failed for volume \"gluster-volume-0\"", Origin::Raw).unwrap();
        assert_eq!(e.source_host.as_deref(), Some("113-node01"));
        assert_eq!(
            e.message,
            "MountVolume.SetUp failed for volume \"gluster-volume-0\""
        );
    }

    #[test]
    fn not_rows() {
        for t in [
            "",
            "MountVolume.SetUp failed for volume \"x\"",
            "Warning FailedMount",
            "Warning: something odd",
            "Normal lowercase reason text",
            "I0421 00:02:55.574912 1 attacher.go:104] Attach volume",
        ] {
            assert!(parse_event_row(t, Origin::Raw).is_none(), "{t:?}");
        }
    }
}
