//! Replaying gold calls: execute every gold call of a conversation in order
//! from the initial state and compare what the simulator returns with what
//! the conversation recorded.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::dialogue::Conversation;
use crate::formats::read::{self, read_text};
use crate::formats::write::{push_python_json, push_python_str};
use crate::json::stream::PrettyFields;
use crate::sim::Databases;
use crate::suite::Execution;
use crate::suites::tooltalk::World;
use crate::{Error, Result};

mod single_pass;
mod unified;

/// One gold call whose recording differs from the simulator's result.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub file: String,
    /// 0-based position in the `conversation` array.
    pub turn: usize,
    /// 0-based position in the turn's `apis`.
    pub call: usize,
    pub api_name: String,
    /// A unified diff, recorded (-) against simulated (+).
    pub diff: String,
}

impl Difference {
    /// The difference as an element of the JSON report's `differs` array:
    /// the bytes [`crate::json::stream::ArraySpool::render`] makes of it,
    /// written directly (a diff is long and full of quotes and newlines,
    /// which serde_json escapes one write at a time).
    pub fn render_element(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.diff.len() * 9 / 8 + self.file.len() + 128);
        let mut fields = PrettyFields::element(&mut out);
        fields.string("file", &self.file);
        fields.field("turn", &self.turn);
        fields.field("call", &self.call);
        fields.string("api_name", &self.api_name);
        fields.string("diff", &self.diff);
        fields.close();
        out
    }
}

/// The replay of one conversation.
#[derive(Debug, Clone)]
pub struct Replay {
    pub calls: usize,
    /// Per gold call, in order: (turn, call, what the simulator did).
    pub executions: Vec<(usize, usize, Execution)>,
}

/// Execute every gold call of `conversation` in order.
pub fn replay(databases: &Databases, conversation: &Conversation) -> Result<Replay, String> {
    let mut world = World::for_conversation(databases, conversation)?;
    let mut executions = Vec::new();
    for (t, c, call) in conversation.gold_calls() {
        let execution = world.execute(&call.request.api_name, &call.request.parameters);
        executions.push((t, c, execution));
    }
    Ok(Replay {
        calls: executions.len(),
        executions,
    })
}

/// A recorded or simulated result, as the JSON a reader compares (borrowed:
/// responses can be large and are only printed).
#[derive(Serialize)]
struct Outcome<'a> {
    response: &'a Value,
    exception: &'a Option<String>,
}

impl Outcome<'_> {
    /// The outcome as Python's `json.dumps(indent=4)` writes it (the text
    /// [`to_python_json`](crate::formats::to_python_json) makes of it,
    /// written directly).
    fn to_python_json(&self) -> String {
        let mut out = Vec::with_capacity(512);
        out.extend_from_slice(b"{\n    \"response\": ");
        push_python_json(&mut out, self.response, 1);
        out.extend_from_slice(b",\n    \"exception\": ");
        match self.exception {
            Some(exception) => push_python_str(&mut out, exception),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b"\n}");
        String::from_utf8(out).expect("the writer writes ASCII only")
    }
}

/// The difference between a recorded and a simulated result, as a unified
/// diff of their JSON (recorded -, simulated +).
fn unified_diff(recorded: &Outcome, simulated: &Outcome) -> String {
    let recorded = recorded.to_python_json();
    let simulated = simulated.to_python_json();
    // The JSON text breaks lines only with '\n' (string contents are
    // escaped), so a plain split gives the lines similar's own (char by
    // char) tokenizer would.
    let old_lines: Vec<&str> = recorded.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = simulated.split_inclusive('\n').collect();
    unified::unified_diff(&old_lines, &new_lines, "recorded", "simulated", 3)
}

/// Differences between the recording and the replay of one conversation.
pub fn differences(file: &str, conversation: &Conversation, replay: &Replay) -> Vec<Difference> {
    let mut out = Vec::new();
    for ((t, c, call), (_, _, executed)) in conversation.gold_calls().zip(&replay.executions) {
        if call.response == executed.response && call.exception == executed.exception {
            continue;
        }
        out.push(Difference {
            file: file.to_string(),
            turn: t,
            call: c,
            api_name: call.request.api_name.clone(),
            diff: unified_diff(
                &Outcome {
                    response: &call.response,
                    exception: &call.exception,
                },
                &Outcome {
                    response: &executed.response,
                    exception: &executed.exception,
                },
            ),
        });
    }
    out
}

