//! The command line's grammar (clap): the subcommands, the streaming mode's flags as the user
//! types them, and the words of their errors. `config` resolves the flags once into what a
//! search needs.

use clap::{Args, Parser, Subcommand};
use std::io;
use std::path::PathBuf;

/// The usage line of `--help` and of every error (clap adds the `Usage: ` and the name's bold).
const USAGE: &str = "extract-between [OPTIONS] --start <START> --end <END> [PATH]...
       extract-between [OPTIONS] --tag <START> <END>... [PATH]...
       extract-between <COMMAND>";

/// Commands a user would type, for `--help` and the man page's EXAMPLES.
pub(super) const EXAMPLES: &[&str] = &[
    "extract-between -s '<title>' -e '</title>' page.html",
    "extract-between -s '<title>' -e '</title>' site/          # a tree, as ripgrep walks it",
    "extract-between -l -s '<title>' -e '</title>' -g '*.html' site/",
    "curl -s https://example.com | extract-between -s '[' -e ']' --max-matches 10",
    "extract-between -s '\"' -e '\"' --json-lines notes.txt",
    "extract-between -c -s '<title>' -e '</title>' *.html",
    "extract-between --tag '<title>' '</title>' --tag '<h1>' '</h1>' page.html",
    "extract-between --outside -s '<think>' -e '</think>' reply.txt",
    "extract-between -q -s '<title>' -e '</title>' page.html && echo has a title",
    "echo '{\"text\":\"pre[one]mid[two]post\",\"start\":\"[\",\"end\":\"]\"}' | extract-between tool",
    "extract-between serve --listen 127.0.0.1:8080",
];

