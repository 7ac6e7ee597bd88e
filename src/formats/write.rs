//! Writing JSON the way the upstream files are written (Python's
//! `json.dumps(obj, indent=4)`: 4-space indent, `", "`/`": "` separators,
//! non-ASCII escaped as `\uXXXX`, no trailing newline), atomically.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::{Error, Result};

/// Serialise like Python's `json.dumps(value, indent=4)`.
pub fn to_python_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonFormatter::new());
    value
        .serialize(&mut ser)
        .expect("serialising JSON to memory cannot fail");
    String::from_utf8(out).expect("the formatter writes ASCII only")
}

/// serde_json's pretty printer with Python's `ensure_ascii` escaping.
struct PythonFormatter {
    pretty: PrettyFormatter<'static>,
}

impl PythonFormatter {
    fn new() -> Self {
        PythonFormatter {
            pretty: PrettyFormatter::with_indent(b"    "),
        }
    }
}

impl Formatter for PythonFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.pretty.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.pretty.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_object_value(w)
    }
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // ASCII runs go out whole; only the rest is escaped char by char.
        let mut rest = fragment;
        while !rest.is_empty() {
            let ascii = rest
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(rest.len());
            w.write_all(&rest.as_bytes()[..ascii])?;
            rest = &rest[ascii..];
            let Some(ch) = rest.chars().next() else { break };
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            rest = &rest[ch.len_utf8()..];
        }
        Ok(())
    }
}

/// Write `contents` to `path` through a temporary file in the same folder
/// and a rename, so a reader never sees half a file.
pub fn atomic_write(path: &Path, contents: &[u8]) -> Result<()> {
    replace_file(path, contents, true)
}

/// Like [`atomic_write`] but without waiting for the disk: for outputs that
/// are cheap to make again (evaluation results, where a resumed run
/// re-evaluates any file it cannot read). Readers still see the old file or
/// the new one, never a half-written one; only a power cut can lose it.
/// Syncing each of thousands of small files would otherwise dominate a run.
pub fn atomic_write_unsynced(path: &Path, contents: &[u8]) -> Result<()> {
    replace_file(path, contents, false)
}

/// Like [`atomic_write`], the contents written by `write` (through a
/// buffer) rather than held in memory first.
pub fn atomic_write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    replace_with(path, true, write)
}

fn replace_file(path: &Path, contents: &[u8], sync: bool) -> Result<()> {
    replace_with(path, sync, |w| w.write_all(contents))
}

fn replace_with(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::input(path, format!("cannot create a temporary file: {e}")))?;
    let mut buffered = std::io::BufWriter::new(tmp);
    write(&mut buffered)
        .and_then(|()| buffered.flush())
        .map_err(|e| Error::input(path, format!("cannot write: {e}")))?;
    let tmp = buffered
        .into_inner()
        .map_err(|e| Error::input(path, format!("cannot write: {}", e.error())))?;
    if sync {
        tmp.as_file()
            .sync_all()
            .map_err(|e| Error::input(path, format!("cannot write: {e}")))?;
    }
    tmp.persist(path)
        .map_err(|e| Error::input(path, format!("cannot replace the file: {}", e.error)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_write_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        std::fs::write(&path, b"old").unwrap();
        atomic_write_with(&path, |w| w.write_all(b"new contents")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        // A failing writer leaves the old file and no temporary behind.
        let failed = atomic_write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.unwrap_err().to_string().contains("disk full"));
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn escapes_like_python() {
        let value =
            serde_json::json!({"a": "caf\u{e9} \u{1F600}", "b": [], "c": {}, "d": [1, 2.5, null]});
        // python3 -c 'import json; print(json.dumps({"a": "café 😀", "b": [], "c": {}, "d": [1, 2.5, None]}, indent=4))'
        let want = "{\n    \"a\": \"caf\\u00e9 \\ud83d\\ude00\",\n    \"b\": [],\n    \"c\": {},\n    \"d\": [\n        1,\n        2.5,\n        null\n    ]\n}";
        assert_eq!(to_python_json(&value), want);
    }
}
