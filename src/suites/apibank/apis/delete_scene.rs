//! DeleteScene: removes a smart-home scene.
//!
//! Database `Scenes` (see AddScene), looked up by the name stripped and
//! lower-cased.

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::{Key, Source, State};
use super::home::key_name;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::Args;

const DATABASE: Source = Source::Shared("Scenes");

pub static API: Api = Api {
    spec: spec(
        "DeleteScene",
        "Removes a smart-home scene.",
        &[text("name")],
        true,
    )
    .reading("Scenes"),
    reference: Reference {
        description: "This API deletes a scene by its name.",
        input_parameters: &[("name", "str", "The name of the scene.")],
        output_parameters: &[("status", "str", "Whether the deletion is successful.")],
    },
    call,
    // The same check as QueryScene's: name, output, exception.
    correct: super::query_scene::correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["name"]);
    let outcome = delete(state, args.value("name")).map(Value::from);
    result("DeleteScene", input, outcome)
}

fn delete(state: &mut State, name: &Value) -> Result<&'static str, String> {
    let name = key_name(name)?;
    if name.is_empty() {
        return Err("Scene name cannot be empty.".into());
    }
    state
        .dict_mut(DATABASE)
        .remove(&Key::Text(name))
        .map(|_| "success")
        .ok_or_else(|| "The scene does not exist.".to_string())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn scenes() -> (&'static str, Value) {
        ("Scenes", json!({"bedtime": [], "movie time": []}))
    }

    #[test]
    fn removes_the_scene_by_its_tidied_name() {
        let mut state = state(&[scenes()]);
        let out = call(&API, &mut state, json!({"name": "Bedtime "}));
        assert_eq!(
            out,
            json!({"api_name": "DeleteScene", "input": {"name": "Bedtime "}, "output": "success", "exception": null})
        );
        assert!(!state.dict_mut(DATABASE).contains("bedtime"));
        assert!((API.correct)(&out, &out));
    }

    #[test]
    fn unknown_and_empty_names_raise() {
        let mut state = state(&[scenes()]);
        let out = call(&API, &mut state, json!({"name": "Bedtime"}));
        assert_eq!(out["output"], "success");
        let out = call(&API, &mut state, json!({"name": "Bedtime"}));
        assert_eq!(out["exception"], "The scene does not exist.");
        let out = call(&API, &mut state, json!({"name": " "}));
        assert_eq!(out["exception"], "Scene name cannot be empty.");
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }
}
