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

/// The same JSON as `to_json`, written as it is made: a fleet's document (3,000 stuck pods'
/// reports, 50 MB) is never held whole in memory beside the reports it is made of (issue 30).
pub fn write_json<T: Serialize, W: std::io::Write>(v: &T, w: W) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, w);
    serde_json::to_writer_pretty(&mut w, v).map_err(std::io::Error::from)?;
    std::io::Write::write_all(&mut w, b"\n")?;
    std::io::Write::flush(&mut w)
}

pub fn to_yaml<T: Serialize>(v: &T) -> Result<String, String> {
    serde_yaml::to_string(v).map_err(|e| e.to_string())
}
