//! A dialogue skeleton from a generated scenario, made by the suite
//! ([`ScenarioPools::scaffold`]: ToolTalk fills in the header and writes
//! placeholder turns) and written here, never over a file. `lint`'s `placeholder-text` rule flags
//! every text that starts with [`PLACEHOLDER`] until it is written.

use std::path::Path;

use crate::formats::scenario::ScenarioPool;
use crate::suite::pools::{ScaffoldRequest, ScenarioPools};
use crate::{Error, Result};

pub use crate::suite::pools::{Scaffold, UserChoice};

/// The marker every placeholder text starts with. Unmistakable on purpose:
/// the linter looks for it, and no real dialogue starts with it.
pub const PLACEHOLDER: &str = "TODO(talkforge):";

/// Whether a text is still a scaffold placeholder.
pub fn is_placeholder(text: &str) -> bool {
    text.trim_start().starts_with(PLACEHOLDER)
}

/// A placeholder text asking for `what`.
pub fn placeholder(what: &str) -> String {
    format!("{PLACEHOLDER} {what}")
}

/// Split `FILE#N` into the file and the scenario's 0-based index (None:
/// the pool's first accepted scenario). A `#` not followed by digits only
/// is part of the file name.
pub fn parse_reference(reference: &str) -> (&str, Option<usize>) {
    match reference.rsplit_once('#') {
        Some((file, index)) if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) => {
            (file, index.parse().ok())
        }
        _ => (reference, None),
    }
}

/// The scenario's text, the pool's required tool and the scenario's tools
/// from a pool file. A scenario the generation filter rejected is refused
/// (with its reasons) unless `allow_rejected`.
pub fn load_scenario(
    path: &Path,
    index: Option<usize>,
    allow_rejected: bool,
) -> Result<(String, String, Vec<String>)> {
    let (_, value) = crate::formats::read_json(path)?;
    let pool: ScenarioPool = serde_json::from_value(value)
        .map_err(|e| Error::input(path, format!("not a scenario pool: {e}")))?;
    let scenario = match index {
        Some(i) => pool.scenarios.get(i).ok_or_else(|| {
            Error::input(
                path,
                format!("no scenario #{i} (the pool has {})", pool.scenarios.len()),
            )
        })?,
        None => pool
            .scenarios
            .iter()
            .find(|s| s.accepted)
            .ok_or_else(|| Error::input(path, "the pool has no accepted scenario"))?,
    };
    if !scenario.accepted && !allow_rejected {
        let i = index.unwrap_or_default();
        let why = if scenario.reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", scenario.reasons.join("; "))
        };
        return Err(Error::input(
            path,
            format!(
                "scenario #{i} was rejected by the generation filter{why}; \
                 pass --allow-rejected to scaffold it anyway"
            ),
        ));
    }
    Ok((
        scenario.text.clone(),
        pool.required_tool.clone(),
        scenario.tools.clone(),
    ))
}

/// Write the skeleton `pools` makes for `reference` (`FILE[#N]`) to
/// `out`, never overwriting an existing file; with `username`, for that
/// account.
pub fn scaffold(
    pools: &dyn ScenarioPools,
    reference: &str,
    out: &Path,
    databases: &Path,
    username: Option<&str>,
    allow_rejected: bool,
) -> Result<Scaffold> {
    if out.exists() {
        return Err(Error::input(
            out,
            "already exists; scaffold never overwrites a file",
        ));
    }
    let (file, index) = parse_reference(reference);
    let (text, required, tools) = load_scenario(Path::new(file), index, allow_rejected)?;
    let name = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conversation".to_owned());
    let scaffold = pools.scaffold(&ScaffoldRequest {
        name: &name,
        scenario: &text,
        required: &required,
        tools: &tools,
        databases,
        username,
    })?;
    // A new conversation often starts a new folder (a subset).
    if let Some(folder) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .map_err(|e| Error::input(folder, format!("cannot create the folder: {e}")))?;
    }
    crate::formats::atomic_write(out, scaffold.text.as_bytes())?;
    Ok(scaffold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        assert_eq!(parse_reference("a/b.json#2"), ("a/b.json", Some(2)));
        assert_eq!(parse_reference("a/b.json"), ("a/b.json", None));
        assert_eq!(parse_reference("a#b.json"), ("a#b.json", None));
        assert!(is_placeholder("  TODO(talkforge): x"));
        assert!(!is_placeholder("TODO: x"));
    }
}