/// The result of verifying a set of files.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub conversations: usize,
    pub calls: usize,
    pub reproduced: usize,
    pub differs: Vec<Difference>,
    /// Files that could not be verified (unreadable, malformed, a bad
    /// timestamp), each message naming the file; the others are reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// What verifying a set of files found, less the differences themselves
/// (which [`verify_in_order`] hands on one by one).
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub conversations: usize,
    pub calls: usize,
    pub reproduced: usize,
    pub differs: usize,
    /// Files that could not be verified, each message naming the file.
    pub errors: Vec<String>,
}

impl Counts {
    /// The report these counts head, with `differs` to fill in.
    pub fn report(&self) -> Report {
        Report {
            conversations: self.conversations,
            calls: self.calls,
            reproduced: self.reproduced,
            differs: Vec::new(),
            errors: self.errors.clone(),
        }
    }
}

/// Files a worker verifies in one go, at most.
const GROUP: usize = 16;

/// Verify every file in parallel; each difference is rendered by `render`
/// on the worker that found it and handed to `sink` in file order, so only
/// a window of files' results is held at a time (see [`crate::ordered`]). A file that cannot be
/// verified is listed in the counts' `errors` and does not stop the others.
pub fn verify_in_order<R, F, S>(
    files: &[PathBuf],
    databases: &Databases,
    render: F,
    mut sink: S,
) -> Counts
where
    R: Send,
    F: Fn(&Difference) -> R + Sync,
    S: FnMut(R) + Send,
{
    let mut counts = Counts::default();
    // Files go to the workers a group at a time: one hand-over for many
    // short files rather than one each.
    let workers = rayon::current_num_threads();
    let group = crate::ordered::group_len(files.len(), workers, GROUP);
    let groups: Vec<&[PathBuf]> = files.chunks(group).collect();
    crate::ordered::for_each_in_order_within(
        &groups,
        crate::ordered::group_window(group, workers),
        |_, group| {
            group
                .iter()
                .map(|path| {
                    verify_file(path, databases).map(|(calls, diffs)| {
                        (calls, diffs.iter().map(&render).collect::<Vec<R>>())
                    })
                })
                .collect::<Vec<_>>()
        },
        |group| {
            for result in group {
                match result {
                    Ok((calls, rendered)) => {
                        counts.conversations += 1;
                        counts.calls += calls;
                        counts.reproduced += calls - rendered.len();
                        counts.differs += rendered.len();
                        rendered.into_iter().for_each(&mut sink);
                    }
                    Err(e) => counts.errors.push(e.to_string()),
                }
            }
        },
    );
    counts
}

/// Verify every file and gather the report (all differences in memory;
/// commands stream them with [`verify_in_order`]).
pub fn verify_files(files: &[PathBuf], databases: &Databases) -> Report {
    let mut differs = Vec::new();
    let counts = verify_in_order(files, databases, Difference::clone, |d| differs.push(d));
    Report {
        differs,
        ..counts.report()
    }
}

/// Each file's gold-call count and differences, or why it could not be
/// verified; in file order, computed in parallel.
pub fn verify_each(
    files: &[PathBuf],
    databases: &Databases,
) -> Vec<Result<(usize, Vec<Difference>)>> {
    files
        .par_iter()
        .map(|path| verify_file(path, databases))
        .collect()
}

