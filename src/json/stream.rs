//! Pretty-printed JSON documents with one long array that is not held in
//! memory: each element is rendered where it is computed (on a worker),
//! kept in a spool (memory up to [`IN_MEMORY`], then written in blocks of
//! that size to an unnamed temporary file), and spliced into the document once the rest of it (counts
//! known only at the end) is ready. The bytes are those of
//! `serde_json::to_string_pretty` over the whole document.

use std::fs::File;
use std::io::{self, Read, Seek, Write};

use serde::Serialize;

/// Spooled bytes kept in memory; beyond, they go to a file a block of
/// this size at a time (one write per block, not one per element).
pub const IN_MEMORY: usize = 1 << 20;

/// Room past [`IN_MEMORY`] reserved for the element that fills a block
/// (a larger one grows the block as a `Vec` grows).
const SLACK: usize = 64 << 10;

/// The buffer spooled blocks are read back through: small enough to stay
/// in memory the process has already touched (a fresh megabyte costs a
/// page fault per 4 KiB), large enough that reads are few.
const READ_BACK: usize = 128 << 10;

/// The indentation of an element of an array that is a value of the
/// document's top-level object (serde_json's pretty printer indents by two).
const ELEMENT_INDENT: &[u8] = b"    ";

/// The indentation of a field of an element (an object) of the document's
/// array: a newline, then one level more than [`ELEMENT_INDENT`].
const ELEMENT_FIELD_INDENT: &str = "\n      ";

/// The line [`PrettyFields::key_line`] takes for `key` (a string literal
/// needing no escaping) in an object whose fields sit at `indent` (a
/// string literal: a newline and the spaces).
#[macro_export]
macro_rules! key_line {
    ($indent:literal, $key:literal) => {
        concat!($indent, "\"", $key, "\": ")
    };
}

/// Writes a pretty-printed JSON object field by field, byte for byte what
/// serde_json's pretty printer writes at its depth: each field on a line of
/// its own at `indent` (a newline, then the spaces), the closing brace a
/// level out. For elements rendered once per file, where serde's generic
/// printer and a re-indenting pass cost more than the work behind them.
pub struct PrettyFields<'a> {
    out: &'a mut Vec<u8>,
    indent: &'static str,
    first: bool,
}

impl<'a> PrettyFields<'a> {
    /// An object whose fields sit at `indent`.
    pub fn open(out: &'a mut Vec<u8>, indent: &'static str) -> Self {
        out.push(b'{');
        PrettyFields {
            out,
            indent,
            first: true,
        }
    }

    /// An element of the document's array, as [`ArraySpool::render`]
    /// starts one.
    pub fn element(out: &'a mut Vec<u8>) -> Self {
        out.push(b'\n');
        out.extend_from_slice(ELEMENT_INDENT);
        Self::open(out, ELEMENT_FIELD_INDENT)
    }

    /// `"key": ` on a new line; `key` needs no escaping.
    pub fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.extend_from_slice(self.indent.as_bytes());
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    /// [`PrettyFields::key`] from the key's line written out beforehand
    /// (the indentation, the quoted key, a colon and a space: see
    /// [`key_line!`](crate::key_line)), in one copy.
    pub fn key_line(&mut self, line: &str) {
        debug_assert!(
            line.starts_with(self.indent) && line.ends_with("\": "),
            "{line:?} is not a key line at this object's indentation"
        );
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.extend_from_slice(line.as_bytes());
    }

