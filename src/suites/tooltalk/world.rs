//! ToolTalk's world: the databases, the clock, the user's session and one
//! random stream per tool instance. [`World::execute`] behaves like the
//! reference's `ToolExecutor.execute_tool`.
//!
//! Session rules (the reference's executor): a tool that needs a session
//! gets the world's session token put into its arguments (the model never
//! sends it); `UserLogin` and `RegisterUser` open a session and refuse to
//! open a second; `LogoutUser` and `DeleteAccount` close it.

use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::{Map, Value};

use super::catalog::behaviour;
use super::plugins::Tool;
use crate::dialogue::{Conversation, Metadata, Request, User};
use crate::sim::pyrandom::PyRandom;
use crate::sim::table::{Record, Table};
use crate::sim::{pytime, Databases, Reply, Tables, ToolCtx};
use crate::suite::Execution;

/// The database holding accounts and session tokens.
pub const ACCOUNT_DB: &str = "Account";

/// The argument the world puts in for tools that need a session.
pub const SESSION_TOKEN: &str = "session_token";

/// The simulated world of one conversation.
#[derive(Debug, Clone)]
pub struct World {
    tables: Tables,
    now: NaiveDateTime,
    session_token: Option<String>,
    /// Tool instances, created on first use: each owns `Random(489)`.
    instances: Vec<(&'static str, PyRandom)>,
}

/// What ToolTalk's tools ask of their context beyond the neutral one: the
/// accounts and the session check.
pub trait Session {
    fn accounts(&self) -> &Table;
    fn accounts_mut(&mut self) -> &mut Table;
    /// The reference's `check_session_token`: the username of the account
    /// holding `token`, or `Invalid session_token.`.
    fn check_session_token(&self, token: &Value) -> Result<Arc<str>, String>;
}

impl Session for ToolCtx<'_> {
    fn accounts(&self) -> &Table {
        self.table(ACCOUNT_DB)
    }

    fn accounts_mut(&mut self) -> &mut Table {
        self.table_mut(ACCOUNT_DB)
    }

    fn check_session_token(&self, token: &Value) -> Result<Arc<str>, String> {
        for (username, record) in self.accounts().entries() {
            match record.get(SESSION_TOKEN) {
                Some(t) if t == token => return Ok(Arc::clone(username)),
                Some(_) => {}
                None => return Err(crate::sim::pyargs::key_error(SESSION_TOKEN)),
            }
        }
        Err("Invalid session_token.".to_string())
    }
}

impl World {
    pub fn new(initial: &Databases, now: NaiveDateTime) -> Self {
        World {
            tables: initial.tables(),
            now,
            session_token: None,
            instances: Vec::new(),
        }
    }

    /// A world set up for a conversation as the reference's
    /// `init_conversation_state` does: its clock, and its user's session
    /// token and verification code seeded into the account.
    pub fn for_conversation(
        initial: &Databases,
        conversation: &Conversation,
    ) -> Result<Self, String> {
        Self::for_user(initial, &conversation.metadata, &conversation.user)
    }

    /// [`World::for_conversation`] from the conversation's metadata and user.
    pub fn for_user(initial: &Databases, metadata: &Metadata, user: &User) -> Result<Self, String> {
        let now = pytime::strptime_str(&metadata.timestamp, pytime::TIMESTAMP)
            .map_err(|e| format!("metadata.timestamp: {e}"))?;
        let mut world = World::new(initial, now);
        for (field, value) in [
            (SESSION_TOKEN, &user.session_token),
            ("verification_code", &user.verification_code),
        ] {
            let Some(value) = value else { continue };
            let username = user
                .username
                .as_deref()
                .ok_or_else(|| format!("user.{field} is set but user.username is missing"))?;
            let account = world
                .tables
                .get_mut(ACCOUNT_DB)
                .get_mut(username)
                .and_then(Record::as_object_mut)
                .ok_or_else(|| format!("user {username:?} is not in the Account database"))?;
            account.insert(field, Value::String(value.clone()));
            if field == SESSION_TOKEN {
                world.session_token = Some(value.clone());
            }
        }
        Ok(world)
    }

    pub fn now(&self) -> NaiveDateTime {
        self.now
    }

