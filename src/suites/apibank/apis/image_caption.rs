//! ImageCaption: describes the picture at a URL.
//!
//! Database `ImageCaptioning` (read only): a *list* of `{"url", "caption"}`
//! records (about 12,000), searched in order for the URL. It is read in
//! place: nothing is copied but the caption found.

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, type_name, Args};

pub static API: Api = Api {
    spec: spec(
        "ImageCaption",
        "Describes the picture at a URL.",
        &[text("url")],
        false,
    )
    .reading("ImageCaptioning"),
    reference: Reference {
        description: "This API generates a caption for a given image.",
        input_parameters: &[(
            "url",
            "str",
            "The url to download the image. It should end with .jpg, .jpeg or .png.",
        )],
        output_parameters: &[("caption", "str", "The generated caption.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["url"]);
    let outcome = caption(database(state, "ImageCaptioning"), args.value("url"));
    result("ImageCaption", input, outcome)
}

fn caption(images: &Value, url: &Value) -> Result<Value, String> {
    let url = py_strip(str_method(url, "strip")?);
    if ![".jpg", ".jpeg", ".png"]
        .iter()
        .any(|end| url.ends_with(end))
    {
        return Err("The url should end with .jpg, .jpeg or .png.".into());
    }
    match images {
        Value::Array(items) => {
            for item in items {
                if subscript(item, "url")?.as_str() == Some(url) {
                    return subscript(item, "caption").cloned();
                }
            }
        }
        // Iterating a dict gives its keys, texts that cannot be indexed by
        // "url" (a missing database is an empty dict: nothing found).
        Value::Object(map) if !map.is_empty() => {
            return Err("string indices must be integers, not 'str'".into())
        }
        Value::Object(_) => {}
        other => return Err(format!("'{}' object is not iterable", type_name(other))),
    }
    Err("The image of this url failed to be processed.".into())
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

    fn images() -> (&'static str, Value) {
        (
            "ImageCaptioning",
            json!([{"url": "http://x.org/a.jpg", "caption": "a cat"}, {"url": "http://x.org/b.png", "caption": "a dog"}]),
        )
    }

    #[test]
    fn finds_the_caption_by_url() {
        let mut state = state(&[images()]);
        let out = call(&API, &mut state, json!({"url": " http://x.org/b.png "}));
        assert_eq!(out["output"], "a dog");
        assert_eq!(out["input"], json!({"url": " http://x.org/b.png "}));
        assert!(correct(&out, &out));
    }

    #[test]
    fn other_extensions_and_unknown_images_raise() {
        let mut state = state(&[images()]);
        let out = call(&API, &mut state, json!({"url": "http://x.org/a.gif"}));
        assert_eq!(
            out["exception"],
            "The url should end with .jpg, .jpeg or .png."
        );
        let out = call(&API, &mut state, json!({"url": "http://x.org/c.jpeg"}));
        assert_eq!(
            out["exception"],
            "The image of this url failed to be processed."
        );
    }
}
