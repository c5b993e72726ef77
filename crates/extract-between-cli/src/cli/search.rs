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

use super::config::{Config, Format, Named, Settings};
use super::input::{open, open_walked};
use super::read::{Binary, Buffers, Searched, search_input};
use super::stdio::{Exit, complain};
use std::io::{self, BufWriter, Stdout, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A file's output held back before its worker takes standard output for itself.
pub(super) const GROUP_BYTES: usize = 256 * 1024;

/// What every search shares: the settings, and how the run is going.
pub(super) struct Search {
    settings: Settings,
    any_match: AtomicBool,
    any_error: AtomicBool,
    /// Set once, when the run must end now with this status (a closed or failed output, or
    /// `-q`'s first match).
    stop: OnceLock<Exit>,
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

    /// How one input's search went, counted into the run's.
    fn record(&self, searched: Searched) {
        if searched.matched {
            self.any_match.store(true, Ordering::Relaxed);
            if self.settings.format == Format::Quiet {
                // As grep -q: a match is the answer, whatever failed before it.
                self.stop_with(Exit::Match);
                return;
            }
        }
        if searched.failed {
            self.any_error.store(true, Ordering::Relaxed);
        }
        if let Some(e) = searched.write_error {
            write_failed(self, e);
        }
    }
}

/// Searches every input; returns the exit status.
pub(super) fn run(config: Config) -> Exit {
    let Config {
        settings,
        inputs,
        parallel,
    } = config;
    let search = Search::new(settings);
    let stdout = Mutex::new(BufWriter::with_capacity(128 * 1024, io::stdout()));
    if parallel {
        // Standard input first, then the rest in parallel.
        for _ in inputs.iter().filter(|i| matches!(i, Named::Stdin)) {
            let mut out = lock(&stdout);
            let stdin = (Path::new("-"), false);
            search_path(
                &search,
                stdin,
                search.named(),
                &mut *out,
                &mut Buffers::new(),
            );
        }
        let roots: Vec<PathBuf> = inputs
            .iter()
            .filter_map(|i| match i {
                Named::File(p) | Named::Dir(p) => Some(p.clone()),
                Named::Stdin => None,
            })
            .collect();
        walk_in_parallel(&search, &roots, &stdout);
    } else {
        let mut out = lock(&stdout);
        let mut buffers = Buffers::new();
        for input in &inputs {
            if search.stopped() {
                break;
            }
            let path = match input {
                Named::Dir(root) => {
                    walk(&search, root, &mut *out, &mut buffers);
                    continue;
                }
                Named::File(path) => path.as_path(),
                Named::Stdin => Path::new("-"),
            };
            search_path(
                &search,
                (path, false),
                search.named(),
                &mut *out,
                &mut buffers,
            );
        }
    }
    if !search.stopped()
        && let Err(e) = lock(&stdout).flush()
    {
        write_failed(&search, e);
    }
    search.exit()
}

/// Walks one directory on this thread, in the walker's order (`--sort path`, or one thread).
fn walk<W: Write>(search: &Search, root: &Path, out: &mut W, buffers: &mut Buffers) {
    for entry in walker(search, std::slice::from_ref(&root.to_path_buf())).build() {
        if search.stopped() {
            break;
        }
        if let Some((path, walked, binary)) = searchable(search, entry) {
            search_path(search, (&path, walked), binary, out, buffers);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// A walked entry to search: its path, whether the walk found it (rather than the command
/// line naming it), and what a binary file becomes. Walk errors are reported here.
fn searchable(
    search: &Search,
    entry: Result<ignore::DirEntry, ignore::Error>,
) -> Option<(PathBuf, bool, Binary)> {
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
            is_file.then_some((path, !named, binary))
        }
        Err(e) => {
            search.error(e);
            None
        }
    }
}

/// Walks the roots on `-j` threads, each file's output kept together.
fn walk_in_parallel(search: &Search, roots: &[PathBuf], stdout: &Mutex<BufWriter<Stdout>>) {
    if roots.is_empty() {
        return;
    }
    walker(search, roots).build_parallel().run(|| {
        let mut buffers = Buffers::new();
        let mut held_back = Vec::new();
        Box::new(move |entry| {
            if search.stopped() {
                return ignore::WalkState::Quit;
            }
            if let Some((path, walked, binary)) = searchable(search, entry) {
                // Made per file: a worker holds standard output only within one file.
                let mut grouped = Grouped {
                    shared: stdout,
                    buf: std::mem::take(&mut held_back),
                    held: None,
                };
                search_path(search, (&path, walked), binary, &mut grouped, &mut buffers);
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

/// Searches one path (a file, or `-` for standard input) into `out`, and records how it went.
fn search_path<W: Write>(
    search: &Search,
    (path, walked): (&Path, bool),
    binary: Binary,
    out: &mut W,
    buffers: &mut Buffers,
) {
    // A walked file is known to be a file: opened without a `stat`.
    let opened = if walked {
        open_walked(path)
    } else {
        open(path)
    };
    match opened {
        Ok(input) => {
            let searched = search_input(&search.settings, input, binary, out, buffers);
            search.record(searched);
        }
        Err(e) => search.error(format_args!("{}: {e}", path.display())),
    }
}
