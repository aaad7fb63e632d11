//! Ceph's word for fencing a client off, by release: `blacklist` before Pacific, `blocklist`
//! since, and the monitors' answer when a command is given in the other word.

use serde::Serialize;

/// How this cluster names fencing a client off: `blocklist` since Pacific (16), `blacklist`
/// before (ceph/ceph#36527, "`blacklist` has been replaced with `blocklist` throughout":
/// `ceph osd blacklist ...` became `ceph osd blocklist ...`, and the librbd option
/// `rbd_blacklist_on_break_lock` became `rbd_blocklist_on_break_lock`). Supported: Luminous (12)
/// to Octopus (15) with `blacklist`, Pacific (16) and later with `blocklist`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fence {
    #[default]
    Blocklist,
    Blacklist,
}

impl Fence {
    /// The word for a Ceph release (major version); `blocklist` when it is not known.
    pub fn for_release(major: Option<u32>) -> Fence {
        match major {
            Some(m) if m < 16 => Fence::Blacklist,
            _ => Fence::Blocklist,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Fence::Blocklist => "blocklist",
            Fence::Blacklist => "blacklist",
        }
    }

    pub(super) fn other(self) -> Fence {
        match self {
            Fence::Blocklist => Fence::Blacklist,
            Fence::Blacklist => Fence::Blocklist,
        }
    }
}

/// The monitors' answer to a command they do not have (Octopus to `osd blocklist`, Pacific and
/// later removing `osd blacklist`): "no valid command found; 10 closest matches: ..." and
/// "Error EINVAL: invalid command" (src/mon/MonClient / MonCommands validation).
pub(super) fn unknown_command(stderr: &str) -> bool {
    stderr.contains("no valid command found") || stderr.contains("invalid command")
}
