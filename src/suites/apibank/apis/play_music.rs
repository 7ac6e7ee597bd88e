//! PlayMusic: plays a piece of music by name, answering with the URL
//! scheme that starts the player (`music://<name in lower case>`).

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, Args};

pub static API: Api = Api {
    spec: spec(
        "PlayMusic",
        "Plays a piece of music by name.",
        &[text("music_name")],
        true,
    ),
    reference: Reference {
        description: "This API triggers a music player to play music.",
        input_parameters: &[("music_name", "str", "The name of the music to play.")],
        output_parameters: &[(
            "status",
            "str",
            "The corresponding url scheme to trigger the music player.",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(_state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["music_name"]);
    let outcome = play(args.value("music_name")).map(Value::from);
    result("PlayMusic", input, outcome)
}

fn play(name: &Value) -> Result<String, String> {
    let name = str_method(name, "lower")?.to_lowercase();
    let name = py_strip(&name);
    if name.is_empty() {
        return Err("The music name cannot be empty.".into());
    }
    Ok(format!("music://{name}"))
}

/// Only the outputs are compared.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    match (response.get("output"), groundtruth.get("output")) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_the_players_url() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"music_name": " Shape of You "}));
        assert_eq!(out["output"], "music://shape of you");
        let out = call(&API, &mut state, json!({"music_name": "  "}));
        assert_eq!(out["exception"], "The music name cannot be empty.");
    }

    #[test]
    fn the_check_reads_only_the_output() {
        let gold = json!({"input": {"music_name": "A"}, "output": "music://a", "exception": null});
        let other =
            json!({"input": {"music_name": " a "}, "output": "music://a", "exception": null});
        assert!(correct(&other, &gold));
    }
}
