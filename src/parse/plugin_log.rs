//! A CSI node plugin's log as `kubectl logs` prints it (or as the API's pods/log serves it):
//! klog lines (`E0406 18:38:06.196268 3608220 utils.go:80] GRPC error: ...`), JSON lines of
//! klog's JSON format (`{"ts":1764190800.123,"caller":"node.go:88","msg":"...","err":"..."}`),
//! zap or logrus (`{"level":"error","ts":"...","msg":"..."}`), or plain text (a mount helper's
//! output the plugin copied through). Lines printed with `--timestamps` or copied from a log
//! viewer (`Thu, Apr 6 2023 2:38:39 pm | E0406 ...`) are read behind that prefix. A line that
//! starts no entry continues the previous one, as in klog.

use serde_json::Value;

use crate::model::LogLine;
use crate::parse::klog;

/// Longest message kept for one entry, in bytes (a plugin's entry with a mount's output is a
/// few KiB; the rest of a runaway dump is cut).
pub const MAX_MESSAGE: usize = 16 * 1024;

/// Every entry of a plugin's log, numbered from `first_line` (1-based).
pub fn parse(text: &str, first_line: usize) -> Vec<LogLine> {
    let mut out: Vec<LogLine> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let n = first_line + i;
        match entry(line, n) {
            Some(l) => out.push(l),
            None => match out.last_mut() {
                // A continuation: mount's output, a stack trace.
                Some(prev) if prev.message.len() < MAX_MESSAGE => {
                    prev.message.push('\n');
                    prev.message.push_str(strip_viewer_prefix(line).trim_end());
                    cap(&mut prev.message);
                }
                Some(_) => {}
                None => out.push(plain(line, n)),
            },
        }
    }
    out
}

/// One line as an entry of its own (klog, JSON, or plain text when it is neither).
pub fn parse_line(line: &str, line_no: usize) -> LogLine {
    entry(line, line_no).unwrap_or_else(|| plain(line, line_no))
}

fn plain(line: &str, line_no: usize) -> LogLine {
    let mut message = strip_viewer_prefix(line).trim_end().to_string();
    cap(&mut message);
    LogLine {
        line_no,
        message,
        ..LogLine::default()
    }
}

fn cap(m: &mut String) {
    if m.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !m.is_char_boundary(end) {
            end -= 1;
        }
        m.truncate(end);
        m.push_str("\n… (truncated)");
    }
}

/// A line that starts an entry: klog (plain, or behind a journal/CRI prefix, an RFC 3339
/// timestamp from `--timestamps`, or a log viewer's `... | `), or a JSON object with a message.
fn entry(line: &str, line_no: usize) -> Option<LogLine> {
    let body = strip_viewer_prefix(line);
    if let Some(l) = klog::parse_klog_line(body, line_no) {
        return Some(l);
    }
    let t = body.trim_start();
    if t.starts_with('{') {
        return json_entry(t, line_no);
    }
    None
}

/// `2026-11-26T21:54:02.452270541Z ` (kubectl logs --timestamps) and a viewer's
/// `Thu, Apr 6 2023 2:38:39 pm | ` before the line.
fn strip_viewer_prefix(line: &str) -> &str {
    // `kubectl logs --prefix`: `[pod/NAME/CONTAINER] `, before any stamp of --timestamps.
    let line = klog::kubectl_logs_prefix(line).map_or(line, |(_, rest)| rest);
    if let Some(rest) = klog::after_stamp(line) {
        return rest;
    }
    if let Some(i) = line.find(" | ") {
        let head = &line[..i];
        if head.len() <= 40 && head.bytes().any(|c| c.is_ascii_digit()) && !head.contains('{') {
            return &line[i + 3..];
        }
    }
    line
}

/// Fields that are the entry's frame, not its content.
const FRAME: &[&str] = &[
    "ts",
    "time",
    "timestamp",
    "@timestamp",
    "level",
    "lvl",
    "severity",
    "caller",
    "msg",
    "message",
    "v",
    "logger",
];

/// Whether a text with no prompt is a structured log (zap, logrus, klog's JSON): its first
/// non-empty line is a JSON object with a message and a level or a time. A Kubernetes object
/// saved as JSON has neither, so it is not taken for one.
pub fn looks_like_json_log(text: &str) -> bool {
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    if !first.starts_with('{') || !first.ends_with('}') {
        return false;
    }
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first) else {
        return false;
    };
    !o.contains_key("apiVersion")
        && ["msg", "message"]
            .iter()
            .any(|k| o.get(*k).is_some_and(Value::is_string))
        && [
            "level",
            "lvl",
            "severity",
            "ts",
            "time",
            "timestamp",
            "@timestamp",
        ]
        .iter()
        .any(|k| o.contains_key(*k))
}

