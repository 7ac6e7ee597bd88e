//! ToolTalk's conversation skeletons from generated scenarios: the header
//! filled in (name, id, plugins and tools, scenario, user, metadata) and
//! placeholder turns for the maintainer to write.

use std::path::Path;

use serde_json::Value;

use super::{catalog, tool};
use crate::dialogue::{Conversation, Metadata, Role, Turn, User};
use crate::scaffold::placeholder;
use crate::suite::pools::{Scaffold, ScaffoldRequest, ScenarioPools, UserChoice};
use crate::{Error, Result};

/// ToolTalk's scenario pools.
#[derive(Debug, Clone, Copy)]
pub struct ToolTalkPools;

impl ScenarioPools for ToolTalkPools {
    fn scaffold(&self, request: &ScaffoldRequest<'_>) -> Result<Scaffold> {
        let (user, choice) = pick_user(request.databases, request.username, request.scenario)?;
        let now = moment(request.databases)?;
        let conversation = skeleton(
            request.name,
            request.scenario,
            Some(request.required),
            request.tools,
            user,
            &now,
        );
        let json = crate::formats::to_python_json(&conversation);
        Ok(Scaffold {
            conversation,
            choice,
            text: format!("{json}\n"),
        })
    }
}

/// The conversation's user from `databases/Account.json`: the account
/// `username` names (an error listing the accounts when there is none),
/// else the one the scenario text names, else the first account;
/// placeholders when the database is missing.
pub fn pick_user(
    databases: &Path,
    username: Option<&str>,
    scenario: &str,
) -> Result<(User, UserChoice)> {
    let path = databases.join("Account.json");
    if !path.exists() {
        if let Some(username) = username {
            return Err(Error::input(
                &path,
                format!("no such file, so --user {username} cannot be looked up"),
            ));
        }
        let user = User {
            username: Some(placeholder("username")),
            email: Some(placeholder("email")),
            phone: Some(placeholder("phone")),
            name: Some(placeholder("name")),
            password: Some(placeholder("password")),
            ..User::default()
        };
        return Ok((user, UserChoice::Placeholders));
    }
    let (_, value) = crate::formats::read_json(&path)?;
    let accounts = value
        .as_object()
        .filter(|accounts| !accounts.is_empty())
        .ok_or_else(|| Error::input(&path, "no account in the Account database"))?;
    let text = |account: &Value, field: &str| {
        account
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (account, choice) = match username {
        Some(wanted) => {
            let found = accounts.values().find(|a| text(a, "username") == wanted);
            let known: Vec<String> = accounts.values().map(|a| text(a, "username")).collect();
            let account = found.ok_or_else(|| {
                Error::Usage(format!(
                    "--user {wanted}: no such account in {} (its usernames: {})",
                    path.display(),
                    known.join(", ")
                ))
            })?;
            (account, UserChoice::Named)
        }
        None => match accounts.values().find(|a| names_them(scenario, a)) {
            Some(account) => (account, UserChoice::FromScenario),
            None => (
                accounts.values().next().expect("not empty"),
                UserChoice::FirstAccount,
            ),
        },
    };
    let field = |name: &str| account.get(name).and_then(Value::as_str).map(str::to_owned);
    let user = User {
        username: field("username"),
        email: field("email"),
        phone: field("phone"),
        name: field("name"),
        password: field("password"),
        ..User::default()
    };
    Ok((user, choice))
}

/// Whether `scenario` names the account's person: their full name, first
/// name or username as a whole word.
fn names_them(scenario: &str, account: &Value) -> bool {
    let words: Vec<String> = scenario
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .map(str::to_lowercase)
        .collect();
    let has_word = |w: &str| !w.is_empty() && words.iter().any(|x| x == &w.to_lowercase());
    let field = |name: &str| {
        account
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let name = field("name");
    let first = name.split_whitespace().next().unwrap_or_default();
    let full = !name.is_empty() && scenario.to_lowercase().contains(&name.to_lowercase());
    full || has_word(first) || has_word(field("username"))
}

/// The moment a new conversation happens: 09:00 on the middle date the
/// databases' records hold (so that "today" falls among the data, as the
/// `timestamp-out-of-range` rule asks), or the current hour when they hold
/// no date.
pub fn moment(databases: &Path) -> Result<String> {
    let mut dates = match crate::sim::Databases::load(databases) {
        Ok(loaded) => super::databases::record_dates(&loaded),
        Err(_) if !databases.exists() => Vec::new(),
        Err(e) => return Err(e),
    };
    dates.sort_unstable();
    Ok(match dates.get(dates.len() / 2) {
        Some(date) => format!("{} 09:00:00", date.format("%Y-%m-%d")),
        None => chrono::Utc::now().format("%Y-%m-%d %H:00:00").to_string(),
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
    required: Option<&str>,
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
    // The scenario's required tool first, as the upstream files list it.
    let mut apis: Vec<String> = required.into_iter().map(str::to_owned).collect();
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
        errata: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
