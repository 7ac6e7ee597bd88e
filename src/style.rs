//! Colour in human output: on when stdout is a terminal (and NO_COLOR is
//! unset), or as `--color` says. Renderers paint through [`paint`], which
//! leaves text plain when colour is off, so what they return is the same
//! text either way apart from the escape codes, and anything not a
//! terminal (a pipe, a file, a test) gets plain text by default.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use anstyle::{AnsiColor, Style};

static STDOUT: AtomicBool = AtomicBool::new(false);
static STDERR: AtomicBool = AtomicBool::new(false);

/// `--color`: when human output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set (to anything but empty).
    #[default]
    Auto,
    /// Colour even when the output is not a terminal.
    Always,
    /// Never colour.
    Never,
}

/// Decide once, at start-up, for stdout and stderr.
pub fn init(choice: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let on = |terminal: bool| wanted(choice, terminal, no_color || dumb);
    STDOUT.store(on(std::io::stdout().is_terminal()), Ordering::Relaxed);
    STDERR.store(on(std::io::stderr().is_terminal()), Ordering::Relaxed);
}

/// Whether a stream gets colour: `--color` decides, and `auto` colours a
/// terminal unless the environment asks for none (NO_COLOR, TERM=dumb).
fn wanted(choice: ColorChoice, terminal: bool, declined: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !declined,
    }
}

pub const ERROR: Style = AnsiColor::Red.on_default().bold();
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
pub const GOOD: Style = AnsiColor::Green.on_default().bold();
pub const ADDED: Style = AnsiColor::Green.on_default();
pub const REMOVED: Style = AnsiColor::Red.on_default();
pub const NOTE: Style = AnsiColor::Cyan.on_default().bold();
pub const PLACE: Style = Style::new().bold();

/// `text` in `style` when stdout is coloured, else `text` as it is.
pub fn paint(style: Style, text: &str) -> String {
    paint_if(STDOUT.load(Ordering::Relaxed), style, text)
}

/// [`paint`] for what goes to stderr.
pub fn paint_stderr(style: Style, text: &str) -> String {
    paint_if(STDERR.load(Ordering::Relaxed), style, text)
}

fn paint_if(on: bool, style: Style, text: &str) -> String {
    if on {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// A unified diff with its removed lines red and added lines green.
pub fn paint_diff(diff: &str) -> String {
    if !STDOUT.load(Ordering::Relaxed) {
        return diff.to_string();
    }
    diff.split_inclusive('\n')
        .map(|line| {
            let style = match line.as_bytes().first() {
                Some(b'+') if !line.starts_with("+++") => ADDED,
                Some(b'-') if !line.starts_with("---") => REMOVED,
                Some(b'@') => NOTE,
                _ => return line.to_string(),
            };
            let body = line.strip_suffix('\n');
            match body {
                Some(body) => format!("{}\n", paint_if(true, style, body)),
                None => paint_if(true, style, line),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_a_terminal_unless_declined_and_the_flag_overrides() {
        assert!(wanted(ColorChoice::Auto, true, false));
        assert!(!wanted(ColorChoice::Auto, true, true));
        assert!(!wanted(ColorChoice::Auto, false, false));
        assert!(wanted(ColorChoice::Always, false, true));
        assert!(!wanted(ColorChoice::Never, true, false));
    }

    #[test]
    fn painting_wraps_the_text_in_codes_that_reset() {
        assert_eq!(paint_if(false, ERROR, "error"), "error");
        let painted = paint_if(true, ERROR, "error");
        assert!(painted.starts_with("\x1b["), "{painted:?}");
        assert!(painted.contains("error"));
        assert!(painted.ends_with("\x1b[0m"), "{painted:?}");
    }
}
