//! `-o json` and `-o yaml`: the report as one document (DESIGN.md's contract).

use serde::Serialize;

use crate::model::report::Report;

/// `volmnt explain`'s document: one report per message, in argument order.
#[derive(Serialize)]
pub struct Messages<'a> {
    pub schema_version: u32,
    pub messages: &'a [Report],
}

pub fn to_json<T: Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string_pretty(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| e.to_string())
}

pub fn to_yaml<T: Serialize>(v: &T) -> Result<String, String> {
    serde_yaml::to_string(v).map_err(|e| e.to_string())
}
