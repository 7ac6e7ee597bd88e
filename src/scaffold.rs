//! A conversation skeleton from a generated scenario: the header filled in
//! (name, id, plugins and tools, scenario, user, metadata) and placeholder
//! turns for the maintainer to write. `lint`'s `placeholder-text` rule flags
//! every text that starts with [`PLACEHOLDER`] until it is written.

use std::path::Path;

use serde_json::Value;

use crate::dialogue::{Conversation, Metadata, Role, Turn, User};
use crate::formats::scenario::ScenarioPool;
use crate::suites::tooltalk::{catalog, tool};
use crate::{Error, Result};

/// The marker every placeholder text starts with. Unmistakable on purpose:
/// the linter looks for it, and no real dialogue starts with it.
pub const PLACEHOLDER: &str = "TODO(talkforge):";

/// Whether a text is still a scaffold placeholder.
pub fn is_placeholder(text: &str) -> bool {
    text.trim_start().starts_with(PLACEHOLDER)
}

fn placeholder(what: &str) -> String {
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

/// The scenario's text and tools from a pool file. A scenario the
/// generation filter rejected is refused (with its reasons) unless
/// `allow_rejected`.
pub fn load_scenario(
    path: &Path,
    index: Option<usize>,
    allow_rejected: bool,
) -> Result<(String, Vec<String>)> {
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
    Ok((scenario.text.clone(), scenario.tools.clone()))
}

/// The first account of `databases/Account.json`, or placeholders when the
/// database is missing.
pub fn pick_user(databases: &Path) -> Result<User> {
    let path = databases.join("Account.json");
    if !path.exists() {
        return Ok(User {
            username: Some(placeholder("username")),
            email: Some(placeholder("email")),
            phone: Some(placeholder("phone")),
            name: Some(placeholder("name")),
            password: Some(placeholder("password")),
            ..User::default()
        });
    }
    let (_, value) = crate::formats::read_json(&path)?;
    let first = value
        .as_object()
        .and_then(|accounts| accounts.values().next())
        .ok_or_else(|| Error::input(&path, "no account in the Account database"))?;
    let field = |name: &str| first.get(name).and_then(Value::as_str).map(str::to_owned);
    Ok(User {
        username: field("username"),
        email: field("email"),
        phone: field("phone"),
        name: field("name"),
        password: field("password"),
        ..User::default()
    })
}

/// Whether a conversation over `tools` starts logged in: when one of them
/// needs a session and none of them opens one (`UserLogin`,
/// `RegisterUser`), as in the upstream ToolTalk files.
pub fn starts_logged_in(tools: &[String]) -> bool {
    let needs_session = tools
        .iter()
        .filter_map(|t| tool(t))
        .any(|t| t.requires_auth);
    let opens_session = tools
        .iter()
        .any(|t| t == "UserLogin" || t == "RegisterUser");
    needs_session && !opens_session
}

/// A fresh session token in the shape the simulator issues
/// (`xxxxxxxx-xxxx-xxxx`, hex).
pub fn fresh_session_token() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16])
}

/// The skeleton for a scenario. Tools unknown to the catalog are kept in
/// `apis_used` (the linter reports them) but add no plugin.
///
/// The session follows the upstream files: a scenario that needs a
/// logged-in user and does not log in itself starts logged in, with
/// `session_token` in `user` and in `metadata` and the username in
/// `metadata`; any other starts logged out, with neither, and no username
/// in `metadata` (which tells the assistant who is logged in).
pub fn skeleton(
    name: &str,
    scenario: &str,
    tools: &[String],
    mut user: User,
    now: &str,
) -> Conversation {
    // The plugins of the scenario's tools, in catalog order.
    let plugins: Vec<&str> = catalog()
        .groups()
        .iter()
        .map(|g| g.name)
        .filter(|&g| tools.iter().filter_map(|t| tool(t)).any(|t| t.group == g))
        .collect();
    let mut apis: Vec<String> = Vec::new();
    for t in tools {
        if !apis.contains(t) {
            apis.push(t.clone());
        }
    }
    let (session_token, username) = if starts_logged_in(tools) {
        let token = fresh_session_token();
        user.session_token = Some(token.clone());
        (Some(token), user.username.clone())
    } else {
        user.session_token = None;
        (None, None)
    };
    Conversation {
        name: name.to_owned(),
        conversation_id: uuid::Uuid::new_v4().to_string(),
        suites_used: plugins.iter().map(|p| p.to_string()).collect(),
        apis_used: apis,
        scenario: Some(scenario.to_owned()),
        user,
        metadata: Metadata {
            location: Some(placeholder("where the user is, e.g. a city")),
            timestamp: now.to_owned(),
            session_token,
            username,
        },
        conversation: vec![
            Turn {
                index: Some(0),
                role: Role::User,
                text: placeholder("the user's opening request"),
                apis: None,
            },
            // No "apis" key until there are calls: an empty list is not
            // what the upstream files write for a turn without calls.
            Turn {
                index: Some(1),
                role: Role::Assistant,
                text: placeholder("the assistant's answer; put its tool calls under \"apis\""),
                apis: None,
            },
        ],
    }
}

/// Write the skeleton for `reference` (`FILE[#N]`) to `out`, never
/// overwriting an existing file.
pub fn scaffold(
    reference: &str,
    out: &Path,
    databases: &Path,
    allow_rejected: bool,
) -> Result<Conversation> {
    if out.exists() {
        return Err(Error::input(
            out,
            "already exists; scaffold never overwrites a file",
        ));
    }
    let (file, index) = parse_reference(reference);
    let (text, tools) = load_scenario(Path::new(file), index, allow_rejected)?;
    let user = pick_user(databases)?;
    let name = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "conversation".to_owned());
    let now = chrono::Utc::now().format("%Y-%m-%d %H:00:00").to_string();
    let conversation = skeleton(&name, &text, &tools, user, &now);
    let json = crate::formats::to_python_json(&conversation);
    // A new conversation often starts a new folder (a subset).
    if let Some(folder) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .map_err(|e| Error::input(folder, format!("cannot create the folder: {e}")))?;
    }
    crate::formats::atomic_write(out, format!("{json}\n").as_bytes())?;
    Ok(conversation)
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

    #[test]
    fn who_starts_logged_in() {
        let tools = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(starts_logged_in(&tools(&["AddAlarm", "CurrentWeather"])));
        assert!(!starts_logged_in(&tools(&[
            "CurrentWeather",
            "ForecastWeather"
        ])));
        assert!(!starts_logged_in(&tools(&["UserLogin", "AddAlarm"])));
        assert!(!starts_logged_in(&tools(&["RegisterUser", "SendEmail"])));
        let token = fresh_session_token();
        assert_eq!(token.len(), 18);
        assert_eq!(token.matches('-').count(), 2);
    }
}
