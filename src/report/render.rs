//! The one way a report becomes text: the report model laid out for a
//! template, every piece of text the model holds written in the format's
//! own way ([`Format`]), then the format's template. Markdown (GitHub's
//! tables) and one self-contained HTML page (nothing fetched from the
//! network, charts drawn as inline SVG) differ only in their [`Format`];
//! JSON is the kind's document with the model added. Text from the data
//! is always escaped: HTML in a tool's output or a model's reply shows as
//! text, and a `|` never breaks a Markdown table.

use minijinja::value::ViaDeserialize;
use minijinja::{Environment, HtmlEscape, Value};
use serde_json::json;

use super::{charts, Cell, Chart, Report};
use crate::{Error, Result};

/// How a format writes text from the data.
struct Format {
    /// The template's name and text.
    name: &'static str,
    template: &'static str,
    /// Plain text as the format shows it literally.
    escape: fn(&str) -> String,
    /// A `code` span of prose (its text as written).
    code: fn(&str) -> String,
    /// A table cell.
    cell: fn(&Cell) -> String,
}

/// Charts and drawn dialogues are for a page (the Markdown template
/// leaves them out): their figures and facts are in the tables.
const MARKDOWN: Format = Format {
    name: "report.md",
    template: include_str!("templates/report.md.j2"),
    escape: markdown_escape,
    code: |code| format!("`{}`", code.replace('|', "\\|")),
    cell: |cell| {
        let text = cell.display();
        if cell.is_code() && !text.is_empty() {
            markdown_code(&text)
        } else {
            markdown_escape(&text)
        }
    },
};

const HTML: Format = Format {
    name: "report.html",
    template: include_str!("templates/report.html.j2"),
    escape: html_escape,
    code: |code| format!("<code>{}</code>", html_escape(code)),
    // Code in `<code>`, linked to its place on the page.
    cell: |cell| {
        let text = html_escape(&cell.display());
        let text = match cell.is_code() {
            true => format!("<code>{text}</code>"),
            false => text,
        };
        match cell.anchor() {
            Some(anchor) => format!("<a href=\"#{}\">{text}</a>", html_escape(anchor)),
            None => text,
        }
    },
};

impl Report {
    pub fn markdown(&self) -> Result<String> {
        render(self, &MARKDOWN)
    }

    pub fn html(&self) -> Result<String> {
        render(self, &HTML)
    }

    /// The kind's document completed with the report's title, warnings
    /// and sections as the table model holds them.
    pub fn json(&self) -> serde_json::Value {
        let mut document = self.document.clone();
        if let Some(object) = document.as_object_mut() {
            object.insert("title".into(), json!(self.title));
            object.insert("warnings".into(), json!(self.warnings));
            object.insert("sections".into(), json!(self.sections));
        }
        document
    }
}

/// The report through the format's template, which writes the model's
/// text with the filters `prose` (its `code` spans kept as code), `cell`,
/// `code` and `svg` (a chart).
fn render(report: &Report, format: &'static Format) -> Result<String> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_formatter(move |out, _, value| {
        let text = value.to_string();
        let text = if value.is_safe() {
            text
        } else {
            (format.escape)(&text)
        };
        out.write_str(&text).map_err(minijinja::Error::from)
    });
    let safe = Value::from_safe_string;
    env.add_filter("prose", move |text: &str| {
        let parts = text.split('`').enumerate().map(|(i, part)| match i % 2 {
            1 => (format.code)(part),
            _ => (format.escape)(part),
        });
        safe(parts.collect())
    });
    env.add_filter("cell", move |cell: ViaDeserialize<Cell>| {
        safe((format.cell)(&cell))
    });
    env.add_filter("code", move |text: &str| {
        safe((format.cell)(&Cell::Code(text.into())))
    });
    env.add_filter("svg", move |chart: ViaDeserialize<Chart>| {
        let svg = charts::svg(&chart).map_err(|e| {
            let what = format!("drawing the chart {}: {e}", chart.title);
            minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, what)
        })?;
        Ok::<_, minijinja::Error>(safe(svg))
    });
    let mut text = env
        .template_from_named_str(format.name, format.template)
        .and_then(|t| t.render(report))
        .map_err(|e| Error::Other(format!("rendering the report ({}): {e}", format.name)))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Text as Markdown shows it literally: HTML's specials as entities, a
/// table's bar escaped, line breaks as spaces.
fn markdown_escape(text: &str) -> String {
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
fn markdown_code(text: &str) -> String {
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

/// Text escaped for HTML, as minijinja escapes it.
pub fn html_escape(text: &str) -> String {
    HtmlEscape(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Chart, RunHeader, Scale, Section, Series, Table};

    fn report(runs: Vec<RunHeader>, sections: Vec<Section>) -> Report {
        Report {
            title: "Runs <compared>".into(),
            runs,
            warnings: vec!["different datasets".into()],
            sections,
            document: json!({}),
        }
    }

    #[test]
    fn html_stays_text_and_cells_stay_whole() {
        assert_eq!(
            markdown_escape("<img src=x onerror=alert(1)> & a|b\nc"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; a\\|b c"
        );
        assert_eq!(markdown_code("plain.json"), "`plain.json`");
        assert_eq!(markdown_code("a`<b>`c"), "``a`<b>`c``");
        assert_eq!(markdown_code("`x``"), "``` `x`` ```");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
    }

    #[test]
    fn markdown_escapes_the_data_and_shows_missing_values_as_dashes() {
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
        let report = report(
            Vec::new(),
            vec![
                Section::new("results", "Results").table(table),
                Section::not_applicable("state", "State check", "levels have none"),
            ],
        );
        let text = report.markdown().unwrap();
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

    #[test]
    fn a_page_escapes_the_data_and_draws_the_charts() {
        let table = Table::of(
            &["Conversation", "Run 1"],
            vec![vec![
                Cell::Code("<b>x</b>.json".into()),
                Cell::Percent(None),
            ]],
        );
        let chart = Chart {
            title: "Success".into(),
            categories: vec!["easy".into()],
            series: vec![Series {
                name: "run 1".into(),
                values: vec![Some(0.5)],
                counts: vec![Some(2)],
            }],
            scale: Scale::Percent,
        };
        let header = RunHeader {
            number: 1,
            label: "openai:<model>".into(),
            dir: "runs/a".into(),
            models: None,
            dataset: Some("abc".into()),
            evaluated: 3,
            not_evaluated: 1,
        };
        let report = report(
            vec![header],
            vec![
                Section::new("results", "Results").table(table).chart(chart),
                Section::not_applicable("state-check", "State check", "no state <here> (`--x`)"),
            ],
        );
        let page = report.html().unwrap();
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
