//! A domain's database, whichever it is, and running a tool on it.

use std::collections::HashMap;
use std::path::Path;

use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use super::common::{db_hash, Args, Output, Raised};
use super::hash::{Dump, Fragments};
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

/// A database that many states start from (every task of a file), with
/// its records dumped once so that each state's hash dumps only what
/// changed ([`super::hash`]).
#[derive(Debug)]
pub struct Initial {
    pub db: Db,
    /// Each collection's dumped records, in sorted collection order.
    fragments: [Fragments; 3],
}

impl Initial {
    pub fn new(db: Db) -> Initial {
        let fragments = match &db {
            Db::Airline(a) => [
                Fragments::of(&a.flights),
                Fragments::of(&a.reservations),
                Fragments::of(&a.users),
            ],
            Db::Retail(r) => [
                Fragments::of(&r.orders),
                Fragments::of(&r.products),
                Fragments::of(&r.users),
            ],
        };
        Initial { db, fragments }
    }

    /// tau2's `get_db_hash` of `state`, a state of this database.
    pub fn hash(&self, state: &Db) -> String {
        let [f0, f1, f2] = &self.fragments;
        let mut dump = Dump::new();
        match (&self.db, state) {
            (Db::Airline(initial), Db::Airline(now)) => {
                dump.collection("flights", &now.flights, &initial.flights, f0);
                dump.collection("reservations", &now.reservations, &initial.reservations, f1);
                dump.collection("users", &now.users, &initial.users, f2);
            }
            (Db::Retail(initial), Db::Retail(now)) => {
                dump.collection("orders", &now.orders, &initial.orders, f0);
                dump.collection("products", &now.products, &initial.products, f1);
                dump.collection("users", &now.users, &initial.users, f2);
            }
            _ => return state.hash(),
        }
        dump.finish()
    }
}

fn find<D>(tools: &'static [Tool<D>], name: &str) -> Option<&'static Tool<D>> {
    tools.iter().find(|t| t.name == name)
}
