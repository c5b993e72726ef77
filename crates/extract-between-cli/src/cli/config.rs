//! The streaming mode's flags resolved once into what a search needs: the markers, the output
//! format, each input and what it is (standard input, a file, a directory to walk), whether
//! the run walks in parallel, names, progress, colour, decoding and the walk's options. What
//! cannot be resolved (a marker, an encoding, a glob) is a [`ConfigError`] before anything
//! is searched.

use super::args::StreamArgs;
use super::encoding::Decoding;
use extract_between::tags::{TagError, TagSet};
use extract_between::{MarkerError, Markers, Which};
use std::fmt;
use std::io::{self, IsTerminal};
use std::path::PathBuf;

/// What the command line asked for.
pub(super) struct Settings {
    pub(super) pattern: Pattern,
    pub(super) format: Format,
    pub(super) max_matches: u64,
    pub(super) max_match_bytes: usize,
    /// `PATH:` before matches and counts.
    pub(super) with_filename: bool,
    /// `-l` names end with NUL (`-0`) instead of a newline.
    pub(super) null_names: bool,
    /// `-c` prints a count of 0 too (`--include-zero`).
    pub(super) include_zero: bool,
    /// Each match's line (`-n`).
    pub(super) line_number: bool,
    /// Binary inputs are text (`-a/--text`).
    pub(super) text: bool,
    /// How inputs are decoded (`-E`, `--no-encoding`).
    pub(super) decoding: Decoding,
    pub(super) progress: Progress,
    /// File names in colour (`--color`).
    pub(super) color: bool,
    pub(super) walk: WalkOptions,
}

/// What is searched for: one pair (`-s/-e`), or several in one pass (`--tag`, and
/// `--outside` for any), with how each match's pair is printed.
pub(super) enum Pattern {
    Pair(Markers),
    Tags {
        set: TagSet,
        /// Each pair's name before its matches: its start marker, or its index.
        labels: Vec<Vec<u8>>,
        /// `--outside`: the text outside every match is printed, not the matches.
        outside: bool,
    },
}

/// Whether a file's search draws a progress bar on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Progress {
    Off,
    /// Drawn because stderr is a terminal.
    OnTerminal,
    /// Drawn because `--progress` asked, terminal or not.
    Forced,
}

/// How directories are walked (flags named as ripgrep names them).
#[derive(Clone, Debug, Default)]
pub(super) struct WalkOptions {
    pub(super) no_ignore: bool,
    pub(super) hidden: bool,
    /// The `-g` globs, parsed before anything is searched.
    pub(super) globs: Option<ignore::overrides::Override>,
    pub(super) max_depth: Option<usize>,
    pub(super) follow: bool,
    pub(super) threads: usize,
    pub(super) sort: bool,
    /// The current directory is searched because no path was given: names are shown
    /// without the `./` in front, as ripgrep shows them.
    pub(super) implicit_root: bool,
}

/// What each input's search prints.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Lines,
    Null,
    Json,
    /// `--count`: matches are counted, not written.
    Count,
    /// `--quiet`: the first match ends the run.
    Quiet,
    /// `--files-with-matches`: the first match ends the file, whose name is printed.
    Files,
}

impl Format {
    /// Whether matches are written, so that their content is gathered (and held to
    /// `--max-match-bytes`); counting formats hold nothing.
    pub(super) fn writes(self) -> bool {
        !matches!(self, Format::Count | Format::Quiet | Format::Files)
    }
}

/// One input as the command line names it, and what it is, asked once.
pub(super) enum Named {
    /// `-`, or no path with a pipe or file on standard input.
    Stdin,
    /// A path that is not a directory (a file, a FIFO, or one that cannot be opened: the
    /// search says why).
    File(PathBuf),
    /// A directory, walked.
    Dir(PathBuf),
}

/// Everything a run needs, resolved from the flags once.
pub(super) struct Config {
    pub(super) settings: Settings,
    pub(super) inputs: Vec<Named>,
    /// Directories are walked on several threads, files printed as each finishes.
    pub(super) parallel: bool,
}

/// A flag that cannot be resolved: the run stops before it starts.
#[derive(Debug)]
pub(super) enum ConfigError {
    Marker(MarkerError),
    Tags(TagError),
    Encoding(String),
    Glob(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A marker's error names its flag, not the JSON field.
            ConfigError::Marker(e) => {
                let flag = match e.which() {
                    Which::Start => "-s/--start",
                    Which::End => "-e/--end",
                };
                match e {
                    MarkerError::Empty(_) => write!(f, "{flag} must not be empty"),
                    MarkerError::TooLong { len, .. } => write!(
                        f,
                        "{flag} must be at most {} UTF-8 bytes long (it is {len} bytes)",
                        extract_between::card::MAX_MARKER_BYTES
                    ),
                }
            }
            ConfigError::Tags(e) => write!(
                f,
                "--tag: {e} (pairs count from 0 in the order given, -s/-e first)"
            ),
            ConfigError::Encoding(e) | ConfigError::Glob(e) => f.write_str(e),
        }
    }
}

