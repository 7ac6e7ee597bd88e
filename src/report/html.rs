//! A report as one self-contained HTML page (nothing fetched from the
//! network): the runs, every section's tables and lists, and charts drawn
//! as inline SVG. A short inline script records script errors and checks
//! that every chart drew something; it writes the verdict into the page's
//! `data-check` attribute, which the browser test reads.

use minijinja::{context, Environment, Value};
use serde::Serialize;

use super::{charts, Block, Report};
use crate::{Error, Result};

const TEMPLATE: &str = include_str!("templates/report.html.j2");

/// A block as the template lays it out (text escaped by the template).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum View {
    Text {
        text: Value,
    },
    NotApplicable {
        why: Value,
    },
    Table {
        head: Vec<(String, bool)>,
        rows: Vec<Vec<CellView>>,
    },
    List {
        items: Vec<Value>,
    },
    Raw {
        html: Value,
    },
}

/// A cell: its text, whether it is a number, whether it is code, and the
/// anchor it links to.
type CellView = (String, bool, bool, Option<String>);

pub fn render(report: &Report) -> Result<String> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    // The name ends in .html: minijinja escapes every value put in.
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| Error::Other(format!("the HTML report template: {e}")))?;
    let mut sections = Vec::new();
    for section in &report.sections {
        let mut blocks = Vec::new();
        for block in &section.blocks {
            blocks.push(view(block)?);
        }
        sections.push(context! { id => &section.id, title => &section.title, blocks });
    }
    env.get_template("report.html")
        .and_then(|t| {
            t.render(context! {
                title => &report.title,
                runs => &report.runs,
                warnings => &report.warnings,
                sections,
            })
        })
        .map_err(|e| Error::Other(format!("rendering the HTML report: {e}")))
}

fn view(block: &Block) -> Result<View> {
    Ok(match block {
        Block::Text { text } => View::Text { text: prose(text) },
        Block::NotApplicable { why } => View::NotApplicable { why: prose(why) },
        Block::List { items } => View::List {
            items: items.iter().map(|i| prose(i)).collect(),
        },
        Block::Table(table) => View::Table {
            head: table
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.numeric))
                .collect(),
            rows: table
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .zip(&table.columns)
                        .map(|(cell, column)| {
                            let anchor = cell.anchor().map(str::to_string);
                            (cell.display(), column.numeric, cell.is_code(), anchor)
                        })
                        .collect()
                })
                .collect(),
        },
        Block::Chart(chart) => View::Raw {
            html: Value::from_safe_string(format!(
                "<figure>{}</figure>",
                charts::svg(chart)
                    .map_err(|e| Error::Other(format!("drawing the chart {}: {e}", chart.title)))?
            )),
        },
        Block::Html { html } => View::Raw {
            html: Value::from_safe_string(html.clone()),
        },
    })
}

/// Prose as HTML: escaped, its `code` spans in `<code>`.
fn prose(text: &str) -> Value {
    let html: String = text
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", escape(part))
            } else {
                escape(part)
            }
        })
        .collect();
    Value::from_safe_string(html)
}

/// Escape text for HTML written by hand (a drawn dialogue).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Cell, Chart, RunHeader, Scale, Section, Series, Table};

    #[test]
    fn a_page_escapes_the_data_and_draws_the_charts() {
        let table = Table::of(
            &["Conversation", "Run 1"],
            vec![vec![
                Cell::Code("<b>x</b>.json".into()),
                Cell::Percent(None),
            ]],
        );
        let report = Report {
            title: "Runs".into(),
            runs: vec![RunHeader {
                number: 1,
                label: "openai:<model>".into(),
                dir: "runs/a".into(),
                models: None,
                dataset: Some("abc".into()),
                evaluated: 3,
                not_evaluated: 1,
                unit: "conversation".into(),
            }],
            warnings: vec!["different datasets".into()],
            sections: vec![
                Section::new("results", "Results")
                    .table(table)
                    .chart(Chart {
                        title: "Success".into(),
                        categories: vec!["easy".into()],
                        series: vec![Series {
                            name: "run 1".into(),
                            values: vec![Some(0.5)],
                            counts: vec![Some(2)],
                        }],
                        scale: Scale::Percent,
                    }),
                Section::not_applicable("state-check", "State check", "no state <here> (`--x`)"),
            ],
        };
        let page = render(&report).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert!(
            page.contains("<code>&lt;b&gt;x&lt;&#x2f;b&gt;.json</code>"),
            "{page}"
        );
        assert!(page.contains("openai:&lt;model&gt;"), "{page}");
        assert!(page.contains("<svg class=\"chart\""), "{page}");
        assert!(
            page.contains("Not applicable: no state &lt;here&gt; (<code>--x</code>)"),
            "{page}"
        );
        assert!(page.contains("<td class=\"n\">-</td>"), "{page}");
        assert!(page.contains("different datasets"), "{page}");
        assert!(!page.contains("<b>x"));
    }
}
