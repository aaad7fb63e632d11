//! The plan: what would be run for which holder and why, purely from the holders' verdicts and
//! the flags. Nothing here runs anything (execute.rs does, with a Confirmation).

use std::collections::BTreeSet;

use serde::Serialize;

use super::ceph::Tool;
use super::fence::Fence;
use super::holders::{Holder, HolderKind, Verdict};
use super::image::ImageSpec;
use super::run::strings;

/// What `unlock` was asked to do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// Act on live and unknown holders too.
    pub force: bool,
    /// Only print the plan.
    pub dry_run: bool,
    /// `rbd lock rm` without blocklisting the locker.
    pub no_blocklist: bool,
    /// The cluster's word for fencing (blocklist, or blacklist before Pacific).
    pub fence: Fence,
}

/// One command that releases a holder.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// `rbd lock rm IMAGE ID LOCKER` (blocklists the locker unless `blocklist` is false).
    LockRm {
        image: String,
        lock_id: String,
        locker: String,
        address: String,
        blocklist: bool,
    },
    /// `ceph osd blocklist add ADDR`
    BlocklistAdd { address: String },
}

impl Action {
    /// The CLI and its arguments for a Pacific or later cluster.
    pub fn command(&self) -> (Tool, Vec<String>) {
        self.command_for(Fence::Blocklist)
    }

    /// The CLI and its arguments (the connection flags are added by [`Ceph::argv`](super::ceph::Ceph::argv)), in the
    /// cluster's word for fencing.
    pub fn command_for(&self, fence: Fence) -> (Tool, Vec<String>) {
        match self {
            Action::LockRm {
                image,
                lock_id,
                locker,
                blocklist,
                ..
            } => {
                let mut a = strings(&["lock", "rm", image, lock_id, locker]);
                if !blocklist {
                    a.push(format!("--rbd_{}_on_break_lock=false", fence.word()));
                }
                (Tool::Rbd, a)
            }
            Action::BlocklistAdd { address } => {
                (Tool::Ceph, strings(&["osd", fence.word(), "add", address]))
            }
        }
    }
}

/// A planned action, the holder it releases, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    #[serde(flatten)]
    pub action: Action,
    /// Index into the holders.
    pub holder: usize,
    pub verdict: Verdict,
    pub why: String,
    /// What the command does besides (blocklisting, expiry).
    pub effect: String,
    /// Only there because of --force: the holder was not proven stale.
    pub forced: bool,
}

/// A holder left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub holder: usize,
    pub verdict: Verdict,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub image: String,
    pub dry_run: bool,
    /// The cluster's word for fencing: every command of the plan uses it.
    pub fence: Fence,
    pub steps: Vec<Step>,
    pub refused: Vec<Refusal>,
}

impl Plan {
    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|s| s.action.clone()).collect()
    }
}

const DOUBLE_MOUNT: &str = "removing it would let another node map the image while this one still \
    writes to it: the filesystem mounted twice, and corrupted";

