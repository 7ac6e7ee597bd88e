//! What a running tool may touch: its world's databases, the clock and its
//! own random stream.

use chrono::NaiveDateTime;
use serde_json::{Map, Value};

use super::databases::Tables;
use super::pyrandom::PyRandom;
use super::reply::Reply;
use super::table::Table;

/// Runs a tool: arguments as the caller gave them (a suite's world may have
/// added to them, as ToolTalk injects the session token), the result or the
/// exception text. Most tools build a JSON value (`Reply::from`); the
/// queries that answer with database items share them ([`Reply`]).
pub type RunFn = fn(&mut ToolCtx<'_>, &Map<String, Value>) -> Result<Reply, String>;

/// The context one tool call runs in.
pub struct ToolCtx<'w> {
    /// The dialogue's "now".
    pub now: NaiveDateTime,
    /// The tool instance's random stream.
    pub rng: &'w mut PyRandom,
    /// The database the tool reads and writes by default.
    database: &'static str,
    tables: &'w mut Tables,
}

impl<'w> ToolCtx<'w> {
    pub fn new(
        now: NaiveDateTime,
        rng: &'w mut PyRandom,
        database: &'static str,
        tables: &'w mut Tables,
    ) -> Self {
        ToolCtx {
            now,
            rng,
            database,
            tables,
        }
    }

    /// A database by name; a missing one reads as empty.
    pub fn table(&self, name: &str) -> &Table {
        static EMPTY: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        self.tables
            .get(name)
            .unwrap_or_else(|| EMPTY.get_or_init(Table::new))
    }

    /// A database to change; records are copied as they are written.
    pub fn table_mut(&mut self, name: &str) -> &mut Table {
        self.tables.get_mut(name)
    }

    /// The tool's own database.
    pub fn own(&self) -> &Table {
        self.table(self.database)
    }

    pub fn own_mut(&mut self) -> &mut Table {
        self.table_mut(self.database)
    }
}
