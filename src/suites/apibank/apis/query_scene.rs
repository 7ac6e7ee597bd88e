//! QueryScene: the devices of a smart-home scene.
//!
//! Database `Scenes` (see AddScene), looked up by the name stripped and
//! lower-cased.

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::{Source, State};
use super::home::key_name;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_eq, Args};

const DATABASE: Source = Source::Shared("Scenes");

pub static API: Api = Api {
    spec: spec(
        "QueryScene",
        "Shows the devices of a smart-home scene.",
        &[text("name")],
        false,
    )
    .reading("Scenes"),
    reference: Reference {
        description: "This API queries a scene of smart home system, given the scene name",
        input_parameters: &[("name", "str", "The name of the scene.")],
        output_parameters: &[(
            "devices",
            "list",
            "The list of smart devices, containing the name and description.",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["name"]);
    let outcome = query(state, args.value("name"));
    result("QueryScene", input, outcome)
}

fn query(state: &mut State, name: &Value) -> Result<Value, String> {
    let name = key_name(name)?;
    if name.is_empty() {
        return Err("Scene name cannot be empty.".into());
    }
    state
        .dict(DATABASE)
        .get(&name)
        .cloned()
        .ok_or_else(|| "Scene not found.".to_string())
}

/// Same name once stripped and lower-cased, same output and exception.
pub(super) fn correct(response: &Value, groundtruth: &Value) -> bool {
    let name = |result: &Value| key_name(result.get("input")?.get("name")?).ok();
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    };
    match (name(response), name(groundtruth)) {
        (Some(a), Some(b)) => a == b && same("output") && same("exception"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn scenes() -> (&'static str, Value) {
        (
            "Scenes",
            json!({"morning routine": [{"name": "light", "description": "Smart light"}]}),
        )
    }

    #[test]
    fn answers_the_devices_of_the_scene() {
        let mut state = state(&[scenes()]);
        let out = call(&API, &mut state, json!({"name": " Morning Routine"}));
        assert_eq!(
            out,
            json!({"api_name": "QueryScene", "input": {"name": " Morning Routine"},
                   "output": [{"name": "light", "description": "Smart light"}], "exception": null})
        );
        let mut other = out.clone();
        other["input"]["name"] = json!("morning routine");
        assert!(correct(&other, &out));
    }

    #[test]
    fn unknown_and_empty_names_raise() {
        let mut state = state(&[scenes()]);
        let out = call(&API, &mut state, json!({"name": "Evening"}));
        assert_eq!(out["exception"], "Scene not found.");
        let out = call(&API, &mut state, json!({"name": ""}));
        assert_eq!(out["exception"], "Scene name cannot be empty.");
    }
}
