//! Throughput figures for volmnt (`cargo bench --bench throughput`; `scripts/bench.sh` adds an
//! end-to-end run of the binary).
//!
//! 1. Classification, messages/second over the 57 real messages of
//!    `fixtures/corpus/real-mount-failures.yaml`, cycled: (a) the raw classifier (normalize +
//!    context_for + classify), (b) the full `diagnose::explain` (case, rules, report); also the
//!    catalogue's pattern scan alone (`PatternScan::matches`), the pattern classifier without
//!    the message catalogue (`classify_patterns`), and the message catalogue's share (splitting
//!    a message into the layers that printed it: `layers::split`), and what the message
//!    catalogue's first use costs (it is a table build.rs wrote, read in place).
//! 2. A generated, deterministic 100 MiB kubelet log: (a) `parse_klog_with` keeping the volume
//!    failures (`is_volume_log_line`), (b) the offline path `add_source` + `diagnose`, with peak
//!    RSS (VmHWM) and a one-run breakdown of where the time goes, (c) the parse again on the
//!    log as `journalctl` prints it (a prefix on every line).
//!
//! A hand-written timer (warm-up, then the median of several runs); it prints figures and
//! asserts nothing about speed.
//!
//! Options (after `--`): `--write-log PATH` writes the generated log and exits (used by
//! scripts/bench.sh). Environment: `VOLMNT_BENCH_LOG_MIB` (log size, default 100),
//! `VOLMNT_BENCH_RUNS` (runs per figure, default 5; the log figures use at most 3),
//! `VOLMNT_BENCH_SUMMARY=FILE` (also append the headline figures to FILE as TSV).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::Deserialize;
use volmnt::collect::offline::{self, is_volume_log_line, Source};
use volmnt::diagnose::catalogue::catalogue;
use volmnt::diagnose::classify::{classify, classify_patterns, normalize};
use volmnt::diagnose::context::{context_for, Hints};
use volmnt::diagnose::matcher::scan;
use volmnt::diagnose::{self, Options};
use volmnt::model::Case;
use volmnt::parse::{describe, events, klog, objects};

const CORPUS: &str = include_str!("../fixtures/corpus/real-mount-failures.yaml");
const SEED_LOG: &str = include_str!("../fixtures/seed/rbd-kubelet.log");
const MIB: usize = 1 << 20;

#[derive(Deserialize)]
struct CorpusEntry {
    id: String,
    text: String,
    kind: String,
}

fn corpus() -> Vec<CorpusEntry> {
    serde_yaml::from_str(CORPUS).expect("corpus YAML")
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > 0)
        .unwrap_or(default)
}

