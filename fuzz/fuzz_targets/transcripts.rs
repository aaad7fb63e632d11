//! A node's command transcripts (src/parse/transcripts/): the first line is taken as the
//! command (as a prompt gives it), the rest as its output; every format is tried on the output,
//! by the command's kind and by its shape, into one set of facts, then merged into another.
#![no_main]
use volmnt::parse::transcripts::{self, Kind};

const KINDS: &[Kind] = &[
    Kind::Uname,
    Kind::OsRelease,
    Kind::KernelLog,
    Kind::Lsmod,
    Kind::Kmod,
    Kind::Kubelet,
    Kind::Lookup,
    Kind::Packages,
    Kind::Blkid,
    Kind::Lsblk,
    Kind::Findmnt,
    Kind::MountTable,
    Kind::Multipath,
    Kind::MultipathConf,
    Kind::Iscsi,
    Kind::InitiatorName,
    Kind::Rpcinfo,
    Kind::Showmount,
    Kind::Df,
    Kind::Systemctl,
    Kind::Sysctl,
    Kind::Selinux,
    Kind::Filesystems,
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (cmd, body) = text.split_once('\n').unwrap_or((text, ""));
    let mut facts = volmnt::model::NodeFacts::default();
    let _ = transcripts::kind_of_command(cmd);
    let _ = transcripts::sniff(body);
    let _ = transcripts::shows_text(cmd);
    for k in KINDS {
        let _ = transcripts::apply(*k, Some(cmd), body, &mut facts, "fuzz");
        let _ = transcripts::apply(*k, None, body, &mut facts, "fuzz");
    }
    let mut other = volmnt::model::NodeFacts::default();
    transcripts::merge(&mut other, facts);
});
