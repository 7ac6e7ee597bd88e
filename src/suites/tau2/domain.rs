//! A domain's database, whichever it is, and running a tool on it.

use std::collections::HashMap;
use std::path::Path;

use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use super::common::{db_hash, Args, Output, Raised};
use super::{airline, retail, Tool, ToolKind};
use crate::{Error, Result};

/// The database of one domain, as tau2's models hold it.
#[derive(Debug, Clone, PartialEq)]
pub enum Db {
    Airline(airline::model::FlightDb),
    Retail(retail::model::RetailDb),
}

impl Db {
    /// Read `db.json`, telling the domain by its collections.
    pub fn load(path: &Path) -> Result<Db> {
        let text = crate::formats::read::read_text(path)?;
        Db::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Db> {
        let syntax = |e: serde_json::Error| crate::formats::read::json_error(path, &e);
        // A cheap look at the top-level keys picks the model.
        let probe: HashMap<String, IgnoredAny> = serde_json::from_str(text).map_err(syntax)?;
        if probe.contains_key("flights") {
            serde_json::from_str(text).map(Db::Airline).map_err(syntax)
        } else if probe.contains_key("products") {
            serde_json::from_str(text).map(Db::Retail).map_err(syntax)
        } else {
            Err(Error::input(
                path,
                "neither an airline database (flights, users, reservations) nor a retail one (products, users, orders)",
            ))
        }
    }

    pub fn domain(&self) -> &'static str {
        match self {
            Db::Airline(_) => "airline",
            Db::Retail(_) => "retail",
        }
    }

    /// tau2's `get_db_hash` of the state.
    pub fn hash(&self) -> String {
        match self {
            Db::Airline(db) => db_hash(db),
            Db::Retail(db) => db_hash(db),
        }
    }

    /// The kind of the named tool, None when the domain has no such tool.
    pub fn tool_kind(&self, name: &str) -> Option<ToolKind> {
        match self {
            Db::Airline(_) => find(airline::TOOLS, name).map(|t| t.kind),
            Db::Retail(_) => find(retail::TOOLS, name).map(|t| t.kind),
        }
    }

    /// Run one call as tau2's environment does.
    pub fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> Result<Output, Raised> {
        let args = Args {
            tool: name,
            map: arguments,
        };
        let unknown = || format!("Tool '{name}' not found.");
        match self {
            Db::Airline(db) => (find(airline::TOOLS, name).ok_or_else(unknown)?.run)(db, &args),
            Db::Retail(db) => (find(retail::TOOLS, name).ok_or_else(unknown)?.run)(db, &args),
        }
    }
}

fn find<D>(tools: &'static [Tool<D>], name: &str) -> Option<&'static Tool<D>> {
    tools.iter().find(|t| t.name == name)
}