impl Config {
    /// The flags resolved.
    pub(super) fn resolve(args: StreamArgs) -> Result<Config, ConfigError> {
        let pattern = pattern(&args)?;
        let decoding = Decoding::parse(args.encoding.as_deref(), args.no_encoding)
            .map_err(ConfigError::Encoding)?;
        let globs = globs(&args.globs).map_err(ConfigError::Glob)?;
        let implicit_root = args.files.is_empty() && io::stdin().is_terminal();
        let inputs = inputs(&args.files, implicit_root);
        let any_dir = inputs.iter().any(|i| matches!(i, Named::Dir(_)));
        // As grep and ripgrep: names with a directory or several inputs.
        let with_filename =
            !args.no_filename && (args.with_filename || any_dir || inputs.len() > 1);
        let threads = args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            |n| usize::try_from(n).map_or(usize::MAX, |n| n.min(max_threads())),
        );
        let sort = args.sort.is_some();
        let parallel = any_dir && threads > 1 && !sort;
        let format = format(&args);
        Ok(Config {
            settings: Settings {
                pattern,
                format,
                max_matches: args.max_matches.unwrap_or(u64::MAX),
                max_match_bytes: args.max_match_bytes,
                with_filename,
                null_names: args.null,
                include_zero: args.include_zero,
                line_number: args.line_number,
                text: args.text,
                decoding,
                // No bars while files are searched side by side.
                progress: if parallel {
                    Progress::Off
                } else {
                    progress_choice(args.progress, args.no_progress)
                },
                color: args.color.colors() && format != Format::Json,
                walk: WalkOptions {
                    no_ignore: args.no_ignore,
                    hidden: args.hidden,
                    globs,
                    max_depth: args.max_depth,
                    follow: args.follow,
                    threads,
                    sort,
                    implicit_root,
                },
            },
            inputs,
            parallel,
        })
    }
}

/// The pair of `-s/-e` alone, or the tag set of `--tag` (after `-s/-e` when given) and of
/// `--outside`.
fn pattern(args: &StreamArgs) -> Result<Pattern, ConfigError> {
    let pair = match (&args.start, &args.end) {
        (Some(start), Some(end)) => Some((start.clone(), end.clone())),
        _ => None,
    };
    if args.tags.is_empty() && !args.outside {
        // clap requires both markers without --tag; the default keeps this free of a panic.
        let (start, end) = pair.unwrap_or_default();
        return Markers::new(start, end)
            .map(Pattern::Pair)
            .map_err(ConfigError::Marker);
    }
    let tagged = args
        .tags
        .chunks_exact(2)
        .map(|pair| (pair[0].clone(), pair[1].clone()));
    let set = TagSet::new(pair.into_iter().chain(tagged)).map_err(ConfigError::Tags)?;
    let labels = (0..set.len())
        .map(|tag| match args.tag_index {
            true => tag.to_string().into_bytes(),
            false => set.pair(tag).start().as_bytes().to_vec(),
        })
        .collect();
    Ok(Pattern::Tags {
        set,
        labels,
        outside: args.outside,
    })
}

/// The output format the flags ask for.
fn format(args: &StreamArgs) -> Format {
    if args.json_lines {
        Format::Json
    } else if args.count {
        Format::Count
    } else if args.quiet {
        Format::Quiet
    } else if args.files_with_matches {
        Format::Files
    } else if args.null {
        Format::Null
    } else {
        Format::Lines
    }
}

/// The inputs: the paths given, each asked once whether it is a directory; with none,
/// standard input, or the current directory when nobody is typing on it (as ripgrep).
fn inputs(files: &[PathBuf], implicit_root: bool) -> Vec<Named> {
    if files.is_empty() {
        return vec![if implicit_root {
            Named::Dir(PathBuf::from("."))
        } else {
            Named::Stdin
        }];
    }
    files
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                Named::Stdin
            } else if p.is_dir() {
                Named::Dir(p.clone())
            } else {
                Named::File(p.clone())
            }
        })
        .collect()
}

/// The `-g` globs as one filter, or the first that does not parse (as ripgrep, the command
/// is refused before anything is searched).
pub(super) fn globs(globs: &[String]) -> Result<Option<ignore::overrides::Override>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut overrides = ignore::overrides::OverrideBuilder::new(".");
    for glob in globs {
        // ignore's message names the glob already.
        overrides.add(glob).map_err(|e| e.to_string())?;
    }
    overrides
        .build()
        .map(Some)
        .map_err(|e| format!("error parsing globs: {e}"))
}

/// The most threads `-j` starts: past a few per core they only wait on each other and on
/// the disk, and each holds an output buffer.
pub(super) fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from) * 8
}

/// Whether files of known size get a progress bar: `--progress`, `--no-progress`, or
/// when stderr is a terminal.
pub(super) fn progress_choice(progress: bool, no_progress: bool) -> Progress {
    if no_progress {
        Progress::Off
    } else if progress {
        Progress::Forced
    } else if io::stderr().is_terminal() {
        Progress::OnTerminal
    } else {
        Progress::Off
    }
}
