//! Unified diffs of two line lists, written straight into a string.
//!
//! The diff itself (Myers, then hunks with 3 lines of context) is similar's;
//! only the rendering is done here. similar renders through `fmt::Display`
//! one piece at a time, which cost as much as the diff itself for verify's
//! differing calls. The text is the same byte for byte (tested against
//! similar's own renderer below).

use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};

/// What similar writes after a line that does not end the text with a newline.
const NO_NEWLINE: &str = "\n\\ No newline at end of file\n";

/// The unified diff of `old` against `new` (each line keeping its own line
/// end, as `str::split_inclusive('\n')` gives them), headed `--- old_name`
/// and `+++ new_name`; empty when nothing differs. The same text as
/// similar's `TextDiff::configure().newline_terminated(true).diff_slices(..)
/// .unified_diff().context_radius(context).header(..)`.
pub fn unified_diff(
    old: &[&str],
    new: &[&str],
    old_name: &str,
    new_name: &str,
    context: usize,
) -> String {
    let hunks = group_diff_ops(capture_diff_slices(Algorithm::Myers, old, new), context);
    let mut out = String::new();
    for (i, hunk) in hunks.iter().filter(|ops| !ops.is_empty()).enumerate() {
        if i == 0 {
            push_all(&mut out, &["--- ", old_name, "\n+++ ", new_name, "\n"]);
        }
        push_header(&mut out, hunk);
        for op in hunk {
            let (deleted, inserted) = match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    push_lines(&mut out, ' ', &old[old_index..old_index + len]);
                    continue;
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => (&old[old_index..old_index + old_len], &new[..0]),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => (&old[..0], &new[new_index..new_index + new_len]),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => (
                    &old[old_index..old_index + old_len],
                    &new[new_index..new_index + new_len],
                ),
            };
            push_lines(&mut out, '-', deleted);
            push_lines(&mut out, '+', inserted);
        }
    }
    out
}

fn push_all(out: &mut String, parts: &[&str]) {
    for part in parts {
        out.push_str(part);
    }
}

/// `@@ -start,len +start,len @@` as similar writes it: a one-line range is
/// just its start, and an empty range starts at the line before it.
fn push_header(out: &mut String, hunk: &[DiffOp]) {
    let (first, last) = (&hunk[0], &hunk[hunk.len() - 1]);
    out.push_str("@@ -");
    push_range(out, first.old_range().start, last.old_range().end);
    out.push_str(" +");
    push_range(out, first.new_range().start, last.new_range().end);
    out.push_str(" @@\n");
}

fn push_range(out: &mut String, start: usize, end: usize) {
    use std::fmt::Write;
    let len = end.saturating_sub(start);
    // Writing to a String cannot fail.
    let _ = match len {
        1 => write!(out, "{}", start + 1),
        0 => write!(out, "{start},0"),
        _ => write!(out, "{},{len}", start + 1),
    };
}

fn push_lines(out: &mut String, tag: char, lines: &[&str]) {
    for line in lines {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with(['\r', '\n']) {
            out.push_str(NO_NEWLINE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// similar's own rendering, which this module must reproduce.
    fn by_similar(old: &[&str], new: &[&str], context: usize) -> String {
        similar::TextDiff::configure()
            .newline_terminated(true)
            .diff_slices(old, new)
            .unified_diff()
            .context_radius(context)
            .header("recorded", "simulated")
            .to_string()
    }

    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    fn agree(old: &str, new: &str, context: usize) {
        let (old, new) = (lines(old), lines(new));
        assert_eq!(
            unified_diff(&old, &new, "recorded", "simulated", context),
            by_similar(&old, &new, context),
            "old {old:?} new {new:?} context {context}"
        );
    }

    #[test]
    fn hand_picked_cases_match_similar() {
        let cases = [
            ("", ""),
            ("a\n", "a\n"),
            ("", "a\n"),
            ("a\n", ""),
            ("a", "b"),
            ("a\nb", "a\nc"),
            ("a\nb\n", "a\nb"),
            ("x\r\ny\r\n", "x\r\nz\r\n"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
                "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
            ),
            (
                "{\n    \"a\": 1,\n    \"b\": [\n        2\n    ]\n}",
                "{\n    \"a\": 2,\n    \"b\": []\n}",
            ),
        ];
        for (old, new) in cases {
            for context in [0, 1, 3] {
                agree(old, new, context);
                agree(new, old, context);
            }
        }
    }

    /// Many generated pairs: lines from a small alphabet (so that Myers
    /// finds long common runs and several hunks), with and without a final
    /// newline, one side often a small edit of the other.
    #[test]
    fn generated_cases_match_similar() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..400 {
            let len = next(40) as usize;
            let old: Vec<String> = (0..len).map(|_| format!("l{}\n", next(6))).collect();
            let mut new = old.clone();
            for _ in 0..next(5) {
                let at = next(new.len() as u64 + 1) as usize;
                match next(3) {
                    0 if at < new.len() => {
                        new.remove(at);
                    }
                    1 if at < new.len() => new[at] = format!("m{}\n", next(4)),
                    _ => new.insert(at, format!("n{}\n", next(4))),
                }
            }
            let mut old = old.concat();
            let mut new = new.concat();
            if next(3) == 0 {
                old.pop();
            }
            if next(3) == 0 {
                new.pop();
            }
            agree(&old, &new, next(5) as usize);
        }
    }
}
