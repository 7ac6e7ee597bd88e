//! Where a JSON value sits in its source text. serde_json forgets
//! positions, so findings carry a JSON pointer and this scanner walks the
//! text to it, only for the findings there are (cheap when a file is clean).

use std::borrow::Cow;
use std::collections::HashMap;

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
    crate::formats::read::count_text_scan();
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

/// Where a pointer's value sits, or failing that the nearest value above
/// it that the text holds (its parent, its parent's parent, ..., the whole
/// text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nearest {
    pub located: Located,
    /// The value is the pointer's own, not one above it.
    pub exact: bool,
}

/// For each of `pointers`, what [`locate`] finds for it or, when it finds
/// nothing, for the nearest pointer above it that it finds something for;
/// all in one pass over the text (locating them one at a time scans the
/// text once each: findings by the thousand in one file cost the square of
/// its length). None for what is not a pointer (no leading `/`) or a text
/// that is not JSON.
pub fn locate_nearest(text: &str, pointers: &[&str]) -> Vec<Option<Nearest>> {
    crate::formats::read::count_text_scan();
    let mut trie = Trie::default();
    let paths: Vec<Option<Vec<usize>>> = pointers.iter().map(|p| trie.insert(p)).collect();
    for path in paths.iter().flatten() {
        let end = *path.last().expect("a path holds the root");
        if !trie.nodes[end].wanted {
            trie.nodes[end].wanted = true;
            trie.left += 1;
        }
    }
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    // A text that stops being JSON leaves unfound what comes after.
    let _ = trie.visit(&mut scanner, &[ROOT], None);
    paths
        .into_iter()
        .map(|path| {
            let path = path?;
            let deepest = path.iter().rposition(|&n| trie.nodes[n].found.is_some())?;
            Some(Nearest {
                located: trie.nodes[path[deepest]].found?,
                exact: deepest == path.len() - 1,
            })
        })
        .collect()
}

const ROOT: usize = 0;

/// The pointers asked about, token by token.
struct Trie {
    nodes: Vec<TrieNode>,
    /// The pointers asked about not found yet: at none, the walk stops
    /// (the values around them are only wanted when one is missing).
    left: usize,
}

#[derive(Default)]
struct TrieNode {
    members: HashMap<String, usize>,
    /// The tokens that are array indices (as [`locate`] reads them).
    elements: HashMap<usize, Vec<usize>>,
    found: Option<Located>,
    /// A pointer asked about ends here.
    wanted: bool,
}

impl Default for Trie {
    fn default() -> Self {
        Trie {
            nodes: vec![TrieNode::default()],
            left: 0,
        }
    }
}

