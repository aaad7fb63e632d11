//! The one place that decides an error's message, hint and exit code.

use std::fmt;

/// volmnt's exit codes: a public contract, documented in `--help`, the README and docs/reference.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Nothing wrong was found / every required check passed.
    Ok = 0,
    /// A problem was found, or a required check failed.
    Problem = 1,
    /// The command line or an input could not be used.
    Usage = 2,
    /// What was needed could not be reached or was not allowed to be read.
    Unreachable = 3,
}

impl ExitCode {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// Text for `--help`, the README and docs/reference.md; kept beside the type so they cannot drift apart.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  nothing wrong was found / all required checks passed
  1  a problem was found, or a required check failed
  2  usage or input error (bad flag, unreadable or unrecognised input)
  3  could not reach, or was not allowed to read, what was needed (partial report where possible)";

/// A parser's complaint about its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What was being parsed ("kubectl describe pod", "rbd lock ls --format json").
    pub what: &'static str,
    /// 1-based line, when it helps.
    pub line: Option<usize>,
    pub message: String,
}

impl ParseError {
    pub fn new(what: &'static str, message: impl Into<String>) -> Self {
        ParseError {
            what,
            line: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{} (line {}): {}", self.what, l, self.message),
            None => write!(f, "{}: {}", self.what, self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Every error a command can end with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags or arguments.
    #[error("{0}")]
    Usage(String),
    /// An input that could not be read or understood.
    #[error("{context}: {message}")]
    Input { context: String, message: String },
    #[error("{context}: {source}")]
    Parse {
        context: String,
        #[source]
        source: ParseError,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// Something needed could not be reached or read (cluster, node, Ceph).
    #[error("{0}")]
    Unreachable(String),
    /// No cluster is configured at all (no kubeconfig anywhere it was looked for, not in a
    /// pod): the message says where volmnt looked.
    #[error("{0}")]
    NoCluster(String),
    #[error("writing output: {0}")]
    Output(String),
}

impl Error {
    pub fn input(context: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Input {
            context: context.into(),
            message: message.into(),
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Usage(_) | Error::Input { .. } | Error::Parse { .. } | Error::Io { .. } => {
                ExitCode::Usage
            }
            Error::Unreachable(_) | Error::NoCluster(_) => ExitCode::Unreachable,
            // A closed pipe or full disk on stdout: the report could not be delivered.
            Error::Output(_) => ExitCode::Usage,
        }
    }

    /// A next step to print under the message, where one helps.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::Parse { .. } => Some(
                "volmnt reads `kubectl describe pod`, `kubectl get ... -o yaml|json`, \
                 `kubectl get events`, kubelet logs and `rbd lock ls` output; see `volmnt doctor pod --help`",
            ),
            Error::Input { context, .. } if context.starts_with("message") || context == "stdin" => None,
            Error::Input { .. } => Some(
                "volmnt reads `kubectl describe pod`, `kubectl get ... -o yaml|json`, \
                 `kubectl get events`, kubelet logs and `rbd lock ls` output; see `volmnt doctor pod --help`",
            ),
            _ => None,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
