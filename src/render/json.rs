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
    let mut out = Vec::new();
    write_json(v, &mut out).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The JSON document (pretty, one newline after it) written as it is made: `to_json` writes it
/// into memory; a fleet's document (3,000 stuck pods' reports, 50 MB) goes straight to stdout,
/// never held whole beside the reports it is made of (issue 30).
pub fn write_json<T: Serialize, W: std::io::Write>(v: &T, mut w: W) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut w, v).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
}

pub fn to_yaml<T: Serialize>(v: &T) -> Result<String, String> {
    serde_yaml::to_string(v).map_err(|e| e.to_string())
}
