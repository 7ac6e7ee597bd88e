//! Reading JSON files with errors that name the file, line and column.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dialogue::Conversation;
use crate::{Error, Result};

/// Files larger than this are refused rather than read into memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Read a file as UTF-8 text, refusing huge and binary files.
pub fn read_text(path: &Path) -> Result<String> {
    use std::io::Read;
    let io_error = |e: std::io::Error| Error::input(path, e.to_string());
    // One open and one fstat: this runs once per file of every command.
    let mut file = std::fs::File::open(path).map_err(io_error)?;
    let len = file.metadata().map_err(io_error)?.len();
    if len > MAX_FILE_BYTES {
        return Err(Error::input(
            path,
            format!("file is {len} bytes, more than the {MAX_FILE_BYTES} byte limit"),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    // `take` also bounds a file that grows (or a device that never ends).
    (&mut file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::input(
            path,
            format!("file is more than the {MAX_FILE_BYTES} byte limit"),
        ));
    }
    // memchr's vectorised search: the slice's own `contains` scans a byte
    // at a time and cost every command about 5% of its instructions.
    if memchr::memchr(0, &bytes).is_some() {
        return Err(Error::input(
            path,
            "binary file (contains NUL bytes), expected JSON text",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_column(
            &String::from_utf8_lossy(e.as_bytes()),
            e.utf8_error().valid_up_to(),
        );
        Error::syntax(path, line, column, "invalid UTF-8")
    })
}

/// 1-based line and column (in characters) of a byte offset. Newlines are
/// found with memchr, and a line prefix that is valid UTF-8 (every prefix
/// ending on a character boundary) is counted without a lossy copy: lint
/// places every finding with this.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    count_text_scan();
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
    let column = match std::str::from_utf8(&before[line_start..]) {
        Ok(prefix) => prefix.chars().count(),
        Err(_) => String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count(),
    } + 1;
    (line, column)
}

#[cfg(test)]
thread_local! {
    /// Passes over a text from its start that this thread made to place
    /// something in it (for the tests that check placing is linear).
    pub(crate) static TEXT_SCANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Count one pass over a text from its start (for the tests).
pub(crate) fn count_text_scan() {
    #[cfg(test)]
    TEXT_SCANS.with(|n| n.set(n.get() + 1));
}

/// Lines and columns of many offsets in one text: the line starts are
/// found once, so placing an offset does not scan the text before it
/// (placing thousands of findings or calls one scan each costs the square
/// of the text's length). Agrees with [`line_column`] at every offset.
pub struct TextIndex<'t> {
    text: &'t str,
    /// Byte offset of each line's start.
    line_starts: Vec<usize>,
    chars: CharCount,
}

/// How characters are counted between two offsets.
enum CharCount {
    /// An ASCII text: one byte a character.
    Bytes,
    /// Characters starting before each byte offset.
    Prefix(Vec<u32>),
    /// A text too long for the prefix: counted each time.
    Scan,
}

impl<'t> TextIndex<'t> {
    pub fn new(text: &'t str) -> Self {
        count_text_scan();
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|p| p + 1))
            .collect();
        let chars = if text.is_ascii() {
            CharCount::Bytes
        } else if u32::try_from(text.len()).is_ok() {
            let mut before = Vec::with_capacity(text.len() + 1);
            let mut count = 0u32;
            before.push(0);
            for &b in text.as_bytes() {
                // A character starts at every byte but a continuation byte.
                count += u32::from(b & 0xC0 != 0x80);
                before.push(count);
            }
            CharCount::Prefix(before)
        } else {
            CharCount::Scan
        };
        TextIndex {
            text,
            line_starts,
            chars,
        }
    }

    pub fn text(&self) -> &'t str {
        self.text
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        (line, self.chars(start, offset) + 1)
    }

    /// The byte range of 1-based line `line` without its `\n`; None past
    /// the last line.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        Some(start..end)
    }

    /// The characters starting in `start..end` (a character cut at `end`
    /// counts, as [`line_column`] counts it).
    pub fn chars(&self, start: usize, end: usize) -> usize {
        match &self.chars {
            CharCount::Bytes => end - start,
            CharCount::Prefix(before) => (before[end] - before[start]) as usize,
            CharCount::Scan => self.text.as_bytes()[start..end]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count(),
        }
    }
}