    /// The databases as they stand.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    pub fn session_token(&self) -> Option<&str> {
        self.session_token.as_deref()
    }

    /// The Account key of the logged-in user, if any: their username, or
    /// for one registered under a value other than text, the key
    /// `pyargs::py_key` gave it.
    pub fn logged_in_user(&self) -> Option<String> {
        let token = Value::String(self.session_token.clone()?);
        self.tables
            .get(ACCOUNT_DB)?
            .iter()
            .find_map(|(name, record)| {
                (record.get(SESSION_TOKEN) == Some(&token)).then(|| name.to_string())
            })
    }

    /// A database as it stands now.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// Execute a call as the reference's `execute_tool` does: the request
    /// as run (with the session token put in for a tool that needs one)
    /// and its outcome.
    pub fn execute(&mut self, api_name: &str, parameters: Map<String, Value>) -> Execution {
        let mut request = Request {
            api_name: api_name.to_string(),
            parameters,
        };
        let result = self.admit(api_name).and_then(|tool| {
            if tool.spec.requires_auth {
                let token = self.session_token.clone().unwrap_or_default();
                request
                    .parameters
                    .insert(SESSION_TOKEN.to_string(), Value::String(token));
            }
            self.run(tool, &request.parameters)
        });
        let (response, exception) = match result {
            Ok(reply) => (reply, None),
            Err(exception) => (Reply::default(), Some(exception)),
        };
        Execution::new(request, response, exception)
    }

    /// The checks the reference makes before running a tool: it exists, a
    /// tool that needs a session has one, and a login does not start a
    /// second session.
    fn admit(&self, api_name: &str) -> Result<&'static Tool, String> {
        let Some(tool) = behaviour(api_name) else {
            return Err(format!("API {api_name} not found"));
        };
        let spec = &tool.spec;
        if spec.requires_auth && self.session_token.is_none() {
            return Err("User is not logged in".to_string());
        }
        if opens_session(api_name) && self.session_token.is_some() {
            // The reference names the account's `username` field, in an f-string.
            let current = self
                .logged_in_user()
                .and_then(|key| {
                    let record = self.tables.get(ACCOUNT_DB)?.get(&key)?;
                    Some(crate::sim::pyargs::display(record.get("username")?))
                })
                .unwrap_or_default();
            return Err(format!(
                "Only one user can be logged in at a time. Current user is {current}."
            ));
        }
        Ok(tool)
    }

    /// Run an admitted tool and keep the session as its result says.
    fn run(
        &mut self,
        tool: &'static Tool,
        parameters: &Map<String, Value>,
    ) -> Result<Reply, String> {
        let spec = &tool.spec;
        let index = match self
            .instances
            .iter()
            .position(|(name, _)| *name == spec.name)
        {
            Some(index) => index,
            None => {
                self.instances.push((spec.name, PyRandom::for_tool()));
                self.instances.len() - 1
            }
        };
        let rng = &mut self.instances[index].1;
        let database = spec.database.unwrap_or_default();
        let mut ctx = ToolCtx::new(self.now, rng, database, &mut self.tables);
        let response = (tool.run)(&mut ctx, parameters)?;
        if opens_session(spec.name) {
            self.session_token = match &response {
                Reply::Json(value) => value.get(SESSION_TOKEN).and_then(Value::as_str),
                Reply::Listed { .. } | Reply::Field { .. } => None,
            }
            .map(str::to_string);
        } else if matches!(spec.name, "LogoutUser" | "DeleteAccount") {
            self.session_token = None;
        }
        Ok(response)
    }
}

