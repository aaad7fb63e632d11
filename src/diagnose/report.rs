//! The report: what every renderer prints and what `-o json|yaml` promises (see DESIGN.md's
//! contract). Built by `diagnose`, never by renderers.

use serde::Serialize;

/// Overall outcome, which also decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A cause (or at least a failure) was found.
    Problem,
    /// Nothing in the input points at a volume problem.
    Ok,
}

/// One step the operator can take.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Do not run before confirming the premise (it can lose data or cut a live client off).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_confirmation: bool,
    /// Set on alternatives that apply to one OS family only (when the node's OS is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_family: Option<String>,
}

/// One likely cause, with why we think so and what to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable snake_case id from the catalogue.
    pub cause: String,
    pub title: String,
    /// 0..1, two decimals.
    pub confidence: f64,
    /// The explanation, filled in with this case's names.
    pub summary: String,
    /// Quotes from the inputs and facts from the objects that support this cause.
    pub evidence: Vec<String>,
    /// How to confirm it before acting.
    pub confirm: Vec<Step>,
    pub remediation: Vec<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
}

/// What the report is about.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Subject {
    /// `pod` or `message`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// `ContainerCreating` and the like.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_reason: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<String>,
}

/// The node's OS as far as it is known, which decides install commands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeOs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_image: Option<String>,
    /// `rhel`, `debian`, `suse`, `alpine`, `immutable`, or `unknown`.
    pub family: String,
    /// Where the OS came from (`Node node1 status.nodeInfo.osImage`, `--node-os`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubelet_version: Option<String>,
}

/// A ranked diagnosis of one pod or one message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// One line: what is wrong, most likely first.
    pub verdict: String,
    pub status: Status,
    pub subject: Subject,
    pub node_os: NodeOs,
    /// Best first.
    pub findings: Vec<Finding>,
    /// Failure messages no rule recognised (quoted, so nothing is hidden).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unrecognised: Vec<String>,
    /// Reads the API refused ("list events in namespace x"): the report is partial.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<String>,
    /// What could not be read or was skipped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What each input was recognised as.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
}

impl Report {
    pub fn top(&self) -> Option<&Finding> {
        self.findings.first()
    }
}
