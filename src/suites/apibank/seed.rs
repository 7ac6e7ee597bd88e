//! Completing API-Bank databases from recordings (`fill --seed`).
//!
//! Each dialogue is replayed; at the first gold call that does not
//! reproduce and whose recorded success presupposes records the databases
//! lack (see [`presupposed`]), those records are added to the initial
//! databases and the dialogue is replayed again, so that later calls see
//! them. Records are only added: an existing record is never changed, and
//! a record already there is not added twice.

use serde_json::{Map, Value};

use super::apis::presupposed::{presupposed, Addition, Place};
use super::world::ApiBankWorld;
use super::ApiBank;
use crate::formats::LoadedConversation;
use crate::sim::pyargs::py_eq;
use crate::sim::Databases;
use crate::suite::{Seeded, SeededRecord, Suite, World, WorldOptions};
use crate::{Error, Result};

/// Add what the recordings presuppose and the databases lack. Dialogues
/// are processed in order, so a record seeded for one is there for the next.
pub fn seed_databases(dialogues: &[LoadedConversation], initial: &Databases) -> Result<Seeded> {
    let mut databases = initial.clone();
    let mut records = Vec::new();
    for loaded in dialogues {
        while let Some(added) = seed_one(loaded, &mut databases)? {
            records.extend(added);
        }
    }
    Ok(Seeded { databases, records })
}

/// One replay of `loaded`, stopping at the first call whose presupposed
/// records could be added; returns them (None: nothing more to add).
fn seed_one(
    loaded: &LoadedConversation,
    databases: &mut Databases,
) -> Result<Option<Vec<SeededRecord>>> {
    let path = &loaded.path;
    let mut world = ApiBankWorld::new(databases, &WorldOptions::default())
        .map_err(|m| Error::input(path, m))?;
    for (turn, call, gold) in loaded.conversation.gold_calls() {
        let api_name = gold.request.api_name.as_str();
        let executed = world.execute(api_name, gold.request.parameters.clone(), Some(gold));
        if executed.not_checked.is_some() || ApiBank.reproduces(gold, &executed) {
            continue;
        }
        let answered = executed.response.into_value();
        let additions = presupposed(api_name, world.state_mut(), &gold.response, &answered);
        let place = loaded.conversation.conversation[turn].calls()[call].place(turn, call);
        let mut added = Vec::new();
        for addition in additions {
            if let Some(id) = add(databases, &addition).map_err(|m| Error::input(path, m))? {
                added.push(SeededRecord {
                    database: addition.database.to_string(),
                    user: addition.owner,
                    id,
                    file: path.display().to_string(),
                    turn: place.turn,
                    call: place.call,
                    api_name: api_name.to_string(),
                    line: Some(place.turn + 1),
                });
            }
        }
        if !added.is_empty() {
            return Ok(Some(added));
        }
    }
    Ok(None)
}

