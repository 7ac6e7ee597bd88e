//! The API-Bank paper's text form of an API call,
//! `[ApiName(key='value', ...)]` (also how talkforge asks models to write
//! calls in drafts, for every suite):
//! reading one out of what a model wrote, and writing one.
//!
//! Reading takes what models write in practice: text before and after the
//! call (`API-Request: [...]`, a code fence, an explanation), quotes of
//! either kind with backslash escapes, a quote of the other kind inside a
//! value, unquoted lists, dicts, numbers and constants, spaces and line
//! breaks anywhere between the parts, and a call without its square
//! brackets when the text holds no bracketed one. Values come out as the
//! dialogues' `param_dict` holds them: text, a quoted value without its
//! quotes, anything else as written (`['a', 'b']`, `3`, `True`); the world
//! converts them to the API's types as the reference's `ToolManager` does.
//!
//! Where this differs from the reference's regular expressions
//! (`api_call_extraction.py`): they stop a quoted value at the first quote
//! of either kind (`text="I'm here"` reads `I`), read only a call on one
//! line, let the greedy match run to the last `)]` of the line, and drop
//! arguments they cannot read without a word. Here a value ends at its own
//! closing quote, and an argument that cannot be read, a positional
//! argument or a name given twice is a parse failure with its reason. On
//! the calls the upstream dialogues record the two read the same
//! arguments (tested).

use std::fmt;
use std::ops::Range;

use serde_json::{Map, Value};

/// A call read from a model's text.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    pub api_name: String,
    /// The arguments in the order written, every value a JSON string as
    /// `param_dict` holds it.
    pub param_dict: Map<String, Value>,
    /// Where the call stands in the text (brackets included when written).
    pub span: Range<usize>,
}

