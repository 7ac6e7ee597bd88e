//! The project's own API-Bank-style data is its own: no database file is
//! a copy of upstream's, no record of ours is one of upstream's, and no
//! longer text of our databases or dialogues (a description, a summary,
//! a sentence of a dialogue, a ToolSearcher answer) is upstream's.
//! Upstream is read from ../shared/upstream/apibank (skipped with a
//! message when absent outside CI; a failure under CI).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Texts this long or longer are sentences, not names or dates.
const SENTENCE: usize = 24;
/// The reference's parameter descriptions are short phrases ("User's
/// token."); this long or longer, they are looked for too.
const REFERENCE_PHRASE: usize = 12;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// A database's records: an object's values, a list's items.
fn records(database: &Value) -> Vec<&Value> {
    match database {
        Value::Object(map) => map.values().collect(),
        Value::Array(items) => items.iter().collect(),
        _ => Vec::new(),
    }
}

fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => out.push(text),
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(map) => {
            for (key, item) in map {
                out.push(key);
                strings(item, out);
            }
        }
        _ => {}
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every JSON value of a dialogue file: a `.jsonl` file's lines, or the
/// one document of a `.json` file.
fn documents(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap();
    match path.extension().and_then(|e| e.to_str()) {
        Some("jsonl") => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
        Some("json") => vec![serde_json::from_str(&text).unwrap()],
        _ => vec![Value::String(text)],
    }
}

/// The longer texts of `values`, and of any text that is not JSON.
fn sentences(values: &[Value]) -> HashSet<String> {
    let mut found = Vec::new();
    for value in values {
        strings(value, &mut found);
    }
    found
        .into_iter()
        .filter(|text| text.len() >= SENTENCE)
        .map(str::to_string)
        .collect()
}

#[test]
fn our_databases_share_no_file_record_or_text_with_upstream() {
    let Some(upstream) = talkforge::test_support::upstream("apibank") else {
        return;
    };
    let theirs_dir = upstream.join("init_database");
    let theirs: Vec<(PathBuf, Vec<u8>, Value)> = files(&theirs_dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let bytes = fs::read(&path).unwrap();
            let value = read_json(&path);
            (path, bytes, value)
        })
        .collect();
    assert!(
        !theirs.is_empty(),
        "no upstream database in {}",
        theirs_dir.display()
    );
    let their_records: Vec<&Value> = theirs.iter().flat_map(|(_, _, db)| records(db)).collect();
    let their_texts = sentences(
        &theirs
            .iter()
            .map(|(_, _, db)| db.clone())
            .collect::<Vec<_>>(),
    );

    let ours = files(&repo().join("databases/apibank"));
    assert!(ours.len() >= 10, "{ours:?}");
    let mut problems = Vec::new();
    for path in &ours {
        let bytes = fs::read(path).unwrap();
        for (their_path, their_bytes, _) in &theirs {
            if &bytes == their_bytes {
                problems.push(format!("{} is {}", path.display(), their_path.display()));
            }
        }
        let database = read_json(path);
        for record in records(&database) {
            if their_records.contains(&record) {
                problems.push(format!(
                    "{}: upstream has the record {record}",
                    path.display()
                ));
            }
        }
        for text in sentences(std::slice::from_ref(&database)) {
            if their_texts.contains(&text) {
                problems.push(format!(
                    "{}: upstream has the text {text:?}",
                    path.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn our_dialogues_and_scenarios_carry_no_upstream_text() {
    let Some(upstream) = talkforge::test_support::upstream("apibank") else {
        return;
    };
    let mut theirs = Vec::new();
    for folder in ["lv1-lv2-samples", "lv3-samples"] {
        for path in files(&upstream.join(folder)) {
            theirs.extend(documents(&path));
        }
    }
    let mut their_texts = sentences(&theirs);
    assert!(their_texts.len() > 100, "{}", their_texts.len());
    // The reference's current documentation of its APIs, which the
    // recordings partly predate: ToolSearcher answers in the reference's
    // words carry it.
    for api in talkforge::suites::apibank::apis::APIS {
        let reference = &api.reference;
        their_texts.insert(reference.description.to_string());
        for (_, _, text) in reference
            .input_parameters
            .iter()
            .chain(reference.output_parameters)
        {
            if text.len() >= REFERENCE_PHRASE {
                their_texts.insert(text.to_string());
            }
        }
    }

    let mut ours = Vec::new();
    for folder in ["apibank-level-1", "apibank-level-2", "apibank-level-3"] {
        let dir = repo().join("conversations").join(folder);
        for path in files(&dir) {
            ours.push((path.clone(), documents(&path)));
        }
    }
    assert!(ours.len() >= 28, "{}", ours.len());
    let mut problems = Vec::new();
    for (path, values) in &ours {
        let mut texts = Vec::new();
        values.iter().for_each(|value| strings(value, &mut texts));
        let texts: HashSet<&str> = texts
            .into_iter()
            .filter(|text| text.len() >= REFERENCE_PHRASE)
            .collect();
        for text in texts {
            if let Some(their) = their_texts.iter().find(|their| {
                text == their.as_str() || (text.len() >= SENTENCE && text.contains(their.as_str()))
            }) {
                problems.push(format!(
                    "{}: {text:?} holds upstream's {their:?}",
                    path.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
