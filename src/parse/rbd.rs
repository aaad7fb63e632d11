//! Output of the Ceph CLI about who holds an RBD image: `rbd lock ls`, `rbd status` and
//! `ceph osd blocklist ls`, each as text or `--format json`.
//!
//! Shapes follow real captures from Ceph 16.2.15 (fixtures/ceph/) and the 2017 incident
//! (fixtures/seed/rbd-lock-list.txt). A pasted shell-prompt line before the output is skipped,
//! and for `rbd lock ls` it tells which image the listing is about.

use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ParseError;
use crate::model::{RbdImageState, RbdLock, RbdWatcher};

const LOCK_LS: &str = "rbd lock ls";
const STATUS: &str = "rbd status";
const BLOCKLIST: &str = "ceph osd blocklist ls";

/// One `ceph osd blocklist ls` entry: a client address, or a CIDR range (Pacific and later).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlocklistEntry {
    /// `127.0.0.1:0/3911761368`, or for a range `127.0.0.2:0/32` (without the text's `cidr:`).
    pub addr: String,
    /// Expiry as printed (`2026-11-21T12:41:35.430474+0000`; older releases print a space).
    pub until: Option<String>,
    /// A `range` entry (text `cidr:`) rather than a single client address.
    pub is_range: bool,
}

/// Parses `rbd lock ls` output (text or JSON, old object-keyed JSON too); empty output means
/// no locks.
pub fn parse_lock_list(text: &str) -> Result<RbdImageState, ParseError> {
    let (body, command, skipped) = strip_prompt(text);
    let image = command.and_then(image_in_command);
    let (trimmed, lead) = json_start(body, skipped);
    let mut state = if trimmed.starts_with('[') || trimmed.starts_with('{') {
        lock_list_json(trimmed, lead)?
    } else {
        lock_list_text(body, skipped)?
    };
    state.image = image;
    Ok(state)
}

/// Parses `rbd status` output (text or JSON) into the image's watchers.
pub fn parse_status(text: &str) -> Result<Vec<RbdWatcher>, ParseError> {
    let (body, _, skipped) = strip_prompt(text);
    let (trimmed, lead) = json_start(body, skipped);
    if trimmed.starts_with('{') {
        status_json(trimmed, lead)
    } else {
        status_text(body, skipped)
    }
}

/// Parses `ceph osd blocklist ls` (or the older `blacklist ls`) output, text or JSON.
pub fn parse_blocklist(text: &str) -> Result<Vec<BlocklistEntry>, ParseError> {
    let (body, _, skipped) = strip_prompt(text);
    let (trimmed, lead) = json_start(body, skipped);
    if trimmed.starts_with('[') {
        blocklist_json(trimmed, lead)
    } else {
        blocklist_text(body, skipped)
    }
}

/// The Ceph release (major version) of the monitors, from `ceph versions --format json`
/// (`{"mon": {"ceph version 15.2.17 (<sha>) octopus (stable)": 3}, ...}`: the highest mon
/// version, since the monitors decide which commands exist), or from a `ceph version` /
/// `ceph --version` line (`ceph version 16.2.15 (<sha>) pacific (stable)`). `None` when the text
/// names no version.
pub fn parse_ceph_release(text: &str) -> Option<u32> {
    static VERSION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"ceph version (\d+)\.(\d+)\.(\d+)").expect("static regex"));
    let majors = |t: &str| -> Option<u32> {
        VERSION
            .captures_iter(t)
            .filter_map(|c| c[1].parse::<u32>().ok())
            .max()
    };
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(trimmed) {
            if let Some(Value::Object(mons)) = m.get("mon") {
                let keys: Vec<&str> = mons.keys().map(String::as_str).collect();
                return majors(&keys.join("\n"));
            }
            if let Some(Value::Object(all)) = m.get("overall") {
                let keys: Vec<&str> = all.keys().map(String::as_str).collect();
                return majors(&keys.join("\n"));
            }
        }
    }
    majors(text)
}

