//! The leaves of a JSON value (every string, number, boolean and null
//! inside its lists and objects), each with the path that leads to it,
//! written for people (`health_data[1].value`) or as a JSON pointer
//! (`/health_data/1/value`) to find it in the file.

use std::fmt::Write;

use super::tree::Json;

/// One step down a value: an object's member or a list's element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// A leaf and the steps from the value's root to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf<'v, 'a> {
    pub steps: Vec<Step<'v>>,
    pub value: &'v Json<'a>,
}

impl Leaf<'_, '_> {
    /// The path as people write it, after the root's name: `name[1].value`,
    /// or `name["odd key"]` for a key that is no identifier.
    pub fn path(&self, root: &str) -> String {
        let mut out = root.to_owned();
        for step in &self.steps {
            match step {
                Step::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
                Step::Key(k) if is_identifier(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Step::Key(k) => {
                    let _ = write!(out, "[{k:?}]");
                }
            }
        }
        out
    }

    /// The JSON pointer tokens below the root, each starting with `/`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            out.push('/');
            match step {
                Step::Index(i) => {
                    let _ = write!(out, "{i}");
                }
                Step::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
            }
        }
        out
    }

    /// The key of the member the leaf is, when it is one.
    pub fn key(&self) -> Option<&str> {
        self.steps.iter().rev().find_map(|s| match s {
            Step::Key(k) => Some(*k),
            Step::Index(_) => None,
        })
    }
}

/// Every leaf of `value`, depth first in document order; a scalar value is
/// its own one leaf (with no steps). Empty lists and objects have none.
pub fn leaves<'v, 'a>(value: &'v Json<'a>) -> Vec<Leaf<'v, 'a>> {
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn walk<'v, 'a>(value: &'v Json<'a>, steps: &mut Vec<Step<'v>>, out: &mut Vec<Leaf<'v, 'a>>) {
    match value {
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                steps.push(Step::Index(i));
                walk(item, steps, out);
                steps.pop();
            }
        }
        Json::Object(members) => {
            for (key, item) in members.iter() {
                steps.push(Step::Key(key));
                walk(item, steps, out);
                steps.pop();
            }
        }
        _ => out.push(Leaf {
            steps: steps.clone(),
            value,
        }),
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_and_pointers_of_every_leaf() {
        let value = json!([
            {"name": "pulse", "value": 72},
            {"tags": ["a", {"odd/key": true}], "none": null, "empty": []}
        ]);
        let tree = Json::from(&value);
        let found: Vec<(String, String)> = leaves(&tree)
            .iter()
            .map(|l| (l.path("readings"), l.pointer()))
            .collect();
        assert_eq!(
            found,
            [
                ("readings[0].name", "/0/name"),
                ("readings[0].value", "/0/value"),
                ("readings[1].tags[0]", "/1/tags/0"),
                ("readings[1].tags[1][\"odd/key\"]", "/1/tags/1/odd~1key"),
                ("readings[1].none", "/1/none"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
        let leaf = &leaves(&tree)[3];
        assert_eq!(leaf.key(), Some("odd/key"));
        assert_eq!(leaves(&tree)[2].key(), Some("tags"));
    }

    #[test]
    fn a_scalar_is_its_own_leaf() {
        let value = json!("07:30:00");
        let tree = Json::from(&value);
        let found = leaves(&tree);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path("time"), "time");
        assert_eq!(found[0].pointer(), "");
        assert_eq!(found[0].key(), None);
    }
}
