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
    let mut files = Vec::new();
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
            let is_file = match entry.file_type() {
                kind if kind.is_symlink() => entry.path().is_file(),
                kind => kind.is_file(),
            };
            if is_file
                && has_extension(listed_name(&entry), extensions)
                && opens_as_its_ending_says(&entry)
            {
                files.push(entry.into_path());
            }
        }
    }
    // Only several paths can name a file twice.
    if paths.len() > 1 {
        let mut seen = std::collections::HashSet::new();
        files.retain(|f| seen.insert(f.clone()));
    }
    Ok(files)
}

/// The dialogue files under `paths`, as [`discover`] finds them, for a
/// command to work on. A path that holds none is an error (a folder given
/// by mistake, a typo'd extension), never a silent pass over nothing.
pub fn discover_dialogues(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>> {
    for path in paths.iter().filter(|p| p.is_dir()) {
        if discover(std::slice::from_ref(path), extensions)?.is_empty() {
            let looked_for: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            return Err(Error::input(
                path,
                format!(
                    "holds no dialogue file (looked for {} files in it and its subfolders)",
                    looked_for.join(" and ")
                ),
            ));
        }
    }
    discover(paths, extensions)
}

/// Whether a file found in a folder is what its ending stands for. Most
/// endings are the format's own; a `.txt` file is an API-Bank level-3
/// sheet only when it opens with its `Scene:` heading (other text files,
/// notes and licences, are passed over). A file named on the command line
/// is always taken, and refused with its reason when it is no sheet.
fn opens_as_its_ending_says(entry: &walkdir::DirEntry) -> bool {
    if !has_extension(listed_name(entry), &[super::apibank::SHEET_ENDING]) {
        return true;
    }
    let path = entry.path();
    use std::io::Read;
    let mut opening = Vec::with_capacity(256);
    std::fs::File::open(path)
        .and_then(|f| f.take(256).read_to_end(&mut opening))
        .is_ok_and(|_| super::apibank::opens_as_sheet(&opening))
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
