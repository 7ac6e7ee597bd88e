//! The world a conversation runs in: the databases, the clock, the session
//! and one random stream per tool instance. `execute` behaves like the
//! reference's `ToolExecutor.execute_tool`.
//!
//! Databases are loaded once and shared; a world holds reference-counted
//! handles to them, and a write copies only the item it changes and the
//! index of its record (see `table`), so a reset is a handful of pointer
//! copies.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::{Map, Value};

use super::catalog::{tool, ToolSpec};
use super::pyargs::lookup;
use super::pyrandom::PyRandom;
use super::pytime;
use super::reply::Reply;
pub use super::table::{Items, Record, Table};
use crate::model::{Conversation, Metadata, Request, User};
use crate::{Error, Result};

/// The database holding accounts and session tokens.
pub const ACCOUNT_DB: &str = "Account";

/// The initial databases, loaded once and shared by every world: cloning
/// one (as every new world does) is one reference count.
#[derive(Debug, Clone, Default)]
pub struct Databases {
    tables: Arc<Tables>,
}

/// Databases by name, in load order; cloning one copies pointers, not
/// data. A world has a handful of databases, looked up by name on every
/// call: comparing a few short names beats hashing one, and a clone (one
/// per world) is a single allocation.
#[derive(Debug, Clone, Default)]
struct Tables(Vec<(Arc<str>, Arc<Table>)>);

impl Tables {
    fn index_of(&self, name: &str) -> Option<usize> {
        self.0
            .iter()
            .position(|(known, _)| crate::sim::names::same(known, name))
    }

    fn get(&self, name: &str) -> Option<&Arc<Table>> {
        self.index_of(name).map(|i| &self.0[i].1)
    }

    /// Insert or replace, keeping the first position (as a map would).
    fn insert(&mut self, name: Arc<str>, table: Arc<Table>) -> usize {
        match self.index_of(&name) {
            Some(i) => {
                self.0[i].1 = table;
                i
            }
            None => {
                self.0.push((name, table));
                self.0.len() - 1
            }
        }
    }
}

impl FromIterator<(Arc<str>, Arc<Table>)> for Tables {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, Arc<Table>)>>(iter: I) -> Self {
        let mut tables = Tables::default();
        for (name, table) in iter {
            tables.insert(name, table);
        }
        tables
    }
}