    /// A field with any value, written by serde_json.
    pub fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        self.key(key);
        self.value(value);
    }

    /// A value after its key, written by serde_json.
    pub fn value<T: Serialize + ?Sized>(&mut self, value: &T) {
        serde_json::to_writer(&mut *self.out, value)
            .expect("serialising JSON to memory cannot fail");
    }

    /// An integer after its key, in the digits serde_json writes (its
    /// own `itoa`), without going through its serializer.
    pub fn integer_value(&mut self, value: u64) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    /// `true` or `false` after its key.
    pub fn bool_value(&mut self, value: bool) {
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    /// A string field, escaped as serde_json escapes it, without its
    /// serializer (long strings full of quotes are where it is slow).
    pub fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        self.string_value(value);
    }

    /// A string after its key, as [`PrettyFields::string`] writes it.
    pub fn string_value(&mut self, value: &str) {
        crate::json::text::push_string(self.out, value, crate::json::text::NonAscii::Keep);
    }

    /// A field holding an object whose fields sit at `indent`; close it
    /// before writing the next field of this one.
    pub fn object(&mut self, key: &str, indent: &'static str) -> PrettyFields<'_> {
        self.key(key);
        self.object_value(indent)
    }

    /// An object after its key, as [`PrettyFields::object`] opens it.
    pub fn object_value(&mut self, indent: &'static str) -> PrettyFields<'_> {
        PrettyFields::open(self.out, indent)
    }

    pub fn close(self) {
        let outer = &self.indent[..self.indent.len() - 2];
        self.out.extend_from_slice(outer.as_bytes());
        self.out.push(b'}');
    }
}

/// The rendered elements of the document's array, in order.
#[derive(Default)]
pub struct ArraySpool {
    /// The latest bytes, not yet in `file`.
    block: Vec<u8>,
    /// The earlier bytes, once there were more than [`IN_MEMORY`].
    file: Option<File>,
    len: usize,
}

impl ArraySpool {
    pub fn new() -> Self {
        Self::default()
    }

    /// Elements pushed so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `value` pretty-printed as an element of the array (indented for
    /// its depth); cheap to call on any thread.
    pub fn render<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
        let flat =
            serde_json::to_vec_pretty(value).expect("serialising JSON to memory cannot fail");
        // JSON strings cannot hold a raw newline, so every newline is
        // structure and takes the element's indentation.
        let newlines = flat.iter().filter(|&&b| b == b'\n').count();
        let mut out = Vec::with_capacity(flat.len() + (newlines + 1) * ELEMENT_INDENT.len() + 2);
        out.push(b'\n');
        out.extend_from_slice(ELEMENT_INDENT);
        for line in flat.split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(line);
            if line.ends_with(b"\n") {
                out.extend_from_slice(ELEMENT_INDENT);
            }
        }
        out
    }

    /// Append an element made by [`ArraySpool::render`].
    pub fn push(&mut self, rendered: &[u8]) -> io::Result<()> {
        if self.block.capacity() == 0 {
            // Sized once for a full block and the element that fills it,
            // rather than grown by doubling: every doubling copies the
            // block into memory never touched before.
            self.block.reserve_exact(IN_MEMORY + SLACK);
        }
        if self.len > 0 {
            self.block.push(b',');
        }
        self.block.extend_from_slice(rendered);
        self.len += 1;
        if self.block.len() >= IN_MEMORY {
            let file = match &mut self.file {
                Some(file) => file,
                None => self.file.insert(tempfile::tempfile()?),
            };
            file.write_all(&self.block)?;
            self.block.clear();
        }
        Ok(())
    }

    /// Write `head` (pretty-printed, its `key` an empty array) with the
    /// spooled elements as that array. Can be called more than once.
    pub fn write_document<H: Serialize>(
        &mut self,
        head: &H,
        key: &str,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let head = serde_json::to_string_pretty(head).map_err(io::Error::other)?;
        if self.len == 0 {
            return out.write_all(head.as_bytes());
        }
        // A raw newline only occurs between tokens, so this is the key at
        // the top level and nowhere else.
        let marker = format!("\n  {}: []", serde_json::to_string(key)?);
        let at = head.find(&marker).ok_or_else(|| {
            io::Error::other(format!("the document has no empty top-level `{key}` array"))
        })?;
        let (before, after) = head.split_at(at + marker.len() - 1);
        out.write_all(before.as_bytes())?;
        if let Some(file) = &mut self.file {
            // Read back in large blocks: `io::copy` into a `dyn Write`
            // would go 8 KiB at a time, two system calls each.
            file.rewind()?;
            let mut chunk = vec![0u8; READ_BACK];
            loop {
                let n = file.read(&mut chunk)?;
                if n == 0 {
                    break;
                }
                out.write_all(&chunk[..n])?;
            }
        }
        out.write_all(&self.block)?;
        out.write_all(b"\n  ")?;
        out.write_all(after.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_line_writes_what_key_writes() {
        let (mut by_key, mut by_line) = (Vec::new(), Vec::new());
        let mut a = PrettyFields::element(&mut by_key);
        a.key("first");
        a.value(&1);
        let mut inner = {
            a.key("inner");
            a.object_value("\n        ")
        };
        inner.key("x");
        inner.string_value("y");
        inner.close();
        a.string("last", "z");
        a.close();
        let mut b = PrettyFields::element(&mut by_line);
        b.key_line(crate::key_line!("\n      ", "first"));
        b.value(&1);
        b.key_line(crate::key_line!("\n      ", "inner"));
        let mut inner = b.object_value("\n        ");
        inner.key_line(crate::key_line!("\n        ", "x"));
        inner.string_value("y");
        inner.close();
        b.key_line(crate::key_line!("\n      ", "last"));
        b.string_value("z");
        b.close();
        assert_eq!(
            String::from_utf8(by_line).unwrap(),
            String::from_utf8(by_key).unwrap()
        );
    }

    use serde_json::json;

    use super::*;

    fn streamed(head: &serde_json::Value, key: &str, items: &[serde_json::Value]) -> String {
        let mut spool = ArraySpool::new();
        for item in items {
            spool.push(&ArraySpool::render(item)).unwrap();
        }
        let mut out = Vec::new();
        spool.write_document(head, key, &mut out).unwrap();
        // A second write gives the same bytes (stdout and summary.json).
        let mut again = Vec::new();
        spool.write_document(head, key, &mut again).unwrap();
        assert_eq!(out, again);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_document_is_what_the_pretty_printer_makes_of_the_whole() {
        let items = vec![
            json!({"file": "a\nb.json", "diff": "-x\n+y\n", "nested": {"list": [1, [2, {}]], "empty": []}}),
            json!("a string element"),
            json!({"file": "c.json", "call": 3}),
        ];
        let head = json!({"conversations": 2, "differs": [], "errors": ["one\n  \"differs\": []"]});
        let mut whole = head.clone();
        whole["differs"] = json!(items);
        assert_eq!(
            streamed(&head, "differs", &items),
            serde_json::to_string_pretty(&whole).unwrap()
        );
    }

    #[test]
    fn an_empty_array_and_a_last_key_print_as_the_pretty_printer_does() {
        let head = json!({"a": 1, "per_conversation": []});
        assert_eq!(
            streamed(&head, "per_conversation", &[]),
            serde_json::to_string_pretty(&head).unwrap()
        );
        let items = vec![json!({"x": 1})];
        let mut whole = head.clone();
        whole["per_conversation"] = json!(items);
        assert_eq!(
            streamed(&head, "per_conversation", &items),
            serde_json::to_string_pretty(&whole).unwrap()
        );
    }

    #[test]
    fn a_spool_larger_than_memory_goes_to_a_file_and_still_reads_back() {
        let big = "x".repeat(IN_MEMORY / 8);
        let items: Vec<_> = (0..12).map(|i| json!({"i": i, "text": big})).collect();
        let head = json!({"n": 12, "items": []});
        let mut whole = head.clone();
        whole["items"] = json!(items);
        assert_eq!(
            streamed(&head, "items", &items),
            serde_json::to_string_pretty(&whole).unwrap()
        );
    }
}
