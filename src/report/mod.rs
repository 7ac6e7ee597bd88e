//! The report layer: what a report says, once, as a table model
//! (sections of text, tables, lists and charts), and one renderer
//! (`render`) that writes it as Markdown, one HTML page, or JSON (the
//! kind's document with the model added).
//!
//! # Adding a kind of run
//!
//! A kind of evaluation (whole conversations, call samples at a level,
//! conversations with a user, ...) is its `summary.json` figures `F`
//! (in [`crate::run::summary::RunSummary`]) implementing
//! [`runs::Kind`], registered with [`runs::kind`]. What it gives:
//!
//! - words: `NAME` (the JSON document's `kind`), `UNIT` and `FILE` (what a
//!   unit and a file are), `WHAT` (its summaries in words), and
//!   [`runs::Words`]: the titles and columns of the failures, what differs
//!   between runs (the section's title and JSON key follow from it), why
//!   it has no state check (if so), the figures' keys of every unit's
//!   list, the first of which tells its summaries from the others;
//! - `label` (and `models`, `title`, `dataset_group` where the defaults do
//!   not fit);
//! - `tables`: its own sections (ToolTalk's Tables 1-2, API-Bank's Tables
//!   3 and 4), built with [`Table::of`], [`runs::per_run`] (a row a run
//!   from (heading, cell) pairs), [`runs::by_run`] (rows per run),
//!   [`runs::per_unit`] (a column a run) and [`runs::chart`];
//! - `units`: per run, each unit's [`runs::Unit`]: its identity, its name,
//!   whether it passed, its outcome in words, its state check, its row in
//!   the failures table;
//! - `run_document` (and `document`): the JSON keys it adds to its figures
//!   (which the document already holds, less the unit lists);
//! - `drawn`, optionally: HTML only a page shows about failed units.
//!
//! From these [`runs::report`] builds the runs, the kind's tables, then
//! the sections every kind shares, written once in [`sections`]: pass^k,
//! the state check, outcomes that differ between runs, failures, not
//! evaluated, provenance, tokens used. A section that does not apply says
//! "Not applicable" and why, the same way in every format. It also builds
//! the JSON document: per run the figures, the shared keys (`evaluated`,
//! `not_evaluated`, `settings`, `pass_hat`, `state_check`, ...) and the
//! kind's, then the outcomes that differ.

pub mod charts;
mod render;
pub mod runs;
pub mod sections;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A report over one or more evaluation runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The page title and top heading.
    pub title: String,
    /// The runs, in the order given, numbered from 1.
    pub runs: Vec<RunHeader>,
    /// Said before everything else (runs over different datasets).
    pub warnings: Vec<String>,
    pub sections: Vec<Section>,
    /// The kind's JSON document, which the JSON format completes with
    /// the above.
    #[serde(skip)]
    pub document: Value,
}

/// One run as the report introduces it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunHeader {
    pub number: usize,
    /// What sets the run apart: its predictor and settings, in words.
    pub label: String,
    /// The run's folder as given.
    pub dir: String,
    /// The models asked, in words, when any.
    pub models: Option<String>,
    /// The SHA-256 of the dataset evaluated, when recorded.
    pub dataset: Option<String>,
    /// Units evaluated, and units that could not be.
    pub evaluated: usize,
    pub not_evaluated: usize,
}

/// A titled part of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// A stable name (the HTML anchor and the JSON key).
    pub id: String,
    pub title: String,
    pub blocks: Vec<Block>,
}

