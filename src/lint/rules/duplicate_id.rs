use rustc_hash::FxHashMap;

use crate::lint::registry::{Check, FileIds};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds a `conversation_id` or a `name` that two conversation files in
    /// the same run both claim. Every file after the first that claims it is
    /// reported, naming the first.
    ///
    /// ## Why
    /// Reports, caches and predictions are keyed by these identifiers. Two
    /// conversations with one id overwrite each other's results, usually
    /// because a file was copied as a template and not given a new id.
    ///
    /// ## Example
    /// `easy/AddAlarm.json` and `hard/Alarm-Morning.json` both have
    /// `"conversation_id": "de6eb33d-0ea2-468e-bd84-ebf4ea3827c8"`.
    name: "duplicate-id",
    severity: Error,
    summary: "a conversation_id or name is used by two files",
    check: Check::Dataset(check),
}

fn check(files: &[FileIds]) -> Vec<(usize, Diagnostic)> {
    use rayon::prelude::*;
    let mut first: FxHashMap<(&str, &str), &str> =
        FxHashMap::with_capacity_and_hasher(files.len() * 2, Default::default());
    // Which claims repeat an earlier file's, in file order; the findings
    // are then written in parallel (a copied dataset repeats every id).
    let mut repeats = Vec::new();
    for file in files {
        for (field, value, pointer) in &file.ids {
            match first.get(&(*field, value.as_str())) {
                Some(other) if *other != file.path => {
                    repeats.push((file.file, *field, value.as_str(), pointer.as_str(), *other))
                }
                Some(_) => {}
                None => {
                    first.insert((*field, value.as_str()), file.path.as_str());
                }
            }
        }
    }
    repeats
        .into_par_iter()
        .map(|(file, field, value, pointer, other)| {
            let help = if field == "conversation_id" {
                "give this conversation its own id (any fresh UUID)"
            } else {
                "give this conversation its own name (ToolTalk uses the file's stem)"
            };
            (
                file,
                Diagnostic::new(NAME, format!("`{field}` {value:?} is also used by {other}"))
                    .at(Anchor::value(pointer))
                    .help(help),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::rules::testing::ids;

    #[test]
    fn a_second_file_with_the_same_id_is_reported() {
        let found = check(&ids(&[("a", "first"), ("a", "second")]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 1, "the second file is at fault");
        assert!(found[0].1.message.contains("also used by f0.json"));
        assert!(found[0].1.help.as_deref().unwrap().contains("UUID"));
    }

    #[test]
    fn distinct_ids_and_names_pass() {
        assert!(check(&ids(&[("a", "first"), ("b", "second")])).is_empty());
    }
}