/// How the flags relate to ripgrep's, for `--help` and the man page.
pub(super) const NOTES: &str = "\
-0 ends each match with NUL (matches may hold newlines); ripgrep's -0 ends file names
with NUL instead, which -0 also does here with -l. Tree flags mean what they mean in
ripgrep: -L follows symbolic links (GNU grep's -L lists files without a match), -g is a
glob, -j the number of threads.";

/// The exit status, for `--help` and the man page's EXIT STATUS.
pub(super) const EXIT_STATUS: &str = "0 when at least one match was printed, 1 when none, 2 when any input failed \
(every other input is still searched).";

fn after_help() -> String {
    let examples: Vec<String> = EXAMPLES.iter().map(|e| format!("  {e}")).collect();
    format!(
        "Examples:\n{}\n\n{NOTES}\n\nExit status: {EXIT_STATUS}",
        examples.join("\n")
    )
}

/// Extract the exact text between a literal start marker and a literal end marker.
///
/// The command line's grammar (clap); [`main`](super::main) parses and runs it.
///
/// ```
/// use clap::Parser;
/// assert!(extract_between_cli::cli::Cli::try_parse_from(["extract-between", "-s", "[", "-e", "]"]).is_ok());
/// assert!(extract_between_cli::cli::Cli::try_parse_from(["extract-between", "card"]).is_ok());
/// ```
#[derive(Debug, Parser)]
// `long_about = None`: clap would otherwise print this rustdoc (code block and all) as
// `--help`'s description.
#[command(name = "extract-between", version, about, long_about = None, after_help = after_help())]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
// One usage line everywhere: clap's usage after an error writes the paths given as
// `<PATH>...`, where --help writes `[PATH]...` (the paths are optional).
#[command(override_usage = USAGE)]
pub struct Cli {
    #[command(subcommand)]
    pub(super) command: Option<Command>,
    #[command(flatten)]
    pub(super) stream: StreamArgs,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Read one request JSON (the card's input schema) and print the response JSON.
    Tool {
        /// Read the request from FILE instead of standard input.
        #[arg(long, value_name = "FILE")]
        request: Option<PathBuf>,
        /// The same as `--request FILE` (as the streaming mode takes its files; `-` is
        /// standard input).
        #[arg(value_name = "FILE", conflicts_with = "request")]
        file: Option<PathBuf>,
    },
    /// Print the tool card.
    Card,
    /// Serve the tool to an MCP client on stdin/stdout (JSON-RPC, a message a line);
    /// exits when stdin closes.
    Mcp,
    /// Run the HTTP service.
    Serve(Box<crate::server::ServeArgs>),
    /// Print a completion script for SHELL (bash, zsh, fish, powershell, elvish).
    ///
    /// bash: `extract-between completions bash > /etc/bash_completion.d/extract-between`
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): `extract-between man | man -l -`; with a subcommand's name,
    /// its own page (`extract-between man serve`).
    Man {
        /// The subcommand whose page to print (tool, card, mcp, serve, completions, man).
        #[arg(value_name = "SUBCOMMAND")]
        page: Option<String>,
    },
}

#[derive(Debug, Args)]
pub(super) struct StreamArgs {
    /// The start marker (literal text, 1 to 4096 UTF-8 bytes).
    #[arg(
        short,
        long,
        value_name = "START",
        required_unless_present = "tags",
        requires = "end",
        allow_hyphen_values = true
    )]
    pub(super) start: Option<String>,
    /// The end marker (literal text, 1 to 4096 UTF-8 bytes).
    #[arg(
        short,
        long,
        value_name = "END",
        required_unless_present = "tags",
        requires = "start",
        allow_hyphen_values = true
    )]
    pub(super) end: Option<String>,
    /// Another marker pair, followed in the same pass (repeatable; after -s/-e if given):
    /// each match prints as `TAG<TAB>MATCH`, TAG its start marker (its index with
    /// --tag-index); a `"tag"` field (the index) with --json-lines. From each position the
    /// leftmost start marker opens a match, the longest where several begin there.
    #[arg(
        long = "tag",
        num_args = 2,
        value_names = ["START", "END"],
        action = clap::ArgAction::Append,
        allow_hyphen_values = true
    )]
    pub(super) tags: Vec<String>,
    /// With --tag, print each match's pair as its index (0 for -s/-e when given) rather than
    /// its start marker.
    #[arg(long)]
    pub(super) tag_index: bool,
    /// Print the text outside every match instead of the matches (the markers and what is
    /// between them removed), as it streams.
    #[arg(long, conflicts_with_all = ["count", "files_with_matches", "quiet", "json_lines", "null", "line_number", "max_matches"])]
    pub(super) outside: bool,
    /// Files and directories to read; each file is its own text. `-` is standard input;
    /// with none, standard input when it is a pipe or a file, else the current directory
    /// (as ripgrep).
    #[arg(value_name = "PATH")]
    pub(super) files: Vec<PathBuf>,
    /// End each match with NUL instead of a newline (with -l, each file name).
    #[arg(short = '0', long = "null", conflicts_with = "json_lines")]
    pub(super) null: bool,
    /// Print only the names of files holding a match.
    #[arg(short = 'l', long, conflicts_with_all = ["json_lines", "count", "quiet"])]
    pub(super) files_with_matches: bool,
    /// Print `PATH:` before each match (the default with a directory or several files).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    pub(super) with_filename: bool,
    /// Never print file names before matches or counts.
    #[arg(long)]
    pub(super) no_filename: bool,
    /// Search files that ignore files (.gitignore, .ignore, .git/info/exclude) exclude.
    #[arg(long)]
    pub(super) no_ignore: bool,
    /// Search hidden files and directories.
    #[arg(long)]
    pub(super) hidden: bool,
    /// Search only files matching GLOB (repeatable; `!GLOB` excludes), as ripgrep's -g.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub(super) globs: Vec<String>,
    /// Descend at most N directories below each path given.
    #[arg(long, value_name = "N")]
    pub(super) max_depth: Option<usize>,
    /// Follow symbolic links while walking.
    #[arg(short = 'L', long)]
    pub(super) follow: bool,
    /// Threads searching a tree (default: the number of cores; at most 8 per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = at_least_one)]
    pub(super) threads: Option<u64>,
    /// Search trees in path order, on one thread, for deterministic output.
    #[arg(long, value_name = "KIND", value_enum)]
    pub(super) sort: Option<SortKind>,
    /// Print how many matches each input holds instead of the matches (`PATH:N` with a
    /// directory or several inputs). Nothing is gathered, so `--max-match-bytes` does not
    /// apply.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null"])]
    pub(super) count: bool,
    /// Print the line each match begins on (its start marker's): `LINE:MATCH`, after
    /// `PATH:` when names are shown; a `"line"` field with --json-lines.
    #[arg(short = 'n', long)]
    pub(super) line_number: bool,
    /// With -c, print inputs without a match too (`PATH:0`).
    #[arg(long, requires = "count")]
    pub(super) include_zero: bool,
    /// Search binary files as text: print their matches (a file named on the command line
    /// is searched either way, its matches replaced by a notice) and walk into them.
    #[arg(short = 'a', long)]
    pub(super) text: bool,
    /// Decode inputs from ENCODING (any WHATWG label: utf-16le, latin1, shift_jis, …);
    /// `none` reads bytes as they are. By default a byte order mark decides (UTF-16 files
    /// are transcoded, as ripgrep does).
    #[arg(short = 'E', long, value_name = "ENCODING")]
    pub(super) encoding: Option<String>,
    /// Read bytes as they are, a byte order mark included (as `-E none`).
    #[arg(long, conflicts_with = "encoding")]
    pub(super) no_encoding: bool,
    /// Print nothing: exit 0 at the first match (reading no further), 1 when there is none.
    #[arg(short, long, conflicts_with_all = ["json_lines", "null", "count"])]
    pub(super) quiet: bool,
    /// One JSON object per match, with file name and byte and UTF-16 offsets.
    #[arg(long)]
    pub(super) json_lines: bool,
    /// Stop after N matches per file (once it is known whether more exist).
    #[arg(short, long, value_name = "N", value_parser = at_least_one)]
    pub(super) max_matches: Option<u64>,
    /// Fail on a match longer than N bytes instead of holding it.
    #[arg(long, value_name = "N", default_value_t = 16 * 1024 * 1024)]
    pub(super) max_match_bytes: usize,
    /// Show a progress bar on stderr (default: only for files when stderr is a terminal).
    #[arg(long, overrides_with = "no_progress")]
    pub(super) progress: bool,
    /// Never show a progress bar.
    #[arg(long)]
    pub(super) no_progress: bool,
    /// Colour file names: `auto` on a terminal unless `NO_COLOR` is set, `always`, `never`.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto)]
    pub(super) color: ColorChoice,
}

