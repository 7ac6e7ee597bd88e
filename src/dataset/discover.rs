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
        let mut found = Vec::new();
        for entry in WalkDir::new(path).follow_links(true) {
            let entry = entry.map_err(|e| Error::input(path, e.to_string()))?;
            if entry.file_type().is_file() && has_extension(entry.path(), extensions) {
                found.push(entry.into_path());
            }
        }
        found.sort();
        files.extend(found);
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    Ok(files)
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|want| e.eq_ignore_ascii_case(want)))
}
