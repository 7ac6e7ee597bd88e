//! Turning command-line paths into the list of files to process.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::{Error, Result};

/// Files named by `paths`: a file is taken as given, a folder is searched
/// recursively for files with one of `extensions`. Sorted, without repeats,
/// so every command sees the same order on every machine.
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
        for entry in WalkDir::new(path).follow_links(true).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::input(path, e.to_string()))?;
            if entry.file_type().is_file() && has_extension(entry.path(), extensions) {
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

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|want| e.eq_ignore_ascii_case(want)))
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
}