fn verify_file(path: &Path, databases: &Databases) -> Result<(usize, Vec<Difference>)> {
    let text = read_text(path)?;
    let file = path.display().to_string();
    if let Ok(verified) = single_pass::verify_text(&file, &text, databases) {
        return verified.map_err(|m| Error::input(path, m));
    }
    // Left to the full model: it names what is wrong with the file, or
    // verifies one written in an unusual order.
    let conversation = read::parse_conversation(path, &text)?;
    let replay = replay(databases, &conversation).map_err(|m| Error::input(path, m))?;
    Ok((replay.calls, differences(&file, &conversation, &replay)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn repo() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// The reference way: build the whole conversation, replay, compare.
    fn by_full_model(text: &str, databases: &Databases) -> (usize, Vec<Difference>) {
        let conversation: Conversation = serde_json::from_str(text).unwrap();
        let replay = replay(databases, &conversation).unwrap();
        (replay.calls, differences("f", &conversation, &replay))
    }

    fn summary(result: &(usize, Vec<Difference>)) -> (usize, Vec<String>) {
        let rows = result
            .1
            .iter()
            .map(|d| format!("{}.{} {}\n{}", d.turn, d.call, d.api_name, d.diff));
        (result.0, rows.collect())
    }

    #[test]
    fn rendered_elements_are_the_serialised_differences() {
        let mut differences = vec![Difference {
            file: "d\u{e9}j\u{e0}/\"q\".json".into(),
            turn: 3,
            call: 0,
            api_name: "Tool\u{1F600}".into(),
            diff: String::new(),
        }];
        let upstream = repo().join("../shared/upstream/tooltalk");
        if upstream.is_dir() {
            let databases = Databases::load(&upstream.join("databases")).unwrap();
            let files = crate::formats::discover(
                &[upstream.join("easy"), upstream.join("tooltalk")],
                &["json"],
            )
            .unwrap();
            differences.extend(verify_files(&files, &databases).differs);
            assert!(differences.len() > 30);
        }
        for d in &differences {
            assert_eq!(
                String::from_utf8(d.render_element()).unwrap(),
                String::from_utf8(crate::json::stream::ArraySpool::render(d)).unwrap()
            );
        }
    }

    #[test]
    fn outcome_text_is_the_serialised_outcome() {
        let exception = Some("Invalid \"token\" caf\u{e9}".to_string());
        for response in [
            json!(null),
            json!({"a": [1, {"b": []}], "c": "\u{1F600}"}),
            json!([]),
        ] {
            for exception in [None, exception.clone()] {
                let outcome = Outcome {
                    response: &response,
                    exception: &exception,
                };
                assert_eq!(
                    outcome.to_python_json(),
                    crate::formats::to_python_json(&outcome)
                );
            }
        }
    }

    /// Every call's recorded response changed a little.
    fn perturbed(mut conversation: Value) -> Value {
        for turn in conversation["conversation"].as_array_mut().unwrap() {
            let Some(calls) = turn.get_mut("apis").and_then(Value::as_array_mut) else {
                continue;
            };
            for call in calls {
                let response = &mut call["response"];
                match response {
                    Value::Object(map) => {
                        map.insert("extra".into(), json!([1, "two"]));
                    }
                    Value::Array(items) if !items.is_empty() => {
                        items.pop();
                    }
                    Value::String(s) => s.push('x'),
                    _ => *response = json!({"unexpected": null}),
                }
            }
        }
        conversation
    }

    fn files() -> Vec<PathBuf> {
        let mut roots = vec![repo().join("conversations")];
        let upstream = repo().join("../shared/upstream/tooltalk");
        if upstream.is_dir() {
            roots.push(upstream.join("easy"));
            roots.push(upstream.join("tooltalk"));
        }
        crate::formats::discover(&roots, &["json"]).unwrap()
    }

    #[test]
    fn the_single_pass_agrees_with_the_full_model() {
        let own = Databases::load(&repo().join("databases")).unwrap();
        let upstream_databases = repo().join("../shared/upstream/tooltalk/databases");
        let upstream = upstream_databases
            .is_dir()
            .then(|| Databases::load(&upstream_databases).unwrap());
        let mut checked = 0;
        for path in files() {
            let databases = match &upstream {
                Some(upstream) if path.starts_with(repo().join("../shared")) => upstream,
                _ => &own,
            };
            let original: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for (variant, handled) in [
                (original.clone(), true),
                (perturbed(original.clone()), true),
            ] {
                for text in [
                    serde_json::to_string_pretty(&variant).unwrap(),
                    serde_json::to_string(&variant).unwrap(),
                ] {
                    let single = single_pass::verify_text("f", &text, databases);
                    assert_eq!(single.is_ok(), handled, "{}", path.display());
                    let single = single.unwrap().unwrap();
                    assert_eq!(
                        summary(&single),
                        summary(&by_full_model(&text, databases)),
                        "{}",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 4 * 80, "only {checked} files checked");
    }

    #[test]
    fn files_in_another_order_are_left_to_the_full_model() {
        let databases = Databases::load(&repo().join("databases")).unwrap();
        let path = files()
            .into_iter()
            .find(|p| std::fs::read_to_string(p).unwrap().contains("\"response\""));
        let text = std::fs::read_to_string(path.unwrap()).unwrap();
        let original: Value = serde_json::from_str(&text).unwrap();
        // The conversation before the metadata the world needs.
        let mut first = serde_json::Map::new();
        first.insert("conversation".into(), original["conversation"].clone());
        first.extend(original.as_object().unwrap().clone());
        // A response before its request.
        let mut swapped = original.clone();
        for turn in swapped["conversation"].as_array_mut().unwrap() {
            for call in turn
                .get_mut("apis")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let request = call
                    .as_object_mut()
                    .unwrap()
                    .shift_remove("request")
                    .unwrap();
                call.as_object_mut()
                    .unwrap()
                    .insert("request".into(), request);
            }
        }
        for variant in [Value::Object(first), swapped] {
            let text = serde_json::to_string_pretty(&variant).unwrap();
            assert!(single_pass::verify_text("f", &text, &databases).is_err());
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("reordered.json");
            std::fs::write(&path, &text).unwrap();
            let verified = verify_file(&path, &databases).unwrap();
            assert_eq!(
                summary(&verified),
                summary(&by_full_model(&text, &databases))
            );
        }
    }

    #[test]
    fn the_single_pass_refuses_what_the_full_model_refuses() {
        let databases = Databases::load(&repo().join("databases")).unwrap();
        let good = json!({
            "name": "n", "conversation_id": "c", "user": {},
            "metadata": {"timestamp": "2023-01-01 10:00:00"},
            "conversation": [{"role": "user", "text": "hi"},
                {"role": "assistant", "text": "ok", "apis": [
                    {"request": {"api_name": "CurrentWeather", "parameters": {"location": "x"}}}]}]
        });
        let mut bad = Vec::new();
        for field in [
            "name",
            "conversation_id",
            "user",
            "metadata",
            "conversation",
        ] {
            let mut v = good.clone();
            v.as_object_mut().unwrap().remove(field);
            bad.push(serde_json::to_string(&v).unwrap());
        }
        for (pointer, value) in [
            ("/name", json!(1)),
            ("/suites_used", json!(null)),
            ("/apis_used", json!([1])),
            ("/scenario", json!(false)),
            ("/conversation/0/role", json!("system")),
            ("/conversation/0/text", json!(null)),
            ("/conversation/0/index", json!(-1)),
            ("/conversation/1/apis", json!({})),
            ("/conversation/1/apis/0/request", json!("x")),
            ("/conversation/1/apis/0/exception", json!(3)),
        ] {
            let mut v = good.clone();
            // Set, or add when the good file leaves the field out.
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let parent = v.pointer_mut(parent).unwrap();
            match parent {
                Value::Array(items) => items[key.parse::<usize>().unwrap()] = value,
                _ => parent[key] = value,
            }
            bad.push(serde_json::to_string(&v).unwrap());
        }
        let text = serde_json::to_string(&good).unwrap();
        bad.push(text.replacen("\"name\":\"n\"", "\"name\":\"n\",\"name\":\"m\"", 1));
        bad.push(text.replacen(
            "\"role\":\"user\"",
            "\"role\":\"user\",\"role\":\"user\"",
            1,
        ));
        bad.push(format!("{text} x"));
        bad.push(text[..text.len() - 3].to_string());
        // The good file itself is read, and each bad one refused by both.
        assert!(single_pass::verify_text("f", &text, &databases).is_ok());
        serde_json::from_str::<Conversation>(&text).unwrap();
        for text in &bad {
            assert!(
                serde_json::from_str::<Conversation>(text).is_err(),
                "{text}"
            );
            assert!(
                single_pass::verify_text("f", text, &databases).is_err(),
                "{text}"
            );
        }
    }
}
