//! The command line a prompt shows (`$ sudo nsenter -t 1 -m -- ls -l /sbin/mount.nfs | head`):
//! its words, the first stage of its pipeline without the wrappers that do not change what
//! prints, the file a `cat`-like command reads, and the names it asks about. Every reader
//! recognises its command from these.

/// Split a shell command into words (quotes removed; no expansion). Good enough for the commands
/// people paste; `$(...)` and backquotes stay inside one word.
pub fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut any = false;
    let mut prev = '\0';
    for c in cmd.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '(') if prev == '$' || depth > 0 => {
                depth += 1;
                cur.push(c);
            }
            (None, ')') if depth > 0 => {
                depth -= 1;
                cur.push(c);
            }
            (None, c) if depth > 0 => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
        prev = c;
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The stages of a pipeline (`a | b`) of the command line's first command (what follows `;`,
/// `&&` or `||` printed after it and is not its output), a `|` inside quotes or `$(...)` not
/// counting.
fn split_pipeline(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut start = 0;
    let mut end = cmd.len();
    let mut prev = '\0';
    let bytes = cmd.as_bytes();
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') if prev == '$' || depth > 0 => depth += 1,
            (None, ')') if depth > 0 => depth -= 1,
            (None, ';') if depth == 0 => {
                end = i;
                break;
            }
            (None, '&') if depth == 0 && bytes.get(i + 1) == Some(&b'&') => {
                end = i;
                break;
            }
            (None, '|') if depth == 0 && bytes.get(i + 1) == Some(&b'|') => {
                end = i;
                break;
            }
            (None, '|') if depth == 0 => {
                out.push(&cmd[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    out.push(&cmd[start..end]);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// The command's first pipeline stage, without the wrappers that do not change what prints
/// (`sudo`, `nsenter ... --`, `chroot DIR`, `env X=Y`, `time`): `sudo nsenter -t 1 -m -- ls -l
/// /sbin/mount.nfs | head` → `["ls", "-l", "/sbin/mount.nfs"]`. Also returns the whole line's
/// later stages (for `| grep ...`).
pub fn first_stage(cmd: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut stages = split_pipeline(cmd).into_iter().map(words);
    let mut w = stages.next().unwrap_or_default();
    while let Some(first) = w.first().map(|s| basename(s).to_string()) {
        match first.as_str() {
            "sudo" | "doas" => {
                w.remove(0);
                // sudo's own options (`-i`, `-u root`, `-E`).
                while w.first().is_some_and(|a| a.starts_with('-')) {
                    let o = w.remove(0);
                    if matches!(o.as_str(), "-u" | "-g" | "-h" | "-p" | "-C") && !w.is_empty() {
                        w.remove(0);
                    }
                }
            }
            "time" | "exec" | "nohup" => {
                w.remove(0);
            }
            "env" => {
                w.remove(0);
                while w
                    .first()
                    .is_some_and(|a| a.contains('=') || a.starts_with('-'))
                {
                    w.remove(0);
                }
            }
            "chroot" => {
                w.remove(0);
                while w.first().is_some_and(|a| a.starts_with('-')) {
                    w.remove(0);
                }
                if !w.is_empty() {
                    w.remove(0); // the new root
                }
            }
            "nsenter" => {
                w.remove(0);
                match w.iter().position(|a| a == "--") {
                    Some(i) => {
                        w.drain(..=i);
                    }
                    None => {
                        // Options until the first word that is neither an option nor its value.
                        while let Some(a) = w.first() {
                            if !a.starts_with('-') {
                                break;
                            }
                            let takes_value = matches!(a.as_str(), "-t" | "--target" | "-S" | "-G");
                            w.remove(0);
                            if takes_value && !w.is_empty() {
                                w.remove(0);
                            }
                        }
                    }
                }
            }
            _ => break,
        }
    }
    (w, stages.collect())
}

pub(super) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// The file a `cat`-like command reads, when it reads one file.
pub(super) fn read_file_arg(w: &[String]) -> Option<&str> {
    let prog = basename(w.first()?);
    if !matches!(
        prog,
        "cat"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "grep"
            | "egrep"
            | "zcat"
            | "tac"
            | "awk"
            | "sed"
    ) {
        return None;
    }
    w[1..]
        .iter()
        .rev()
        .find(|a| a.starts_with('/') || a.contains("/etc/") || a.contains("proc/"))
        .map(String::as_str)
}

/// A prompt's command as the readers recognise it: the first stage of its pipeline without the
/// wrappers ([`first_stage`]), its program, its arguments, and the file it reads when it is a
/// `cat`-like reader of one file.
#[derive(Debug)]
pub struct Command<'a> {
    /// The whole command line (some formats are told by a word anywhere in it: `| grep
    /// root-dir`, `-o jsonpath=...osImage`).
    pub line: &'a str,
    /// The program's name, without its directory.
    pub prog: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The file a `cat`, `grep`, `tail`... reads, without a trailing `/`.
    pub file: Option<String>,
}

impl<'a> Command<'a> {
    /// `None` when the line has no command word.
    pub fn new(line: &'a str) -> Option<Command<'a>> {
        let (w, _) = first_stage(line);
        let prog = basename(w.first()?).to_string();
        let file = read_file_arg(&w).map(|p| p.trim_end_matches('/').to_string());
        Some(Command {
            line,
            prog,
            args: w[1..].to_vec(),
            file,
        })
    }

    /// Whether the program is one of `progs`.
    pub fn is(&self, progs: &[&str]) -> bool {
        progs.contains(&self.prog.as_str())
    }

    /// Whether `arg` is one of its arguments.
    pub fn has(&self, arg: &str) -> bool {
        self.args.iter().any(|a| a == arg)
    }

    /// The first argument that is not an option (`systemctl --no-pager status x` → `status`).
    pub fn subcommand(&self) -> Option<&str> {
        self.args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
    }

    /// Whether the line names a kubelet or a distribution's process that embeds one.
    pub fn mentions_kubelet(&self) -> bool {
        let c = self.line.to_ascii_lowercase();
        ["kubelet", "kubelite", "k3s", "rke2", "k0s", "hyperkube"]
            .iter()
            .any(|k| c.contains(k))
    }

    /// Whether it reads a file for which `f(path, file name)` holds.
    pub fn reads(&self, f: impl Fn(&str, &str) -> bool) -> bool {
        self.file.as_deref().is_some_and(|p| f(p, basename(p)))
    }
}

/// Whether a command only shows text it did not make (a log viewer, a pager, a file reader:
/// `journalctl -b | grep xfs`, `tail /var/log/messages`), so its output may be recognised by its
/// own shape when its command says nothing.
pub fn shows_text(cmd: &str) -> bool {
    let (w, _) = first_stage(cmd);
    w.first().is_some_and(|p| {
        matches!(
            basename(p),
            "journalctl"
                | "grep"
                | "egrep"
                | "zgrep"
                | "tail"
                | "head"
                | "cat"
                | "zcat"
                | "less"
                | "more"
                | "awk"
                | "sed"
                | "tac"
        )
    })
}

/// The arguments of a command that are names (not options), after the program (and after a
/// subcommand such as `systemctl status`).
pub(super) fn operands(cmd: Option<&str>) -> Vec<String> {
    let Some(cmd) = cmd else {
        return Vec::new();
    };
    let (w, _) = first_stage(cmd);
    let prog = w
        .first()
        .map(|p| basename(p).to_string())
        .unwrap_or_default();
    let mut rest: Vec<String> = w
        .into_iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if matches!(prog.as_str(), "systemctl" | "apk") && !rest.is_empty() {
        rest.remove(0);
    }
    if prog == "service" {
        rest.retain(|a| a != "status");
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_read_through_their_wrappers() {
        assert_eq!(
            first_stage("sudo nsenter -t 1 -m -- ls -l /sbin/mount.nfs | head").0,
            ["ls", "-l", "/sbin/mount.nfs"]
        );
        assert_eq!(
            first_stage("nsenter --target 1 --mount -- ls -la /sbin/mount.aznfs").0[0],
            "ls"
        );
        assert_eq!(
            first_stage("sudo -u root chroot /host uname -r").0,
            ["uname", "-r"]
        );
        assert_eq!(
            first_stage("grep -E 'a|b' /var/log/kern.log | tail").0,
            ["grep", "-E", "a|b", "/var/log/kern.log"]
        );
    }
}