/// Splits `pool/image` or `pool/namespace/image` into its parts; `None` for anything else.
///
/// Parts are limited to characters that are safe to print in a suggested shell command:
/// letters, digits and `._-+:=`, not starting with `-` (it would read as an option).
pub fn parse_image_spec(spec: &str) -> Option<(String, Option<String>, String)> {
    let parts: Vec<&str> = spec.split('/').collect();
    if !parts.iter().all(|p| is_spec_part(p)) {
        return None;
    }
    match parts.as_slice() {
        [pool, image] => Some((pool.to_string(), None, image.to_string())),
        [pool, ns, image] => Some((pool.to_string(), Some(ns.to_string()), image.to_string())),
        _ => None,
    }
}

fn is_spec_part(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('-')
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+:=".contains(c))
}

// ---------------------------------------------------------------------------------------------
// Shared

/// `# rbd lock list mioss/index-api-image`, `$ sudo rbd status kube/img1`,
/// `[root@ceph-1 ~]# ceph osd blocklist ls`: a prompt, then an rbd or ceph command.
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:\[[^\]\n]*\]|[\w.@:~/-]*)\s*[#$%>]\s*(?:sudo\s+)?(?P<cmd>\S*(?:rbd|ceph)\s.*)$",
    )
    .expect("prompt regex")
});