/// A count that must be at least 1 (`-m`, `-j`), said in words rather than as a range.
fn at_least_one(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("must be a whole number of at least 1 ({e})")),
    }
}

/// The markers given as paths, as `grep PATTERN FILE` habits write them: the command line
/// with `-s` and `-e`, for clap's "required" error to suggest.
pub(super) fn markers_tip(args: &[std::ffi::OsString]) -> Option<String> {
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let named = words.iter().any(|w| {
        w.starts_with("-s")
            || w.starts_with("-e")
            || w.starts_with("--start")
            || w.starts_with("--end")
    });
    let positional: Vec<&&str> = words.iter().filter(|w| !w.starts_with('-')).collect();
    if named || positional.len() < 2 {
        return None;
    }
    let quote = |w: &str| format!("'{}'", w.replace('\'', "'\\''"));
    let rest: Vec<String> = positional[2..].iter().map(|w| quote(w)).collect();
    Some(format!(
        "tip: the markers are options: extract-between -s {} -e {}{}{}",
        quote(positional[0]),
        quote(positional[1]),
        if rest.is_empty() { "" } else { " " },
        rest.join(" ")
    ))
}

/// When file names are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (to anything but empty) or `TERM` is `dumb`.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub(super) fn colors(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && io::IsTerminal::is_terminal(&io::stdout())
            }
        }
    }
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum SortKind {
    /// By path.
    Path,
}