/// What to run for which holder, purely from the holders' verdicts and the flags. Stale
/// holders get a step; live and unknown ones are refused unless `force`.
pub fn plan(image: &ImageSpec, holders: &[Holder], flags: Flags) -> Plan {
    let mut steps = Vec::new();
    let mut refused = Vec::new();
    let mut blocklisted: BTreeSet<String> = BTreeSet::new();
    for (i, h) in holders.iter().enumerate() {
        let forced = h.verdict != Verdict::Stale;
        if forced && !flags.force {
            let why = match h.verdict {
                Verdict::Live => format!(
                    "live: {}; {DOUBLE_MOUNT}. Stop that pod first (or --force if you know better)",
                    h.reason
                ),
                _ => format!(
                    "not proven stale ({}); check by hand, then --force to act anyway",
                    h.reason
                ),
            };
            refused.push(Refusal {
                holder: i,
                verdict: h.verdict,
                why,
            });
            continue;
        }
        let why = if forced {
            format!(
                "FORCED (--force) although {}: {}; {DOUBLE_MOUNT}",
                h.verdict.word(),
                h.reason
            )
        } else {
            format!("stale: {}", h.reason)
        };
        match &h.kind {
            HolderKind::Lock { id, locker } => {
                let blocklist = !flags.no_blocklist;
                if blocklist {
                    blocklisted.insert(h.address.clone());
                }
                steps.push(Step {
                    action: Action::LockRm {
                        image: image.to_string(),
                        lock_id: id.clone(),
                        locker: locker.clone(),
                        address: h.address.clone(),
                        blocklist,
                    },
                    holder: i,
                    verdict: h.verdict,
                    why,
                    effect: if blocklist {
                        format!(
                            "`rbd lock rm` also blocklists the locker {} (rbd_blocklist_on_break_lock, on by default) \
                             for an hour: that client can no longer reach the cluster, so it cannot write with a \
                             lock it lost; --no-blocklist skips this",
                            h.address
                        )
                    } else {
                        "with --no-blocklist the locker is not blocklisted: if it is still alive it can go on \
                         writing after losing the lock"
                            .to_string()
                    },
                    forced,
                });
            }
            HolderKind::Watcher { .. } => {
                if !blocklisted.insert(h.address.clone()) {
                    continue; // the same client is blocklisted by an earlier step
                }
                steps.push(Step {
                    action: Action::BlocklistAdd {
                        address: h.address.clone(),
                    },
                    holder: i,
                    verdict: h.verdict,
                    why,
                    effect: format!(
                        "blocklisting cuts the client {} off from every OSD, which drops its watch at once; \
                         the entry expires after an hour (Ceph's default), or `ceph osd blocklist rm {}` lifts it",
                        h.address, h.address
                    ),
                    forced,
                });
            }
        }
    }
    Plan {
        image: image.to_string(),
        dry_run: flags.dry_run,
        fence: flags.fence,
        steps,
        refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::rbd::execute::Confirmation;
    use crate::collect::rbd::fence::unknown_command;
    use crate::collect::rbd::holders::tests::{img, lock_holder, watch_holder};

    /// Every verdict × force × dry-run, for a lock and for a watcher.
    #[test]
    fn planner_exhaustive() {
        for verdict in [Verdict::Live, Verdict::Stale, Verdict::Unknown] {
            for force in [false, true] {
                for dry_run in [false, true] {
                    for no_blocklist in [false, true] {
                        let flags = Flags {
                            force,
                            dry_run,
                            no_blocklist,
                            fence: Fence::default(),
                        };
                        let hs = [
                            lock_holder(verdict, "127.0.0.1:0/1"),
                            watch_holder(verdict, "127.0.0.1:0/2"),
                        ];
                        let p = plan(&img(), &hs, flags);
                        assert_eq!(p.dry_run, dry_run);
                        let acts = verdict == Verdict::Stale || force;
                        let ctx = format!(
                            "{verdict:?} force={force} dry={dry_run} nobl={no_blocklist}: {p:#?}"
                        );
                        if acts {
                            assert_eq!(p.steps.len(), 2, "{ctx}");
                            assert!(p.refused.is_empty(), "{ctx}");
                            assert_eq!(
                                p.steps[0].action,
                                Action::LockRm {
                                    image: "kube/img".into(),
                                    lock_id: "kubelet_lock_magic_node1".into(),
                                    locker: "client.4174".into(),
                                    address: "127.0.0.1:0/1".into(),
                                    blocklist: !no_blocklist,
                                },
                                "{ctx}"
                            );
                            assert_eq!(
                                p.steps[1].action,
                                Action::BlocklistAdd {
                                    address: "127.0.0.1:0/2".into()
                                },
                                "{ctx}"
                            );
                            let forced = verdict != Verdict::Stale;
                            assert!(p.steps.iter().all(|s| s.forced == forced), "{ctx}");
                            if forced {
                                assert!(p.steps[0].why.contains("FORCED"), "{ctx}");
                                assert!(p.steps[0].why.contains("mounted twice"), "{ctx}");
                            }
                            let (tool, args) = p.steps[0].action.command();
                            assert_eq!(tool, Tool::Rbd);
                            assert_eq!(
                                args.contains(&"--rbd_blocklist_on_break_lock=false".to_string()),
                                no_blocklist,
                                "{ctx}"
                            );
                            assert!(p.steps[0].effect.contains("blocklist"), "{ctx}");
                            assert!(p.steps[1].effect.contains("expires"), "{ctx}");
                        } else {
                            assert!(p.steps.is_empty(), "{ctx}");
                            assert_eq!(p.refused.len(), 2, "{ctx}");
                            let want = if verdict == Verdict::Live {
                                "mounted twice"
                            } else {
                                "not proven stale"
                            };
                            assert!(p.refused.iter().all(|r| r.why.contains(want)), "{ctx}");
                            assert!(p.refused.iter().all(|r| r.why.contains("--force")), "{ctx}");
                        }
                        // A dry run's plan can never be confirmed.
                        let c = Confirmation::by_yes_flag(true, &p);
                        assert_eq!(c.is_some(), !dry_run, "{ctx}");
                        assert!(Confirmation::by_yes_flag(false, &p).is_none());
                    }
                }
            }
        }
    }

    #[test]
    fn mixed_holders_only_stale_ones_act() {
        let hs = [
            lock_holder(Verdict::Live, "10.0.0.1:0/1"),
            watch_holder(Verdict::Stale, "10.0.0.2:0/2"),
            watch_holder(Verdict::Unknown, "10.0.0.3:0/3"),
        ];
        let p = plan(&img(), &hs, Flags::default());
        assert_eq!(p.steps.len(), 1);
        assert_eq!(p.steps[0].holder, 1);
        assert_eq!(
            p.refused.iter().map(|r| r.holder).collect::<Vec<_>>(),
            [0, 2]
        );
    }

    #[test]
    fn a_watcher_at_a_blocklisted_lockers_address_is_not_blocklisted_twice() {
        let hs = [
            lock_holder(Verdict::Stale, "10.0.0.1:0/1"),
            watch_holder(Verdict::Stale, "10.0.0.1:0/1"),
        ];
        assert_eq!(plan(&img(), &hs, Flags::default()).steps.len(), 1);
        let p = plan(
            &img(),
            &hs,
            Flags {
                no_blocklist: true,
                ..Flags::default()
            },
        );
        assert_eq!(p.steps.len(), 2);
    }

    #[test]
    fn before_pacific_the_plan_says_blacklist_in_every_command() {
        assert_eq!(Fence::for_release(Some(15)), Fence::Blacklist);
        assert_eq!(Fence::for_release(Some(12)), Fence::Blacklist);
        assert_eq!(Fence::for_release(Some(16)), Fence::Blocklist);
        assert_eq!(Fence::for_release(Some(19)), Fence::Blocklist);
        assert_eq!(Fence::for_release(None), Fence::Blocklist);
        let lock = Action::LockRm {
            image: "kube/img".into(),
            lock_id: "kubelet_lock_magic_node1".into(),
            locker: "client.4123".into(),
            address: "10.0.0.7:0/1".into(),
            blocklist: false,
        };
        let watch = Action::BlocklistAdd {
            address: "10.0.0.7:0/2".into(),
        };
        let (_, a) = lock.command_for(Fence::Blacklist);
        assert!(
            a.contains(&"--rbd_blacklist_on_break_lock=false".to_string()),
            "{a:?}"
        );
        let (_, a) = watch.command_for(Fence::Blacklist);
        assert_eq!(a, ["osd", "blacklist", "add", "10.0.0.7:0/2"]);
        let (_, a) = watch.command_for(Fence::Blocklist);
        assert_eq!(a, ["osd", "blocklist", "add", "10.0.0.7:0/2"]);
        assert!(unknown_command(include_str!(
            "../../../fixtures/ceph/release-osd-blocklist-bad-subcommand.err"
        )));
    }
}
