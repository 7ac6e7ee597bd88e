//! How the reference's evaluator reads a call out of a model's text:
//! api-bank's `get_api_call` and `parse_api_call`
//! (`api_call_extraction.py`), as their regular expressions behave under
//! Python's `re`, including what they read in malformed text and what
//! they miss.
//!
//! The call is the leftmost match of `\[(\w+)\((.*)\)\]`: a `[` right
//! before the API's name, a `(` right after it, and everything up to the
//! *last* `)]` of that line (`.` never crosses a line break). A space
//! inside the brackets, a line break inside the call or a call without its
//! brackets is no match. The arguments are what
//! `(\w+)\s*=\s*['"](.+?)['"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)`
//! finds, match after match, in the text between the parentheses: a quoted
//! value ends at the next quote of either kind (at least one character
//! in), a value starting with `[` runs to the last `]` of its line, any
//! other value is one word (`3.5` reads `3`); what matches none of these is
//! dropped without a word, and a name given twice keeps its first place
//! with its last value.
//!
//! The call is found with the `regex` crate (one search is linear in
//! the text), with Python's classes spelled out; its leftmost-first
//! matches are the ones Python's backtracking engine reports for these
//! patterns. The arguments are read by hand, so that reading them stays
//! linear too (iterating a regex's matches need not be: a `[` with no `]`
//! after it would send every later search to the end of its line); the
//! tests check that reading against the `regex` crate.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::score::Predicted;
use crate::sim::pyargs::is_py_space;

/// The call pattern, `\[(\w+)\((.*)\)\]` with Python's `\w` spelled out.
static CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[([\p{L}\p{N}_]+)\((.*)\)\]").expect("the pattern is valid"));

/// The call `get_api_call` finds in `text` and `parse_api_call` reads
/// (`param_dict`: every value text, as the reference reads it), None when
/// the pattern does not match (the reference's "No API call found").
pub fn read(text: &str) -> Option<Predicted> {
    let found = CALL.captures(text)?;
    Some(Predicted::new(&found[1], read_arguments(&found[2])))
}

/// `param_dict` as `parse_api_call` builds it from the text between the
/// call's parentheses (the text may hold line breaks when the call was
/// found otherwise; `.` stops at them as in Python).
pub fn read_arguments(params: &str) -> Map<String, Value> {
    let mut dict = Map::new();
    // A `[` value before this place finds no `]` on its line: one that
    // failed ends there.
    let mut no_bracket_before = 0;
    let mut pos = 0;
    while let Some(c) = params[pos..].chars().next() {
        if !is_word(c) {
            pos += c.len_utf8();
            continue;
        }
        // Every alternative starts `(\w+)\s*=\s*`, and where it fails at a
        // word's first letter it fails at its later ones too: the word is
        // passed over whole.
        let name = pos..run_end(params, pos, is_word);
        pos = name.end;
        let after_name = run_end(params, name.end, is_py_space);
        if params[after_name..].starts_with('=') {
            let at = run_end(params, after_name + 1, is_py_space);
            if let Some((value, end)) = value(params, at, &mut no_bracket_before) {
                dict.insert(params[name].to_string(), Value::String(value.into()));
                pos = end;
            }
        }
    }
    dict
}

/// The value at `at` by the first alternative that matches there, and
/// where the match ends.
fn value<'a>(
    params: &'a str,
    at: usize,
    no_bracket_before: &mut usize,
) -> Option<(&'a str, usize)> {
    match params[at..].chars().next()? {
        // `['"](.+?)['"]`: one character that is not a line break, then up
        // to the next quote of either kind on the line.
        '\'' | '"' => {
            let one = params[at + 1..].chars().next().filter(|&c| c != '\n')?;
            let from = at + 1 + one.len_utf8();
            let stop = from + params[from..].find(['\'', '"', '\n'])?;
            (params.as_bytes()[stop] != b'\n').then(|| (&params[at + 1..stop], stop + 1))
        }
        // `(\[.*\])`: to the last `]` of the line.
        '[' if at >= *no_bracket_before => {
            let line_end = params[at..].find('\n').map_or(params.len(), |i| at + i);
            match params[at..line_end].rfind(']') {
                Some(close) => Some((&params[at..=at + close], at + close + 1)),
                None => {
                    *no_bracket_before = line_end;
                    None
                }
            }
        }
        // `(\w+)`: one word.
        c if is_word(c) => {
            let end = run_end(params, at, is_word);
            Some((&params[at..end], end))
        }
        _ => None,
    }
}