/// Convert a serde_json error into one that names the file and place.
pub fn json_error(path: &Path, err: &serde_json::Error) -> Error {
    let message = err.to_string();
    // serde_json appends " at line L column C"; the place goes in front instead.
    let message = match message.rfind(" at line ") {
        Some(pos) => &message[..pos],
        None => &message,
    };
    let message = super::plain::plain_json_message(message);
    Error::syntax(path, err.line().max(1), err.column().max(1), message)
}

/// Read and parse a JSON file.
pub fn read_json(path: &Path) -> Result<(String, Value)> {
    let text = read_text(path)?;
    let value = serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
    Ok((text, value))
}

/// Read only the typed view of a conversation file: one parse, for the
/// commands that never rewrite the file (stats, verify, evaluate).
pub fn read_conversation(path: &Path) -> Result<Conversation> {
    parse_conversation(path, &read_text(path)?)
}

pub fn parse_conversation(path: &Path, text: &str) -> Result<Conversation> {
    serde_json::from_str(text).map_err(|e| json_error(path, &e))
}

/// The JSON Schema of a conversation in the model's JSON shape
/// (`schemas/conversation.schema.json`).
pub fn conversation_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Conversation)).expect("schemas serialise")
}

/// A dialogue file read to record results in it (`fill`): its text (which
/// the format's writer edits, so that what does not change keeps its
/// bytes) and its model.
#[derive(Debug, Clone)]
pub struct LoadedConversation {
    pub path: PathBuf,
    pub text: String,
    pub conversation: Conversation,
    /// Gold calls (turn, call: their position in the model) that the file
    /// records no result for at all, as a call written by hand: `fill`
    /// records them even where the model's default result (null, no
    /// exception) is what the world returns.
    pub unrecorded: Vec<(usize, usize)>,
}

/// Read a conversation file; shape errors carry the line and column.
pub fn load_conversation(path: &Path) -> Result<LoadedConversation> {
    let (text, value) = read_json(path)?;
    let conversation = parse_conversation(path, &text)?;
    let unrecorded = conversation
        .gold_calls()
        .filter(|&(turn, call, _)| {
            let recorded = value
                .pointer(&format!("/conversation/{turn}/apis/{call}"))
                .and_then(Value::as_object);
            !recorded.is_some_and(|r| r.contains_key("response") && r.contains_key("exception"))
        })
        .map(|(turn, call, _)| (turn, call))
        .collect();
    Ok(LoadedConversation {
        path: path.to_path_buf(),
        text,
        conversation,
        unrecorded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain reading: count newlines before the offset, then the
    /// characters of the line up to it (lossily, inside a character).
    fn plain_line_column(text: &str, offset: usize) -> (usize, usize) {
        let before = &text.as_bytes()[..offset.min(text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        (line, column)
    }

    #[test]
    fn line_column_is_the_plain_reading_at_every_offset() {
        let text = "{\n  \"a\": \"Zo\u{eb}\",\n\t\"b\": [1, \"\u{fc}\"],\r\n  \"c\": null\n}\n";
        // Every byte offset, inside characters and past the end included.
        for text in [text, "ascii\nonly\n\nend"] {
            let index = TextIndex::new(text);
            for offset in 0..=text.len() + 2 {
                assert_eq!(
                    line_column(text, offset),
                    plain_line_column(text, offset),
                    "{offset}"
                );
                assert_eq!(
                    index.line_column(offset),
                    line_column(text, offset),
                    "{offset}"
                );
            }
            let lines: Vec<&str> = (1..)
                .map_while(|line| index.line_range(line))
                .map(|range| &text[range])
                .collect();
            assert_eq!(lines, text.split('\n').collect::<Vec<_>>());
        }
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, text.find('Z').unwrap()), (2, 9));
    }
}
