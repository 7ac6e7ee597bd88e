//! SendEmail: sends an email to an address, with a subject and content.
//!
//! Nothing is stored: the address is checked against the reference's
//! pattern (lower-case local part of at least two characters, at most one
//! `.` or `_` inside it, a one-word domain and a two- or three-character
//! ending), and subject and content must not be blank.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::super::catalog::{composed, spec, text};
use super::super::state::State;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "SendEmail",
        "Sends an email.",
        &[text("receiver"), composed("subject"), composed("content")],
        true,
    ),
    reference: Reference {
        description: "This API for sending email, given the receiver, subject and content.",
        input_parameters: &[
            ("receiver", "str", "The receiver address of the email."),
            ("subject", "str", "The subject address of the email."),
            ("content", "str", "The content of the email."),
        ],
        output_parameters: &[("status", "str", "The status of the email.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(_state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["receiver", "subject", "content"]);
    let outcome = send(&args).map(Value::from);
    result("SendEmail", input, outcome)
}

/// The reference's address pattern, matched from the start of the text.
fn address() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^[a-z0-9]+[\._]?[a-z0-9]+[@]\w+[.]\w{2,3}$").expect("valid pattern")
    })
}

fn send(args: &Args<'_>) -> Result<&'static str, String> {
    let field = |name: &str| str_method(args.value(name), "strip").map(py_strip);
    let receiver = field("receiver")?;
    let subject = field("subject")?;
    let content = field("content")?;
    if !address().is_match(receiver) {
        return Err("Email address of the receiver is invalid.".into());
    }
    if subject.is_empty() {
        return Err("Subject cannot be empty.".into());
    }
    if content.is_empty() {
        return Err("Content cannot be empty.".into());
    }
    Ok("success")
}

/// Same receiver (stripped, case-blind), subject and content (stripped),
/// output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<[String; 3], String> {
        let input = subscript(result, "input")?;
        let field = |name: &str| -> Result<String, String> {
            Ok(py_strip(str_method(subscript(input, name)?, "strip")?).to_string())
        };
        Ok([
            field("receiver")?.to_lowercase(),
            field("subject")?,
            field("content")?,
        ])
    };
    match (read(response), read(groundtruth)) {
        (Ok(a), Ok(b)) => {
            a == b
                && response.get("output") == groundtruth.get("output")
                && response.get("exception") == groundtruth.get("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn send(receiver: &str, subject: &str, content: &str) -> Value {
        let mut state = state(&[]);
        let out = call(
            &API,
            &mut state,
            json!({"receiver": receiver, "subject": subject, "content": content}),
        );
        match &out["exception"] {
            Value::Null => out["output"].clone(),
            e => e.clone(),
        }
    }

    #[test]
    fn sends_to_an_address_of_the_references_shape() {
        assert_eq!(send(" john@example.com ", "Hi", "Don"), "success");
        assert_eq!(send("john.doe@example.org", "Hi", "Don"), "success");
        assert_eq!(send("jd_2@mail.io", "Hi", "Don"), "success");
    }

    #[test]
    fn other_addresses_and_blank_fields_raise() {
        let invalid = "Email address of the receiver is invalid.";
        assert_eq!(send("John@example.com", "Hi", "x"), invalid);
        assert_eq!(send("j@example.com", "Hi", "x"), invalid);
        assert_eq!(send("john@mail.example.com", "Hi", "x"), invalid);
        assert_eq!(send("john@example.info", "Hi", "x"), invalid);
        assert_eq!(
            send("john@example.com", " ", "x"),
            "Subject cannot be empty."
        );
        assert_eq!(
            send("john@example.com", "Hi", ""),
            "Content cannot be empty."
        );
    }

    #[test]
    fn the_check_reads_the_receiver_case_blind() {
        let gold = json!({"input": {"receiver": "a@b.com", "subject": "s", "content": "c"}, "output": "success", "exception": null});
        let close = json!({"input": {"receiver": " A@B.com", "subject": "s ", "content": "c"}, "output": "success", "exception": null});
        assert!(correct(&close, &gold));
    }
}
