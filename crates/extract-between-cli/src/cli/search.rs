//! The streaming mode over its inputs: files and standard input in the order given, and
//! directories walked as ripgrep walks them (the `ignore` crate: `.gitignore` inside a git
//! repository, `.ignore`, `.git/info/exclude`, hidden files skipped, binary files skipped
//! quietly; a file named on the command line is always searched).
//!
//! With a directory among the inputs, files are searched on `-j` threads (default: the
//! cores) and printed as each finishes, each file's output together. A worker gathers a
//! file's output in a buffer of at most [`GROUP_BYTES`]; past that it takes standard
//! output for itself and streams the rest of that file straight to it, so memory stays at
//! one buffer per worker however much a file prints. `--sort path` searches on one thread,
//! in path order.

use super::encoding::Decoding;
use super::input::{Input, open, open_walked};
use super::progress::progress_bar;
use super::scan::{Binary, Failure, Format, READ_CHUNK, Writer, report, run_one};
use super::stdio::{Exit, complain};
use extract_between::{Capped, Markers};
use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A file's output held back before its worker takes standard output for itself.
pub(super) const GROUP_BYTES: usize = 256 * 1024;

/// What the command line asked for.
pub(super) struct Settings {
    pub(super) markers: Markers,
    pub(super) format: Format,
    pub(super) max_matches: u64,
    pub(super) max_match_bytes: usize,
    /// `PATH:` before matches and counts.
    pub(super) with_filename: bool,
    /// `-l` names end with NUL (`-0`) instead of a newline.
    pub(super) null_names: bool,
    /// `-c` prints a count of 0 too (`--include-zero`).
    pub(super) include_zero: bool,
    /// Binary inputs are text (`-a/--text`).
    pub(super) text: bool,
    /// How inputs are decoded (`-E`, `--no-encoding`).
    pub(super) decoding: Decoding,
    pub(super) progress: Progress,
    /// File names in colour (`--color`).
    pub(super) color: bool,
    pub(super) walk: WalkOptions,
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

/// What every search shares: the settings, and how the run is going.
pub(super) struct Search {
    settings: Settings,
    any_match: AtomicBool,
    any_error: AtomicBool,
    /// Set once, when the run must end now with this status (a closed or failed output, or
    /// `-q`'s first match).
    stop: OnceLock<Exit>,
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

impl Search {
    /// What a binary input named on the command line (or standard input) becomes.
    fn named(&self) -> Binary {
        if self.settings.text {
            Binary::Text
        } else {
            Binary::Search
        }
    }

