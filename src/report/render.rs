//! The one way a report becomes a page of text: the report model laid out
//! for a template, every piece of text the model holds written in the
//! format's own way ([`Format`]), then the format's template. Markdown and
//! HTML differ only in their [`Format`].

use minijinja::{context, Environment, Value};

use super::{charts, Block, Cell, Report};
use crate::{Error, Result};

/// How a format writes text from the data.
pub struct Format {
    /// The template's name (its extension says whether minijinja escapes
    /// values as HTML) and text.
    pub name: &'static str,
    pub template: &'static str,
    /// Prose whose `code` spans are kept as code, the rest escaped.
    pub prose: fn(&str) -> String,
    /// A table cell.
    pub cell: fn(&Cell) -> String,
    /// Plain text as the format shows it literally, where the template
    /// does not escape (None: it does).
    pub escape: Option<fn(&str) -> String>,
    /// A page: it shows charts and drawn detail.
    pub page: bool,
}

pub fn render(report: &Report, format: &Format) -> Result<String> {
    let safe = Value::from_safe_string;
    let prose = |text: &str| safe((format.prose)(text));
    let mut sections = Vec::new();
    for section in &report.sections {
        let mut blocks = Vec::new();
        for block in &section.blocks {
            blocks.push(match block {
                Block::Text { text } => context! { type => "text", text => prose(text) },
                Block::NotApplicable { why } => {
                    context! { type => "not_applicable", why => prose(why) }
                }
                Block::List { items } => {
                    let items: Vec<Value> = items.iter().map(|i| prose(i)).collect();
                    context! { type => "list", items }
                }
                Block::Table(table) => {
                    let rows = table.rows.iter().map(|row| {
                        let cells = row.iter().map(|c| safe((format.cell)(c)));
                        cells.collect::<Vec<_>>()
                    });
                    let rows: Vec<_> = rows.collect();
                    context! { type => "table", columns => &table.columns, rows }
                }
                Block::Chart(chart) if format.page => {
                    let svg = charts::svg(chart).map_err(|e| {
                        Error::Other(format!("drawing the chart {}: {e}", chart.title))
                    })?;
                    context! { type => "raw", html => safe(format!("<figure>{svg}</figure>")) }
                }
                Block::Html { html } if format.page => {
                    context! { type => "raw", html => safe(html.clone()) }
                }
                // Charts and drawn dialogues are for a page; their figures
                // and facts are in the tables.
                Block::Chart(_) | Block::Html { .. } => continue,
            });
        }
        sections.push(context! { id => &section.id, title => &section.title, blocks });
    }
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    if let Some(escape) = format.escape {
        env.set_formatter(move |out, _, value| {
            let text = value.to_string();
            let text = if value.is_safe() { text } else { escape(&text) };
            out.write_str(&text).map_err(minijinja::Error::from)
        });
    }
    let cell = format.cell;
    env.add_filter("code", move |text: &str| {
        safe(cell(&Cell::Code(text.into())))
    });
    let template = env.template_from_named_str(format.name, format.template);
    let context = context! {
        title => &report.title,
        runs => &report.runs,
        warnings => &report.warnings,
        sections,
    };
    let mut text = template
        .and_then(|t| t.render(context))
        .map_err(|e| Error::Other(format!("rendering the report ({}): {e}", format.name)))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}
