//! A report as Markdown (GitHub's tables). Text from the data is escaped:
//! HTML in a tool's output or a model's reply shows as text, and a `|`
//! never breaks a table.

use minijinja::{context, Environment};
use serde::Serialize;

use super::{Block, Cell, Report};
use crate::{Error, Result};

const TEMPLATE: &str = include_str!("templates/report.md.j2");

/// A block as the template lays it out, every text escaped.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum View {
    Text {
        text: String,
    },
    NotApplicable {
        why: String,
    },
    Table {
        head: String,
        rule: String,
        rows: Vec<String>,
    },
    List {
        items: Vec<String>,
    },
}

pub fn render(report: &Report) -> Result<String> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_template("report.md", TEMPLATE)
        .map_err(|e| Error::Other(format!("the Markdown report template: {e}")))?;
    let sections: Vec<_> = report
        .sections
        .iter()
        .map(|s| {
            let blocks: Vec<View> = s.blocks.iter().filter_map(view).collect();
            context! { title => escape(&s.title), blocks }
        })
        .collect();
    let runs: Vec<_> = report
        .runs
        .iter()
        .map(|r| {
            context! {
                number => r.number,
                label => escape(&r.label),
                dir => code(&r.dir),
                models => r.models.as_deref().map(escape),
                dataset => r.dataset.as_deref().map(|d| code(&d[..d.len().min(12)])),
                evaluated => r.evaluated,
                not_evaluated => r.not_evaluated,
                unit => &r.unit,
            }
        })
        .collect();
    let warnings: Vec<String> = report.warnings.iter().map(|w| escape(w)).collect();
    env.get_template("report.md")
        .and_then(|t| {
            t.render(context! { title => escape(&report.title), runs, warnings, sections })
        })
        .map(|mut text| {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        })
        .map_err(|e| Error::Other(format!("rendering the Markdown report: {e}")))
}

fn view(block: &Block) -> Option<View> {
    Some(match block {
        Block::Text { text } => View::Text {
            text: escape_keeping_code(text),
        },
        Block::NotApplicable { why } => View::NotApplicable { why: escape(why) },
        Block::List { items } => View::List {
            items: items.iter().map(|i| escape_keeping_code(i)).collect(),
        },
        Block::Table(table) => {
            let head: Vec<String> = table.columns.iter().map(|c| escape(&c.name)).collect();
            let rule: Vec<&str> = table
                .columns
                .iter()
                .map(|c| if c.numeric { "---:" } else { "---" })
                .collect();
            View::Table {
                head: format!("| {} |", head.join(" | ")),
                rule: format!("|{}|", rule.join("|")),
                rows: table
                    .rows
                    .iter()
                    .map(|row| {
                        let cells: Vec<String> = row.iter().map(cell).collect();
                        format!("| {} |", cells.join(" | "))
                    })
                    .collect(),
            }
        }
        // Charts and drawn dialogues are for the page; their figures and
        // facts are in the tables.
        Block::Chart(_) | Block::Html { .. } => return None,
    })
}

fn cell(cell: &Cell) -> String {
    if cell.is_code() && !cell.display().is_empty() {
        code(&cell.display())
    } else {
        escape(&cell.display())
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