impl Section {
    pub fn new(id: &str, title: impl Into<String>) -> Self {
        Section {
            id: id.to_string(),
            title: title.into(),
            blocks: Vec::new(),
        }
    }

    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text { text: text.into() });
        self
    }

    pub fn table(mut self, table: Table) -> Self {
        self.blocks.push(Block::Table(table));
        self
    }

    pub fn list(mut self, items: Vec<String>) -> Self {
        self.blocks.push(Block::List { items });
        self
    }

    pub fn chart(mut self, chart: Chart) -> Self {
        self.blocks.push(Block::Chart(chart));
        self
    }

    pub fn charts(mut self, charts: Vec<Chart>) -> Self {
        self.blocks.extend(charts.into_iter().map(Block::Chart));
        self
    }

    /// The table, unless it has no rows.
    pub fn table_if_any(self, table: Table) -> Self {
        if table.rows.is_empty() {
            return self;
        }
        self.table(table)
    }

    /// A section that does not apply to this kind of run, said the same
    /// way in every format.
    pub fn not_applicable(id: &str, title: impl Into<String>, why: impl Into<String>) -> Self {
        let mut section = Section::new(id, title);
        section
            .blocks
            .push(Block::NotApplicable { why: why.into() });
        section
    }
}

/// One piece of a section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// A paragraph of plain text (`code` in backquotes is kept as code).
    Text {
        text: String,
    },
    /// The section does not apply, and why.
    NotApplicable {
        why: String,
    },
    Table(Table),
    /// A bulleted list of plain text.
    List {
        items: Vec<String>,
    },
    Chart(Chart),
    /// Detail only a page can show (a failed dialogue drawn with the
    /// predictions beside the gold calls), already escaped; the other
    /// formats carry the same facts in the section's tables and lists.
    Html {
        html: String,
    },
}

/// A table: a header row and rows of cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with these headings and rows; a column holds numbers
    /// (aligned right) when any of its cells is one.
    pub fn of<S: AsRef<str>>(heads: &[S], rows: Vec<Vec<Cell>>) -> Self {
        let columns = heads.iter().enumerate().map(|(i, name)| Column {
            name: name.as_ref().to_string(),
            numeric: rows.iter().any(|r| r.get(i).is_some_and(Cell::is_number)),
        });
        Table {
            columns: columns.collect(),
            rows,
        }
    }
}

/// A table's column: its heading, and whether it holds numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    pub name: String,
    pub numeric: bool,
}

/// A table cell. Every format shows a missing value as "-", never as 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Cell {
    Text(String),
    /// A file name, an identifier: shown as code.
    Code(String),
    /// Code that a page links to a place on it (`#anchor`).
    CodeLink(String, String),
    Count(usize),
    /// A share in 0..=1, shown in percent with one decimal.
    Percent(Option<f64>),
    /// A number shown with this many decimals.
    Number(Option<f64>, usize),
    /// A share with what it is of: "50.0 (1/2)".
    Fraction(usize, usize),
}

impl Cell {
    /// The cell as plain text.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(text) | Cell::Code(text) | Cell::CodeLink(text, _) => text.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Percent(x) => x.map_or_else(missing, pct),
            Cell::Number(x, decimals) => x.map_or_else(missing, |x| format!("{x:.decimals$}")),
            Cell::Fraction(_, 0) => missing(),
            Cell::Fraction(n, of) => format!("{} ({n}/{of})", pct(*n as f64 / *of as f64)),
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Cell::Count(_) | Cell::Percent(_) | Cell::Number(..) | Cell::Fraction(..)
        )
    }

    pub fn is_code(&self) -> bool {
        matches!(self, Cell::Code(_) | Cell::CodeLink(..))
    }

    /// The place on the page the cell links to.
    pub fn anchor(&self) -> Option<&str> {
        match self {
            Cell::CodeLink(_, anchor) => Some(anchor),
            _ => None,
        }
    }
}

fn missing() -> String {
    "-".to_string()
}

/// A share in percent with one decimal: the one way every report writes
/// a rate.
pub fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// A bar chart: a value per category per series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub title: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub scale: Scale,
}

/// One series of a chart (a run): a value per category, None where the
/// run has nothing there (drawn as missing, never as a zero bar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
    /// How many units each value is over (shown beside its bar); empty
    /// when the values are not shares of units.
    pub counts: Vec<Option<usize>>,
}

/// The value axis of a chart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Shares in 0..=1, marked in percent.
    Percent,
    /// Plain numbers from 0 to the largest value (turns, ROUGE-L).
    Plain,
}