/// With `VOLMNT_BENCH_SUMMARY=FILE`, appends `key<TAB>value<TAB>unit` lines for scripts/bench.sh.
fn summary(key: &str, value: &str, unit: &str) {
    use std::io::Write as _;
    if let Ok(path) = std::env::var("VOLMNT_BENCH_SUMMARY") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{key}\t{value}\t{unit}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log_mib = env_usize("VOLMNT_BENCH_LOG_MIB", 100);
    if let Some(i) = args.iter().position(|a| a == "--write-log") {
        let path = args.get(i + 1).expect("--write-log PATH");
        let log = generate_log(&corpus(), log_mib * MIB);
        std::fs::write(path, &log.text).expect("writing the log");
        println!(
            "wrote {path}: {} bytes, {} lines, {} entries, {} volume-error entries",
            log.text.len(),
            log.lines,
            log.entries,
            log.error_entries
        );
        return;
    }
    let runs = env_usize("VOLMNT_BENCH_RUNS", 5);
    println!("volmnt throughput benchmark");
    println!(
        "machine: {} CPU(s) available, {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    let entries = corpus();
    bench_classification(&entries, runs);
    bench_log(&entries, log_mib, runs.min(3));
}

// ---------------------------------------------------------------------------------------------
// Timing

/// Runs `f` once to warm up, then `runs` times; returns the sorted durations.
fn time_runs<T>(runs: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
    black_box(f());
    let mut d: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    d.sort();
    d
}

fn median(d: &[Duration]) -> Duration {
    d[d.len() / 2]
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn fmt_ms(d: Duration) -> String {
    format!("{:.1} ms", secs(d) * 1e3)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / MIB as f64
}

// ---------------------------------------------------------------------------------------------
// 1. Classification

fn raw_classify(text: &str, hints: &Hints) -> usize {
    let t = normalize(text);
    let ctx = context_for(&t, hints);
    classify(&t, &ctx).len()
}

fn explain_one(label: &str, text: &str, opts: &Options) -> usize {
    diagnose::explain(label, text, opts).findings.len()
}

fn bench_classification(entries: &[CorpusEntry], runs: usize) {
    println!();
    println!(
        "== 1. Classification: {} corpus messages, cycled ==",
        entries.len()
    );
    // The message catalogue's first use, before anything else touches it: the table build.rs
    // wrote, read in place (the figure a start-up pays once).
    let t = Instant::now();
    let formats = volmnt::diagnose::format_catalogue::formats();
    let n_formats = formats.len();
    let first_use = t.elapsed();
    let t = Instant::now();
    black_box(volmnt::diagnose::layers::split("MountVolume.SetUp failed for volume \"v\" : rpc error: code = Internal desc = mount failed: exit status 32"));
    let first_split = t.elapsed();
    println!(
        "message catalogue: {n_formats} format strings, {} families; first use {:.3} ms, first message split {:.3} ms",
        formats.families(),
        secs(first_use) * 1e3,
        secs(first_split) * 1e3
    );
    summary(
        "catalogue_first_use_ms",
        &format!("{:.3}", secs(first_use + first_split) * 1e3),
        "ms, first use and first message",
    );
    let hints = Hints::default();
    let opts = Options::default();
    let cat = catalogue();
    let scan = scan();
    let labels: Vec<String> = entries.iter().map(|e| format!("corpus {}", e.id)).collect();
    let normalized: Vec<String> = entries
        .iter()
        .map(|e| normalize(&e.text).into_owned())
        .collect();
    let total_bytes: usize = entries.iter().map(|e| e.text.len()).sum();
    println!(
        "messages: {} ({} bytes, mean {} bytes); catalogue: {} patterns, one pattern scan",
        entries.len(),
        total_bytes,
        total_bytes / entries.len(),
        cat.patterns.len()
    );

    type Path<'a> = (&'a str, &'a str, Box<dyn Fn(usize) -> usize + 'a>);
    let paths: [Path; 5] = [
        (
            "classify_raw",
            "(a) raw classifier (normalize + context_for + classify)",
            Box::new(|i: usize| raw_classify(&entries[i].text, &hints)),
        ),
        (
            "classify_patterns_only",
            "    the same without the message catalogue (classify_patterns)",
            Box::new(|i: usize| {
                let t = normalize(&entries[i].text);
                let ctx = context_for(&t, &hints);
                classify_patterns(&t, &ctx).len()
            }),
        ),
        (
            "classify_layers",
            "    of which the message catalogue (layers::split: anchors, verification, layers)",
            Box::new(|i: usize| volmnt::diagnose::layers::split(&normalized[i]).layers.len()),
        ),
        (
            "classify_explain",
            "(b) diagnose::explain (full report per message)",
            Box::new(|i: usize| explain_one(&labels[i], &entries[i].text, &opts)),
        ),
        (
            "classify_regexset",
            "    of which the catalogue's pattern scan (PatternScan::matches) alone",
            Box::new(|i: usize| scan.matches(&normalized[i]).iter().count()),
        ),
    ];
    for (key, name, one) in paths.iter() {
        // Warm up (builds the catalogue), calibrate on one pass, then as many messages per run
        // as fit in ~0.4 s, capped at 40k (5 runs = 200k messages), whole passes only.
        for i in 0..entries.len() {
            black_box(one(i));
        }
        let t = Instant::now();
        let mut found = 0;
        for i in 0..entries.len() {
            found += one(i);
        }
        let per_msg = secs(t.elapsed()) / entries.len() as f64;
        let fit = (0.4 / per_msg.max(1e-9)) as usize;
        let passes = (fit.min(40_000) / entries.len()).max(2);
        let n = passes * entries.len();
        let d = time_runs(runs, || {
            let mut s = 0usize;
            for _ in 0..passes {
                for i in 0..entries.len() {
                    s += one(i);
                }
            }
            s
        });
        let med = median(&d);
        let rate = n as f64 / secs(med);
        println!(
            "{name}:\n    {rate:>10.0} msgs/s  ({:.2} µs/msg; median of {runs} runs x {n} msgs; min {:.0}, max {:.0} msgs/s; {found} matches per pass)",
            secs(med) / n as f64 * 1e6,
            n as f64 / secs(d[d.len() - 1]),
            n as f64 / secs(d[0]),
        );
        summary(key, &format!("{rate:.0}"), "msgs/s, median of runs");
    }

    // The same messages one at a time, each repeated: the regex engine's lazy DFA keeps its
    // states for one message, which it cannot do for the whole corpus in its default cache.
    let reps = 30;
    let mut per: Vec<(f64, usize)> = (0..entries.len())
        .map(|i| {
            for _ in 0..5 {
                black_box(explain_one(&labels[i], &entries[i].text, &opts));
            }
            let t = Instant::now();
            for _ in 0..reps {
                black_box(explain_one(&labels[i], &entries[i].text, &opts));
            }
            (secs(t.elapsed()) / reps as f64 * 1e6, i)
        })
        .collect();
    per.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mean = per.iter().map(|p| p.0).sum::<f64>() / per.len() as f64;
    let med_us = per[per.len() / 2].0;
    let (max_us, max_i) = per[per.len() - 1];
    println!(
        "(b) with each message repeated {reps}x instead of cycled: median {med_us:.1} µs/msg ({:.0} msgs/s), mean {mean:.1} µs, max {max_us:.1} µs ({}; depends on whether the regex engine has given up its lazy DFA by then)",
        1e6 / med_us,
        entries[max_i].id
    );
    summary(
        "classify_explain_repeated",
        &format!("{:.0}", 1e6 / med_us),
        "msgs/s, each message repeated",
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Kubelet log

fn bench_log(entries: &[CorpusEntry], log_mib: usize, runs: usize) {
    println!();
    println!("== 2. Kubelet log: {log_mib} MiB generated, deterministic ==");
    let hwm_start = vm_kib("VmHWM");
    let t = Instant::now();
    let log = generate_log(entries, log_mib * MIB);
    let size = log.text.len();
    println!(
        "generated in {}: {} bytes, {} lines, {} entries ({} with continuation lines), {} volume-error entries ({:.2}% of entries), {} error templates",
        fmt_ms(t.elapsed()),
        size,
        log.lines,
        log.entries,
        log.multiline_entries,
        log.error_entries,
        100.0 * log.error_entries as f64 / log.entries as f64,
        log.templates
    );
    let hwm_gen = vm_kib("VmHWM");
    summary("log_mib", &format!("{:.1}", mib(size)), "MiB");
    println!(
        "peak RSS (VmHWM): {} at start, {} with the log in memory",
        fmt_kib(hwm_start),
        fmt_kib(hwm_gen)
    );

    // (a) parse, keeping the volume failures
    let reset = reset_hwm();
    let mut kept = 0;
    let mut seen = 0;
    let d = time_runs(runs, || {
        let mut total = 0usize;
        let v = klog::parse_klog_with(&log.text, |l| {
            total += 1;
            is_volume_log_line(l)
        });
        kept = v.len();
        seen = total;
        v.len()
    });
    let med = median(&d);
    println!(
        "(a) parse_klog_with + is_volume_log_line:\n    {:>8.1} MiB/s  ({} median of {runs} runs, min {}, max {}; {seen} entries read, {kept} kept); peak RSS {} ({})",
        mib(size) / secs(med),
        fmt_ms(med),
        fmt_ms(d[0]),
        fmt_ms(d[d.len() - 1]),
        fmt_kib(vm_kib("VmHWM")),
        if reset { "reset before this step" } else { "since start: could not reset" }
    );
    summary(
        "parse_mibs",
        &format!("{:.1}", mib(size) / secs(med)),
        "MiB/s",
    );
    summary("parse_kept", &format!("{kept} of {seen}"), "entries");

    // (b) the offline path: add_source + diagnose (the text is cloned outside the timer)
    let opts = Options::default();
    let mut times = Vec::new();
    let mut described = String::new();
    let mut peak = None;
    for run in 0..runs + 1 {
        let src = Source {
            label: "kubelet.log".into(),
            text: log.text.clone(),
            log: None,
        };
        let reset = reset_hwm();
        let before = vm_kib("VmRSS");
        let t = Instant::now();
        let mut case = Case::default();
        offline::add_source(&mut case, &src).expect("log recognised");
        let t_add = t.elapsed();
        let report = diagnose::diagnose(&case, &opts);
        let total = t.elapsed();
        if run == 0 {
            // warm-up; keep its description
            described = format!(
                "{} log lines kept; {} findings, top: {}; inputs: {}",
                case.logs.len(),
                report.findings.len(),
                report.findings.first().map_or("none".into(), |f| format!(
                    "{} ({:.2})",
                    f.cause, f.confidence
                )),
                case.inputs.join("; ")
            );
            peak = reset.then(|| (before, vm_kib("VmHWM")));
            continue;
        }
        times.push((total, t_add, total - t_add));
        black_box(report);
    }
    times.sort();
    let (med, add, diag) = times[times.len() / 2];
    println!(
        "(b) offline path (add_source + diagnose):\n    {:>8.1} MiB/s  ({} wall median of {runs} runs: add_source {}, diagnose {}; min {}, max {})",
        mib(size) / secs(med),
        fmt_ms(med),
        fmt_ms(add),
        fmt_ms(diag),
        fmt_ms(times[0].0),
        fmt_ms(times[times.len() - 1].0),
    );
    println!("    {described}");
    summary(
        "offline_mibs",
        &format!("{:.1}", mib(size) / secs(med)),
        "MiB/s",
    );
    summary("offline_ms", &format!("{:.0}", secs(med) * 1e3), "ms wall");
    summary(
        "offline_add_source_ms",
        &format!("{:.0}", secs(add) * 1e3),
        "ms",
    );
    summary(
        "offline_diagnose_ms",
        &format!("{:.0}", secs(diag) * 1e3),
        "ms",
    );
    match peak {
        Some((before, hwm)) => {
            if let (Some(b), Some(h)) = (before, hwm) {
                summary(
                    "offline_peak_extra_mib",
                    &format!("{:.0}", h.saturating_sub(b) as f64 / 1024.0),
                    "MiB above RSS before",
                );
            }
            println!(
            "    RSS before the step {} (process holding the log and its Source copy), peak during it {} (+{})",
            fmt_kib(before),
            fmt_kib(hwm),
            fmt_kib(match (before, hwm) {
                (Some(b), Some(h)) => Some(h.saturating_sub(b)),
                _ => None,
            })
            )
        }
        None => println!(
            "    peak RSS since start {} (VmHWM could not be reset)",
            fmt_kib(vm_kib("VmHWM"))
        ),
    }

    breakdown(&log.text, &opts);
    drop(log);

    // (c) the same entries as journalctl prints them: the prefix regex runs on every line
    let journal = journal_form(&generate_log(entries, log_mib * MIB).text);
    let d = time_runs(runs, || {
        let v = klog::parse_klog_with(&journal, is_volume_log_line);
        kept = v.len();
        v.len()
    });
    let med = median(&d);
    println!(
        "(c) parse_klog_with + is_volume_log_line, journalctl form ({:.1} MiB, prefix on every line):\n    {:>8.1} MiB/s  ({} median of {runs} runs, min {}, max {}; {kept} kept)",
        mib(journal.len()),
        mib(journal.len()) / secs(med),
        fmt_ms(med),
        fmt_ms(d[0]),
        fmt_ms(d[d.len() - 1]),
    );
    summary(
        "parse_journal_mibs",
        &format!("{:.1}", mib(journal.len()) / secs(med)),
        "MiB/s",
    );
}

/// One run of each step of the offline path, with the time and the memory it takes (peak RSS
/// above the RSS before the step), to see where the whole path spends them.
fn breakdown(text: &str, opts: &Options) {
    let step = |name: &str, f: &mut dyn FnMut() -> String| {
        let reset = reset_hwm();
        let before = vm_kib("VmRSS");
        let t = Instant::now();
        let what = f();
        let took = t.elapsed();
        let extra = match (reset, before, vm_kib("VmHWM")) {
            (true, Some(b), Some(h)) => format!("+{:.0} MiB", h.saturating_sub(b) as f64 / 1024.0),
            _ => "n/a".into(),
        };
        println!(
            "    {name:<44} {:>10}  peak {extra:>8}  {what}",
            fmt_ms(took)
        );
    };
    println!("breakdown of (b), one run each (time; peak RSS above the RSS before the step, approximate: memory the allocator kept from earlier steps is reused):");
    let mut sections = Vec::new();
    step("offline::sections (split at prompts)", &mut || {
        sections = offline::sections(text);
        format!("{} section(s)", sections.len())
    });
    let body = sections.first().map_or(text, |s| s.body.as_ref());
    step("objects::looks_like_objects", &mut || {
        format!("{}", objects::looks_like_objects(body))
    });
    step("describe::looks_like_{pod,pvc,pv}_describe", &mut || {
        format!(
            "{} {} {}",
            describe::looks_like_pod_describe(body),
            describe::looks_like_pvc_describe(body),
            describe::looks_like_pv_describe(body)
        )
    });
    step("events::looks_like_event_table", &mut || {
        format!("{}", events::looks_like_event_table(body))
    });
    step("klog::looks_like_klog", &mut || {
        format!("{}", klog::looks_like_klog(body))
    });
    step("klog::parse_klog_with + is_volume_log_line", &mut || {
        let n = klog::parse_klog_with(body, is_volume_log_line).len();
        format!("{n} kept")
    });
    drop(sections);
    let src = Source {
        label: "kubelet.log".into(),
        text: text.to_string(),
        log: None,
    };
    let mut case = Case::default();
    step("offline::add_source (all of the above)", &mut || {
        offline::add_source(&mut case, &src).expect("log recognised");
        format!("{} log lines in the case", case.logs.len())
    });
    drop(src);
    step("diagnose::messages_of (collect + dedup)", &mut || {
        format!(
            "{} distinct messages",
            diagnose::messages_of(&case, None).len()
        )
    });
    step("diagnose::diagnose (all)", &mut || {
        let r = diagnose::diagnose(&case, opts);
        format!(
            "{} findings, {} unrecognised",
            r.findings.len(),
            r.unrecognised.len()
        )
    });
}

/// The log as `journalctl -u kubelet -o short-precise` prints it: every line, continuation
/// lines too, behind `Sep 24 13:00:00.018702 host kubelet[pid]: `.
fn journal_form(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut stamp = "24 13:00:00.000000";
    let mut pid = "1";
    for line in text.lines() {
        if klog::parse_klog_line(line, 0).is_some() {
            // `I0924 13:00:00.018702   12145 ...`: day, time, and the thread id
            stamp = &line[3..21];
            pid = line[21..].split_whitespace().next().unwrap_or("1");
        }
        let _ = writeln!(
            out,
            "Sep {stamp} ip-172-23-5-42.us-west-2.compute.internal kubelet[{pid}]: {line}"
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// /proc

fn vm_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Reset VmHWM to the current RSS (Linux: `echo 5 > /proc/self/clear_refs`).
fn reset_hwm() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn fmt_kib(k: Option<u64>) -> String {
    match k {
        Some(k) => format!("{:.1} MiB", k as f64 / 1024.0),
        None => "n/a".into(),
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

// ---------------------------------------------------------------------------------------------
// Log generator

/// splitmix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            let _ = write!(s, "{:016x}", self.next());
        }
        s.truncate(n);
        s
    }
    fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }
    /// Pod-name suffix alphabet (no vowels, as Kubernetes generates them).
    fn k8s_suffix(&mut self, n: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n).map(|_| *self.pick(A) as char).collect()
    }
}

/// Time since 2024-09-24 00:00:00 UTC, in microseconds.
struct Clock {
    us: u64,
}

impl Clock {
    fn parts(&self) -> (u64, u64, u64, u64, u64) {
        let s = self.us / 1_000_000;
        (
            24 + s / 86_400,
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            self.us % 1_000_000,
        )
    }
    /// `0924 13:56:09.654609`
    fn klog(&self) -> String {
        let (d, h, m, s, us) = self.parts();
        format!("09{d:02} {h:02}:{m:02}:{s:02}.{us:06}")
    }
    /// `2024-09-24 13:56:10.154590919 +0000 UTC m=+9005564.785891942`, `later_ms` ahead.
    fn retry_until(&self, later_ms: u64, uptime_s: u64) -> String {
        let c = Clock {
            us: self.us + later_ms * 1000,
        };
        let (d, h, m, s, us) = c.parts();
        format!(
            "2024-09-{d:02} {h:02}:{m:02}:{s:02}.{us:06}{:03} +0000 UTC m=+{}.{:09}",
            c.us % 997,
            uptime_s + c.us / 1_000_000,
            (c.us % 1_000_000) * 1000 + 419
        )
    }
}

struct Pod {
    ns: &'static str,
    name: String,
    uid: String,
    container: &'static str,
    /// (volume name, unique name)
    volumes: Vec<(String, String)>,
    ip: (u8, u8),
}

fn make_pod(rng: &mut Rng) -> Pod {
    const NS: &[&str] = &["default", "shop", "monitoring", "kube-system", "data", "ci"];
    const APPS: &[&str] = &[
        "web", "api", "worker", "redis", "postgres", "grafana", "loki", "nginx", "kafka",
        "billing", "search", "auth",
    ];
    const CONTAINERS: &[&str] = &["app", "main", "server", "sidecar", "proxy"];
    let app = *rng.pick(APPS);
    let name = if rng.chance(0.3) {
        format!("{app}-{}", rng.below(5))
    } else {
        format!(
            "{app}-{}-{}",
            rng.hex(9).replace('0', "7"),
            rng.k8s_suffix(5)
        )
    };
    let uid = rng.uuid();
    let access = format!("kube-api-access-{}", rng.k8s_suffix(5));
    let mut volumes = vec![(
        access.clone(),
        format!("kubernetes.io/projected/{uid}-{access}"),
    )];
    if rng.chance(0.6) {
        let pvc = format!("pvc-{}", rng.uuid());
        let handle = format!("0001-0009-rook-ceph-0000000000000002-{}", rng.uuid());
        volumes.push((
            pvc,
            format!("kubernetes.io/csi/rook-ceph.rbd.csi.ceph.com^{handle}"),
        ));
    }
    if rng.chance(0.4) {
        volumes.push((
            "config".into(),
            format!("kubernetes.io/configmap/{uid}-config"),
        ));
    }
    Pod {
        ns: NS[rng.below(NS.len())],
        name,
        uid,
        container: CONTAINERS[rng.below(CONTAINERS.len())],
        volumes,
        ip: (rng.below(8) as u8, 2 + rng.below(250) as u8),
    }
}

/// An error entry a stuck pod's kubelet logs again and again.
#[derive(Clone)]
enum ErrorShape {
    /// A complete entry from the seed log or the corpus, re-timestamped.
    Verbatim { sev: char, loc: String, msg: String },
    /// `Operation for ... failed. No retries permitted until ... Error: <body>`, body from a
    /// corpus event (`MountVolume.SetUp failed for volume ...`).
    Nested { body: String },
    /// The seed log's rbd burst, all five E lines.
    Burst(Vec<(char, String, String)>),
}

fn error_shapes(entries: &[CorpusEntry]) -> Vec<ErrorShape> {
    let mut shapes = Vec::new();
    let seed: Vec<(char, String, String)> = klog::parse_klog(SEED_LOG)
        .into_iter()
        .filter(|l| l.severity == Some('E'))
        .map(|l| ('E', l.location.unwrap_or_default(), l.message))
        .collect();
    shapes.push(ErrorShape::Burst(seed));
    for e in entries {
        match e.kind.as_str() {
            "kubelet-log" => match klog::parse_klog(&e.text).into_iter().next() {
                Some(l) => shapes.push(ErrorShape::Verbatim {
                    sev: l.severity.unwrap_or('E'),
                    loc: l.location.unwrap_or_default(),
                    msg: l.message,
                }),
                None => shapes.push(ErrorShape::Verbatim {
                    sev: 'E',
                    loc: "projected.go:292".into(),
                    msg: e.text.clone(),
                }),
            },
            "mount-output" => shapes.push(ErrorShape::Nested {
                body: format!(
                    "MountVolume.SetUp failed for volume \"nfs-data\" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.20.172.211:/exports/data /var/lib/kubelet/pods/0c5b4f2e-9d1a-4a4e-8f59-1e0b7d3c6a21/volumes/kubernetes.io~nfs/nfs-data\n{}",
                    e.text
                ),
            }),
            _ => {
                let start = ["MountVolume.", "AttachVolume.", "MapVolume."]
                    .iter()
                    .filter_map(|k| e.text.find(k))
                    .min();
                if let Some(s) = start {
                    shapes.push(ErrorShape::Nested {
                        body: e.text[s..].to_string(),
                    });
                }
            }
        }
    }
    shapes
}

/// `No retries permitted until <old>` with a fresh time, as kubelet prints it on every retry.
fn refresh_retry(msg: &str, until: &str) -> String {
    const KEY: &str = "No retries permitted until ";
    match msg.find(KEY) {
        Some(i) => {
            let rest = &msg[i + KEY.len()..];
            let end = rest.find(" (durationBeforeRetry").unwrap_or(0);
            format!("{}{KEY}{until}{}", &msg[..i], &rest[end..])
        }
        None => msg.to_string(),
    }
}

pub struct GeneratedLog {
    text: String,
    lines: usize,
    entries: usize,
    multiline_entries: usize,
    error_entries: usize,
    templates: usize,
}

/// A kubelet log of about `target` bytes: mostly info lines of the reconciler, operation
/// generator, sync loop, pod workers and prober for ~80 pods, plus ~1.5% error entries of a
/// dozen stuck pods (nestedpendingoperations, pod_workers, kubelet.go), many with multi-line
/// mount output. Same seed, same bytes.
fn generate_log(entries: &[CorpusEntry], target: usize) -> GeneratedLog {
    let mut rng = Rng(0x766f_6c6d_6e74);
    let shapes = error_shapes(entries);
    let pods: Vec<Pod> = (0..80).map(|_| make_pod(&mut rng)).collect();
    // A dozen stuck pods, each failing one way; the seed's rbd burst is always among them.
    let stuck: Vec<(usize, ErrorShape)> = (0..12)
        .map(|i| {
            let shape = if i == 0 {
                shapes[0].clone()
            } else {
                rng.pick(&shapes).clone()
            };
            (i * 6 + 1, shape)
        })
        .collect();
    let pid = 2480 + rng.below(20000);
    let node = "ip-172-23-5-42.us-west-2.compute.internal";
    let uptime = 9_005_000;
    let mut clock = Clock {
        us: 13 * 3600 * 1_000_000,
    };
    let mut out = String::with_capacity(target + 64 * 1024);
    let (mut lines, mut n_entries, mut multiline, mut errors) = (0, 0, 0, 0);
    let mut push = |out: &mut String, clock: &Clock, sev: char, loc: &str, msg: &str| {
        let _ = writeln!(out, "{sev}{} {pid:>7} {loc}] {msg}", clock.klog());
        let extra = msg.matches('\n').count();
        lines += 1 + extra;
        n_entries += 1;
        if extra > 0 {
            multiline += 1;
        }
    };
    while out.len() < target {
        clock.us += 1 + rng.below(20_000) as u64;
        let r = rng.below(10_000);
        if r < 110 {
            // ~1.5% of entries: a stuck pod's failure, sometimes followed by the pod worker's.
            let (pi, shape) = rng.pick(&stuck);
            let p = &pods[*pi];
            let backoff = *rng.pick(&[
                500u64, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 122_000,
            ]);
            let until = clock.retry_until(backoff, uptime);
            let dur = match backoff {
                b if b < 1000 => format!("{b}ms"),
                b if b < 60_000 => format!("{}s", b / 1000),
                b => format!("{}m{}s", b / 60_000, b % 60_000 / 1000),
            };
            match shape {
                ErrorShape::Verbatim { sev, loc, msg } => {
                    push(&mut out, &clock, *sev, loc, &refresh_retry(msg, &until));
                    errors += 1;
                }
                ErrorShape::Nested { body } => {
                    let (_, unique) = p.volumes.last().expect("a volume");
                    let msg = format!(
                        "Operation for \"{{volumeName:{unique} podName:{} nodeName:}}\" failed. No retries permitted until {until} (durationBeforeRetry {dur}). Error: {body}",
                        p.uid
                    );
                    push(
                        &mut out,
                        &clock,
                        'E',
                        "nestedpendingoperations.go:348",
                        &msg,
                    );
                    errors += 1;
                }
                ErrorShape::Burst(list) => {
                    for (sev, loc, msg) in list {
                        push(&mut out, &clock, *sev, loc, &refresh_retry(msg, &until));
                        clock.us += rng.below(300) as u64;
                        errors += 1;
                    }
                }
            }
            if rng.chance(0.4) {
                let vols: Vec<&str> = p.volumes.iter().map(|v| v.0.as_str()).collect();
                let msg = format!(
                    "\"Error syncing pod, skipping\" err=\"unmounted volumes=[{}], unattached volumes=[{}], failed to process volumes=[]: timed out waiting for the condition\" pod=\"{}/{}\" podUID=\"{}\"",
                    vols.last().copied().unwrap_or_default(),
                    vols.join(" "),
                    p.ns,
                    p.name,
                    p.uid
                );
                push(&mut out, &clock, 'E', "pod_workers.go:1300", &msg);
                errors += 1;
            }
            continue;
        }
        let p = rng.pick(&pods);
        let pod_ref = format!("{}/{}", p.ns, p.name);
        let (vol, unique) = rng.pick(&p.volumes);
        let (loc, msg) = match r {
            110..=1799 => (
                "reconciler_common.go:258",
                format!("\"operationExecutor.VerifyControllerAttachedVolume started for volume \\\"{vol}\\\" (UniqueName: \\\"{unique}\\\") pod \\\"{}\\\" (UID: \\\"{}\\\") \" pod=\"{pod_ref}\"", p.name, p.uid),
            ),
            1800..=2999 => (
                "reconciler_common.go:231",
                format!("\"operationExecutor.MountVolume started for volume \\\"{vol}\\\" (UniqueName: \\\"{unique}\\\") pod \\\"{}\\\" (UID: \\\"{}\\\") \" pod=\"{pod_ref}\"", p.name, p.uid),
            ),
            3000..=3999 => (
                "operation_generator.go:721",
                format!("\"MountVolume.SetUp succeeded for volume \\\"{vol}\\\" (UniqueName: \\\"{unique}\\\") pod \\\"{}\\\" (UID: \\\"{}\\\") \" pod=\"{pod_ref}\"", p.name, p.uid),
            ),
            4000..=4999 => (
                "kubelet.go:2454",
                format!("\"SyncLoop (PLEG): event for pod\" pod=\"{pod_ref}\" event={{\"ID\":\"{}\",\"Type\":\"ContainerStarted\",\"Data\":\"{}\"}}", p.uid, rng.hex(64)),
            ),
            5000..=5599 => (
                "kubelet.go:2430",
                format!("\"SyncLoop UPDATE\" source=\"api\" pods=[\"{pod_ref}\"]"),
            ),
            5600..=5999 => (
                "kubelet.go:2469",
                format!("\"SyncLoop (probe)\" probe=\"readiness\" status=\"ready\" pod=\"{pod_ref}\""),
            ),
            6000..=6799 => (
                "pod_workers.go:965",
                format!("\"Processing pod event done\" pod=\"{pod_ref}\" podUID=\"{}\" updateType=0", p.uid),
            ),
            6800..=7499 => (
                "prober.go:107",
                format!("\"Probe failed\" probeType=\"Readiness\" pod=\"{pod_ref}\" podUID=\"{}\" containerName=\"{}\" probeResult=\"failure\" output=\"Get \\\"http://10.244.{}.{}:8080/healthz\\\": dial tcp 10.244.{}.{}:8080: connect: connection refused\"", p.uid, p.container, p.ip.0, p.ip.1, p.ip.0, p.ip.1),
            ),
            7500..=8199 => (
                "kuberuntime_manager.go:1028",
                format!("\"computePodActions got for pod\" podActions={{KillPod:false CreateSandbox:false SandboxID:{} Attempt:0 NextInitContainerToStart:nil ContainersToStart:[] ContainersToKill:map[] EphemeralContainersToStart:[]}} pod=\"{pod_ref}\"", rng.hex(64)),
            ),
            8200..=8599 => (
                "volume_manager.go:404",
                format!("\"Waiting for volumes to attach and mount for pod\" pod=\"{pod_ref}\""),
            ),
            8600..=8899 => (
                "reconciler_common.go:172",
                format!("\"operationExecutor.UnmountVolume started for volume \\\"{vol}\\\" (UniqueName: \\\"{unique}\\\") pod \\\"{}\\\" (UID: \\\"{}\\\") \"", p.uid, p.uid),
            ),
            8900..=9199 => (
                "operation_generator.go:888",
                format!("UnmountVolume.TearDown succeeded for volume \"{unique}\" (OuterVolumeSpecName: \"{vol}\") pod \"{}\" (UID: \"{}\"). InnerVolumeSpecName \"{vol}\". PluginName \"kubernetes.io/projected\", VolumeGidValue \"\"", p.uid, p.uid),
            ),
            9200..=9399 => (
                "reconciler_common.go:300",
                format!("\"Volume detached for volume \\\"{vol}\\\" (UniqueName: \\\"{unique}\\\") on node \\\"{node}\\\" DevicePath \\\"\\\"\""),
            ),
            9400..=9599 => (
                "util.go:30",
                format!("\"No sandbox for pod can be found. Need to start a new one\" pod=\"{pod_ref}\""),
            ),
            9600..=9799 => (
                "kuberuntime_container.go:742",
                format!("\"Killing container with a grace period\" pod=\"{pod_ref}\" podUID=\"{}\" containerName=\"{}\" containerID=\"containerd://{}\" gracePeriod=30", p.uid, p.container, rng.hex(64)),
            ),
            9800..=9899 => {
                let id = rng.hex(64);
                push(
                    &mut out,
                    &clock,
                    'E',
                    "remote_runtime.go:432",
                    &format!("\"ContainerStatus from runtime service failed\" err=\"rpc error: code = NotFound desc = an error occurred when try to find container \\\"{id}\\\": not found\" containerID=\"{id}\""),
                );
                continue;
            }
            _ => (
                "kubelet_node_status.go:493",
                "\"Fast updating node status as it just became ready\"".to_string(),
            ),
        };
        push(&mut out, &clock, 'I', loc, &msg);
    }
    GeneratedLog {
        text: out,
        lines,
        entries: n_entries,
        multiline_entries: multiline,
        error_entries: errors,
        templates: shapes.len(),
    }
}
