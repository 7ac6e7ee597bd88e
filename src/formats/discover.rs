//! Turning command-line paths into the list of files to process.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::{Error, Result};

/// Files named by `paths`: a file is taken as given, a folder is searched
/// recursively for files with one of `extensions`. Sorted, without repeats,
/// so every command sees the same order on every machine.
///
/// A link to a folder inside a folder is not followed: what it leads to is
/// not part of the dataset, and the commands that write (fill, fmt) would
/// otherwise rewrite files outside it. A link to a file is taken as a file
/// (a write replaces the link, not the file it leads to). A folder named
/// on the command line is walked even when it is a link.
pub fn discover(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>> {
    Ok(discover_noting(paths, extensions)?.files)
}

/// A file in a folder walked that a run passes over, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedOver {
    pub path: PathBuf,
    pub why: String,
}

impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

/// What walking the command-line paths found: the files to process and
/// the files in the folders walked that are passed over.
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub files: Vec<PathBuf>,
    pub passed_over: Vec<PassedOver>,
}

/// [`discover`], keeping every file of the folders walked that is passed
/// over with its reason: a file nothing here reads (by its ending), a
/// `.txt` file that is no level-3 sheet, a link to a folder.
pub fn discover_noting(paths: &[PathBuf], extensions: &[&str]) -> Result<Found> {
    let mut files = Vec::new();
    let mut passed_over = Vec::new();
    let mut cards = RepositoryCards::default();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        if !path.is_dir() {
            return Err(Error::input(path, "no such file or folder"));
        }
        // Each folder's entries sorted by name, depth first: the order a
        // sort of the whole paths would give, for a fraction of the work.
        let walk = WalkDir::new(path)
            .follow_links(false)
            .sort_by(|a, b| listed_name(a).cmp(listed_name(b)));
        for entry in walk {
            let entry = entry.map_err(|e| Error::input(path, e.to_string()))?;
            let kind = entry.file_type();
            let is_file = match kind {
                kind if kind.is_symlink() => entry.path().is_file(),
                kind => kind.is_file(),
            };
            if !is_file {
                if kind.is_symlink() && entry.path().is_dir() {
                    passed_over.push(PassedOver {
                        path: entry.into_path(),
                        why:
                            "a link to a folder is not followed (name the folder itself to read it)"
                                .into(),
                    });
                }
                continue;
            }
            if let Some(why) = companion_of(entry.path()) {
                passed_over.push(PassedOver {
                    path: entry.into_path(),
                    why,
                });
                continue;
            }
            if !has_extension(listed_name(&entry), extensions) {
                passed_over.push(PassedOver {
                    path: entry.into_path(),
                    why: format!("its name ends in none of {}", endings(extensions)),
                });
                continue;
            }
            match opens_as_its_ending_says(&entry) {
                Ok(()) => files.push(entry.into_path()),
                Err(why) => passed_over.push(PassedOver {
                    path: entry.into_path(),
                    why,
                }),
            }
        }
    }
    passed_over.retain(|p| !cards.is_card(&p.path));
    // Only several paths can name a file twice.
    if paths.len() > 1 {
        let mut seen = std::collections::HashSet::new();
        files.retain(|f| seen.insert(f.clone()));
        let mut seen = std::collections::HashSet::new();
        passed_over.retain(|p| seen.insert(p.path.clone()));
    }
    Ok(Found { files, passed_over })
}

/// The dataset cards of the repositories a walk passes through, each
/// talkforge.toml read once: the card its `[dataset]` declares lives among
/// the dialogues by design (`talkforge card` keeps its tables), so it is
/// no file passed over. Whatever the settings file says is judged where
/// it is read (check, card); here an unreadable one declares no card.
#[derive(Default)]
struct RepositoryCards {
    /// A settings file's declared card, as an absolute path.
    by_settings: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl RepositoryCards {
    /// Whether `path` is the card of the nearest repository above it.
    fn is_card(&mut self, path: &Path) -> bool {
        let Ok(path) = std::path::absolute(path) else {
            return false;
        };
        let Some(root) = path
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(crate::lint::config::FILE_NAME).is_file())
        else {
            return false;
        };
        let card = self
            .by_settings
            .entry(root.to_path_buf())
            .or_insert_with(|| {
                let policy = crate::policy::Policy::load(root).ok().flatten()?;
                policy.card.map(|card| root.join(card))
            });
        card.as_deref() == Some(path.as_path())
    }
}