impl Databases {
    /// Load every `*.json` in `dir`; each file's stem names its database.
    pub fn load(dir: &Path) -> Result<Self> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| Error::input(dir, format!("cannot read the databases folder: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        entries.sort();
        let mut tables = Tables::default();
        for path in entries {
            let (_, value) = crate::dataset::read_json(&path)?;
            let Value::Object(table) = value else {
                return Err(Error::input(&path, "a database must be a JSON object"));
            };
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            tables.insert(Arc::from(name), Arc::new(Table::from(table)));
        }
        if tables.get(ACCOUNT_DB).is_none() {
            return Err(Error::input(
                dir,
                format!("account database {ACCOUNT_DB}.json not found"),
            ));
        }
        Ok(Databases {
            tables: Arc::new(tables),
        })
    }

    pub fn from_tables<T: Into<Table>>(tables: impl IntoIterator<Item = (String, T)>) -> Self {
        Databases {
            tables: Arc::new(
                tables
                    .into_iter()
                    .map(|(k, v)| (Arc::from(k), Arc::new(v.into())))
                    .collect(),
            ),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Table> {
        self.tables.get(name).map(|t| t.as_ref())
    }

    /// The calling thread's own copy of these databases, made on its first
    /// call and kept for the next ones.
    ///
    /// Worlds share the databases through reference counts, and a count
    /// that two threads change in turn moves between their cores' caches
    /// on every change: with each worker setting up worlds from the same
    /// databases, that traffic slowed every count (and whatever shares a
    /// cache line with one) by a fifth or more. A copy per thread keeps
    /// each worker's counts to itself.
    pub fn for_this_thread(&self) -> Databases {
        thread_local! {
            static COPY: RefCell<Option<(Databases, Databases)>> = const { RefCell::new(None) };
        }
        COPY.with(|cell| {
            let mut cell = cell.borrow_mut();
            match &*cell {
                // The source is held too, so that its address cannot be
                // reused by other databases while the copy is kept.
                Some((source, copy)) if Arc::ptr_eq(&source.tables, &self.tables) => copy.clone(),
                _ => {
                    let copy = self.unshared();
                    *cell = Some((self.clone(), copy.clone()));
                    copy
                }
            }
        })
    }

    /// A copy equal to these databases that shares nothing with them.
    fn unshared(&self) -> Databases {
        Databases {
            tables: Arc::new(
                self.tables
                    .0
                    .iter()
                    .map(|(name, table)| {
                        (Arc::from(&**name), Arc::new(Table::from(table.to_map())))
                    })
                    .collect(),
            ),
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables.0.iter().map(|(name, _)| name.as_ref())
    }

    /// A database to change (its record index copied if a world still
    /// shares it); created empty when missing.
    pub fn table_mut(&mut self, name: &str) -> &mut Table {
        table_mut(Arc::make_mut(&mut self.tables), name)
    }
}

fn table_mut<'t>(tables: &'t mut Tables, name: &str) -> &'t mut Table {
    let index = match tables.index_of(name) {
        Some(index) => index,
        None => tables.insert(Arc::from(name), Arc::default()),
    };
    Arc::make_mut(&mut tables.0[index].1)
}

/// A call as executed: the request (with the injected session token) and
/// its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub request: Request,
    pub response: Value,
    pub exception: Option<String>,
}

/// The simulated world of one conversation.
#[derive(Debug, Clone)]
pub struct World {
    initial: Databases,
    tables: Tables,
    now: NaiveDateTime,
    session_token: Option<String>,
    /// Tool instances, created on first use: each owns `Random(489)`. A
    /// conversation uses a handful of tools, so a short list searched by
    /// the spec's address beats hashing names, and copies in one piece.
    instances: Vec<(&'static ToolSpec, PyRandom)>,
    /// The last token `check_session_token` looked up and what it found.
    /// Nearly every call checks its token, and a conversation uses one or
    /// two: the Account database is searched again only after it changes.
    token_owner: TokenOwner,
}

type TokenOwner = RefCell<Option<(Value, Result<Arc<str>, String>)>>;

/// What a running tool may touch.
pub struct ToolCtx<'w> {
    /// The conversation's "now".
    pub now: NaiveDateTime,
    /// The tool instance's random stream.
    pub rng: &'w mut PyRandom,
    pub spec: &'static ToolSpec,
    tables: &'w mut Tables,
    token_owner: &'w TokenOwner,
}

impl ToolCtx<'_> {
    /// A database by name; a missing one reads as empty.
    pub fn table(&self, name: &str) -> &Table {
        static EMPTY: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        self.tables
            .get(name)
            .map(|t| t.as_ref())
            .unwrap_or_else(|| EMPTY.get_or_init(Table::new))
    }

    /// A database to change; records are copied as they are written.
    pub fn table_mut(&mut self, name: &str) -> &mut Table {
        if name == ACCOUNT_DB {
            self.token_owner.take();
        }
        table_mut(self.tables, name)
    }

    /// The tool's own database.
    pub fn own(&self) -> &Table {
        self.table(self.spec.database.unwrap_or(ACCOUNT_DB))
    }

    pub fn own_mut(&mut self) -> &mut Table {
        self.table_mut(self.spec.database.unwrap_or(ACCOUNT_DB))
    }

    pub fn accounts(&self) -> &Table {
        self.table(ACCOUNT_DB)
    }

    pub fn accounts_mut(&mut self) -> &mut Table {
        self.table_mut(ACCOUNT_DB)
    }

    /// The reference's `check_session_token`: the username of the account
    /// holding `token`, or `Invalid session_token.`.
    ///
    /// The username is the account's key in the table, shared, not copied.
    pub fn check_session_token(&self, token: &Value) -> Result<Arc<str>, String> {
        if let Some((known, owner)) = self.token_owner.borrow().as_ref() {
            if known == token {
                return owner.clone();
            }
        }
        let owner = self.find_token_owner(token);
        self.token_owner
            .replace(Some((token.clone(), owner.clone())));
        owner
    }

