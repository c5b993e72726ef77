//! The progress bar of the streaming mode (stderr, for files of known size). Unless
//! `--progress` asked for it, it appears only once a file has taken a second: a bar that
//! flashes for a small file is noise.

use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// How long a file is read before its bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A file's bar, hidden until the file has taken [`SHOW_AFTER`].
pub(super) struct Bar {
    bar: ProgressBar,
    since: Instant,
    /// Where the bar draws once shown (`None`: shown already).
    pending: Option<ProgressDrawTarget>,
}

impl Bar {
    /// Counts `n` more bytes read, showing the bar once the file has taken long enough.
    pub(super) fn inc(&mut self, n: u64) {
        self.bar.inc(n);
        if self.pending.is_some()
            && self.since.elapsed() >= SHOW_AFTER
            && let Some(target) = self.pending.take()
        {
            self.bar.set_draw_target(target);
        }
    }

    /// Removes the bar from the screen, if it was shown.
    pub(super) fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

pub(super) fn progress_bar(size: u64, forced: bool) -> Bar {
    let bar = ProgressBar::with_draw_target(Some(size), ProgressDrawTarget::hidden());
    let target = if forced && !io::stderr().is_terminal() {
        // indicatif draws nothing when stderr is not a terminal; `--progress` asks for it
        // anyway, so write one plain line a second instead of redrawing in place.
        ProgressDrawTarget::term_like_with_hz(Box::new(PlainLines(std::sync::Mutex::new(None))), 1)
    } else {
        ProgressDrawTarget::stderr()
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    // Asked for: shown at once; otherwise once the file has taken a second.
    let pending = if forced {
        bar.set_draw_target(target);
        None
    } else {
        Some(target)
    };
    Bar {
        bar,
        since: Instant::now(),
        pending,
    }
}

/// A "terminal" that cannot move the cursor: a redraw becomes a new stderr line, at most one
/// a second (indicatif's own rate limit allows bursts).
#[derive(Debug)]
struct PlainLines(std::sync::Mutex<Option<std::time::Instant>>);

impl PlainLines {
    fn line(&self, s: &str) -> io::Result<()> {
        let Ok(mut last) = self.0.lock() else {
            return Ok(());
        };
        let now = std::time::Instant::now();
        if s.trim().is_empty() || last.is_some_and(|t| now.duration_since(t).as_secs() < 1) {
            return Ok(());
        }
        *last = Some(now);
        writeln!(io::stderr(), "{}", s.trim_end())
    }
}

impl indicatif::TermLike for PlainLines {
    fn width(&self) -> u16 {
        80
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.line(s)
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        self.line(s)
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}
