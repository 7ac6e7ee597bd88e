//! tau2's `get_db_hash` for many states that start from one database
//! (every task of a file): the sorted dump of each record of the initial
//! database is written once, and a state's hash streams those fragments
//! for the records it left as they were, dumping afresh only the records
//! its calls changed or added. The bytes hashed are exactly those of
//! `json.dumps(model_dump(), sort_keys=True)`.

use std::collections::HashMap;

use indexmap::IndexMap;
use ring::digest::{Context, SHA256};
use serde::Serialize;

use super::common::write_sorted;
use crate::formats::write::to_python_json_line;

/// The dumped records of one collection of the initial database, by key:
/// each `"key": {...}` as the sorted dump writes it.
#[derive(Debug, Default)]
pub struct Fragments(HashMap<String, Box<[u8]>>);

impl Fragments {
    pub fn of<T: Serialize>(records: &IndexMap<String, T>) -> Fragments {
        Fragments(
            records
                .iter()
                .map(|(key, record)| (key.clone(), fragment(key, record).into_boxed_slice()))
                .collect(),
        )
    }
}

/// One record as the sorted dump writes it inside its collection.
fn fragment<T: Serialize>(key: &str, record: &T) -> Vec<u8> {
    let mut out = to_python_json_line(key).into_bytes();
    out.extend_from_slice(b": ");
    write_sorted(
        &serde_json::to_value(record).expect("models serialise"),
        &mut out,
    );
    out
}

/// A database dump being hashed, one top-level collection after another
/// in sorted name order.
pub struct Dump {
    context: Context,
    collections: usize,
}

impl Dump {
    pub fn new() -> Dump {
        let mut context = Context::new(&SHA256);
        context.update(b"{");
        Dump {
            context,
            collections: 0,
        }
    }

    /// The collection `name` as it stands (`now`), reusing the fragment of
    /// every record equal to the initial database's record of its key.
    pub fn collection<T: Serialize + PartialEq>(
        &mut self,
        name: &str,
        now: &IndexMap<String, T>,
        initial: &IndexMap<String, T>,
        fragments: &Fragments,
    ) {
        if self.collections > 0 {
            self.context.update(b", ");
        }
        self.collections += 1;
        self.context.update(to_python_json_line(name).as_bytes());
        self.context.update(b": {");
        let mut keys: Vec<&String> = now.keys().collect();
        keys.sort_unstable();
        for (i, key) in keys.into_iter().enumerate() {
            if i > 0 {
                self.context.update(b", ");
            }
            let record = &now[key];
            match fragments.0.get(key) {
                Some(cached) if initial.get(key) == Some(record) => self.context.update(cached),
                _ => self.context.update(&fragment(key, record)),
            }
        }
        self.context.update(b"}");
    }

    /// The lowercase hex SHA-256 of the dump.
    pub fn finish(mut self) -> String {
        self.context.update(b"}");
        self.context
            .finish()
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl Default for Dump {
    fn default() -> Self {
        Dump::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::tau2::common::db_hash;

    #[derive(Debug, Clone, PartialEq, Serialize)]
    struct Record {
        b: f64,
        a: Option<String>,
    }

    #[derive(Serialize)]
    struct Db {
        zs: IndexMap<String, Record>,
        as_: IndexMap<String, Record>,
    }

    fn hash(now: &IndexMap<String, Record>, initial: &IndexMap<String, Record>) -> String {
        let mut dump = Dump::new();
        dump.collection("as_", now, initial, &Fragments::of(initial));
        let none: IndexMap<String, Record> = IndexMap::new();
        dump.collection("zs", &none, &none, &Fragments::default());
        dump.finish()
    }

    #[test]
    fn the_streamed_hash_is_the_hash_of_the_whole_dump_whatever_changed() {
        let record = |b: f64, a: Option<&str>| Record {
            b,
            a: a.map(str::to_string),
        };
        let initial: IndexMap<String, Record> = [
            ("k2".to_string(), record(1.0, None)),
            ("k1".to_string(), record(54.04, Some("é"))),
        ]
        .into_iter()
        .collect();
        let mut changed = initial.clone();
        changed["k2"].b = 2.5;
        changed.insert("k0".to_string(), record(3.0, Some("x")));
        for now in [&initial, &changed] {
            let whole = db_hash(&Db {
                zs: IndexMap::new(),
                as_: now.clone(),
            });
            assert_eq!(hash(now, &initial), whole);
        }
    }
}