    fn find_token_owner(&self, token: &Value) -> Result<Arc<str>, String> {
        for (username, record) in self.accounts().entries() {
            match record.get("session_token") {
                Some(t) if t == token => return Ok(Arc::clone(username)),
                Some(_) => {}
                None => return Err(super::pyargs::key_error("session_token")),
            }
        }
        Err("Invalid session_token.".to_string())
    }
}

impl World {
    pub fn new(initial: &Databases, now: NaiveDateTime) -> Self {
        World {
            initial: initial.clone(),
            tables: Tables::clone(&initial.tables),
            now,
            session_token: None,
            instances: Vec::new(),
            token_owner: TokenOwner::default(),
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
            ("session_token", &user.session_token),
            ("verification_code", &user.verification_code),
        ] {
            let Some(value) = value else { continue };
            let username = user
                .username
                .as_deref()
                .ok_or_else(|| format!("user.{field} is set but user.username is missing"))?;
            let account = table_mut(&mut world.tables, ACCOUNT_DB)
                .get_mut(username)
                .and_then(Record::as_object_mut)
                .ok_or_else(|| format!("user {username:?} is not in the Account database"))?;
            account.insert(field, Value::String(value.clone()));
            if field == "session_token" {
                world.session_token = Some(value.clone());
            }
        }
        Ok(world)
    }

    /// Back to the initial databases, logged out, with fresh tool instances.
    pub fn reset(&mut self, now: NaiveDateTime) {
        self.tables = Tables::clone(&self.initial.tables);
        self.now = now;
        self.session_token = None;
        self.instances.clear();
        self.token_owner.take();
    }

    pub fn now(&self) -> NaiveDateTime {
        self.now
    }

    pub fn session_token(&self) -> Option<&str> {
        self.session_token.as_deref()
    }

    /// The username of the logged-in user, if any.
    pub fn logged_in_user(&self) -> Option<String> {
        let token = Value::String(self.session_token.clone()?);
        self.tables
            .get(ACCOUNT_DB)?
            .iter()
            .find_map(|(name, record)| {
                (record.get("session_token") == Some(&token)).then(|| name.to_string())
            })
    }

