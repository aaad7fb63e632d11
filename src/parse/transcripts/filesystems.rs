//! The filesystem types the kernel knows: `/proc/filesystems` (`nodev\tsysfs`, `\text4`).

use super::command::Command;
use super::reader::{added, Kind, Outcome, Part, Reader};
use crate::model::NodeFacts;

/// `/proc/filesystems`: each line's last word is a filesystem type.
pub fn parse_filesystems(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(str::to_string)
        .collect()
}

/// `/proc/filesystems`.
pub const READER: Reader = Reader {
    kind: Kind::Filesystems,
    label: "/proc/filesystems",
    doc: "`/proc/filesystems`: the filesystem types the running kernel knows (never guessed from \
          its shape: a list of words says too little)",
    samples: &[],
    recognise,
    sniff: None,
    read,
};

fn recognise(c: &Command) -> bool {
    c.reads(|p, _| p == "/proc/filesystems")
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let fs = parse_filesystems(p.text);
    if fs.is_empty() {
        return None;
    }
    let n = fs.len();
    facts.filesystems = fs;
    added(format!("{n} filesystem type(s)"), &["filesystems"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::{apply, kind_of_command, Kind};

    #[test]
    fn filesystem_types_from_proc_filesystems() {
        assert_eq!(
            parse_filesystems("nodev\tsysfs\n\text4\n"),
            ["sysfs", "ext4"]
        );
        assert_eq!(
            kind_of_command("cat /proc/filesystems"),
            Some(Kind::Filesystems)
        );
        let mut f = NodeFacts::default();
        let a = apply(
            Kind::Filesystems,
            Some("cat /proc/filesystems"),
            "nodev\tsysfs\n\txfs\n",
            &mut f,
            "t",
        )
        .unwrap();
        assert_eq!(a.families, ["filesystems"]);
        assert_eq!(f.filesystems, ["sysfs", "xfs"]);
        assert_eq!(f.provenance["filesystems"], "t");
    }
}