/// Why a file found in a folder is the data of a file beside it that a
/// suite reads by its whole name (tau2's `db.json` beside `tasks.json`),
/// if it is: such data is never read as a dialogue.
fn companion_of(path: &Path) -> Option<String> {
    static COMPANIONS: std::sync::LazyLock<Vec<(&str, &str)>> =
        std::sync::LazyLock::new(|| crate::suites::registry().companions());
    let name = path.file_name()?.to_str()?;
    let folder = path.parent()?;
    COMPANIONS
        .iter()
        .find(|(data, owner)| *data == name && folder.join(owner).is_file())
        .map(|(_, owner)| format!("the data of {owner} beside it, not a dialogue"))
}

/// `.json, .jsonl and .txt`: the endings looked for, for messages.
fn endings(extensions: &[&str]) -> String {
    let dotted: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
    match dotted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "no ending".into(),
    }
}

/// How many passed-over files are named one by one; the rest are counted.
const NAMED_PASSED_OVER: usize = 20;

/// Say on stderr which files of the folders walked are passed over and
/// why (the first [`NAMED_PASSED_OVER`], then how many more), so that no
/// file of a dataset disappears silently.
pub fn note_passed_over(passed_over: &[PassedOver]) {
    for passed in passed_over.iter().take(NAMED_PASSED_OVER) {
        eprintln!("note: passed over {passed}");
    }
    if passed_over.len() > NAMED_PASSED_OVER {
        eprintln!(
            "note: ... and {} more files passed over",
            passed_over.len() - NAMED_PASSED_OVER
        );
    }
}

/// The dialogue files under `paths`, as [`discover`] finds them, for a
/// command to work on. A path that holds none is an error (a folder given
/// by mistake, a typo'd extension), never a silent pass over nothing.
///
/// The files of the folders walked that are passed over are named on
/// stderr with why ([`note_passed_over`]), and in the error when a folder
/// holds no dialogue.
pub fn discover_dialogues(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>> {
    for path in paths.iter().filter(|p| p.is_dir()) {
        let found = discover_noting(std::slice::from_ref(path), extensions)?;
        if found.files.is_empty() {
            let looked_for: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            let passed: String = found
                .passed_over
                .iter()
                .take(NAMED_PASSED_OVER)
                .map(|p| format!("\n  passed over {p}"))
                .collect();
            return Err(Error::input(
                path,
                format!(
                    "holds no dialogue file (looked for {} files in it and its subfolders){passed}",
                    looked_for.join(" and ")
                ),
            ));
        }
    }
    let found = discover_noting(paths, extensions)?;
    note_passed_over(&found.passed_over);
    Ok(found.files)
}

/// Whether a file found in a folder is what its ending stands for, or why
/// not. Most
/// endings are the format's own; a `.txt` file is an API-Bank level-3
/// sheet only when it opens with its `Scene:` heading (other text files,
/// notes and licences, are passed over). A file named on the command line
/// is always taken, and refused with its reason when it is no sheet.
fn opens_as_its_ending_says(entry: &walkdir::DirEntry) -> std::result::Result<(), String> {
    if !has_extension(listed_name(entry), &[super::apibank::SHEET_ENDING]) {
        return Ok(());
    }
    let path = entry.path();
    use std::io::Read;
    let mut opening = Vec::with_capacity(256);
    match std::fs::File::open(path).and_then(|f| f.take(256).read_to_end(&mut opening)) {
        Err(e) => Err(format!("it cannot be read: {e}")),
        Ok(_) if super::apibank::opens_as_sheet(&opening) => Ok(()),
        Ok(_) => {
            let first = String::from_utf8_lossy(&opening);
            let first = first.lines().map(str::trim).find(|l| !l.is_empty());
            Err(format!(
                "a .txt file is read as an API-Bank level-3 sheet only when its first line is its `Scene:` heading; {} (name it on the command line to see what is wrong with it)",
                match first {
                    Some(line) => format!(
                        "this one starts {:?}",
                        line.chars().take(60).collect::<String>()
                    ),
                    None => "this one is empty".to_string(),
                }
            ))
        }
    }
}

/// The name of an entry walkdir listed, as `Path::file_name` gives it (and
/// in the same encoding, so names compare as `OsStr`s do), read off the end
/// of its path: a listed entry's path is its folder's path joined with its
/// name, which holds no separator. walkdir's own `file_name` parses the
/// whole path into components, once per comparison when sorting, which was
/// most of the time spent finding the files of a large dataset.
fn listed_name(entry: &walkdir::DirEntry) -> &[u8] {
    after_last_separator(entry.path().as_os_str().as_encoded_bytes()).1
}

/// `path` split at its last separator: what comes before it (`None` when
/// there is no separator) and what comes after. Searched for with memchr's
/// vector loop: sorting runs this twice per comparison.
fn after_last_separator(path: &[u8]) -> (Option<&[u8]>, &[u8]) {
    #[cfg(windows)]
    let separator = memchr::memrchr2(b'/', b'\\', path);
    #[cfg(not(windows))]
    let separator = memchr::memrchr(b'/', path);
    match separator {
        Some(at) => (Some(&path[..at]), &path[at + 1..]),
        None => (None, path),
    }
}

/// The name of the folder a file sits in, as `path.parent()` and
/// `file_name()` give it (a conversation's subset). Discovery hands over
/// plain `.../folder/file` paths, read here off the bytes, which spares
/// parsing every file's path into components; anything else (`.` or `..`,
/// doubled or trailing separators, no folder) goes the long way.
pub fn folder_name(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        let plain = |part: &[u8]| !matches!(part, b"" | b"." | b"..");
        if let (Some(folder), file) = after_last_separator(path.as_os_str().as_encoded_bytes()) {
            let name = after_last_separator(folder).1;
            if plain(name) && plain(file) {
                // On Unix the encoded bytes are the name's own bytes.
                return Some(String::from_utf8_lossy(name).into_owned());
            }
        }
    }
    folder_name_by_components(path)
}

