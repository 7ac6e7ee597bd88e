//! Python literals read as JSON: API-Bank dialogues write a list or dict
//! argument as the text of a Python literal (`"[{'name': 'heart_rate',
//! 'value': '80'}]"`), and whoever judges the values inside needs the tree.
//!
//! What `ast.literal_eval` takes of the literal shapes that have a JSON
//! counterpart: strings in single or double quotes (with the usual
//! backslash escapes), integers and floats (a leading sign allowed),
//! `True`, `False` and `None`, lists and tuples (both read as arrays) and
//! dicts (keys read as text: a string key as written, a number or constant
//! as Python prints it). Anything else (sets, bytes, expressions, a
//! string's prefix) is no literal here: [`parse`] says None.

use std::borrow::Cow;

use serde_json::Number;

use super::tree::{Json, Object};

/// The value of a Python literal, or None when `text` holds none (or
/// holds more than one).
pub fn parse(text: &str) -> Option<Json<'static>> {
    let mut reader = Reader {
        chars: text.char_indices().peekable(),
        text,
    };
    let value = reader.value(0)?;
    reader.skip_ws();
    reader.chars.peek().is_none().then_some(value)
}

/// Deeper than this is no argument a dialogue writes.
const MAX_DEPTH: usize = 64;

struct Reader<'t> {
    chars: std::iter::Peekable<std::str::CharIndices<'t>>,
    text: &'t str,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while self.chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
            self.chars.next();
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn value(&mut self, depth: usize) -> Option<Json<'static>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_ws();
        match self.peek()? {
            '\'' | '"' => self.string().map(|s| Json::String(Cow::Owned(s))),
            '[' => self.sequence(']', depth).map(Json::Array),
            '(' => self.sequence(')', depth).map(Json::Array),
            '{' => self.dict(depth),
            _ => self.scalar(),
        }
    }

    /// Items up to `close`, a trailing comma allowed.
    fn sequence(&mut self, close: char, depth: usize) -> Option<Vec<Json<'static>>> {
        self.chars.next();
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek()? == close {
                self.chars.next();
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.chars.next()?.1 {
                ',' => {}
                c if c == close => return Some(items),
                _ => return None,
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Json<'static>> {
        self.chars.next();
        let mut members: Vec<(Cow<'static, str>, Json<'static>)> = Vec::new();
        loop {
            self.skip_ws();
            if self.peek()? == '}' {
                self.chars.next();
                break;
            }
            let key = match self.value(depth + 1)? {
                Json::String(s) => s,
                Json::Number(n) => Cow::Owned(n.to_string()),
                Json::Bool(b) => Cow::Borrowed(if b { "True" } else { "False" }),
                Json::Null => Cow::Borrowed("None"),
                Json::Array(_) | Json::Object(_) => return None,
            };
            self.skip_ws();
            if self.chars.next()?.1 != ':' {
                return None;
            }
            members.push((key, self.value(depth + 1)?));
            self.skip_ws();
            match self.chars.next()?.1 {
                ',' => {}
                '}' => break,
                _ => return None,
            }
        }
        // A key written twice keeps its first place and the last value, as
        // a Python dict does.
        Some(Json::Object(Object::from_members(members)))
    }

    /// A quoted string, its escapes read as Python reads them.
    fn string(&mut self) -> Option<String> {
        let (_, quote) = self.chars.next()?;
        let mut out = String::new();
        loop {
            match self.chars.next()?.1 {
                '\\' => {
                    let (_, c) = self.chars.next()?;
                    match c {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\\' | '\'' | '"' => out.push(c),
                        '\n' => {}
                        'x' => out.push(self.code_point(2)?),
                        'u' => out.push(self.code_point(4)?),
                        'U' => out.push(self.code_point(8)?),
                        // Python keeps an unknown escape as written.
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    }
                }
                '\n' => return None,
                c if c == quote => return Some(out),
                c => out.push(c),
            }
        }
    }

    fn code_point(&mut self, digits: usize) -> Option<char> {
        let mut code = 0u32;
        for _ in 0..digits {
            code = code * 16 + self.chars.next()?.1.to_digit(16)?;
        }
        char::from_u32(code)
    }

    /// A number, `True`, `False` or `None`.
    fn scalar(&mut self) -> Option<Json<'static>> {
        let &(start, _) = self.chars.peek()?;
        let mut end = start;
        while let Some(&(at, c)) = self.chars.peek() {
            if !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')) {
                break;
            }
            end = at + c.len_utf8();
            self.chars.next();
        }
        let word = &self.text[start..end];
        match word {
            "True" => return Some(Json::Bool(true)),
            "False" => return Some(Json::Bool(false)),
            "None" => return Some(Json::Null),
            _ => {}
        }
        let digits = word.replace('_', "");
        if !digits
            .trim_start_matches(['+', '-'])
            .starts_with(|c: char| c.is_ascii_digit() || c == '.')
        {
            return None;
        }
        if let Ok(n) = digits.parse::<i64>() {
            return Some(Json::Number(n.into()));
        }
        let x: f64 = digits.parse().ok()?;
        Number::from_f64(x).map(Json::Number)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(text: &str) -> Option<serde_json::Value> {
        parse(text).map(|v| v.to_value())
    }

    #[test]
    fn lists_of_dicts_as_api_bank_writes_them() {
        assert_eq!(
            read("[{'name': 'pulse', 'value': '72'}, {\"name\": \"weight\", 'value': 61.5}]"),
            Some(json!([{"name": "pulse", "value": "72"}, {"name": "weight", "value": 61.5}]))
        );
        assert_eq!(
            read("{'time': '2024-02-01 07:45:00', 'bp': (118, 76), 'ok': True, 'note': None}"),
            Some(json!({"time": "2024-02-01 07:45:00", "bp": [118, 76], "ok": true, "note": null}))
        );
        assert_eq!(read(" [ 'a' , 'b' , ] "), Some(json!(["a", "b"])));
        assert_eq!(read("[]"), Some(json!([])));
        assert_eq!(
            read("{1: 'one', -2.5: 'x'}"),
            Some(json!({"1": "one", "-2.5": "x"}))
        );
    }

    #[test]
    fn string_escapes_as_python_reads_them() {
        assert_eq!(read(r"'it\'s'"), Some(json!("it's")));
        assert_eq!(read(r#""a \"b\"\n""#), Some(json!("a \"b\"\n")));
        assert_eq!(read(r"'caf\xe9 \u00e9'"), Some(json!("café é")));
        assert_eq!(read(r"'C:\dir'"), Some(json!("C:\\dir")));
    }

    #[test]
    fn anything_else_is_no_literal() {
        for text in [
            "",
            "[a, b]",
            "['a' 'b']",
            "{'a': 1",
            "['a'] x",
            "{'a'}",
            "{['k']: 1}",
            "1 + 2",
            "b'x'",
            "'unterminated",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(read(&deep), None);
    }
}