impl Trie {
    /// The nodes of `pointer`, from the root down; None when it is not a
    /// pointer.
    fn insert(&mut self, pointer: &str) -> Option<Vec<usize>> {
        let mut path = vec![ROOT];
        if pointer.is_empty() {
            return Some(path);
        }
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = match token.contains('~') {
                true => token.replace("~1", "/").replace("~0", "~"),
                false => token.to_owned(),
            };
            let parent = *path.last().expect("the path starts at the root");
            let next = self.nodes.len();
            let child = *self.nodes[parent]
                .members
                .entry(token.clone())
                .or_insert(next);
            if child == next {
                self.nodes.push(TrieNode::default());
                if let Ok(index) = token.parse::<usize>() {
                    self.nodes[parent]
                        .elements
                        .entry(index)
                        .or_default()
                        .push(child);
                }
            }
            path.push(child);
        }
        Some(path)
    }

    /// Walk the value at the scanner, which `nodes` name, going down only
    /// into the members and elements that pointers name; record where each
    /// node's value is.
    fn visit(
        &mut self,
        scanner: &mut Scanner<'_>,
        nodes: &[usize],
        key: Option<usize>,
    ) -> Option<()> {
        scanner.skip_ws();
        let start = scanner.pos;
        let wanted =
            |trie: &Trie, found: &mut Vec<usize>, children: &mut dyn Iterator<Item = usize>| {
                found.clear();
                found.extend(children.filter(|&c| trie.nodes[c].found.is_none()));
            };
        let mut children = Vec::new();
        let has_children = nodes.iter().any(|&n| !self.nodes[n].members.is_empty());
        match scanner.peek()? {
            b'{' if has_children => {
                scanner.pos += 1;
                loop {
                    scanner.skip_ws();
                    match scanner.peek()? {
                        b'}' => {
                            scanner.pos += 1;
                            break;
                        }
                        b',' => {
                            scanner.pos += 1;
                            continue;
                        }
                        b'"' => {}
                        _ => return None,
                    }
                    let key_start = scanner.pos;
                    scanner.skip_string()?;
                    let name = key_text(&scanner.text[key_start..scanner.pos]);
                    scanner.skip_ws();
                    if scanner.peek()? != b':' {
                        return None;
                    }
                    scanner.pos += 1;
                    let name = name.as_deref();
                    wanted(
                        self,
                        &mut children,
                        &mut nodes
                            .iter()
                            .filter_map(|&n| self.nodes[n].members.get(name?).copied()),
                    );
                    if children.is_empty() {
                        scanner.skip_value()?;
                    } else {
                        let at = std::mem::take(&mut children);
                        self.visit(scanner, &at, Some(key_start))?;
                        if self.left == 0 {
                            return Some(());
                        }
                    }
                }
            }
            b'[' if has_children => {
                scanner.pos += 1;
                let mut index = 0;
                loop {
                    scanner.skip_ws();
                    match scanner.peek()? {
                        b']' => {
                            scanner.pos += 1;
                            break;
                        }
                        b',' => {
                            scanner.pos += 1;
                            continue;
                        }
                        _ => {}
                    }
                    wanted(
                        self,
                        &mut children,
                        &mut nodes.iter().flat_map(|&n| {
                            self.nodes[n]
                                .elements
                                .get(&index)
                                .into_iter()
                                .flatten()
                                .copied()
                        }),
                    );
                    if children.is_empty() {
                        scanner.skip_value()?;
                    } else {
                        let at = std::mem::take(&mut children);
                        self.visit(scanner, &at, None)?;
                        if self.left == 0 {
                            return Some(());
                        }
                    }
                    index += 1;
                }
            }
            _ => scanner.skip_value()?,
        }
        let located = Located {
            key,
            value: start,
            len: scanner.pos - start,
        };
        for &n in nodes {
            let node = &mut self.nodes[n];
            if node.found.is_none() {
                node.found = Some(located);
                self.left -= usize::from(node.wanted);
            }
        }
        Some(())
    }
}

/// The text of a raw JSON string token (with quotes); None when it is not
/// one.
fn key_text(raw: &str) -> Option<Cow<'_, str>> {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
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
    fn nearest_values_are_what_locating_each_and_its_parents_finds() {
        let docs = [
            DOC,
            r#"{"a/b": 1, "c~d": {"e": [0, {"f": 2}]}, "g": [[], [3, 4]]}"#,
            r#"[{"x": 1, "x": 2}, "s\"q", {"b\u0020c": {"d": null}}]"#,
            "{\"a\": ",
        ];
        let pointers = [
            "",
            "/a",
            "/a/0",
            "/a/1/b c",
            "/a/2/0",
            "/a/9",
            "/a/1/b c/z",
            "/d/e",
            "/d/e/f",
            "/z",
            "/a~1b",
            "/c~0d/e/1/f",
            "/c~0d/e/01",
            "/g/1/1",
            "/g/0/0",
            "/0/x",
            "/2/b c/d",
            "/1",
            "no-slash",
            "/x/y/z",
        ];
        for doc in docs {
            let found = locate_nearest(doc, &pointers);
            for (pointer, found) in pointers.iter().zip(found) {
                let mut nearest = *pointer;
                let want = loop {
                    if let Some(l) = locate(doc, nearest) {
                        break Some(Nearest {
                            located: l,
                            exact: nearest.len() == pointer.len(),
                        });
                    }
                    match nearest.rfind('/') {
                        Some(cut) => nearest = &nearest[..cut],
                        None => break None,
                    }
                };
                assert_eq!(found, want, "{doc} {pointer}");
            }
        }
    }

    #[test]
    fn pointer_escapes() {
        let doc = r#"{"a/b": 1, "c~d": 2}"#;
        assert_eq!(locate(doc, "/a~1b").map(|l| l.value), Some(8));
        assert_eq!(locate(doc, "/c~0d").map(|l| l.value), Some(18));
    }
}
