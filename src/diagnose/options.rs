//! What a diagnosis is asked to do beside the facts of the case.

/// Knobs that are not facts of the case.
#[derive(Debug, Clone)]
pub struct Options {
    /// The node's OS when no Node object says it (`--node-os`): a family id or an osImage.
    pub node_os: Option<String>,
    /// How volmnt was invoked (`volmnt`, or `kubectl volmnt` as a plugin): the volmnt commands
    /// a report suggests say it the same way.
    pub invocation: String,
    /// The time to measure ages from (Unix seconds): now, for a live read. Without it (saved
    /// files) events show their own timestamps and how long they repeated.
    pub now: Option<i64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            node_os: None,
            invocation: "volmnt".into(),
            now: None,
        }
    }
}