fn opens_session(api_name: &str) -> bool {
    matches!(api_name, "UserLogin" | "RegisterUser")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Databases;
    use serde_json::json;

    /// Whether `a` and `b` hold the very same item (not a copy) in
    /// `database[user][key]`.
    fn shared_item(a: Option<&Table>, b: Option<&Table>, user: &str, key: &str) -> bool {
        let item = |t: Option<&Table>| t.unwrap()[user].get(key).unwrap() as *const Value;
        std::ptr::eq(item(a), item(b))
    }

    #[test]
    fn a_tool_copies_the_one_item_it_writes_and_no_other_world_sees_it() {
        let reminder = |id: &str| json!({"reminder_id": id, "task": id, "due_date": null, "status": "pending"});
        let databases = Databases::from_tables(
            [
                (
                    "Account",
                    json!({"ann": {"username": "ann", "session_token": null, "password": "pw"},
                           "bob": {"username": "bob", "session_token": null}}),
                ),
                (
                    "Reminder",
                    json!({"ann": {"r1": reminder("r1"), "r2": reminder("r2"), "r3": reminder("r3")},
                           "bob": {"r9": reminder("r9")}}),
                ),
            ]
            .map(|(name, t)| (name.to_string(), t.as_object().unwrap().clone())),
        );
        let initial = |name: &str| databases.get(name).unwrap().to_map();
        let (accounts, reminders) = (initial("Account"), initial("Reminder"));
        let mut world = world_for(&databases, &ann_logged_in());
        let other = world_for(&databases, &User::default());
        let params = json!({"reminder_id": "r2"});
        let done = world.execute("CompleteReminder", params.as_object().unwrap().clone());
        assert_eq!(done.exception, None);
        let added = world.execute(
            "AddReminder",
            json!({"task": "new"}).as_object().unwrap().clone(),
        );
        assert_eq!(added.exception, None);

        let mine = world.table("Reminder").unwrap();
        assert_eq!(mine["ann"]["r2"]["status"], "complete");
        assert_eq!(mine["ann"].as_object().unwrap().len(), 4);
        // The initial databases and another world still read as before.
        for (name, before) in [("Account", &accounts), ("Reminder", &reminders)] {
            assert_eq!(&databases.get(name).unwrap().to_map(), before);
            assert_eq!(&other.table(name).unwrap().to_map(), before);
        }
        assert_eq!(
            other.table("Reminder").unwrap()["ann"]["r2"]["status"],
            "pending"
        );
        // Only the written items are copies: the user's other reminders,
        // the other user's record and the account's other fields are the
        // initial allocations.
        let (shared, own) = (databases.get("Reminder"), world.table("Reminder"));
        assert!(shared_item(shared, own, "ann", "r1"));
        assert!(shared_item(shared, own, "ann", "r3"));
        assert!(!shared_item(shared, own, "ann", "r2"));
        assert!(std::ptr::eq(&shared.unwrap()["bob"], &own.unwrap()["bob"]));
        let (shared, own) = (databases.get("Account"), world.table("Account"));
        assert!(shared_item(shared, own, "ann", "username"));
        assert!(shared_item(shared, own, "ann", "password"));
        assert!(!shared_item(shared, own, "ann", "session_token"));
        assert_eq!(own.unwrap()["ann"]["session_token"], "tok");
        // The account keeps its field order with the token set in place.
        assert_eq!(
            own.unwrap()["ann"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["username", "session_token", "password"]
        );
    }

    fn logged_in_world() -> World {
        let databases = Databases::from_tables(
            [
                (
                    "Account",
                    json!({"ann": {"username": "ann", "session_token": null, "password": "pw",
                                   "email": "ann@x.com", "phone": "123-456-7890", "name": "Ann"}}),
                ),
                ("Alarm", json!({})),
            ]
            .map(|(name, t)| (name.to_string(), t.as_object().unwrap().clone())),
        );
        world_for(&databases, &ann_logged_in())
    }

    /// A world on 2023-09-10 at noon for `user`.
    fn world_for(databases: &Databases, user: &User) -> World {
        let metadata = Metadata {
            timestamp: "2023-09-10 12:00:00".into(),
            ..Metadata::default()
        };
        World::for_user(databases, &metadata, user).unwrap()
    }

    /// Ann, logged in with the token "tok".
    fn ann_logged_in() -> User {
        User {
            username: Some("ann".into()),
            session_token: Some("tok".into()),
            ..User::default()
        }
    }

    /// Every argument a tool's spec lists (and the session token, for a
    /// tool that needs a session) binds: none is refused as unexpected.
    #[test]
    fn every_listed_parameter_binds() {
        for spec in super::super::catalog::catalog().tools() {
            let mut parameters: Map<String, Value> = spec
                .parameters
                .iter()
                .map(|p| (p.name.to_string(), Value::Null))
                .collect();
            if spec.requires_auth {
                parameters.insert("session_token".into(), json!("tok"));
            }
            let mut world = logged_in_world();
            if matches!(spec.name, "UserLogin" | "RegisterUser") {
                world.session_token = None;
            }
            let exception = world.execute(spec.name, parameters).exception;
            let exception = exception.unwrap_or_default();
            assert!(
                !exception.contains("unexpected keyword"),
                "{}: {exception}",
                spec.name
            );
        }
    }
}