    pub(super) fn new(settings: Settings) -> Search {
        Search {
            settings,
            any_match: AtomicBool::new(false),
            any_error: AtomicBool::new(false),
            stop: OnceLock::new(),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.get().is_some()
    }

    /// Ends the run with `exit`, unless it already ended.
    fn stop_with(&self, exit: Exit) {
        let _ = self.stop.set(exit);
    }

    /// Says what went wrong with one input; the run goes on, and exits 2.
    fn error(&self, what: impl std::fmt::Display) {
        complain(what);
        self.any_error.store(true, Ordering::Relaxed);
    }

    /// The exit status: grep's (a match, none, any error), or the stop's.
    fn exit(&self) -> Exit {
        match self.stop.get() {
            Some(&exit) => exit,
            None if self.any_error.load(Ordering::Relaxed) => Exit::Error,
            None => self.found(),
        }
    }

    fn found(&self) -> Exit {
        if self.any_match.load(Ordering::Relaxed) {
            Exit::Match
        } else {
            Exit::NoMatch
        }
    }

    /// The reader of our output went away: end quietly, as grep does.
    fn closed_pipe(&self) {
        self.stop_with(self.found());
    }
}

/// Reusable buffers of one worker.
struct Buffers {
    read: Vec<u8>,
    content: Vec<u8>,
}

impl Buffers {
    fn new() -> Buffers {
        Buffers {
            read: vec![0u8; READ_CHUNK],
            content: Vec::new(),
        }
    }
}

/// Searches every input; returns the exit status.
pub(super) fn run(search: &Search, files: &[PathBuf]) -> Exit {
    let stdout = Mutex::new(BufWriter::with_capacity(128 * 1024, io::stdout()));
    let dirs = files.iter().any(|p| p.as_os_str() != "-" && p.is_dir());
    if dirs && search.settings.walk.threads > 1 && !search.settings.walk.sort {
        // Standard input first, then the rest in parallel.
        for path in files.iter().filter(|p| p.as_os_str() == "-") {
            let mut out = lock(&stdout);
            search_path(search, path, search.named(), &mut *out, &mut Buffers::new());
        }
        parallel(search, files, &stdout);
    } else {
        let mut out = lock(&stdout);
        let mut buffers = Buffers::new();
        for path in files {
            if search.stopped() {
                break;
            }
            if path.as_os_str() != "-" && path.is_dir() {
                for entry in walker(search, std::slice::from_ref(path)).build() {
                    if search.stopped() {
                        break;
                    }
                    if let Some((path, binary)) = searchable(search, entry) {
                        search_path(search, &path, binary, &mut *out, &mut buffers);
                    }
                }
            } else {
                search_path(search, path, search.named(), &mut *out, &mut buffers);
            }
        }
    }
    if !search.stopped()
        && let Err(e) = lock(&stdout).flush()
    {
        write_failed(search, e);
    }
    search.exit()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// The walker over `roots`, with the walk options.
fn walker(search: &Search, roots: &[PathBuf]) -> ignore::WalkBuilder {
    let w = &search.settings.walk;
    let mut builder = ignore::WalkBuilder::new(&roots[0]);
    for root in &roots[1..] {
        builder.add(root);
    }
    builder
        .hidden(!w.hidden)
        .ignore(!w.no_ignore)
        .git_ignore(!w.no_ignore)
        .git_exclude(!w.no_ignore)
        .git_global(!w.no_ignore)
        .parents(!w.no_ignore)
        .follow_links(w.follow)
        .max_depth(w.max_depth)
        .threads(w.threads);
    if w.sort {
        builder.sort_by_file_path(|a, b| a.cmp(b));
    }
    if let Some(globs) = &w.globs {
        builder.overrides(globs.clone());
    }
    builder
}

/// A walked entry to search: its path, and whether a binary file is searched (only when
/// it was named on the command line). Walk errors are reported here.
fn searchable(
    search: &Search,
    entry: Result<ignore::DirEntry, ignore::Error>,
) -> Option<(PathBuf, Binary)> {
    match entry {
        Ok(entry) => {
            let named = entry.depth() == 0;
            let is_file =
                entry.file_type().is_some_and(|t| t.is_file()) || (named && entry.path().is_file());
            let binary = match (search.settings.text, named) {
                (false, false) => Binary::Skip,
                _ => search.named(),
            };
            let path = entry.into_path();
            let path = match path.strip_prefix(".") {
                Ok(inside) if search.settings.walk.implicit_root => inside.to_path_buf(),
                _ => path,
            };
            is_file.then_some((path, binary))
        }
        Err(e) => {
            search.error(e);
            None
        }
    }
}

fn parallel(search: &Search, files: &[PathBuf], stdout: &Mutex<BufWriter<Stdout>>) {
    let roots: Vec<PathBuf> = files
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    if roots.is_empty() {
        return;
    }
    walker(search, &roots).build_parallel().run(|| {
        let mut buffers = Buffers::new();
        let mut held_back = Vec::new();
        Box::new(move |entry| {
            if search.stopped() {
                return ignore::WalkState::Quit;
            }
            if let Some((path, binary)) = searchable(search, entry) {
                // Made per file: a worker holds standard output only within one file.
                let mut grouped = Grouped {
                    shared: stdout,
                    buf: std::mem::take(&mut held_back),
                    held: None,
                };
                search_path(search, &path, binary, &mut grouped, &mut buffers);
                if let Err(e) = grouped.finish() {
                    write_failed(search, e);
                }
                held_back = std::mem::take(&mut grouped.buf);
            }
            if search.stopped() {
                ignore::WalkState::Quit
            } else {
                ignore::WalkState::Continue
            }
        })
    });
}

/// One file's output, held back (up to [`GROUP_BYTES`]) so that files do not interleave.
struct Grouped<'a> {
    shared: &'a Mutex<BufWriter<Stdout>>,
    buf: Vec<u8>,
    /// Standard output, taken once the file printed more than the buffer holds.
    held: Option<MutexGuard<'a, BufWriter<Stdout>>>,
}

impl Grouped<'_> {
    /// The file is done: its output goes out, and standard output is free again.
    fn finish(&mut self) -> io::Result<()> {
        let result = match self.held.take() {
            Some(_released) => Ok(()),
            None if self.buf.is_empty() => Ok(()),
            None => lock(self.shared).write_all(&self.buf),
        };
        self.buf.clear();
        if self.buf.capacity() > GROUP_BYTES * 2 {
            self.buf = Vec::new();
        }
        result
    }
}

impl Write for Grouped<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(out) = &mut self.held {
            return out.write(bytes);
        }
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= GROUP_BYTES {
            let mut out = lock(self.shared);
            out.write_all(&self.buf)?;
            self.buf.clear();
            self.held = Some(out);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn write_failed(search: &Search, e: io::Error) {
    if e.kind() == io::ErrorKind::BrokenPipe {
        // The reader went away (`| head`): end quietly, as grep and ripgrep do.
        search.closed_pipe();
    } else if !search.stopped() {
        complain(format_args!("writing output: {e}"));
        search.stop_with(Exit::Error);
    }
}

/// Searches one path (a file, or `-` for standard input) into `out`.
fn search_path<W: Write>(
    search: &Search,
    path: &Path,
    binary: Binary,
    out: &mut W,
    buffers: &mut Buffers,
) {
    // A walked file (found, not named: binary files skipped) is known to be a file.
    let opened = match binary {
        Binary::Skip => open_walked(path),
        Binary::Search | Binary::Text => open(path),
    };
    match opened {
        Ok(input) => search_input(search, input, binary, out, buffers),
        Err(e) => search.error(format_args!("{}: {e}", path.display())),
    }
}

fn search_input<W: Write>(
    search: &Search,
    input: Input,
    binary: Binary,
    out: &mut W,
    buffers: &mut Buffers,
) {
    let label = if input.name == "-" {
        "(standard input)".to_string()
    } else {
        input.name.clone()
    };
    // In the output the name is its bytes, as the system holds them (ripgrep does the same).
    let shown: &[u8] = if input.name == "-" {
        label.as_bytes()
    } else {
        &input.bytes
    };
    // Magenta, as ripgrep shows paths.
    let shown = if search.settings.color {
        [b"\x1b[35m", shown, b"\x1b[0m"].concat()
    } else {
        shown.to_vec()
    };
    let prefix = if search.settings.with_filename {
        [&shown[..], b":"].concat()
    } else {
        Vec::new()
    };
    let mut bar = match (input.size, search.settings.progress) {
        (Some(size), Progress::Forced) => Some(progress_bar(size, true)),
        (Some(size), Progress::OnTerminal) => Some(progress_bar(size, false)),
        _ => None,
    };
    let mut writer = Writer::new(
        out,
        search.settings.format,
        &input.bytes,
        &prefix,
        search.settings.max_match_bytes,
        std::mem::take(&mut buffers.content),
    );
    let mut sink = Capped::new(&mut writer, search.settings.max_matches);
    let mut reader = input.reader;
    let result = run_one(
        &search.settings.markers,
        &mut *reader,
        &mut buffers.read,
        &mut sink,
        bar.as_mut(),
        (binary, search.settings.decoding),
    );
    let truncated = sink.truncated();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if writer.printed() > 0 {
        search.any_match.store(true, Ordering::Relaxed);
        if search.settings.format == Format::Quiet {
            // As grep -q: a match is the answer, whatever failed before it.
            search.stop_with(Exit::Match);
            return;
        }
    }
    // The count of the matches completed before any failure, as the other formats print
    // those matches (a failed write has nowhere to go); `-l` names a file with a match.
    let result = match result {
        done @ (Ok(true)
        | Err(Failure::Scan(_) | Failure::MatchTooLarge(..) | Failure::Read(_))) => writer
            .summary(
                &shown,
                search.settings.null_names,
                search.settings.include_zero,
            )
            .map_err(Failure::Write)
            .and(done),
        other => other,
    };
    let printed = writer.printed();
    buffers.content = writer.into_content();
    match result {
        Ok(_) => {
            if truncated {
                let matches = if printed == 1 { "match" } else { "matches" };
                complain(format_args!(
                    "{label}: output truncated after {printed} {matches} (--max-matches); more follow"
                ));
            }
        }
        Err(Failure::Write(e)) => write_failed(search, e),
        Err(failure) => {
            search.any_error.store(true, Ordering::Relaxed);
            report(&label, failure, search.settings.format == Format::Json);
        }
    }
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