/// Drops a leading pasted prompt line; returns the rest, the command, and the lines dropped.
fn strip_prompt(text: &str) -> (&str, Option<&str>, usize) {
    let lead = text.len() - text.trim_start_matches(['\n', '\r', ' ', '\t']).len();
    let rest = &text[lead..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let first = rest[..end].trim_end_matches('\r');
    match PROMPT.captures(first) {
        Some(caps) => {
            let skipped = text[..lead].matches('\n').count() + 1;
            let cmd = caps.name("cmd").map(|m| m.as_str());
            (rest.get(end + 1..).unwrap_or(""), cmd, skipped)
        }
        None => (text, None, 0),
    }
}

/// The image spec named in an `rbd lock ls|list` command line, if it is a full `pool/image`.
fn image_in_command(cmd: &str) -> Option<String> {
    // Options taking a value, so that the value is not taken for the image.
    const WITH_VALUE: &[&str] = &[
        "--format",
        "-p",
        "--pool",
        "--namespace",
        "--image",
        "--cluster",
        "--id",
        "-n",
        "--name",
        "-c",
        "--conf",
        "--keyring",
        "-k",
        "-m",
        "--mon_host",
    ];
    let mut words = cmd
        .split_whitespace()
        .skip_while(|w| !matches!(*w, "ls" | "list"));
    words.next()?;
    let mut skip_next = false;
    for w in words {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if WITH_VALUE.contains(&w) {
            skip_next = true;
        } else if !w.starts_with('-') && parse_image_spec(w).is_some() {
            return Some(w.to_string());
        }
    }
    None
}

/// Non-empty lines with their 1-based line numbers (counting lines dropped before `text`).
fn numbered_lines(text: &str, skipped: usize) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(move |(i, l)| (i + 1 + skipped, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// `127.0.0.1:0/3911761368`, `[v2:10.0.0.1:0/1,v1:...]`, `[::1]:0/42`: has a port or nonce.
fn looks_like_addr(s: &str) -> bool {
    s.contains(':') && s.contains('/') && !s.chars().any(char::is_whitespace)
}

/// The JSON part of a body and how many lines precede it, for error line numbers.
fn json_start(body: &str, skipped: usize) -> (&str, usize) {
    let trimmed = body.trim();
    let lead = body[..body.len() - body.trim_start().len()]
        .matches('\n')
        .count();
    (trimmed, skipped + lead)
}

fn json_error(what: &'static str, e: &serde_json::Error, lead: usize) -> ParseError {
    // serde's text ends in `at line L column C`, relative to the JSON; say the line once,
    // counted from the start of the input.
    let full = e.to_string();
    let msg = full
        .rfind(" at line ")
        .map_or(full.as_str(), |i| &full[..i]);
    ParseError::new(what, format!("invalid JSON: {msg} (column {})", e.column()))
        .at(e.line() + lead)
}

// ---------------------------------------------------------------------------------------------
// rbd lock ls

/// One lock as `rbd lock ls --format json` prints it (Nautilus and later).
#[derive(Deserialize)]
struct JsonLock {
    id: String,
    locker: String,
    address: String,
}

/// A lock in the older object-keyed JSON (`{"<id>": {"locker": ..., "address": ...}}`).
#[derive(Deserialize)]
struct KeyedLock {
    locker: String,
    address: String,
}

fn lock_list_json(text: &str, lead: usize) -> Result<RbdImageState, ParseError> {
    let value: Value = serde_json::from_str(text).map_err(|e| json_error(LOCK_LS, &e, lead))?;
    let locks = match value {
        Value::Array(items) => items
            .into_iter()
            .map(|i| serde_json::from_value::<JsonLock>(i).map(|l| (l.id, l.locker, l.address)))
            .collect::<Result<Vec<_>, _>>(),
        Value::Object(map) => map
            .into_iter()
            .map(|(id, v)| {
                serde_json::from_value::<KeyedLock>(v).map(|l| (id, l.locker, l.address))
            })
            .collect(),
        _ => {
            return Err(ParseError::new(
                LOCK_LS,
                "JSON is neither a list of locks nor an object keyed by lock id",
            ))
        }
    }
    .map_err(|e| ParseError::new(LOCK_LS, format!("unexpected lock entry: {e}")))?;
    let locks = locks
        .into_iter()
        .map(|(id, locker, address)| RbdLock {
            id,
            locker,
            address,
            // The JSON says neither the lock type nor the tag (only the text header does).
            lock_type: None,
            tag: None,
        })
        .collect();
    Ok(RbdImageState {
        locks,
        ..RbdImageState::default()
    })
}

/// `There is 1 exclusive lock on this image.` / `There are 2 shared locks on this image.`
static LOCK_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^There (?:is|are) (\d+) (exclusive|shared) locks? on this image\.?$")
        .expect("lock header regex")
});
/// The column header row, whatever the padding.
static COLUMNS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Locker\s+ID\s+Address$").expect("columns regex"));

fn lock_list_text(text: &str, skipped: usize) -> Result<RbdImageState, ParseError> {
    let mut state = RbdImageState::default();
    let mut announced: Option<usize> = None;
    let mut tag: Option<String> = None;
    let mut in_table = false;
    for (no, line) in numbered_lines(text, skipped) {
        if let Some(caps) = LOCK_HEADER.captures(line) {
            announced = caps[1].parse().ok();
            state.lock_kind = Some(caps[2].to_string());
        } else if let Some(t) = line.strip_prefix("Lock tag:") {
            tag = Some(t.trim().to_string()).filter(|t| !t.is_empty());
        } else if COLUMNS.is_match(line) {
            in_table = true;
        } else if in_table {
            state.locks.push(lock_row(line).ok_or_else(|| {
                ParseError::new(
                    LOCK_LS,
                    format!("not a lock row (locker id address): {line:?}"),
                )
                .at(no)
            })?);
        } else {
            return Err(ParseError::new(
                LOCK_LS,
                format!("not `rbd lock ls` output: unexpected line {line:?}"),
            )
            .at(no));
        }
    }
    check_lock_count(announced, state.locks.len())?;
    for lock in &mut state.locks {
        lock.lock_type = state.lock_kind.clone();
        lock.tag = tag.clone();
    }
    Ok(state)
}

/// `client.4174  kubelet_lock_magic_node1  127.0.0.1:0/3911761368`: the locker is the first
/// word and the address the last; the id is everything between (`rbd lock add` accepts any
/// string, spaces included).
fn lock_row(line: &str) -> Option<RbdLock> {
    let (locker, rest) = line.split_once(char::is_whitespace)?;
    let (id, address) = rest.trim().rsplit_once(char::is_whitespace)?;
    let id = id.trim();
    if !locker.starts_with("client.") || id.is_empty() || !looks_like_addr(address) {
        return None;
    }
    Some(RbdLock {
        id: id.to_string(),
        locker: locker.to_string(),
        address: address.to_string(),
        lock_type: None,
        tag: None,
    })
}

/// A listing cut short (or padded) would misstate who holds the image, so it is refused.
fn check_lock_count(announced: Option<usize>, rows: usize) -> Result<(), ParseError> {
    match announced {
        Some(n) if n != rows => Err(ParseError::new(
            LOCK_LS,
            format!("the header announces {n} lock(s) but {rows} row(s) follow: output cut short?"),
        )),
        None if rows > 0 => Err(ParseError::new(
            LOCK_LS,
            "lock rows without the `There is/are N ... lock(s)` header",
        )),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// rbd status

#[derive(Deserialize)]
struct JsonStatus {
    watchers: Vec<JsonWatcher>,
}

#[derive(Deserialize)]
struct JsonWatcher {
    address: String,
    /// A number (`4194`) in Pacific; accepted as a string too.
    client: Option<Value>,
    cookie: Option<u64>,
}

fn status_json(text: &str, lead: usize) -> Result<Vec<RbdWatcher>, ParseError> {
    let status: JsonStatus =
        serde_json::from_str(text).map_err(|e| json_error(STATUS, &e, lead))?;
    Ok(status
        .watchers
        .into_iter()
        .map(|w| RbdWatcher {
            address: w.address,
            client: w.client.as_ref().and_then(client_name),
            cookie: w.cookie,
        })
        .collect())
}

/// `4194` or `"4194"` → `client.4194`; `"client.4194"` as is.
fn client_name(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(format!("client.{n}")),
        Value::String(s) if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() => {
            Some(format!("client.{s}"))
        }
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// `watcher=127.0.0.1:0/110396212 client.4194 cookie=94143661549776`
static WATCHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^watcher=(\S+)(?:\s+(client\.\S+))?(?:\s+cookie=(\d+))?\s*$")
        .expect("watcher regex")
});

fn status_text(text: &str, skipped: usize) -> Result<Vec<RbdWatcher>, ParseError> {
    let mut watchers = Vec::new();
    let mut seen_header = false;
    for (no, line) in numbered_lines(text, skipped) {
        if let Some(rest) = line.strip_prefix("Watchers:") {
            seen_header = true;
            let rest = rest.trim();
            if !rest.is_empty() && rest != "none" {
                return Err(ParseError::new(STATUS, format!("unexpected {line:?}")).at(no));
            }
        } else if line.starts_with("watcher=") {
            let caps = WATCHER.captures(line).ok_or_else(|| {
                ParseError::new(STATUS, format!("unreadable watcher line {line:?}")).at(no)
            })?;
            watchers.push(RbdWatcher {
                address: caps[1].to_string(),
                client: caps.get(2).map(|m| m.as_str().to_string()),
                cookie: caps.get(3).and_then(|m| m.as_str().parse().ok()),
            });
        } else if !seen_header {
            return Err(ParseError::new(
                STATUS,
                format!("not `rbd status` output: unexpected line {line:?}"),
            )
            .at(no));
        }
        // Later releases add sections after the watchers (migration, mirroring): not needed.
    }
    if !seen_header {
        return Err(ParseError::new(STATUS, "no `Watchers:` line"));
    }
    Ok(watchers)
}

// ---------------------------------------------------------------------------------------------
// ceph osd blocklist ls

#[derive(Deserialize)]
struct JsonBlocklistEntry {
    addr: Option<String>,
    range: Option<String>,
    until: Option<String>,
}

/// Pacific prints two arrays back to back, `[addresses][ranges]`, with no newline between or
/// after; older releases print one array. Both are read as a stream of JSON values.
fn blocklist_json(text: &str, lead: usize) -> Result<Vec<BlocklistEntry>, ParseError> {
    let mut out = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<Vec<JsonBlocklistEntry>>() {
        for e in value.map_err(|e| json_error(BLOCKLIST, &e, lead))? {
            let (addr, is_range) = match (e.addr, e.range) {
                (Some(a), _) => (a, false),
                (None, Some(r)) => (r, true),
                (None, None) => {
                    return Err(ParseError::new(
                        BLOCKLIST,
                        "entry with neither addr nor range",
                    ))
                }
            };
            out.push(BlocklistEntry {
                addr,
                until: e.until.filter(|u| !u.is_empty()),
                is_range,
            });
        }
    }
    Ok(out)
}

/// `listed 3 entries`: stderr, but often pasted along with the list.
static LISTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^listed \d+ entr(?:y|ies)$").expect("listed regex"));

fn blocklist_text(text: &str, skipped: usize) -> Result<Vec<BlocklistEntry>, ParseError> {
    let mut out = Vec::new();
    for (no, line) in numbered_lines(text, skipped) {
        if LISTED.is_match(line) {
            continue;
        }
        let (addr, until) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let (addr, is_range) = match addr.strip_prefix("cidr:") {
            Some(range) => (range, true),
            None => (addr, false),
        };
        if !looks_like_addr(addr) {
            return Err(ParseError::new(
                BLOCKLIST,
                format!("not a blocklist entry (address until): {line:?}"),
            )
            .at(no));
        }
        let until = until.trim();
        out.push(BlocklistEntry {
            addr: addr.to_string(),
            until: (!until.is_empty()).then(|| until.to_string()),
            is_range,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceph_release_is_read_from_versions_and_version() {
        // Real captures of the micro-ceph (Pacific 16.2.15); the Octopus document has the same
        // shape with Octopus's version (fixtures/README.md).
        assert_eq!(
            parse_ceph_release(include_str!(
                "../../fixtures/ceph/release-ceph-versions-json.out"
            )),
            Some(16)
        );
        assert_eq!(
            parse_ceph_release(include_str!("../../fixtures/ceph/release-ceph-version.out")),
            Some(16)
        );
        assert_eq!(
            parse_ceph_release(include_str!(
                "../../fixtures/ceph/release-ceph-versions-json-octopus.out"
            )),
            Some(15)
        );
        // The monitors decide: a cluster mid-upgrade with one Pacific mon is still Octopus for
        // none of its commands, so the highest mon version counts.
        assert_eq!(
            parse_ceph_release(
                r#"{"mon":{"ceph version 15.2.17 (x) octopus (stable)":2,"ceph version 16.2.15 (y) pacific (stable)":1},"osd":{}}"#
            ),
            Some(16)
        );
        assert_eq!(
            parse_ceph_release("ceph version 14.2.22 (ca74598) nautilus (stable)"),
            Some(14)
        );
        assert_eq!(parse_ceph_release("Error EACCES: access denied"), None);
        assert_eq!(parse_ceph_release("{}"), None);
        // Pacific still answers the old word, with the same JSON.
        assert!(parse_blocklist(include_str!(
            "../../fixtures/ceph/release-osd-blacklist-ls-json-pacific.out"
        ))
        .is_ok());
    }

    macro_rules! ceph {
        ($name:literal) => {
            include_str!(concat!("../../fixtures/ceph/", $name))
        };
    }

    const SEED_LOCKS: &str = include_str!("../../fixtures/seed/rbd-lock-list.txt");

    fn lock(id: &str, locker: &str, address: &str) -> RbdLock {
        RbdLock {
            id: id.into(),
            locker: locker.into(),
            address: address.into(),
            lock_type: None,
            tag: None,
        }
    }

    /// What both formats state: the JSON carries no lock type or tag (Ceph's `rbd lock ls`
    /// prints them only in the text header), so those are compared separately.
    fn holders(state: &RbdImageState) -> Vec<RbdLock> {
        state
            .locks
            .iter()
            .map(|l| RbdLock {
                lock_type: None,
                tag: None,
                ..l.clone()
            })
            .collect()
    }

    fn addr(a: &str, until: &str, is_range: bool) -> BlocklistEntry {
        BlocklistEntry {
            addr: a.into(),
            until: Some(until.into()),
            is_range,
        }
    }

    #[test]
    fn json_errors_say_the_input_line() {
        let e = parse_status(
            "# rbd status kube/img1 --format json\n\n{\"watchers\": [\n  {\"address\": 5}\n]}",
        )
        .expect_err("bad address");
        assert_eq!(e.line, Some(4));
        assert!(!e.message.contains("at line"), "{e}");
    }

    #[test]
    fn seed_lock_list_2017() {
        let state = parse_lock_list(SEED_LOCKS).expect("parse");
        assert_eq!(state.image.as_deref(), Some("mioss/index-api-image"));
        assert_eq!(state.lock_kind.as_deref(), Some("exclusive"));
        assert_eq!(state.watchers, None);
        assert_eq!(
            holders(&state),
            [lock(
                "kubelet_lock_magic_node1",
                "client.24128",
                "10.47.136.60:0/1864102866"
            )]
        );
        assert_eq!(state.locks[0].lock_type.as_deref(), Some("exclusive"));
        assert_eq!(state.locks[0].tag, None);
    }

    #[test]
    fn seed_text_and_equivalent_json_agree() {
        let text = parse_lock_list(SEED_LOCKS).expect("text");
        let list = r#"[{"id":"kubelet_lock_magic_node1","locker":"client.24128","address":"10.47.136.60:0/1864102866"}]"#;
        let keyed = "\n{\n  \"kubelet_lock_magic_node1\": {\n    \"locker\": \"client.24128\",\n    \"address\": \"10.47.136.60:0/1864102866\"\n  }\n}\n";
        for json in [list, keyed] {
            let parsed = parse_lock_list(json).expect("json");
            assert_eq!(holders(&parsed), holders(&text));
            assert_eq!(parsed.locks[0].lock_type, None);
            // And back: the text's locks, minus what only the text states, are the JSON's.
            assert_eq!(parsed.locks, holders(&text));
        }
    }

    #[test]
    fn capture_11_text_and_12_13_json_agree() {
        let text = parse_lock_list(ceph!("11-rbd-lock-ls.out")).expect("11");
        let expected = [lock(
            "kubelet_lock_magic_node1",
            "client.4174",
            "127.0.0.1:0/3911761368",
        )];
        assert_eq!(holders(&text), expected);
        assert_eq!(text.lock_kind.as_deref(), Some("exclusive"));
        let json = parse_lock_list(ceph!("12-rbd-lock-ls-json.out")).expect("12");
        assert_eq!(json.locks, expected);
        assert_eq!(json.locks, holders(&text));
        let pretty = parse_lock_list(ceph!("13-rbd-lock-ls-json-pretty.out")).expect("13");
        assert_eq!(pretty.locks, expected);
        assert_eq!(json.image, None);
    }

    #[test]
    fn no_locks() {
        for capture in [
            ceph!("08-rbd-lock-ls-nolock.out"),
            ceph!("09-rbd-lock-ls-nolock-json.out"),
            ceph!("35-rbd-lock-ls-after-rm.out"),
            ceph!("36-rbd-lock-ls-after-rm-json.out"),
            ceph!("67-rbd-lock-ls-after-shared-rm-json.out"),
            "\n[]\n",
            "{}",
        ] {
            let state = parse_lock_list(capture).expect("parse");
            assert!(state.locks.is_empty());
            assert_eq!(state.lock_kind, None);
        }
        let prompt_only = parse_lock_list("$ rbd lock ls kube/img1 --format json\n").expect("p");
        assert_eq!(prompt_only.image.as_deref(), Some("kube/img1"));
        assert!(prompt_only.locks.is_empty());
    }

    #[test]
    fn shared_locks_64_and_65() {
        let text = parse_lock_list(ceph!("64-rbd-lock-ls-shared.out")).expect("64");
        assert_eq!(text.lock_kind.as_deref(), Some("shared"));
        let expected = [
            lock("shared_id_1", "client.4336", "127.0.0.1:0/4263443766"),
            lock("shared_id_2", "client.4338", "127.0.0.1:0/1813509169"),
        ];
        assert_eq!(holders(&text), expected);
        assert!(text
            .locks
            .iter()
            .all(|l| l.tag.as_deref() == Some("tag1") && l.lock_type.as_deref() == Some("shared")));
        let json = parse_lock_list(ceph!("65-rbd-lock-ls-shared-json.out")).expect("65");
        assert_eq!(json.locks, expected);
    }

    #[test]
    fn lock_rows_with_odd_ids_and_spacing() {
        let text = "There are 2 shared locks on this image.\nLock tag: t\nLocker ID Address\nclient.1   my lock id   10.0.0.1:0/1\nclient.22 x [v2:10.0.0.2:3300/2,v1:10.0.0.2:6789/2]\n";
        let state = parse_lock_list(text).expect("parse");
        assert_eq!(state.locks[0].id, "my lock id");
        assert_eq!(
            state.locks[1].address,
            "[v2:10.0.0.2:3300/2,v1:10.0.0.2:6789/2]"
        );
    }

    #[test]
    fn lock_list_errors() {
        for bad in [
            "hello world",
            "Locker ID Address\nclient.1 id 10.0.0.1:0/1\n",
            "There is 1 exclusive lock on this image.\nLocker ID Address\n",
            "There is 1 exclusive lock on this image.\nLocker ID Address\nclient.1 id\n",
            "There is 1 exclusive lock on this image.\nLocker ID Address\nosd.1 id 10.0.0.1:0/1\n",
            "[1, 2]",
            "[{\"id\":\"x\"}]",
            "{\"x\": 5}",
            "[{\"id\":",
            "\"string\"",
            "\u{0}\u{1}garbage\u{fffd}",
            ceph!("21-rbd-status-watched-json.out"),
            ceph!("20-rbd-status-watched.out"),
        ] {
            let e = parse_lock_list(bad).expect_err(bad);
            assert_eq!(e.what, LOCK_LS);
        }
        let e = parse_lock_list(
            "# rbd lock ls kube/img1\nThere is 1 exclusive lock on this image.\nbogus\n",
        )
        .expect_err("bogus");
        assert_eq!(e.line, Some(3));
    }

    #[test]
    fn status_captures() {
        for capture in [
            ceph!("06-rbd-status-nowatch.out"),
            ceph!("07-rbd-status-nowatch-json.out"),
            ceph!("45-rbd-status-after-blocklist-json.out"),
        ] {
            assert_eq!(parse_status(capture).expect("parse"), []);
        }
        let expected = [RbdWatcher {
            address: "127.0.0.1:0/110396212".into(),
            client: Some("client.4194".into()),
            cookie: Some(94143661549776),
        }];
        for capture in [
            ceph!("20-rbd-status-watched.out"),
            ceph!("21-rbd-status-watched-json.out"),
            ceph!("22-rbd-status-watched-json-pretty.out"),
        ] {
            assert_eq!(parse_status(capture).expect("parse"), expected);
        }
        let stale = parse_status(ceph!("53-rbd-status-stale-watcher-json.out")).expect("53");
        assert_eq!(
            stale,
            [RbdWatcher {
                address: "127.0.0.1:0/818975550".into(),
                client: Some("client.4270".into()),
                cookie: Some(94172340491152),
            }]
        );
        let string_client =
            r#"{"watchers":[{"address":"10.0.0.1:0/1","client":"client.7","cookie":1}]}"#;
        assert_eq!(
            parse_status(string_client).expect("s")[0].client.as_deref(),
            Some("client.7")
        );
    }

    #[test]
    fn status_errors() {
        for bad in [
            "",
            "garbage",
            "Watchers: lots",
            "Watchers:\n\twatcher=",
            "{\"watchers\": 3}",
            "{}",
            "{\"watchers\":[{\"client\":1}]}",
            ceph!("12-rbd-lock-ls-json.out"),
            ceph!("11-rbd-lock-ls.out"),
        ] {
            assert_eq!(parse_status(bad).expect_err(bad).what, STATUS);
        }
    }

    #[test]
    fn blocklist_empty_captures() {
        for capture in [
            ceph!("30-osd-blocklist-ls-empty.out"),
            ceph!("31-osd-blocklist-ls-empty-json.out"),
            ceph!("50-osd-blocklist-ls-after-cleanup.out"),
            ceph!("51-osd-blacklist-ls-legacy-alias.out"),
            ceph!("69b-osd-blocklist-ls-json-after-noblock-rm.out"),
            "listed 0 entries\n",
        ] {
            assert_eq!(parse_blocklist(capture).expect("parse"), []);
        }
    }

    #[test]
    fn blocklist_after_lock_rm_38_39() {
        let expected = [addr(
            "127.0.0.1:0/3911761368",
            "2026-11-21T12:41:35.430474+0000",
            false,
        )];
        assert_eq!(
            parse_blocklist(ceph!("38-osd-blocklist-ls-after-lock-rm.out")).expect("38"),
            expected
        );
        assert_eq!(
            parse_blocklist(ceph!("39-osd-blocklist-ls-after-lock-rm-json.out")).expect("39"),
            expected
        );
        // The locker blocklisted by `rbd lock rm` is the one capture 11 listed.
        let locks = parse_lock_list(ceph!("11-rbd-lock-ls.out")).expect("11");
        assert_eq!(locks.locks[0].address, expected[0].addr);
    }

    #[test]
    fn blocklist_three_entries_42_43_44() {
        let expected = [
            addr(
                "127.0.0.1:0/12345",
                "2026-11-21T11:51:36.698816+0000",
                false,
            ),
            addr(
                "127.0.0.1:0/110396212",
                "2026-11-21T12:41:36.441656+0000",
                false,
            ),
            addr(
                "127.0.0.1:0/3911761368",
                "2026-11-21T12:41:35.430474+0000",
                false,
            ),
        ];
        for capture in [
            ceph!("42-osd-blocklist-ls.out"),
            ceph!("43-osd-blocklist-ls-json.out"),
            ceph!("44-osd-blocklist-ls-json-pretty.out"),
        ] {
            assert_eq!(parse_blocklist(capture).expect("parse"), expected);
        }
        let with_stderr = format!("{}listed 3 entries\n", ceph!("42-osd-blocklist-ls.out"));
        assert_eq!(parse_blocklist(&with_stderr).expect("stderr too"), expected);
    }

    #[test]
    fn blocklist_ranges_55_56() {
        let expected = [addr(
            "127.0.0.2:0/32",
            "2026-11-21T12:41:39.595503+0000",
            true,
        )];
        assert_eq!(
            parse_blocklist(ceph!("55-osd-blocklist-ls-with-range.out")).expect("55"),
            expected
        );
        assert_eq!(
            parse_blocklist(ceph!("56-osd-blocklist-ls-with-range-json.out")).expect("56"),
            expected
        );
    }

    #[test]
    fn blocklist_after_shared_rm_67b_and_old_format() {
        let got = parse_blocklist(ceph!("67b-osd-blocklist-ls-after-shared-rm.out")).expect("67b");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].addr, "127.0.0.1:0/1813509169");
        // Pre-Pacific `blacklist ls` printed the expiry with a space.
        let old = "# ceph osd blacklist ls\n10.47.136.60:0/1864102866 2017-02-16 15:01:27.394076\nlisted 1 entries\n";
        let got = parse_blocklist(old).expect("old");
        assert_eq!(
            got,
            [addr(
                "10.47.136.60:0/1864102866",
                "2017-02-16 15:01:27.394076",
                false
            )]
        );
    }

    #[test]
    fn blocklist_errors() {
        for bad in [
            "hello world",
            "not-an-address 2026-11-21T12:41:35.430474+0000",
            "[1][2]",
            "[{\"until\":\"x\"}]",
            "[{\"addr\":\"127.0.0.1:0/1\"}]{",
            "[][",
            "\u{0}\u{1}garbage",
            ceph!("11-rbd-lock-ls.out"),
        ] {
            assert_eq!(parse_blocklist(bad).expect_err(bad).what, BLOCKLIST);
        }
    }

    #[test]
    fn image_specs() {
        let s = |p: &str, n: Option<&str>, i: &str| {
            Some((p.to_string(), n.map(String::from), i.to_string()))
        };
        assert_eq!(parse_image_spec("kube/img1"), s("kube", None, "img1"));
        assert_eq!(
            parse_image_spec("mioss/index-api-image"),
            s("mioss", None, "index-api-image")
        );
        assert_eq!(
            parse_image_spec("replicapool/ns1/csi-vol-0a1b"),
            s("replicapool", Some("ns1"), "csi-vol-0a1b")
        );
        assert_eq!(
            parse_image_spec(
                "test-k8s-radis/kubernetes-dynamic-pvc-b839dd3e-3772-11ea-9c8c-246e968203b8"
            ),
            s(
                "test-k8s-radis",
                None,
                "kubernetes-dynamic-pvc-b839dd3e-3772-11ea-9c8c-246e968203b8"
            )
        );
        for bad in [
            "",
            "img1",
            "/img",
            "pool/",
            "pool//img",
            "a/b/c/d",
            "-p/img",
            "pool/-img",
            "pool/im g",
            " pool/img",
            "pool/img\n",
            "pool/img;rm",
            "pool/$(x)",
            "pool/img@snap",
        ] {
            assert_eq!(parse_image_spec(bad), None, "{bad:?}");
        }
    }
}
