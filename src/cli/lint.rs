//! `talkforge lint`.

use std::io::Write;
use std::path::PathBuf;

use super::Status;
use crate::lint::output::{render, write_json, write_sarif, Format};
use crate::lint::{lint_paths, rule, Config, InputFormat, Options, Rule};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or folders (searched for .json, and .jsonl for API-Bank).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// The suite the files belong to: `auto` (by extension and content),
    /// or forced as every other command's `--suite` is.
    #[arg(
        long = "suite",
        visible_alias = "input-format",
        value_name = "SUITE",
        default_value = "auto",
        value_parser = input_format()
    )]
    pub input_format: InputFormat,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Run only these rules (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Skip these rules.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Print a rule's documentation and exit.
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// List every rule (name, severity, what it finds) and exit.
    #[arg(long, conflicts_with = "explain")]
    pub list_rules: bool,
    /// Settings file (default: the nearest talkforge.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The databases whose dates `timestamp-out-of-range` compares the
    /// conversations' timestamps with [default: the suite's folder, when
    /// there is one].
    #[arg(long, value_name = "DIR")]
    pub databases: Option<PathBuf>,
}

/// `--suite`'s values: `auto` or a suite's name.
fn input_format() -> impl clap::builder::TypedValueParser<Value = InputFormat> {
    use clap::builder::TypedValueParser;
    let auto = clap::builder::PossibleValue::new("auto")
        .help("By extension (.jsonl is API-Bank) and content (a `scenarios` list is a pool)");
    let suites = crate::suites::all().map(|suite| clap::builder::PossibleValue::new(suite.name()));
    let names = std::iter::once(auto).chain(suites);
    clap::builder::PossibleValuesParser::new(names).map(|name: String| {
        InputFormat::named(&name).expect("the parser takes only the names it lists")
    })
}

fn rules(names: &[String]) -> Result<Vec<&'static Rule>, Error> {
    names
        .iter()
        .filter(|n| !n.is_empty())
        .map(|n| {
            rule(n).ok_or_else(|| {
                Error::Usage(format!(
                    "unknown lint rule `{n}` (`talkforge lint --explain RULE` knows: {})",
                    crate::lint::all_rules()
                        .iter()
                        .map(|r| r.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect()
}

/// Options from the command line and the settings file.
pub fn options(args: &Args) -> Result<Options, Error> {
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::discover(&std::env::current_dir().unwrap_or_default())?,
    };
    Ok(Options {
        input_format: args.input_format,
        select: (!args.select.is_empty())
            .then(|| rules(&args.select))
            .transpose()?,
        ignore: rules(&args.ignore)?,
        config,
        skip_snippets: matches!(args.format, Format::Json | Format::Github),
        date_ranges: date_ranges(args)?,
    })
}

/// The dates each suite's databases hold: from `--databases` (which must
/// load), else from the suite's default folder when it is there.
fn date_ranges(args: &Args) -> Result<Vec<(&'static str, crate::suite::DateRange)>, Error> {
    let suites = match args.input_format {
        InputFormat::Suite(suite) => vec![suite],
        InputFormat::Auto => crate::suites::all().into_iter().collect(),
    };
    let mut ranges = Vec::new();
    for suite in suites {
        let dates = match &args.databases {
            Some(dir) => suite.database_dates(dir)?,
            None => {
                let dir = PathBuf::from(suite.default_databases());
                if !dir.is_dir() {
                    continue;
                }
                // A default folder that does not load is verify's and
                // check's to report; lint goes on without its dates.
                suite.database_dates(&dir).ok().flatten()
            }
        };
        if let Some(range) = dates {
            ranges.push((suite.name(), range));
        }
    }
    Ok(ranges)
}

/// The rule list `--list-rules` prints: one rule a line, aligned.
fn rule_list() -> String {
    let rules = crate::lint::all_rules();
    let width = rules.iter().map(|r| r.name.len()).max().unwrap_or(0);
    rules
        .iter()
        .map(|r| {
            format!(
                "{:<width$}  {:<7}  {}\n",
                r.name,
                r.severity.name(),
                r.summary
            )
        })
        .collect()
}

pub fn run(args: &Args) -> Result<Status, Error> {
    if args.list_rules {
        print!("{}", rule_list());
        return Ok(Status::Clean);
    }
    if let Some(name) = &args.explain {
        let rule = rules(std::slice::from_ref(name))?[0];
        print!("{}", rule.explain());
        return Ok(Status::Clean);
    }
    let options = options(args)?;
    let mut report = lint_paths(&args.paths, &options)?;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    // JSON and SARIF are streamed: a run over thousands of files may
    // report tens of thousands of findings.
    if args.format == Format::Json {
        let _ = write_json(&report, &mut stdout);
    } else if args.format == Format::Sarif {
        let _ = write_sarif(&report, &options.rules(), &mut stdout);
    } else {
        let _ = stdout.write_all(render(&report, &options.rules(), args.format).as_bytes());
    }
    let _ = stdout.flush();
    drop(stdout);
    let status = Status::from_findings(report.has_errors());
    let errors = std::mem::take(&mut report.errors);
    // Freeing tens of thousands of findings one by one just before the
    // process exits is time for nothing.
    std::mem::forget(report);
    if let Some((last, rest)) = errors.split_last() {
        for error in rest {
            eprintln!("error: {error}");
        }
        return Err(Error::Other(last.to_string()));
    }
    Ok(status)
}