/// Why no call could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// The text holds nothing shaped like `Name(...)`.
    NoCall,
    /// A call starts but its parentheses, brackets or quotes never close.
    Unclosed { api_name: String },
    /// An argument that is not `name=value`.
    BadArgument { api_name: String, reason: String },
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFailure::NoCall => {
                write!(f, "no API call of the form [ApiName(key='value', ...)]")
            }
            ParseFailure::Unclosed { api_name } => {
                write!(f, "the call to {api_name} is never closed")
            }
            ParseFailure::BadArgument { api_name, reason } => {
                write!(
                    f,
                    "the call to {api_name} has an unreadable argument: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for ParseFailure {}

/// The first API call in `text`: a bracketed one when there is one,
/// otherwise the first `Name(...)` whose name starts with a capital letter
/// (API names do; a word before a parenthesis in prose rarely does).
pub fn parse_api_request(text: &str) -> Result<ApiRequest, ParseFailure> {
    let mut first_failure = None;
    for bracketed in [true, false] {
        for start in candidates(text, bracketed) {
            match read_call(text, start, bracketed) {
                Some(Ok(request)) => return Ok(request),
                Some(Err(failure)) => {
                    first_failure.get_or_insert(failure);
                }
                None => {}
            }
        }
        if let Some(failure) = first_failure {
            return Err(failure);
        }
    }
    Err(ParseFailure::NoCall)
}

/// The call in the paper's form, `[Name(key='value', ...)]`: a value that
/// is a list or dict literal is written bare, as models write it, any
/// other in single quotes (escaped where needed). Reading the text back
/// gives the same `param_dict`.
pub fn render_api_request(api_name: &str, param_dict: &Map<String, Value>) -> String {
    let arguments: Vec<String> = param_dict
        .iter()
        .map(|(key, value)| {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if is_bare_literal(&text) {
                format!("{key}={text}")
            } else {
                format!("{key}={}", quoted(&text))
            }
        })
        .collect();
    format!("[{api_name}({})]", arguments.join(", "))
}

/// Byte offsets where a call may start: at a `[` (bracketed) or at the
/// first letter of a capitalised word followed by `(`.
fn candidates(text: &str, bracketed: bool) -> Vec<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .filter(|&i| {
            if bracketed {
                bytes[i] == b'['
            } else {
                bytes[i].is_ascii_uppercase() && (i == 0 || !is_word_byte(bytes[i - 1])) && {
                    let end = word_end(bytes, i);
                    bytes[end..]
                        .iter()
                        .find(|b| !b.is_ascii_whitespace())
                        .is_some_and(|&b| b == b'(')
                }
            }
        })
        .collect()
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn word_end(bytes: &[u8], start: usize) -> usize {
    start
        + bytes[start..]
            .iter()
            .take_while(|&&b| is_word_byte(b))
            .count()
}

/// The call starting at `start`, None when nothing call-shaped starts
/// there.
fn read_call(
    text: &str,
    start: usize,
    bracketed: bool,
) -> Option<Result<ApiRequest, ParseFailure>> {
    let mut scanner = Scanner { text, pos: start };
    if bracketed {
        scanner.pos += 1;
        scanner.skip_ws();
    }
    let api_name = scanner.word()?;
    if !api_name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    scanner.skip_ws();
    if !scanner.eat('(') {
        return None;
    }
    let api_name = api_name.to_string();
    let param_dict = match scanner.arguments(&api_name) {
        Ok(arguments) => arguments,
        Err(failure) => return Some(Err(failure)),
    };
    let mut end = scanner.pos;
    if bracketed {
        scanner.skip_ws();
        if !scanner.eat(']') {
            // `[Name(...)` with something else after: not the paper's form,
            // the bracketless pass may still read it.
            return None;
        }
        end = scanner.pos;
    }
    Some(Ok(ApiRequest {
        api_name,
        param_dict,
        span: start..end,
    }))
}

struct Scanner<'t> {
    text: &'t str,
    pos: usize,
}

impl<'t> Scanner<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Option<&'t str> {
        let end = word_end(self.text.as_bytes(), self.pos);
        (end > self.pos).then(|| {
            let word = &self.text[self.pos..end];
            self.pos = end;
            word
        })
    }

    /// `key=value, ...)` up to and including the closing parenthesis.
    fn arguments(&mut self, api_name: &str) -> Result<Map<String, Value>, ParseFailure> {
        let bad = |reason: String| ParseFailure::BadArgument {
            api_name: api_name.to_string(),
            reason,
        };
        let unclosed = || ParseFailure::Unclosed {
            api_name: api_name.to_string(),
        };
        let mut arguments = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(unclosed()),
                Some(')') => {
                    self.pos += 1;
                    return Ok(arguments);
                }
                _ => {}
            }
            let position = arguments.len() + 1;
            let Some(key) = self.word() else {
                return Err(bad(format!("argument {position} has no name")));
            };
            self.skip_ws();
            if !(self.eat('=') || self.eat(':')) {
                return Err(bad(format!("argument {position} ({key}) has no value")));
            }
            self.skip_ws();
            let value = match self.peek() {
                Some(',' | ')') => return Err(bad(format!("argument {key} has no value"))),
                _ => self.value().ok_or_else(unclosed)?,
            };
            if arguments
                .insert(key.to_string(), Value::String(value))
                .is_some()
            {
                return Err(bad(format!("argument {key} is given twice")));
            }
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(')') => {}
                None => return Err(unclosed()),
                Some(other) => {
                    return Err(bad(format!("unexpected {other:?} after argument {key}")));
                }
            }
        }
    }

    /// One value, None when a quote or bracket never closes.
    fn value(&mut self) -> Option<String> {
        match self.peek()? {
            quote @ ('\'' | '"') => {
                self.pos += 1;
                self.quoted_body(quote)
            }
            _ => {
                // Bare: a literal (list, dict, number, constant) up to the
                // comma or parenthesis that ends it at depth 0.
                let start = self.pos;
                let mut depth = 0usize;
                while let Some(c) = self.peek() {
                    match c {
                        '\'' | '"' => {
                            self.pos += 1;
                            self.quoted_body(c)?;
                            continue;
                        }
                        '[' | '{' | '(' => depth += 1,
                        ']' | '}' | ')' if depth > 0 => depth -= 1,
                        ',' | ')' if depth == 0 => break,
                        _ => {}
                    }
                    self.pos += c.len_utf8();
                }
                if depth > 0 {
                    return None;
                }
                Some(self.text[start..self.pos].trim_end().to_string())
            }
        }
    }

    /// The text of a quoted value after its opening quote, escapes
    /// resolved; the closing quote is consumed.
    fn quoted_body(&mut self, quote: char) -> Option<String> {
        let mut value = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            if c == quote {
                self.pos += i + 1;
                return Some(value);
            }
            if c == '\\' {
                let (_, escaped) = chars.next()?;
                match escaped {
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    '\\' | '\'' | '"' => value.push(escaped),
                    other => {
                        value.push('\\');
                        value.push(other);
                    }
                }
            } else {
                value.push(c);
            }
        }
        None
    }
}

/// A list or dict literal written bare reads back as the same text.
fn is_bare_literal(text: &str) -> bool {
    let balanced = || {
        let mut scanner = Scanner { text, pos: 0 };
        scanner.value().as_deref() == Some(text) && scanner.pos == text.len()
    };
    ((text.starts_with('[') && text.ends_with(']'))
        || (text.starts_with('{') && text.ends_with('}')))
        && balanced()
}

