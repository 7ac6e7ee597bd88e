//! A report as Markdown (GitHub's tables). Text from the data is escaped:
//! HTML in a tool's output or a model's reply shows as text, and a `|`
//! never breaks a table.

use super::render::{self, Format};
use super::{Cell, Report};
use crate::Result;

const MARKDOWN: Format = Format {
    name: "report.md",
    template: include_str!("templates/report.md.j2"),
    prose: escape_keeping_code,
    cell,
    escape: Some(escape),
    page: false,
};

pub fn render(report: &Report) -> Result<String> {
    render::render(report, &MARKDOWN)
}

fn cell(cell: &Cell) -> String {
    let text = cell.display();
    if cell.is_code() && !text.is_empty() {
        code(&text)
    } else {
        escape(&text)
    }
}

/// Text as Markdown shows it literally: HTML's specials as entities, a
/// table's bar escaped, line breaks as spaces.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span (shown as written: HTML in a code span
/// is not rendered), fenced with more backticks than any run of them in
/// the text; `|` escaped and line breaks as spaces, for table cells.
pub fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let inner = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    // A span starting or ending with a backtick needs a space inside the
    // fence, which CommonMark strips.
    let pad = if inner.starts_with('`') || inner.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{inner}{pad}{fence}")
}

/// Prose whose `code` spans are kept (and not escaped inside), the rest
/// escaped.
fn escape_keeping_code(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("`{}`", part.replace('|', "\\|"))
            } else {
                escape(part)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Section, Table};

    #[test]
    fn html_stays_text_and_cells_stay_whole() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)> & a|b\nc"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; a\\|b c"
        );
        assert_eq!(code("plain.json"), "`plain.json`");
        assert_eq!(code("a`<b>`c"), "``a`<b>`c``");
        assert_eq!(code("`x``"), "``` `x`` ```");
        assert_eq!(code("a|b"), "`a\\|b`");
    }

    #[test]
    fn data_is_escaped_and_missing_values_are_dashes() {
        let rows = vec![
            vec![
                Cell::Code("a|b.json".into()),
                Cell::Percent(Some(0.5)),
                Cell::Percent(None),
            ],
            vec![
                Cell::Text("<script>alert(1)</script>".into()),
                Cell::Percent(Some(0.0)),
                Cell::Fraction(1, 3),
            ],
        ];
        let table = Table::of(&["Conversation", "Run 1", "Run 2"], rows);
        let report = Report {
            title: "Runs <compared>".into(),
            runs: Vec::new(),
            warnings: Vec::new(),
            sections: vec![
                Section::new("results", "Results").table(table),
                Section::not_applicable("state", "State check", "levels have none"),
            ],
        };
        let text = render(&report).unwrap();
        assert!(text.starts_with("# Runs &lt;compared&gt;\n"), "{text}");
        assert!(text.contains("| `a\\|b.json` | 50.0 | - |"), "{text}");
        assert!(
            text.contains("| &lt;script&gt;alert(1)&lt;/script&gt; | 0.0 | 33.3 (1/3) |"),
            "{text}"
        );
        assert!(text.contains("|---|---:|---:|"), "{text}");
        assert!(text.contains("Not applicable: levels have none"), "{text}");
        assert!(!text.contains("<script>"));
    }
}
