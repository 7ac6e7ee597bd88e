//! Where a JSON value sits in its source text. serde_json forgets
//! positions, so findings carry a JSON pointer and this scanner walks the
//! text to it, only for the findings there are (cheap when a file is clean).

use std::borrow::Cow;

/// The byte offsets of what a pointer names: the value, and its key when
/// the value is an object member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    pub key: Option<usize>,
    pub value: usize,
    /// Byte length of the value's text (a string with its quotes).
    pub len: usize,
}

/// Find the value at `pointer` (RFC 6901, e.g. `/conversation/3/apis/0`) in
/// `text`. None when the text does not hold it.
pub fn locate(text: &str, pointer: &str) -> Option<Located> {
    let tokens: Vec<Cow<'_, str>> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| match t.contains('~') {
                true => Cow::Owned(t.replace("~1", "/").replace("~0", "~")),
                false => Cow::Borrowed(t),
            })
            .collect()
    };
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    scanner.skip_ws();
    let mut key = None;
    for token in &tokens {
        scanner.skip_ws();
        match scanner.peek()? {
            b'{' => {
                scanner.pos += 1;
                key = Some(scanner.find_member(token)?);
            }
            b'[' => {
                scanner.pos += 1;
                let index: usize = token.parse().ok()?;
                scanner.find_element(index)?;
                key = None;
            }
            _ => return None,
        }
    }
    scanner.skip_ws();
    let start = scanner.pos;
    scanner.skip_value()?;
    Some(Located {
        key,
        value: start,
        len: scanner.pos - start,
    })
}

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    /// Inside an object (after `{`): move to the value of member `name`,
    /// returning the key's offset.
    fn find_member(&mut self, name: &str) -> Option<usize> {
        loop {
            self.skip_ws();
            match self.peek()? {
                b'}' => return None,
                b',' => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let key_start = self.pos;
            self.skip_string()?;
            let raw = &self.text[key_start..self.pos];
            self.skip_ws();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.skip_ws();
            if key_matches(raw, name) {
                return Some(key_start);
            }
            self.skip_value()?;
        }
    }

    /// Inside an array (after `[`): move to element `index`.
    fn find_element(&mut self, index: usize) -> Option<()> {
        let mut seen = 0;
        loop {
            self.skip_ws();
            match self.peek()? {
                b']' => return None,
                b',' => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            if seen == index {
                return Some(());
            }
            self.skip_value()?;
            seen += 1;
        }
    }

    fn skip_string(&mut self) -> Option<()> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        loop {
            // Straight to the next quote or escape.
            self.pos += memchr::memchr2(b'"', b'\\', self.bytes.get(self.pos..)?)?;
            match self.bytes[self.pos] {
                b'\\' => self.pos += 2,
                _ => {
                    self.pos += 1;
                    return Some(());
                }
            }
        }
    }

    fn skip_value(&mut self) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            b'"' => self.skip_string(),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.pos += 1;
                loop {
                    self.skip_ws();
                    match self.peek()? {
                        c if c == close => {
                            self.pos += 1;
                            return Some(());
                        }
                        b',' | b':' => self.pos += 1,
                        _ => self.skip_value()?,
                    }
                }
            }
            _ => {
                let start = self.pos;
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
                ) {
                    self.pos += 1;
                }
                (self.pos > start).then_some(())
            }
        }
    }
}

/// Whether a raw JSON string token (with quotes) spells `name`.
fn key_matches(raw: &str, name: &str) -> bool {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return inner == name;
    }
    serde_json::from_str::<String>(raw).is_ok_and(|k| k == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\n  \"a\": [1, {\"b\\u0020c\": \"x\"}, [true]],\n  \"d\": {\"e\": null}\n}";

    fn at(pointer: &str) -> Option<&'static str> {
        locate(DOC, pointer).map(|l| &DOC[l.value..l.value + l.len])
    }

    #[test]
    fn finds_members_elements_and_escaped_keys() {
        assert_eq!(at(""), Some(DOC));
        assert_eq!(at("/a/0"), Some("1"));
        assert_eq!(at("/a/1/b c"), Some("\"x\""));
        assert_eq!(at("/a/2/0"), Some("true"));
        assert_eq!(at("/d/e"), Some("null"));
        let l = locate(DOC, "/d/e").unwrap();
        assert_eq!(&DOC[l.key.unwrap()..l.key.unwrap() + 3], "\"e\"");
    }

    #[test]
    fn missing_paths_are_none() {
        assert_eq!(at("/z"), None);
        assert_eq!(at("/a/9"), None);
        assert_eq!(at("/d/e/f"), None);
        assert_eq!(locate("{\"a\": ", "/a"), None);
    }

    #[test]
    fn strings_with_escapes_and_unterminated_strings() {
        let doc = r#"{"a": "x\\\"y", "b": ["\\", "q\"\""], "c": 1}"#;
        assert_eq!(
            locate(doc, "/c").map(|l| &doc[l.value..l.value + l.len]),
            Some("1")
        );
        assert_eq!(locate(doc, "/b/1").map(|l| l.len), Some(7));
        assert_eq!(locate(r#"{"a": "x\"#, "/a"), None);
        assert_eq!(locate(r#"{"a": "x"#, "/a"), None);
        assert_eq!(locate(r#"{"a": "x\""#, "/a"), None);
        assert_eq!(locate(r##"{"a": "x\"""##, "/a").map(|l| l.len), Some(5));
    }

    #[test]
    fn pointer_escapes() {
        let doc = r#"{"a/b": 1, "c~d": 2}"#;
        assert_eq!(locate(doc, "/a~1b").map(|l| l.value), Some(8));
        assert_eq!(locate(doc, "/c~0d").map(|l| l.value), Some(18));
    }
}