/// `text` in single quotes, with what would end it escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (String, Vec<(String, String)>) {
        let request = parse_api_request(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let args = request
            .param_dict
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        (request.api_name, args)
    }

    fn args(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn reads_the_papers_form() {
        assert_eq!(
            parsed("[GetUserToken(username='JohnDoe', password='pass123')]"),
            (
                "GetUserToken".into(),
                args(&[("username", "JohnDoe"), ("password", "pass123")])
            )
        );
        assert_eq!(parsed("[GetToday()]"), ("GetToday".into(), vec![]));
    }

    #[test]
    fn reads_text_around_the_call_and_code_fences() {
        let text = "Sure! I will look that up.\nAPI-Request: [ToolSearcher(keywords='weather')]\nThen I answer.";
        assert_eq!(
            parsed(text),
            ("ToolSearcher".into(), args(&[("keywords", "weather")]))
        );
        let fenced = "```\n[QueryStock(stock_code=\"AAPL\", date=\"2023-03-01\")]\n```";
        assert_eq!(
            parsed(fenced),
            (
                "QueryStock".into(),
                args(&[("stock_code", "AAPL"), ("date", "2023-03-01")])
            )
        );
    }

    #[test]
    fn reads_either_quote_with_the_other_inside_and_escapes() {
        assert_eq!(
            parsed(r#"[AddReminder(content="I'm off, call Bob", time='2023-03-01 09:00:00')]"#).1,
            args(&[
                ("content", "I'm off, call Bob"),
                ("time", "2023-03-01 09:00:00")
            ])
        );
        assert_eq!(
            parsed(r"[AddReminder(content='it\'s a \\ test')]").1,
            args(&[("content", r"it's a \ test")])
        );
        // A bracket or parenthesis inside a quoted value ends nothing.
        assert_eq!(
            parsed("[Calculator(formula='(5+3)*2]')]").1,
            args(&[("formula", "(5+3)*2]")])
        );
    }

    #[test]
    fn keeps_lists_dicts_numbers_and_constants_as_written() {
        assert_eq!(
            parsed("[AddMeeting(attendees=['John', \"Jane\"], n=3, ok=True, x=-2.5)]").1,
            args(&[
                ("attendees", "['John', \"Jane\"]"),
                ("n", "3"),
                ("ok", "True"),
                ("x", "-2.5")
            ])
        );
        assert_eq!(
            parsed("[RecordHealthData(user_id='1', health_data=[{'name': 'heart_rate', 'value': '80'}])]").1,
            args(&[
                ("user_id", "1"),
                ("health_data", "[{'name': 'heart_rate', 'value': '80'}]")
            ])
        );
    }

    #[test]
    fn reads_spaces_and_line_breaks_between_the_parts() {
        let text = "[ ModifyPassword (\n  token = 'a1',\n  old_password : \"x\" ,\n  new_password='y',\n) ]";
        assert_eq!(
            parsed(text),
            (
                "ModifyPassword".into(),
                args(&[
                    ("token", "a1"),
                    ("old_password", "x"),
                    ("new_password", "y")
                ])
            )
        );
    }

    #[test]
    fn reads_a_call_without_brackets_only_when_none_has_them() {
        assert_eq!(
            parsed("I will call QueryBalance(token='t') now").0,
            "QueryBalance"
        );
        assert_eq!(
            parsed("First (briefly) GetToday() then [QueryBalance(token='t')]").0,
            "QueryBalance"
        );
        // Prose with parentheses is no call.
        assert_eq!(
            parse_api_request("the answer (as you asked) is 4 [see above]"),
            Err(ParseFailure::NoCall)
        );
    }

    #[test]
    fn takes_the_first_of_several_calls() {
        let request = parse_api_request(
            "[GetUserToken(username='a', password='b')] [QueryBalance(token='t')]",
        )
        .unwrap();
        assert_eq!(request.api_name, "GetUserToken");
        assert_eq!(request.span, 0..42);
    }

    #[test]
    fn says_why_a_call_cannot_be_read() {
        let failure = |text: &str| parse_api_request(text).unwrap_err().to_string();
        assert_eq!(
            failure(""),
            "no API call of the form [ApiName(key='value', ...)]"
        );
        assert_eq!(
            failure("[ToolSearcher('weather')]"),
            "the call to ToolSearcher has an unreadable argument: argument 1 has no name"
        );
        assert_eq!(
            failure("[AddAlarm(time='08:00', time='09:00')]"),
            "the call to AddAlarm has an unreadable argument: argument time is given twice"
        );
        assert_eq!(
            failure("[AddAlarm(time='08:00)]"),
            "the call to AddAlarm is never closed"
        );
        assert_eq!(
            failure("[AddAlarm(time=)]"),
            "the call to AddAlarm has an unreadable argument: argument time has no value"
        );
        assert_eq!(
            failure("[AddAlarm(time='8' 'x')]"),
            "the call to AddAlarm has an unreadable argument: unexpected '\\'' after argument time"
        );
    }

    #[test]
    fn rendering_reads_back_to_the_same_arguments() {
        let mut dict = Map::new();
        for (k, v) in [
            ("content", "Bob's \"party\"\nat 5"),
            ("attendees", "['John', 'Jane']"),
            ("note", "[not a list"),
            ("empty", ""),
        ] {
            dict.insert(k.into(), Value::String(v.into()));
        }
        let text = render_api_request("AddMeeting", &dict);
        assert_eq!(
            text,
            r#"[AddMeeting(content='Bob\'s "party"\nat 5', attendees=['John', 'Jane'], note='[not a list', empty='')]"#
        );
        assert_eq!(parse_api_request(&text).unwrap().param_dict, dict);
    }
}
