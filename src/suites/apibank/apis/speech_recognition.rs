//! SpeechRecognition: transcribes the audio at a URL.
//!
//! Database `SpeechRecognition` (read only): `{url: transcript}`.

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "SpeechRecognition",
        "Transcribes the audio at a URL.",
        &[text("url")],
        false,
    )
    .reading("SpeechRecognition"),
    reference: Reference {
        description: "This API recognizes the speech from a given audio url.",
        input_parameters: &[(
            "url",
            "str",
            "The url to download the audio. It should end with .wav.",
        )],
        output_parameters: &[("transcript", "str", "The transcript of the audio.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["url"]);
    let outcome = transcript(database(state, "SpeechRecognition"), args.value("url"));
    result("SpeechRecognition", input, outcome)
}

fn transcript(recordings: &Value, url: &Value) -> Result<Value, String> {
    let url = py_strip(str_method(url, "strip")?);
    if !url.ends_with(".wav") {
        return Err("The url should end with .wav.".into());
    }
    if py_in(&Value::from(url), recordings)? {
        subscript(recordings, url).cloned()
    } else {
        Err("The audio of this url failed to be processed.".into())
    }
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn recordings() -> (&'static str, Value) {
        (
            "SpeechRecognition",
            json!({"https://x.org/v1.wav": "Hello there."}),
        )
    }

    #[test]
    fn transcribes_a_known_recording() {
        let mut state = state(&[recordings()]);
        let out = call(&API, &mut state, json!({"url": "https://x.org/v1.wav "}));
        assert_eq!(out["output"], "Hello there.");
        assert!(correct(&out, &out));
    }

    #[test]
    fn other_extensions_and_unknown_recordings_raise() {
        let mut state = state(&[recordings()]);
        let out = call(&API, &mut state, json!({"url": "https://x.org/v1.mp3"}));
        assert_eq!(out["exception"], "The url should end with .wav.");
        let out = call(&API, &mut state, json!({"url": "https://x.org/v2.wav"}));
        assert_eq!(
            out["exception"],
            "The audio of this url failed to be processed."
        );
    }
}
