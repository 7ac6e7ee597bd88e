//! The initial databases of a suite, loaded once and shared by every world:
//! cloning them (as every new world does) is one reference count, and a
//! world that writes copies only what it changes (see [`Table`]).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::table::Table;
use crate::{Error, Result};

/// Databases by name, in load order: as tables of records (every file a
/// JSON object, [`Databases::load`]) or as documents of any JSON shape
/// ([`Databases::load_documents`]), for suites whose databases are lists
/// or whose worlds hold them their own way.
#[derive(Debug, Clone, Default)]
pub struct Databases {
    tables: Arc<Tables>,
    documents: Arc<Vec<(Arc<str>, Arc<Value>)>>,
    /// What a suite derives from the documents once per run and shares
    /// with every world (API-Bank: the documents as dicts, converted on
    /// first use); dropped when a document changes.
    prepared: Option<Prepared>,
}

/// A suite's own structure beside the documents (see [`Databases`]).
#[derive(Clone)]
struct Prepared(Arc<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepared(..)")
    }
}

/// Databases by name, in load order; cloning one copies pointers, not
/// data. A world has a handful of databases, so a list beats a map.
#[derive(Debug, Clone, Default)]
pub struct Tables(Vec<(Arc<str>, Arc<Table>)>);

impl Tables {
    fn index_of(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|(known, _)| &**known == name)
    }

    pub fn get(&self, name: &str) -> Option<&Table> {
        self.index_of(name).map(|i| &*self.0[i].1)
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

    /// A database to change (copied first if another world shares it);
    /// created empty when missing.
    pub fn get_mut(&mut self, name: &str) -> &mut Table {
        let index = match self.index_of(name) {
            Some(index) => index,
            None => self.insert(Arc::from(name), Arc::default()),
        };
        Arc::make_mut(&mut self.0[index].1)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(name, _)| name.as_ref())
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
    /// Load every `*.json` in `dir`, in name order; each file's stem names
    /// its database, and each must hold a JSON object.
    pub fn load(dir: &Path) -> Result<Self> {
        let mut tables = Tables::default();
        for path in json_files(dir)? {
            let (_, value) = crate::formats::read_json(&path)?;
            let Value::Object(table) = value else {
                return Err(Error::input(&path, "a database must be a JSON object"));
            };
            tables.insert(Arc::from(stem(&path)), Arc::new(Table::from(table)));
        }
        Ok(Databases {
            tables: Arc::new(tables),
            documents: Arc::default(),
            prepared: None,
        })
    }

    /// Load every `*.json` in `dir`, in name order, whatever JSON each
    /// holds; each file's stem names its database.
    pub fn load_documents(dir: &Path) -> Result<Self> {
        let mut documents = Vec::new();
        for path in json_files(dir)? {
            let (_, value) = crate::formats::read_json(&path)?;
            documents.push((Arc::from(stem(&path)), Arc::new(value)));
        }
        Ok(Databases {
            tables: Arc::default(),
            documents: Arc::new(documents),
            prepared: None,
        })
    }

    /// A database loaded by [`Databases::load_documents`], by name.
    pub fn document(&self, name: &str) -> Option<&Arc<Value>> {
        self.documents
            .iter()
            .find_map(|(known, value)| (&**known == name).then_some(value))
    }

    /// These databases with `value` derived from them, for every world to
    /// share (see [`Databases::prepared`]).
    pub fn with_prepared<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.prepared = Some(Prepared(Arc::new(value)));
        self
    }

    /// What [`Databases::with_prepared`] attached, if it is a `T` and no
    /// document changed since.
    pub fn prepared<T: std::any::Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.prepared.as_ref()?.0.clone().downcast::<T>().ok()
    }

    /// A document to change (copied first if a world still shares it);
    /// created as an empty JSON object when missing.
    pub fn document_mut(&mut self, name: &str) -> &mut Value {
        self.prepared = None;
        let documents = Arc::make_mut(&mut self.documents);
        let index = match documents.iter().position(|(known, _)| &**known == name) {
            Some(index) => index,
            None => {
                documents.push((Arc::from(name), Arc::new(Value::Object(Default::default()))));
                documents.len() - 1
            }
        };
        Arc::make_mut(&mut documents[index].1)
    }

    /// Databases made of tables a world holds (shared, not copied).
    pub fn from_shared_tables(tables: Tables) -> Self {
        Databases {
            tables: Arc::new(tables),
            documents: Arc::default(),
            prepared: None,
        }
    }

    pub fn from_tables<T: Into<Table>>(tables: impl IntoIterator<Item = (String, T)>) -> Self {
        Databases {
            tables: Arc::new(
                tables
                    .into_iter()
                    .map(|(k, v)| (Arc::from(k), Arc::new(v.into())))
                    .collect(),
            ),
            documents: Arc::default(),
            prepared: None,
        }
    }

    pub fn get(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// A database to change (copied first if a world still shares it);
    /// created empty when missing.
    pub fn table_mut(&mut self, name: &str) -> &mut Table {
        Arc::make_mut(&mut self.tables).get_mut(name)
    }

    /// The names of the tables, then of the documents.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables
            .names()
            .chain(self.documents.iter().map(|(name, _)| name.as_ref()))
    }

    /// The tables a new world starts from (shared until written).
    pub fn tables(&self) -> Tables {
        Tables::clone(&self.tables)
    }
}

/// The `*.json` files of a databases folder, in name order.
pub fn json_files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::input(dir, format!("cannot read the databases folder: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string()
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
    fn a_copy_of_the_tables_writes_apart_from_the_databases() {
        let databases = Databases::from_tables([(
            "Account".to_string(),
            json!({"ann": {}}).as_object().unwrap().clone(),
        )]);
        let mut tables = databases.tables();
        tables.get_mut("Account").insert("bob", json!({}));
        tables.get_mut("Calendar").insert("bob", json!({}));
        assert!(tables.get("Account").unwrap().contains_key("bob"));
        assert!(tables.get("Calendar").unwrap().contains_key("bob"));
        assert!(!databases.get("Account").unwrap().contains_key("bob"));
        assert!(databases.get("Calendar").is_none());
    }
}