    /// A database as it stands now.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name).map(|t| t.as_ref())
    }

    /// Execute a call as the reference's `execute_tool` does.
    pub fn execute(&mut self, api_name: &str, parameters: &Map<String, Value>) -> Execution {
        self.execute_owned(api_name.to_string(), parameters.clone())
    }

    /// [`World::execute`] for a caller that owns the arguments (they become
    /// the executed request without a copy).
    pub fn execute_owned(&mut self, api_name: String, parameters: Map<String, Value>) -> Execution {
        let mut request = Request {
            api_name,
            parameters,
        };
        let (response, exception) = match self.admit(&request.api_name) {
            Err(exception) => (Value::Null, Some(exception)),
            Ok((spec, inject)) => {
                if inject {
                    request
                        .parameters
                        .insert("session_token".to_string(), self.token_value());
                }
                split(self.run(spec, &request.parameters).map(Reply::into_value))
            }
        };
        Execution {
            request,
            response,
            exception,
        }
    }

    /// What executing a call returns (response, exception), without the
    /// executed request: for a caller that only looks at the outcome, the
    /// arguments are borrowed, and copied only when the session token has
    /// to be put into them.
    pub fn outcome(
        &mut self,
        api_name: &str,
        parameters: &Map<String, Value>,
    ) -> (Value, Option<String>) {
        let (spec, inject) = match self.admit(api_name) {
            Ok(admitted) => admitted,
            Err(exception) => return (Value::Null, Some(exception)),
        };
        let token = self.session_token.as_deref();
        // Inserting a key that holds the same value changes nothing.
        let parameters =
            if inject && lookup(parameters, "session_token").and_then(Value::as_str) != token {
                let mut injected = parameters.clone();
                injected.insert("session_token".to_string(), self.token_value());
                std::borrow::Cow::Owned(injected)
            } else {
                std::borrow::Cow::Borrowed(parameters)
            };
        split(self.run(spec, &parameters).map(Reply::into_value))
    }

    /// [`World::execute`] of `parameters` less their session token (taken
    /// out as `Map::remove` takes it: the last argument fills its place),
    /// run without a copy when that executes the same arguments as
    /// `parameters` themselves with the token moved to the end: the tool
    /// needs a session and they hold the world's token, or it needs none
    /// and they hold no token. The outcome (response, exception) then;
    /// `None` when the call has to be made with the arguments copied (it
    /// has not run).
    ///
    /// The tool runs on `parameters` in their own order, and a tool reads
    /// its arguments by name; the order shows only in which of several
    /// arguments the tool does not take an error names first, so a
    /// reordered call with more than one such argument is not run here.
    pub fn execute_tokenless(
        &mut self,
        api_name: &str,
        parameters: &Map<String, Value>,
    ) -> Option<(Reply, Option<String>)> {
        let token = lookup(parameters, "session_token");
        let (spec, inject) = match self.admit(api_name) {
            // Nothing is injected: the token, if any, stays out.
            Err(exception) => {
                return token
                    .is_none()
                    .then_some((Reply::default(), Some(exception)))
            }
            Ok(admitted) => admitted,
        };
        if inject {
            let token = token?;
            if token.as_str() != self.session_token.as_deref() {
                return None;
            }
            let last = parameters.keys().next_back().map(String::as_str);
            let unknown = parameters
                .keys()
                .filter(|k| k.as_str() != "session_token" && spec.parameter(k).is_none())
                .count();
            if last != Some("session_token") && unknown > 1 {
                return None;
            }
        } else if token.is_some() {
            return None;
        }
        Some(split(self.run(spec, parameters)))
    }

    fn token_value(&self) -> Value {
        Value::String(self.session_token.clone().unwrap_or_default())
    }

    /// The checks the reference makes before running a tool: it exists, a
    /// tool that needs a session has one (then the token is injected:
    /// `true`), and a login does not start a second session.
    fn admit(&self, api_name: &str) -> Result<(&'static ToolSpec, bool), String> {
        let Some(spec) = tool(api_name) else {
            return Err(format!("API {api_name} not found"));
        };
        if spec.requires_auth && self.session_token.is_none() {
            return Err("User is not logged in".to_string());
        }
        if opens_session(api_name) && self.session_token.is_some() {
            let current = self.logged_in_user().unwrap_or_default();
            return Err(format!(
                "Only one user can be logged in at a time. Current user is {current}."
            ));
        }
        Ok((spec, spec.requires_auth))
    }

    /// Run an admitted tool and keep the session as its result says.
    fn run(
        &mut self,
        spec: &'static ToolSpec,
        parameters: &Map<String, Value>,
    ) -> Result<Reply, String> {
        let index = match self
            .instances
            .iter()
            .position(|(known, _)| std::ptr::eq(*known, spec))
        {
            Some(index) => index,
            None => {
                self.instances.push((spec, PyRandom::for_tool()));
                self.instances.len() - 1
            }
        };
        let rng = &mut self.instances[index].1;
        let mut ctx = ToolCtx {
            now: self.now,
            rng,
            spec,
            tables: &mut self.tables,
            token_owner: &self.token_owner,
        };
        let response = (spec.run)(&mut ctx, parameters)?;
        if opens_session(spec.name) {
            self.session_token = match &response {
                Reply::Json(value) => value.get("session_token").and_then(Value::as_str),
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

/// A run's (response, exception): a tool that raised returned null.
fn split<R: Default>(result: Result<R, String>) -> (R, Option<String>) {
    match result {
        Ok(response) => (response, None),
        Err(exception) => (R::default(), Some(exception)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(records: Value) -> Arc<Table> {
        Arc::new(Table::from(records.as_object().unwrap().clone()))
    }

    #[test]
    fn tables_keep_first_places_and_last_values_as_a_map_would() {
        let tables: Tables = [
            (Arc::from("Account"), table(json!({"a": 1}))),
            (Arc::from("Alarm"), table(json!({}))),
            (Arc::from("Account"), table(json!({"b": 2}))),
        ]
        .into_iter()
        .collect();
        assert_eq!(tables.0.len(), 2);
        assert_eq!(tables.index_of("Account"), Some(0));
        assert_eq!(tables.index_of("Alarm"), Some(1));
        assert_eq!(tables.index_of("Email"), None);
        assert_eq!(tables.get("Account").unwrap()["b"], json!(2));
        assert!(tables.get("Account").unwrap().get("a").is_none());
    }

    #[test]
    fn a_world_writes_its_own_copy_of_the_shared_databases() {
        let databases = Databases::from_tables([(
            "Account".to_string(),
            json!({"ann": {"session_token": "t"}})
                .as_object()
                .unwrap()
                .clone(),
        )]);
        let now = pytime::strptime_str("2023-09-11 09:00:00", pytime::TIMESTAMP).unwrap();
        let mut world = World::new(&databases, now);
        table_mut(&mut world.tables, "Account").insert("bob", json!({}));
        table_mut(&mut world.tables, "Calendar").insert("bob", json!({}));
        assert!(world.table("Account").unwrap().contains_key("bob"));
        assert!(world.table("Calendar").unwrap().contains_key("bob"));
        assert!(!databases.get("Account").unwrap().contains_key("bob"));
        assert!(databases.get("Calendar").is_none());
        world.reset(now);
        assert!(!world.table("Account").unwrap().contains_key("bob"));
    }

    #[test]
    fn each_thread_works_on_its_own_equal_copy_of_the_databases() {
        let tables = |user: &str| {
            [
                (
                    "Account".to_string(),
                    json!({user: {"session_token": "t", "k": [1, 2]}}),
                ),
                (
                    "Alarm".to_string(),
                    json!({user: {"a1": {"time": "07:00:00"}}}),
                ),
            ]
            .map(|(name, value)| (name, value.as_object().unwrap().clone()))
        };
        let (first, second) = (
            Databases::from_tables(tables("ann")),
            Databases::from_tables(tables("bob")),
        );
        let copy = first.for_this_thread();
        assert!(!Arc::ptr_eq(&copy.tables, &first.tables));
        assert_eq!(copy.names().collect::<Vec<_>>(), ["Account", "Alarm"]);
        for (name, key) in [("Account", "session_token"), ("Alarm", "a1")] {
            let (a, b) = (first.get(name).unwrap(), copy.get(name).unwrap());
            assert_eq!(a.to_map(), b.to_map(), "{name}");
            assert!(!shared_item(Some(a), Some(b), "ann", key), "{name}");
        }
        assert!(
            Arc::ptr_eq(&first.for_this_thread().tables, &copy.tables),
            "made once per thread"
        );
        // Other databases get their own copy, and another thread its own.
        assert!(second
            .for_this_thread()
            .get("Account")
            .unwrap()
            .contains_key("bob"));
        let elsewhere = std::thread::scope(|s| {
            s.spawn(|| Arc::as_ptr(&first.for_this_thread().tables) as usize)
                .join()
                .unwrap()
        });
        assert_ne!(elsewhere, Arc::as_ptr(&copy.tables) as usize);
    }

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
        let done = world.execute("CompleteReminder", params.as_object().unwrap());
        assert_eq!(done.exception, None);
        let added = world.execute("AddReminder", json!({"task": "new"}).as_object().unwrap());
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

    /// A token's owner is remembered between calls, and looked up again
    /// once the Account database has been handed out for writing.
    #[test]
    fn a_remembered_token_owner_is_forgotten_when_the_accounts_change() {
        let mut world = logged_in_world();
        let spec = tool("GetAccountInformation").unwrap();
        let mut ctx = ToolCtx {
            now: world.now,
            rng: &mut PyRandom::for_tool(),
            spec,
            tables: &mut world.tables,
            token_owner: &world.token_owner,
        };
        assert_eq!(ctx.check_session_token(&json!("tok")), Ok("ann".into()));
        assert!(ctx.token_owner.borrow().is_some(), "remembered");
        let invalid = Err("Invalid session_token.".to_string());
        assert_eq!(ctx.check_session_token(&json!("new")), invalid);
        ctx.accounts_mut()
            .get_mut("ann")
            .and_then(Record::as_object_mut)
            .unwrap()
            .insert("session_token", json!("new"));
        assert!(ctx.token_owner.borrow().is_none(), "forgotten");
        assert_eq!(ctx.check_session_token(&json!("new")), Ok("ann".into()));
        assert_eq!(ctx.check_session_token(&json!("tok")), invalid);
        // Writing another database keeps what was found.
        ctx.table_mut("Alarm");
        assert!(ctx.token_owner.borrow().is_some());
    }

    /// `execute_tokenless` runs a borrowed call exactly as `execute_owned`
    /// runs its arguments copied without the token, or declines (`None`)
    /// and leaves the world as it was.
    #[test]
    fn a_tokenless_call_runs_as_its_copy_would_or_not_at_all() {
        let cases = [
            // A tool that needs a session, with the world's token: runs.
            (
                "AddAlarm",
                json!({"session_token": "tok", "time": "07:00:00"}),
                true,
            ),
            (
                "AddAlarm",
                json!({"time": "07:00:00", "session_token": "tok"}),
                true,
            ),
            ("FindAlarms", json!({"session_token": "tok"}), true),
            // One argument the tool does not take, anywhere: runs.
            (
                "AddAlarm",
                json!({"session_token": "tok", "time": "07:00:00", "x": 1}),
                true,
            ),
            // Two, reordered by moving the token: the error could name
            // another one, so it is left to the copy.
            (
                "AddAlarm",
                json!({"session_token": "tok", "x": 1, "y": 2}),
                false,
            ),
            // Two, with nothing reordered (the token already last): runs.
            (
                "AddAlarm",
                json!({"x": 1, "y": 2, "session_token": "tok"}),
                true,
            ),
            // Another token, or none, where one is needed: the copy.
            (
                "AddAlarm",
                json!({"session_token": "old", "time": "07:00:00"}),
                false,
            ),
            (
                "AddAlarm",
                json!({"session_token": 1, "time": "07:00:00"}),
                false,
            ),
            ("AddAlarm", json!({"time": "07:00:00"}), false),
            // A tool without a session: runs without a token, not with one.
            ("CurrentWeather", json!({"location": "London"}), true),
            (
                "CurrentWeather",
                json!({"session_token": "tok", "location": "London"}),
                false,
            ),
            // Refused before running: no token to leave out, or one.
            ("NoSuchTool", json!({"a": 1}), true),
            ("NoSuchTool", json!({"session_token": "tok"}), false),
            (
                "UserLogin",
                json!({"username": "ann", "password": "pw"}),
                true,
            ),
        ];
        for (api_name, parameters, runs) in cases {
            let parameters = parameters.as_object().unwrap();
            let mut copied = parameters.clone();
            copied.remove("session_token");
            let mut owned_world = logged_in_world();
            let owned = owned_world.execute_owned(api_name.to_string(), copied);
            let mut world = logged_in_world();
            let outcome = world.execute_tokenless(api_name, parameters);
            assert_eq!(outcome.is_some(), runs, "{api_name} {parameters:?}");
            match outcome {
                Some((response, exception)) => {
                    assert_eq!(
                        (response.into_value(), exception),
                        (owned.response, owned.exception),
                        "{api_name} {parameters:?}"
                    );
                    // By key, the executed arguments are the borrowed ones.
                    assert_eq!(&owned.request.parameters, parameters);
                    for name in ["Account", "Alarm"] {
                        assert_eq!(
                            world.table(name).unwrap().to_map(),
                            owned_world.table(name).unwrap().to_map()
                        );
                    }
                    assert_eq!(world.session_token(), owned_world.session_token());
                }
                None => {
                    let untouched = logged_in_world();
                    assert_eq!(
                        world.table("Alarm").unwrap().to_map(),
                        untouched.table("Alarm").unwrap().to_map()
                    );
                }
            }
        }
    }

    /// `execute_tokenless` counts as unknown the arguments a tool's spec
    /// does not list: every listed one (and the session token, for a tool
    /// that needs a session) must bind.
    #[test]
    fn every_listed_parameter_binds() {
        for spec in super::super::catalog::catalog() {
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
            let (_, exception) = world.outcome(spec.name, &parameters);
            let exception = exception.unwrap_or_default();
            assert!(
                !exception.contains("unexpected keyword"),
                "{}: {exception}",
                spec.name
            );
        }
    }
}
