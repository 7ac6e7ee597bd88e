//! `talkforge lint`.

use std::io::Write;
use std::path::PathBuf;

use super::{Context, Status};
use crate::lint::output::{render, write_json, write_sarif, Format};
use crate::lint::{lint_files, rule, Config, InputFormat, Options, Rule};
use crate::suite::Registry;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or folders (searched for every registered format's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// The suite the files belong to: `auto` (by extension and content),
    /// or forced as every other command's `--suite` is.
    #[arg(
        id = SUITE,
        long = "suite",
        visible_alias = "input-format",
        value_name = "SUITE",
        default_value = "auto"
    )]
    pub input_format: String,
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

/// The id of `--suite`, whose values the registry gives.
const SUITE: &str = "suite";

/// `lint` with `--suite` taking `auto` or the name of a suite of
/// `registry`.
pub fn with_suites(lint: clap::Command, registry: &Registry) -> clap::Command {
    let auto = clap::builder::PossibleValue::new("auto").help(
        "By file name (the longest registered ending) and content (a `scenarios` list is a pool)",
    );
    let suites = registry
        .suites()
        .iter()
        .map(|suite| clap::builder::PossibleValue::new(suite.name()));
    let names: Vec<_> = std::iter::once(auto).chain(suites).collect();
    lint.mut_arg(SUITE, |arg| {
        arg.value_parser(clap::builder::PossibleValuesParser::new(names))
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

/// Options from the command line and the settings file, for linting
/// `files`.
pub fn options(args: &Args, registry: &Registry, files: &[PathBuf]) -> Result<Options, Error> {
    let input_format = InputFormat::named(registry, &args.input_format)
        .ok_or_else(|| Error::Usage(format!("unknown suite {:?}", args.input_format)))?;
    options_for(args, registry, files, input_format, None)
}

/// [`options`] for files read as `input_format`, whose databases are in
/// `declared` (talkforge.toml's subset) unless `--databases` says.
fn options_for(
    args: &Args,
    registry: &Registry,
    files: &[PathBuf],
    input_format: InputFormat,
    declared: Option<&std::path::Path>,
) -> Result<Options, Error> {
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::discover(&std::env::current_dir().unwrap_or_default())?,
    };
    Ok(Options {
        input_format,
        select: (!args.select.is_empty())
            .then(|| rules(&args.select))
            .transpose()?,
        ignore: rules(&args.ignore)?,
        config,
        skip_snippets: matches!(args.format, Format::Json | Format::Github),
        date_ranges: date_ranges(args, input_format, registry, files, declared)?,
        databases: args.databases.clone(),
    })
}

/// The dates each suite's databases hold: from `--databases` (which must
/// load), else from the suite's default folder when it is there. The
/// suites are those of the files linted (`--suite`'s, else each file's by
/// its name, as every command picks it): a `--databases` folder is one
/// suite's, and is read as that suite's.
fn date_ranges(
    args: &Args,
    input_format: InputFormat,
    registry: &Registry,
    files: &[PathBuf],
    declared: Option<&std::path::Path>,
) -> Result<Vec<(&'static str, crate::suite::DateRange)>, Error> {
    let mut suites: Vec<&'static dyn crate::suite::Suite> = Vec::new();
    for file in files {
        if let Some((suite, _)) = registry.for_path(file, input_format.forced()) {
            if !suites.iter().any(|known| known.name() == suite.name()) {
                suites.push(suite);
            }
        }
    }
    let mut ranges = Vec::new();
    for suite in suites {
        let dates = match &args.databases {
            Some(dir) => suite.database_dates(dir)?,
            None => {
                let dir = declared.map_or_else(
                    || PathBuf::from(suite.default_databases()),
                    std::path::Path::to_path_buf,
                );
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

/// `files` grouped by how they are read: `input_format` when `--suite`
/// forced one; else each file's declared subset's suite (or auto) and
/// databases folder, in the order the groups first appear.
#[allow(clippy::type_complexity)]
fn groups(
    registry: &Registry,
    files: &[PathBuf],
    input_format: InputFormat,
) -> Result<Vec<(InputFormat, Option<PathBuf>, Vec<PathBuf>)>, Error> {
    if input_format.forced().is_some() || files.is_empty() {
        return Ok(vec![(input_format, None, files.to_vec())]);
    }
    let mut lookup = crate::dataset::Lookup::new(registry);
    let mut groups: Vec<(InputFormat, Option<PathBuf>, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let declared = lookup.declared(file)?;
        let (format, databases) = match &declared {
            Some(declared) => {
                let suite = declared
                    .suite
                    .or_else(|| registry.for_path(file, None).map(|(suite, _)| suite));
                let format = declared.suite.map_or(InputFormat::Auto, InputFormat::Suite);
                (format, suite.map(|suite| declared.databases_for(suite)))
            }
            None => (InputFormat::Auto, None),
        };
        let same = |(f, d, _): &&mut (InputFormat, Option<PathBuf>, Vec<PathBuf>)| {
            f.forced().map(|s| s.name()) == format.forced().map(|s| s.name()) && *d == databases
        };
        match groups.iter_mut().find(same) {
            Some((_, _, group)) => group.push(file.clone()),
            None => groups.push((format, databases, vec![file.clone()])),
        }
    }
    Ok(groups)
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

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    if args.list_rules {
        context.print(format_args!("{}", rule_list()));
        return Ok(Status::Clean);
    }
    if let Some(name) = &args.explain {
        let rule = rules(std::slice::from_ref(name))?[0];
        context.print(format_args!("{}", rule.explain()));
        return Ok(Status::Clean);
    }
    let input_format = InputFormat::named(context.registry, &args.input_format)
        .ok_or_else(|| Error::Usage(format!("unknown suite {:?}", args.input_format)))?;
    let files = crate::formats::discover_dialogues(
        &args.paths,
        &context.registry.endings(input_format.forced()),
    )?;
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::discover(&std::env::current_dir().unwrap_or_default())?,
    };
    // Files of a subset talkforge.toml declares are read by its suite,
    // with its databases' dates; each group is linted on its own.
    let mut options = None;
    let mut report = crate::lint::Report::default();
    for (format, declared, files) in groups(context.registry, &files, input_format)? {
        let group = Options {
            config: config.clone(),
            ..options_for(args, context.registry, &files, format, declared.as_deref())?
        };
        let found = lint_files(context.registry, &files, &group);
        report.files += found.files;
        report.findings.extend(found.findings);
        report.errors.extend(found.errors);
        options.get_or_insert(group);
    }
    let options = options.expect("a lint run has a file");
    let mut stdout = std::io::BufWriter::new(&mut *context.out);
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
    // Each unreadable file is named once, on stderr (the human summary
    // only counts them).
    if let Some((last, rest)) = errors.split_last() {
        for error in rest {
            eprintln!("error: {error}");
        }
        return Err(Error::Other(last.to_string()));
    }
    Ok(status)
}
