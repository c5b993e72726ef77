//! The progress bar of the streaming mode (stderr, for files of known size).

use std::io::{self, IsTerminal, Write};

pub(super) fn progress_bar(size: u64, forced: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(size);
    if forced && !io::stderr().is_terminal() {
        // indicatif draws nothing when stderr is not a terminal; `--progress` asks for it
        // anyway, so write one plain line a second instead of redrawing in place.
        bar.set_draw_target(indicatif::ProgressDrawTarget::term_like_with_hz(
            Box::new(PlainLines(std::sync::Mutex::new(None))),
            1,
        ));
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    ) {
        bar.set_style(style);
    }
    bar
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