/// Add one record unless an equal one is already in its place; returns the
/// key it went under (for an entry appended to a list, the entry itself).
fn add(
    databases: &mut Databases,
    addition: &Addition,
) -> std::result::Result<Option<String>, String> {
    let document = databases.document_mut(addition.database);
    let Value::Object(entries) = document else {
        return Err(format!(
            "{}.json is not a JSON object: a record cannot be seeded into it",
            addition.database
        ));
    };
    let record = addition.record.clone();
    match &addition.place {
        Place::Append(key) => {
            let list = entries
                .entry(key.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(items) = list else {
                return Ok(None);
            };
            if items.iter().any(|item| py_eq(item, &record)) {
                return Ok(None);
            }
            let label = crate::formats::write::to_python_json_line(&record);
            items.push(record);
            Ok(Some(label))
        }
        Place::At(key) => {
            if entries.contains_key(key) {
                return Ok(None);
            }
            entries.insert(key.clone(), record);
            Ok(Some(key.clone()))
        }
        Place::NextId => {
            if entries.values().any(|existing| py_eq(existing, &record)) {
                return Ok(None);
            }
            let key = next_id(entries).to_string();
            entries.insert(key.clone(), record);
            Ok(Some(key))
        }
    }
}

/// One above the highest integer key (keys that are not integers are
/// passed over), 1 in a database without any.
fn next_id(entries: &Map<String, Value>) -> i64 {
    entries
        .keys()
        .filter_map(|key| key.parse::<i64>().ok())
        .max()
        .map_or(1, |highest| highest + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn databases(documents: &[(&str, Value)]) -> (tempfile::TempDir, Databases) {
        let dir = tempfile::tempdir().unwrap();
        for (name, value) in documents {
            std::fs::write(dir.path().join(format!("{name}.json")), value.to_string()).unwrap();
        }
        let loaded = Databases::load_documents(dir.path()).unwrap();
        (dir, loaded)
    }

    fn dialogue(dir: &std::path::Path, lines: &[Value]) -> LoadedConversation {
        let path = dir.join("d.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        crate::formats::apibank::load(&path).unwrap()
    }

    #[test]
    fn a_cancelled_switch_gets_its_entry_once_and_then_reproduces() {
        let (dir, initial) = databases(&[
            ("Account", json!({})),
            (
                "TimeSwitch",
                json!({"lamp": [{"time": "2023-03-15 18:30:00", "on": true}]}),
            ),
        ]);
        let input = json!({"device_id": "10000025", "time": "2023-03-19 09:30:00"});
        let line = json!({"role": "API", "api_name": "CancelTimedSwitch", "param_dict": input,
            "result": {"api_name": "CancelTimedSwitch", "input": input, "output": "success", "exception": null}});
        let loaded = dialogue(
            dir.path(),
            &[
                json!({"role": "User", "text": "cancel it"}),
                line.clone(),
                line,
            ],
        );
        let seeded = seed_databases(std::slice::from_ref(&loaded), &initial).unwrap();
        // The second cancel of the same entry raises after the first removed
        // it: that is a real difference, not a second record to add.
        assert_eq!(seeded.records.len(), 1);
        let record = &seeded.records[0];
        assert_eq!(
            (
                record.database.as_str(),
                record.user.as_str(),
                record.turn,
                record.call
            ),
            ("TimeSwitch", "10000025", 1, 0)
        );
        assert_eq!(
            **seeded.databases.document("TimeSwitch").unwrap(),
            json!({"lamp": [{"time": "2023-03-15 18:30:00", "on": true}],
                   "10000025": [{"time": "2023-03-19 09:30:00"}]})
        );
        // The initial databases are untouched.
        assert!(initial
            .document("TimeSwitch")
            .unwrap()
            .get("10000025")
            .is_none());
        // Seeding again finds nothing more to add.
        let again = seed_databases(&[loaded], &seeded.databases).unwrap();
        assert!(again.records.is_empty());
    }

    #[test]
    fn new_records_take_the_next_integer_id_and_existing_ones_are_left_alone() {
        let mut entries = Map::new();
        assert_eq!(next_id(&entries), 1);
        entries.insert("7".into(), json!({}));
        entries.insert("x".into(), json!({}));
        assert_eq!(next_id(&entries), 8);

        let (_dir, mut dbs) = databases(&[("Appointments", json!({"1": {"patient_name": "Ann"}}))]);
        let at = |key: &str, name: &str| Addition {
            database: "Appointments",
            place: Place::At(key.into()),
            record: json!({"patient_name": name}),
            owner: name.into(),
        };
        assert_eq!(add(&mut dbs, &at("1", "Bob")), Ok(None));
        assert_eq!(add(&mut dbs, &at("2", "Bob")), Ok(Some("2".into())));
        assert_eq!(
            dbs.document("Appointments").unwrap()["1"],
            json!({"patient_name": "Ann"})
        );
    }

    /// Every upstream database file written back unchanged is the same
    /// bytes: the writer follows each file's own separators and escaping.
    #[test]
    fn upstream_databases_are_written_back_byte_for_byte() {
        let Some(dir) = crate::test_support::upstream("apibank/init_database") else {
            return;
        };
        let databases = ApiBank.load_databases(&dir).unwrap();
        let mut files = 0;
        for name in databases.names() {
            let old = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
            let text = (ApiBank.database_format().text)(&databases, name, Some(&old));
            assert!(text == old, "{name}.json is not written back as it was");
            files += 1;
        }
        assert_eq!(files, 19);
    }

    /// Seeding the upstream dialogues adds the one record they presuppose
    /// and the databases lack: device 10000025's switch at 2023-03-19
    /// 09:30, which five CancelTimedSwitch lines cancel.
    #[test]
    fn upstream_dialogues_presuppose_one_switch() {
        let (Some(dir), Some(samples)) = (
            crate::test_support::upstream("apibank/init_database"),
            crate::test_support::upstream("apibank/lv1-lv2-samples"),
        ) else {
            return;
        };
        let initial = ApiBank.load_databases(&dir).unwrap();
        let mut files: Vec<_> = walkdir::WalkDir::new(&samples)
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        let loaded: Vec<_> = files
            .iter()
            .map(|p| crate::formats::apibank::load(p).unwrap())
            .collect();
        let seeded = seed_databases(&loaded, &initial).unwrap();
        let added: Vec<_> = seeded
            .records
            .iter()
            .map(|r| (r.database.as_str(), r.user.as_str(), r.api_name.as_str()))
            .collect();
        assert_eq!(added, vec![("TimeSwitch", "10000025", "CancelTimedSwitch")]);
        assert_eq!(
            seeded.databases.document("TimeSwitch").unwrap()["10000025"],
            json!([{"time": "2023-03-19 09:30:00"}])
        );
    }
}