fn folder_name_by_components(path: &Path) -> Option<String> {
    path.parent()
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
}

/// Whether a file name ends in one of `extensions`, which is what
/// `Path::extension` reads: the text after the last dot, unless that dot
/// starts the name.
fn has_extension(name: &[u8], extensions: &[&str]) -> bool {
    // An ending of several parts (`lv3.json`) ends the name after a
    // non-empty stem.
    let ends_in = |ending: &str| {
        let ending = ending.as_bytes();
        name.len() > ending.len() + 1
            && name[name.len() - ending.len() - 1] == b'.'
            && name[name.len() - ending.len()..].eq_ignore_ascii_case(ending)
    };
    if extensions.iter().any(|e| e.contains('.') && ends_in(e)) {
        return true;
    }
    let Some(dot) = name.iter().rposition(|&b| b == b'.').filter(|&dot| dot > 0) else {
        return false;
    };
    let extension = &name[dot + 1..];
    extensions
        .iter()
        .any(|want| extension.eq_ignore_ascii_case(want.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_walked_in_sorted_path_order_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "b/x.json",
            "a-b/y.json",
            "a/z.json",
            "a/b/w.json",
            "a/y.txt",
            "c.JSON",
        ] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "{}").unwrap();
        }
        let files = discover(&[dir.path().to_path_buf()], &["json"]).unwrap();
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted);
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            ["a/b/w.json", "a/z.json", "a-b/y.json", "b/x.json", "c.JSON"]
        );
        let twice = discover(
            &[dir.path().join("a"), dir.path().join("a/z.json")],
            &["json"],
        )
        .unwrap();
        assert_eq!(twice.len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_folder_is_not_walked_and_a_linked_file_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let data = dir.path().join("data");
        std::fs::create_dir_all(outside.join("deep")).unwrap();
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(outside.join("o.json"), "{}").unwrap();
        std::fs::write(outside.join("deep/p.json"), "{}").unwrap();
        std::fs::write(data.join("a.json"), "{}").unwrap();
        std::os::unix::fs::symlink(&outside, data.join("ext")).unwrap();
        std::os::unix::fs::symlink(outside.join("o.json"), data.join("linked.json")).unwrap();
        // A link back up would be a loop if followed.
        std::os::unix::fs::symlink(&data, data.join("loop")).unwrap();
        let found = discover(std::slice::from_ref(&data), &["json"]).unwrap();
        assert_eq!(found, [data.join("a.json"), data.join("linked.json")]);
        // Named on the command line, a linked folder is walked.
        let named = discover(&[data.join("ext")], &["json"]).unwrap();
        assert_eq!(named.len(), 2);
        // Walking the folder, the link not followed is named.
        let found = discover_noting(std::slice::from_ref(&data), &["json"]).unwrap();
        let passed: Vec<&Path> = found.passed_over.iter().map(|p| p.path.as_path()).collect();
        assert_eq!(passed, [data.join("ext"), data.join("loop")]);
        assert!(found.passed_over[0].why.contains("not followed"));
    }

    #[test]
    fn every_file_passed_over_is_named_with_why() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("a.json", "{}"),
            ("notes.md", "# notes"),
            ("sheet.txt", "\nScene: Alarm\n"),
            ("typo.txt", "Scen: Alarm\n"),
            ("empty.txt", ""),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let found =
            discover_noting(&[dir.path().to_path_buf()], &["json", "jsonl", "txt"]).unwrap();
        assert_eq!(
            found.files,
            [dir.path().join("a.json"), dir.path().join("sheet.txt")]
        );
        let passed: Vec<String> = found
            .passed_over
            .iter()
            .map(|p| p.to_string().replace(&dir.path().display().to_string(), ""))
            .collect();
        assert_eq!(passed.len(), 3, "{passed:?}");
        assert!(passed[0].starts_with("/empty.txt: a .txt file is read as an API-Bank level-3 sheet only when its first line is its `Scene:` heading; this one is empty"), "{passed:?}");
        assert_eq!(
            passed[1],
            "/notes.md: its name ends in none of .json, .jsonl and .txt"
        );
        assert!(
            passed[2].contains("; this one starts \"Scen: Alarm\""),
            "{passed:?}"
        );
    }

    #[test]
    fn extensions_are_read_as_path_extension_reads_them() {
        let by_path = |name: &str| {
            std::path::Path::new(name)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        };
        for name in [
            "a.json",
            "a.JSON",
            ".json",
            "..json",
            "a.",
            "a",
            "a.b.json",
            "a.json.txt",
            "json",
            "ä.json",
            ".a.json",
            "a..json",
        ] {
            assert_eq!(
                has_extension(name.as_bytes(), &["json"]),
                by_path(name),
                "{name}"
            );
        }
    }

    #[test]
    fn a_text_file_in_a_folder_is_taken_only_when_it_opens_as_a_sheet() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a dialogue").unwrap();
        std::fs::write(
            dir.path().join("Shop.txt"),
            "\n  scene: Shopping\nFirst Utterance: hi\n",
        )
        .unwrap();
        let found = discover(&[dir.path().to_path_buf()], &["txt"]).unwrap();
        assert_eq!(found, [dir.path().join("Shop.txt")]);
        // Named on the command line, a file is taken as given.
        let named = discover(&[dir.path().join("notes.txt")], &["txt"]).unwrap();
        assert_eq!(named.len(), 1);
    }

    #[test]
    fn listed_names_sort_as_file_names_do() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "b.json", "a.json", "ä.json", "A.json", "a b.json", ".json", "a-b.json",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), "{}").unwrap();
        }
        let found: Vec<String> = discover(&[dir.path().join(".")], &["json"])
            .unwrap()
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let mut want: Vec<&str> = names.iter().copied().filter(|n| *n != ".json").collect();
        want.sort();
        assert_eq!(found, want);
    }

    #[test]
    fn a_folder_name_is_what_the_path_components_give() {
        for path in [
            "data/easy/a.json",
            "/tmp/x/tooltalk/b.json",
            "a.json",
            "/a.json",
            "./a.json",
            "../a.json",
            "x/./a.json",
            "x/../a.json",
            "x/y/./a.json",
            "x//y//a.json",
            "x/y/",
            "x/y/.",
            "x/y/..",
            "/",
            "",
            "ä/ö.json",
            "x/.hidden/a.json",
        ] {
            let path = Path::new(path);
            assert_eq!(
                folder_name(path),
                folder_name_by_components(path),
                "{}",
                path.display()
            );
        }
    }
}
