//! Writing JSON the way the upstream files are written, atomically:
//! Python's `json.dumps(obj, indent=4)` for conversations (4-space indent,
//! no trailing newline) and `json.dumps(obj)` for API-Bank's lines (one
//! line), both with `", "`/`": "` separators, non-ASCII escaped as
//! `\uXXXX` and floats as Python's `repr` writes them.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::Value;

use crate::formats::LoadedConversation;
use crate::{Error, Result};

/// Serialise like Python's `json.dumps(value, indent=4)`.
pub fn to_python_json<T: Serialize + ?Sized>(value: &T) -> String {
    python_json(value, Some(PrettyFormatter::with_indent(b"    ")))
}

/// [`to_python_json`] written to `out` as it is serialised.
pub fn write_python_json<T: Serialize + ?Sized>(
    value: &T,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let formatter = PythonFormatter {
        pretty: Some(PrettyFormatter::with_indent(b"    ")),
        colon: b": ",
        ensure_ascii: true,
    };
    let mut ser = serde_json::Serializer::with_formatter(out, formatter);
    value.serialize(&mut ser).map_err(std::io::Error::other)
}

/// Serialise like Python's `json.dumps(value)`: one line.
pub fn to_python_json_line<T: Serialize + ?Sized>(value: &T) -> String {
    python_json(value, None)
}

/// Serialise like Python's `json.dumps(value, indent=4, ...)` in the style
/// of an existing file `old`: its key separator (`":"` or `": "`), its
/// escaping (non-ASCII written as is when the file holds any, as with
/// `ensure_ascii=False`) and its final newline. Without a file: the style
/// of [`to_python_json`].
pub fn to_python_json_like(value: &Value, old: Option<&str>) -> String {
    let old = old.unwrap_or_default();
    let compact_colon = old
        .find("\":")
        .is_some_and(|at| old[at + 2..].starts_with(|c: char| c != ' '));
    let mut text = serialise(
        value,
        PythonFormatter {
            pretty: Some(PrettyFormatter::with_indent(b"    ")),
            colon: if compact_colon { b":" } else { b": " },
            ensure_ascii: old.is_ascii(),
        },
    );
    if old.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn python_json<T: Serialize + ?Sized>(
    value: &T,
    pretty: Option<PrettyFormatter<'static>>,
) -> String {
    serialise(
        value,
        PythonFormatter {
            pretty,
            colon: b": ",
            ensure_ascii: true,
        },
    )
}

fn serialise<T: Serialize + ?Sized>(value: &T, formatter: PythonFormatter) -> String {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut ser)
        .expect("serialising JSON to memory cannot fail");
    String::from_utf8(out).expect("the formatter writes UTF-8")
}

/// Python's `json` writing: serde_json's pretty printer (with an indent)
/// or one line with Python's separators (without), `ensure_ascii`
/// escaping (unless told otherwise), and floats as `repr` writes them.
struct PythonFormatter {
    pretty: Option<PrettyFormatter<'static>>,
    /// Between a key and its value.
    colon: &'static [u8],
    ensure_ascii: bool,
}

