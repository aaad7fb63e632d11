//! What `volmnt watch` bounds: how much of a pod's Warning events its cache keeps, and how
//! long a failed list or watch waits before the next try.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Event as CoreEvent;

use crate::collect::cluster::event_from_core;
use crate::model::Event;

/// What the cache keeps of an event's message, at most (bytes). A core/v1 Event's message has
/// no size limit in the API (the 1,024-character limit is events.k8s.io's note:
/// pkg/apis/core/validation/events.go NoteLengthLimit); a mount's output quoted in full can be
/// long. The same bound as a node plugin's log line (parse::plugin_log::MAX_MESSAGE).
pub(super) const MAX_EVENT_MESSAGE: usize = 16 * 1024;

/// Warning events kept per pod, at most: the newest (kubelet's recorder folds repeats into one
/// Event with a count, so a pod has a handful; this bounds what a noisy writer can make).
pub(super) const MAX_EVENTS_PER_POD: usize = 64;

/// An event as the cache keeps it: in the model, its message cut to `MAX_EVENT_MESSAGE`.
pub(super) fn kept_event(ev: &CoreEvent) -> Event {
    let mut e = event_from_core(ev);
    if e.message.len() > MAX_EVENT_MESSAGE {
        let mut end = MAX_EVENT_MESSAGE;
        while !e.message.is_char_boundary(end) {
            end -= 1;
        }
        e.message.truncate(end);
    }
    e
}

/// Keep one more event of a pod; past `MAX_EVENTS_PER_POD`, the one seen last the longest ago
/// goes.
pub(super) fn keep_event(events: &mut HashMap<String, Event>, name: String, e: Event) {
    events.insert(name, e);
    if events.len() > MAX_EVENTS_PER_POD {
        let oldest = events
            .iter()
            .min_by(|a, b| {
                (a.1.last_seen.or(a.1.first_seen), a.0)
                    .cmp(&(b.1.last_seen.or(b.1.first_seen), b.0))
            })
            .map(|(k, _)| k.clone());
        if let Some(k) = oldest {
            events.remove(&k);
        }
    }
}

/// How long a failed list or watch waits before its next try: 800 ms, doubling, at most 5 s
/// (client-go's reflector goes up to 30 s). On the real apiserver stopped for 20 s, 30 s meant
/// the cache stayed stale (and /readyz 503) for up to 19 s after the server was back; eleven
/// watches retried every 5 s are still a light load on a server that is down.
#[derive(Debug, Clone)]
pub(super) struct WatchBackoff {
    next: Duration,
}

impl WatchBackoff {
    const FIRST: Duration = Duration::from_millis(800);
    const MAX: Duration = Duration::from_secs(5);

    pub(super) fn new() -> WatchBackoff {
        WatchBackoff { next: Self::FIRST }
    }
}

impl Iterator for WatchBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let d = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        // A little spread, so the watches of one process do not retry in lockstep.
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|t| t.subsec_nanos())
            .unwrap_or(0);
        Some(d + Duration::from_millis(u64::from(nanos % 200)))
    }
}

impl kube::runtime::utils::Backoff for WatchBackoff {
    fn reset(&mut self) {
        self.next = Self::FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pods_events_are_kept_bounded_in_number_and_size() {
        let ev = |name: &str, last: i64, msg: String| -> CoreEvent {
            serde_json::from_value(serde_json::json!({
                "metadata": { "name": name, "namespace": "shop" },
                "involvedObject": { "kind": "Pod", "namespace": "shop", "name": "web-0" },
                "type": "Warning", "reason": "FailedMount", "message": msg,
                "lastTimestamp": format!("2026-01-01T00:{:02}:{:02}Z", last / 60, last % 60),
            }))
            .unwrap()
        };
        // A message of 100,000 bytes, a multi-byte character across the cut.
        let long = format!(
            "{}é{}",
            "x".repeat(MAX_EVENT_MESSAGE - 1),
            "y".repeat(100_000)
        );
        let kept = kept_event(&ev("big", 0, long));
        assert_eq!(kept.message.len(), MAX_EVENT_MESSAGE - 1);
        assert!(kept.message.chars().all(|c| c == 'x'));
        let mut m = HashMap::new();
        for i in 0..200 {
            let name = format!("web-0.{i:03}");
            keep_event(
                &mut m,
                name.clone(),
                kept_event(&ev(&name, i, "mount failed".into())),
            );
        }
        assert_eq!(m.len(), MAX_EVENTS_PER_POD);
        // The newest stay.
        assert!(m.contains_key("web-0.199") && m.contains_key("web-0.136"));
        assert!(!m.contains_key("web-0.135"));
    }

    #[test]
    fn retries_double_from_800_ms_to_at_most_5_s_and_start_over_on_reset() {
        use kube::runtime::utils::Backoff;
        let mut b = WatchBackoff::new();
        let waits: Vec<u128> = (0..6).map(|_| b.next().unwrap().as_millis()).collect();
        for (w, base) in waits.iter().zip([800, 1600, 3200, 5000, 5000, 5000]) {
            assert!((base..base + 200).contains(w), "{waits:?}");
        }
        b.reset();
        assert!(b.next().unwrap() < Duration::from_secs(1));
    }
}