/// Python's `\w` on text: a letter or digit of any script (general
/// categories L and N, which is exactly what `str.isalnum` takes) or `_`.
fn is_word(c: char) -> bool {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}_]$").expect("the pattern is valid"));
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        WORD.is_match(c.encode_utf8(&mut [0; 4]))
    }
}

/// Where the run of characters that `take` takes, starting at `at`, ends.
fn run_end(text: &str, at: usize, take: fn(char) -> bool) -> usize {
    at + text[at..]
        .chars()
        .take_while(|&c| take(c))
        .map(char::len_utf8)
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str) -> Option<(String, Vec<(String, String)>)> {
        read(text).map(|c| {
            let args = c
                .param_dict
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect();
            (c.api_name, args)
        })
    }

    fn args(text: &str) -> Vec<(String, String)> {
        read_arguments(text)
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_call_needs_its_brackets_and_parentheses_tight_and_on_one_line() {
        let plain = "[AddAlarm(token='t', time='2023-03-20 07:00:00')]";
        assert_eq!(
            call(plain),
            Some((
                "AddAlarm".into(),
                pairs(&[("token", "t"), ("time", "2023-03-20 07:00:00")])
            ))
        );
        for missed in [
            "[ AddAlarm(token='t') ]",
            "[AddAlarm (token='t')]",
            "[AddAlarm(token='t') ]",
            "AddAlarm(token='t')",
            "[AddAlarm(token='t')",
            "AddAlarm(token='t')]",
            "[AddAlarm(\n token='t'\n)]",
            "[AddAlarm(token='t']",
            "{AddAlarm(token='t')}",
            "[Add-Alarm(token='t')]",
            "[(token='t')]",
        ] {
            assert_eq!(call(missed), None, "{missed:?}");
        }
        // Text around it, a doubled bracket, and a line break elsewhere.
        assert_eq!(
            call("Sure.\nAPI-Request: [[GetToday()]] done\n").unwrap().0,
            "GetToday"
        );
    }

    #[test]
    fn the_match_runs_to_the_last_close_of_its_line() {
        let two = "[QueryAlarm(token='a')] and [DeleteAlarm(time='b')]";
        assert_eq!(CALL.find(two).unwrap().range(), 0..two.len());
        assert_eq!(
            call(two),
            Some(("QueryAlarm".into(), pairs(&[("token", "a"), ("time", "b")])))
        );
        // A `)]` inside a value ends nothing early; one on a later line is
        // out of reach.
        assert_eq!(
            call("[Calculator(formula='(1+2)]*3')]").unwrap().1,
            pairs(&[("formula", "(1+2)]*3")])
        );
        assert_eq!(
            call("[GetToday(\n)]\n[QueryAlarm(token='x')]").unwrap().0,
            "QueryAlarm"
        );
        // The leftmost `[` that can start a match wins, even inside text.
        assert_eq!(
            call("see [note] [AddAlarm(time='x')]").unwrap().0,
            "AddAlarm"
        );
        assert_eq!(
            call("[A([B(x='1')]"),
            Some(("A".into(), pairs(&[("x", "1")])))
        );
    }

    #[test]
    fn a_quoted_value_ends_at_the_next_quote_of_either_kind() {
        assert_eq!(
            args("content=\"I'm here\", time='9'"),
            pairs(&[("content", "I"), ("time", "9")])
        );
        // Mismatched quotes read as if they matched.
        assert_eq!(
            args("username='JohnDoe\", password='pass123'"),
            pairs(&[("username", "JohnDoe"), ("password", "pass123")])
        );
        // An unclosed quote takes the next argument's opening quote as its
        // end, and the text up to it.
        assert_eq!(args("a='x, b='y'"), pairs(&[("a", "x, b=")]));
        // At least one character: an empty value takes the closing quote
        // and runs to the next one.
        assert_eq!(args("a='', b='y'"), pairs(&[("a", "', b=")]));
        // No closing quote at all: the argument is dropped (the word after
        // the quote is no `name=`).
        assert_eq!(args("a='x"), pairs(&[]));
        // Escapes mean nothing.
        assert_eq!(args(r"a='it\'s'"), pairs(&[("a", r"it\")]));
    }

    #[test]
    fn unquoted_values_are_a_word_or_a_bracket_to_the_last_on_the_line() {
        assert_eq!(
            args("n=3.5, ok=True, d=2023-03-01, neg=-2"),
            pairs(&[("n", "3"), ("ok", "True"), ("d", "2023")])
        );
        assert_eq!(
            args("attendees=['Ann', 'Bo'], loc='Room A'"),
            pairs(&[("attendees", "['Ann', 'Bo']"), ("loc", "Room A")])
        );
        // Greedy: a second list is swallowed by the first.
        assert_eq!(
            args("a=['x'], b=['y'], c='z'"),
            pairs(&[("a", "['x'], b=['y']"), ("c", "z")])
        );
        // A `[` with no `]` after it on its line is no value.
        assert_eq!(args("a=[x\n], b='y'"), pairs(&[("b", "y")]));
        // A dict is no value, but what reads like an argument inside it is.
        assert_eq!(args("d={k='v'}"), pairs(&[("k", "v")]));
    }

    #[test]
    fn names_spaces_and_what_is_dropped() {
        assert_eq!(args("a = 'x' ,b\t=\t'y'"), pairs(&[("a", "x"), ("b", "y")]));
        // Positional arguments and a colon instead of `=` are dropped.
        assert_eq!(args("'x', b: 'y', c='z'"), pairs(&[("c", "z")]));
        // A name given twice keeps its first place and its last value.
        assert_eq!(
            args("a='1', b='2', a='3'"),
            pairs(&[("a", "3"), ("b", "2")])
        );
        // Letters of any script are word characters; other signs are not.
        assert_eq!(args("prénom='Zoë'"), pairs(&[("prénom", "Zoë")]));
        assert_eq!(args("n-m='x'"), pairs(&[("m", "x")]));
        // Python's `\s` takes the information separators too.
        assert_eq!(args("a\u{1f}='x'"), pairs(&[("a", "x")]));
    }

    /// The port against the `regex` crate running the reference's own
    /// patterns (leftmost-first, as Python's engine reports them), with
    /// Python's classes spelled out, over many generated texts.
    #[test]
    fn agrees_with_the_patterns_on_generated_text() {
        let call_pattern = Regex::new(r"\[([\p{L}\p{N}_]+)\((.*)\)\]").unwrap();
        let s = r"[\s\x1c-\x1f]";
        let w = r"[\p{L}\p{N}_]";
        let param_pattern = Regex::new(&format!(
            r#"({w}+){s}*={s}*['"](.+?)['"]|({w}+){s}*={s}*(\[.*\])|({w}+){s}*={s}*({w}+)"#
        ))
        .unwrap();
        let expected = |text: &str| -> Option<(String, Vec<(String, String)>)> {
            let m = call_pattern.captures(text)?;
            let mut dict = Map::new();
            for c in param_pattern.captures_iter(&m[2]) {
                let (k, v) = if let Some(k) = c.get(1) {
                    (k, c.get(2).unwrap())
                } else if let Some(k) = c.get(3) {
                    (k, c.get(4).unwrap())
                } else {
                    (c.get(5).unwrap(), c.get(6).unwrap())
                };
                dict.insert(k.as_str().to_string(), Value::String(v.as_str().into()));
            }
            let args = dict
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect();
            Some((m[1].to_string(), args))
        };
        let pieces = [
            "[",
            "]",
            "(",
            ")",
            ")]",
            "'",
            "\"",
            "=",
            " ",
            ",",
            "\n",
            "a",
            "b",
            "Ab",
            "x_1",
            "3.5",
            "é",
            "-",
            "[A(",
            "k=",
            "k='v'",
            "\t",
            "\u{1f}",
            "{",
            "}",
            "é=",
            ":",
            "k='v', ",
            "n=3, ",
            "q=\"w\", ",
            "L=['a', 'b'], ",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut calls, mut arguments) = (0, 0);
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let mut text = String::from(if next() % 2 == 0 { "[F(" } else { "" });
            for _ in 0..len {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            if next() % 2 == 0 {
                text.push_str(")]");
            }
            let got = call(&text);
            assert_eq!(got, expected(&text), "{text:?}");
            if let Some((_, args)) = got {
                calls += 1;
                arguments += args.len();
            }
        }
        // Enough of the texts hold a call, with arguments, to say something.
        assert!(
            calls > 5_000 && arguments > 5_000,
            "{calls} calls, {arguments} arguments"
        );
    }
}