fn json_entry(t: &str, line_no: usize) -> Option<LogLine> {
    let v: Value = serde_json::from_str(t).ok()?;
    let obj = v.as_object()?;
    let msg = ["msg", "message"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))?;
    let level = ["level", "lvl", "severity"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_ascii_lowercase);
    let has_err = obj.contains_key("err") || obj.contains_key("error");
    let severity = match level.as_deref() {
        Some(l) if l.starts_with("err") => Some('E'),
        Some(l) if l.starts_with("warn") => Some('W'),
        Some(l) if l.starts_with("fatal") || l.starts_with("panic") || l.starts_with("crit") => {
            Some('F')
        }
        Some(_) => Some('I'),
        // klog's JSON format has no level: ErrorS writes `err`, InfoS a verbosity `v`.
        None if has_err => Some('E'),
        None => Some('I'),
    };
    let timestamp = ["ts", "time", "timestamp", "@timestamp"]
        .iter()
        .find_map(|k| obj.get(*k))
        .map(|x| match x {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    // The structured fields carry what a klog line writes inline (`volume_id=vol-0abc`):
    // kept after the message (in key order), so a search for the volume finds them.
    let mut message = msg.to_string();
    let mut fields: Vec<(&String, &Value)> = obj
        .iter()
        .filter(|(k, _)| !FRAME.contains(&k.as_str()))
        .collect();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    for (k, val) in fields {
        let s = match val {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        message.push_str(&format!(" {k}={s}"));
    }
    cap(&mut message);
    Some(LogLine {
        line_no,
        severity,
        timestamp,
        location: obj
            .get("caller")
            .and_then(Value::as_str)
            .map(str::to_string),
        message,
        ..LogLine::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klog_lines_and_their_continuations() {
        // blob-csi-driver's node plugin (fixtures/cases/blob-csi-driver-868/plugin.log), as a
        // log viewer printed it: a time, ` | `, the line.
        let text = "E0406 18:38:06.196268 3608220 utils.go:80] GRPC error: rpc error: code = Aborted desc = An operation with the given Volume ID x already exists\n\
Thu, Apr 6 2023 2:38:39 pm | E0406 18:38:39.298706 3608220 nodeserver.go:371] rpc error: code = Internal desc = Mount failed with error: exit status 255, output: Unable to start blobfuse. DNS server lookup failed errno=6\n\
Thu, Apr 6 2023 2:38:39 pm | Unable to start blobfuse due to authentication or connectivity issues.\n";
        let l = parse(text, 1);
        assert_eq!(l.len(), 2, "{l:#?}");
        assert_eq!(l[0].severity, Some('E'));
        assert_eq!(l[0].location.as_deref(), Some("utils.go:80"));
        assert_eq!(l[1].location.as_deref(), Some("nodeserver.go:371"));
        assert!(l[1].message.ends_with(
            "errno=6\nUnable to start blobfuse due to authentication or connectivity issues."
        ));
        assert_eq!(l[1].line_no, 2);
    }

    #[test]
    fn json_lines_keep_their_fields() {
        // klog's JSON format (k8s.io/component-base/logs/json): no level, `err` on ErrorS.
        let l = parse_line(
            r#"{"ts":1764190800.123,"caller":"node.go:88","msg":"NodeStageVolume failed","volume_id":"vol-0abc","err":"exit status 32"}"#,
            4,
        );
        assert_eq!(l.severity, Some('E'));
        assert_eq!(l.location.as_deref(), Some("node.go:88"));
        assert_eq!(l.timestamp.as_deref(), Some("1764190800.123"));
        assert_eq!(
            l.message,
            "NodeStageVolume failed err=exit status 32 volume_id=vol-0abc"
        );
        // zap (the level is a word).
        let z = parse_line(
            r#"{"level":"warn","ts":"2024-05-01T10:00:00.000Z","msg":"retrying mount","target":"/var/lib/kubelet/pods/u/volumes"}"#,
            1,
        );
        assert_eq!(z.severity, Some('W'));
        assert!(z.message.contains("target=/var/lib/kubelet/pods/u/volumes"));
    }

    #[test]
    fn timestamps_prefixes_and_plain_text() {
        let l = parse_line("2026-11-26T21:54:02.452270541Z E1126 21:00:09.000001       1 nodeserver.go:120] GRPC error: mount failed", 1);
        assert_eq!(l.location.as_deref(), Some("nodeserver.go:120"));
        let p = parse("mount.nfs: Connection timed out\nsecond line\n", 1);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].severity, None);
        assert_eq!(p[0].message, "mount.nfs: Connection timed out\nsecond line");
        // `kubectl logs --prefix --timestamps`: both read past.
        let l = parse_line("[pod/csi-node-x/nfs] 2026-11-26T21:54:02.452270541Z E1126 21:00:09.000001       1 nodeserver.go:120] GRPC error: mount failed", 1);
        assert_eq!(l.location.as_deref(), Some("nodeserver.go:120"));
        let p = parse("[pod/n/c] E1126 21:00:09.000001       1 a.go:1] GRPC error\n[pod/n/c] Output: mount.nfs: Connection timed out\n", 1);
        assert_eq!(p.len(), 1);
        assert_eq!(
            p[0].message,
            "GRPC error\nOutput: mount.nfs: Connection timed out"
        );
        // Not JSON after all: plain text.
        assert_eq!(parse_line("{not json", 1).message, "{not json");
    }

    #[test]
    fn a_runaway_entry_is_cut() {
        let mut text = String::from("E0406 18:38:06.196268 1 a.go:1] dump\n");
        for _ in 0..2000 {
            text.push_str(&"x".repeat(100));
            text.push('\n');
        }
        let l = parse(&text, 1);
        assert_eq!(l.len(), 1);
        assert!(l[0].message.len() <= MAX_MESSAGE + 200);
        assert!(l[0].message.ends_with("(truncated)"));
    }
}