impl Formatter for PythonFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.begin_array(w),
            None => w.write_all(b"["),
        }
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.end_array(w),
            None => w.write_all(b"]"),
        }
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.begin_array_value(w, first),
            None if first => Ok(()),
            None => w.write_all(b", "),
        }
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.end_array_value(w),
            None => Ok(()),
        }
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.begin_object(w),
            None => w.write_all(b"{"),
        }
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.end_object(w),
            None => w.write_all(b"}"),
        }
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.begin_object_key(w, first),
            None if first => Ok(()),
            None => w.write_all(b", "),
        }
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(self.colon)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        match &mut self.pretty {
            Some(pretty) => pretty.end_object_value(w),
            None => Ok(()),
        }
    }
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> std::io::Result<()> {
        w.write_all(python_float(value).as_bytes())
    }
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if !self.ensure_ascii {
            return w.write_all(fragment.as_bytes());
        }
        // Printable ASCII runs go out whole; the rest (non-ASCII, and DEL,
        // which Python escapes too) is escaped char by char.
        let mut rest = fragment;
        while !rest.is_empty() {
            let ascii = rest.bytes().position(|b| b >= 0x7f).unwrap_or(rest.len());
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

/// Python's `repr` of a float, as `json.dumps` writes it: the shortest
/// digits that read back the same, in positional notation for exponents
/// from -4 to 15 (`100.0`, `0.0001`) and scientific beyond (`1e-05`,
/// `1e+16`, `1.5e+300`). JSON has no NaN or infinity.
pub fn python_float(value: f64) -> String {
    // Rust's `{:e}` gives the shortest round-trip digits: `1.5e300`.
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    if (-4..16).contains(&exponent) {
        let mut text = format!("{value}");
        if !text.contains('.') {
            text.push_str(".0");
        }
        return text;
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// One gold call's recording for [`record_results`].
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The call's turn position in `conversation`.
    pub turn: usize,
    /// Its position in the turn's `apis`.
    pub call: usize,
    pub response: Value,
    pub exception: Option<String>,
    /// A request argument to write as the call ran with it (name, value):
    /// replaced in place when the request has it, otherwise put first.
    pub argument: Option<(&'static str, Value)>,
}

/// ToolTalk's writer: the conversation file's text with the gold calls
/// at `results` given their `response` and `exception` (and the request
/// argument each names), in the upstream style, the final newline kept
/// as it was.
pub fn record_results(loaded: &LoadedConversation, results: &[Recorded]) -> Result<String> {
    let path = &loaded.path;
    let mut tree: Value =
        serde_json::from_str(&loaded.text).map_err(|e| super::read::json_error(path, &e))?;
    for recorded in results {
        let pointer = format!("/conversation/{}/apis/{}", recorded.turn, recorded.call);
        let slot = tree
            .pointer_mut(&pointer)
            .and_then(Value::as_object_mut)
            .ok_or_else(|| Error::input(path, format!("{pointer} is not a gold call object")))?;
        if let Some((name, value)) = &recorded.argument {
            let parameters = slot
                .get_mut("request")
                .and_then(|r| r.get_mut("parameters"))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| {
                    Error::input(
                        path,
                        format!("{pointer}/request/parameters is not an object"),
                    )
                })?;
            set_argument(parameters, name, value);
        }
        slot.insert("response".into(), recorded.response.clone());
        slot.insert(
            "exception".into(),
            recorded
                .exception
                .clone()
                .map_or(Value::Null, Value::String),
        );
    }
    let mut text = to_python_json(&tree);
    if loaded.text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Give `parameters[name]` the value `value`: in its place when it is
/// there (key order kept), otherwise as the first member.
fn set_argument(parameters: &mut serde_json::Map<String, Value>, name: &str, value: &Value) {
    if let Some(slot) = parameters.get_mut(name) {
        *slot = value.clone();
        return;
    }
    let rest = std::mem::take(parameters);
    parameters.insert(name.to_owned(), value.clone());
    parameters.extend(rest);
}

/// Write `contents` to `path` through a temporary file in the same folder
/// and a rename, so a reader never sees half a file. The file keeps its
/// permissions; the temporary files that killed runs left in the folder
/// are removed by this process's first write there.
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

/// [`atomic_write_unsynced`] of what `write` writes (through a buffer),
/// without holding it in memory first.
pub fn atomic_write_unsynced_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    replace_with(path, false, write)
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
    let name = path
        .file_name()
        .ok_or_else(|| Error::input(path, "is not a file name"))?
        .to_string_lossy();
    sweep_once(dir);
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    let prefix = format!("{}{}-", leftover_prefix(&name), std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(LEFTOVER_SUFFIX);
    #[cfg(unix)]
    if existing.is_none() {
        // What a plain create gives (0666 less the umask), not 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder
        .tempfile_in(dir)
        .map_err(|e| Error::input(path, format!("cannot create a temporary file: {e}")))?;
    if let Some(permissions) = existing {
        tmp.as_file()
            .set_permissions(permissions)
            .map_err(|e| Error::input(path, format!("cannot keep its permissions: {e}")))?;
    }
    // Large enough that most files go out in one write.
    let mut buffered = std::io::BufWriter::with_capacity(64 << 10, tmp);
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

/// The temporary file written before a rename is
/// `.NAME.talkforge-PID-RANDOM.tmp`, beside NAME: a later run can tell the
/// leftovers of a killed one from anything else.
fn leftover_prefix(name: &str) -> String {
    format!(".{name}{LEFTOVER_MARK}")
}

const LEFTOVER_MARK: &str = ".talkforge-";

const LEFTOVER_SUFFIX: &str = ".tmp";

/// Create `dir` and the folders above it, as `create_dir_all` does, once
/// per process: a run writing thousands of files into a few folders asks
/// the file system about each folder once, not once a file.
pub fn create_folder(dir: &Path) -> Result<()> {
    static CREATED: std::sync::Mutex<Option<std::collections::HashSet<std::path::PathBuf>>> =
        std::sync::Mutex::new(None);
    let known = |dir: &Path| {
        let created = CREATED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        created.as_ref().is_some_and(|set| set.contains(dir))
    };
    if known(dir) {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
    CREATED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get_or_insert_with(Default::default)
        .insert(dir.to_path_buf());
    Ok(())
}

/// The folders this process has swept of leftovers.
static SWEPT: std::sync::Mutex<Option<std::collections::HashSet<std::path::PathBuf>>> =
    std::sync::Mutex::new(None);

/// Remove the leftovers of killed runs from `dir`, the first time this
/// process writes there: listing the folder on every write would make
/// writing n files into one folder cost n listings of it.
fn sweep_once(dir: &Path) {
    let first = {
        let mut swept = SWEPT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let swept = swept.get_or_insert_with(Default::default);
        !swept.contains(dir) && swept.insert(dir.to_path_buf())
    };
    if first {
        remove_leftovers(dir);
    }
}

/// Remove the temporary files in `dir` that writes left when their process
/// was killed (those of a process still running are its own).
fn remove_leftovers(dir: &Path) {
    #[cfg(test)]
    LISTINGS.with(|n| n.set(n.get() + 1));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .filter(|f| f.starts_with('.'))
            .and_then(|f| f.strip_suffix(LEFTOVER_SUFFIX))
            .and_then(|f| f.rsplit_once(LEFTOVER_MARK))
            .map(|(_, rest)| rest)
        else {
            continue;
        };
        let Some(pid) = rest
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !process_is_running(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Folder listings made by this thread's writes (for the tests).
    static LISTINGS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(unix)]
fn process_is_running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // Signal 0 checks that the process exists without signalling it.
    // SAFETY: kill with signal 0 has no effect beyond the check.
    let answer = unsafe { libc::kill(pid, 0) };
    answer == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_is_running(pid: u32) -> bool {
    pid == std::process::id()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_keeps_its_place_or_goes_first() {
        let mut present = serde_json::json!({"a": 1, "session_token": "old", "b": 2});
        let present = present.as_object_mut().unwrap();
        set_argument(present, "session_token", &Value::from("new"));
        assert_eq!(
            serde_json::to_string(present).unwrap(),
            r#"{"a":1,"session_token":"new","b":2}"#
        );
        let mut absent = serde_json::json!({"receiver": "x", "message": "y"});
        let absent = absent.as_object_mut().unwrap();
        set_argument(absent, "session_token", &Value::from("tok"));
        assert_eq!(
            serde_json::to_string(absent).unwrap(),
            r#"{"session_token":"tok","receiver":"x","message":"y"}"#
        );
    }

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

    #[cfg(unix)]
    #[test]
    fn a_rewritten_file_keeps_its_permissions_and_a_new_one_follows_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("conversation.json");
        std::fs::write(&path, b"old").unwrap();
        for mode in [0o664, 0o644, 0o600, 0o755] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            atomic_write(&path, b"new").unwrap();
            let kept = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(kept, mode, "{mode:o} became {kept:o}");
        }
        // A new file gets what std::fs::write gives it.
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, b"x").unwrap();
        let fresh = dir.path().join("fresh.json");
        atomic_write_unsynced(&fresh, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&fresh), mode(&plain));
    }

    #[test]
    fn the_first_write_in_a_folder_removes_what_killed_writes_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        // A process that has exited: its id names no running process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let leftover = |name: &str, pid: u32| {
            let path = dir
                .path()
                .join(format!(".{name}.talkforge-{pid}-Xy12ab.tmp"));
            std::fs::write(&path, b"half").unwrap();
            path
        };
        let of_a = leftover("a.json", dead);
        let of_b = leftover("b.json", dead);
        // This process's own temporary files, and anything else, stay.
        let live = leftover("a.json", std::process::id());
        let other = dir
            .path()
            .join(format!("notes.talkforge-{dead}-Xy12ab.tmp"));
        std::fs::write(&other, b"mine").unwrap();
        atomic_write(&path, b"whole").unwrap();
        assert!(
            !of_a.exists() && !of_b.exists(),
            "a dead run's leftover stays"
        );
        assert!(live.exists() && other.exists());
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn writing_many_files_in_one_folder_lists_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let before = LISTINGS.with(std::cell::Cell::get);
        for i in 0..200 {
            atomic_write_unsynced(&dir.path().join(format!("{i}.json")), b"{}").unwrap();
            atomic_write(&dir.path().join(format!("{i}.json")), b"[]").unwrap();
        }
        let listings = LISTINGS.with(std::cell::Cell::get) - before;
        assert_eq!(
            listings, 1,
            "400 writes in one folder listed it {listings} times"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 200);
    }

    #[test]
    fn escapes_like_python() {
        let value =
            serde_json::json!({"a": "caf\u{e9} \u{1F600}", "b": [], "c": {}, "d": [1, 2.5, null]});
        // python3 -c 'import json; print(json.dumps({"a": "café 😀", "b": [], "c": {}, "d": [1, 2.5, None]}, indent=4))'
        let want = "{\n    \"a\": \"caf\\u00e9 \\ud83d\\ude00\",\n    \"b\": [],\n    \"c\": {},\n    \"d\": [\n        1,\n        2.5,\n        null\n    ]\n}";
        assert_eq!(to_python_json(&value), want);
        // python3 -c 'import json; print(json.dumps({"a": "caf\u00e9 \x7f", "b": [1, {}], "c": {"d": None}}))'
        let value = serde_json::json!({"a": "caf\u{e9} \u{7f}", "b": [1, {}], "c": {"d": null}});
        assert_eq!(
            to_python_json_line(&value),
            r#"{"a": "caf\u00e9 \u007f", "b": [1, {}], "c": {"d": null}}"#
        );
    }

    #[test]
    fn floats_read_as_python_writes_them() {
        // python3 -c 'import json; print(json.dumps([...]))'
        let floats = [
            1e-05,
            1e16,
            1.5e300,
            0.1,
            100.0,
            1e22,
            -0.0,
            77.33333333333333,
            0.0001,
            1e15,
            2.5e-7,
            123456789012345.6,
        ];
        let want = "[1e-05, 1e+16, 1.5e+300, 0.1, 100.0, 1e+22, -0.0, 77.33333333333333, 0.0001, 1000000000000000.0, 2.5e-07, 123456789012345.6]";
        assert_eq!(to_python_json_line(&floats), want);
    }
}
