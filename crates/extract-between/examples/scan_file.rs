//! A file of any size in constant memory: 64 KiB reads into one buffer, each match's
//! content written out as the scanner reports it, never held whole.
//!
//! `cargo run --release --example scan_file -- FILE START END` prints the matches of FILE,
//! a line each. Without arguments it writes a 64 MiB file to the temporary directory and
//! counts the matches in it.

use extract_between::{Markers, Pos, Scanner, Sink};
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::ops::ControlFlow;

/// Writes each match's content as it arrives, a newline after each; counts them.
struct Print<W: Write> {
    out: W,
    matches: u64,
    failed: Option<io::Error>,
}

impl<W: Write> Print<W> {
    /// Stops the scan at the first failed write, and keeps the error.
    fn write(&mut self, bytes: &[u8]) -> ControlFlow<()> {
        match self.out.write_all(bytes) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

impl<W: Write> Sink for Print<W> {
    fn open(&mut self, _marker: Pos, _content: Pos) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn content(&mut self, fragment: &[u8]) -> ControlFlow<()> {
        self.write(fragment)
    }

    fn close(&mut self, _content_end: Pos, _marker_end: Pos) -> ControlFlow<()> {
        self.matches += 1;
        self.write(b"\n")
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, start, end, quiet) = match &args[..] {
        [path, start, end] => (path.into(), start.as_str(), end.as_str(), false),
        [] => (sample()?, "[", "]", true),
        _ => return Err("usage: scan_file [FILE START END]".into()),
    };
    let mut scanner = Scanner::new(&Markers::new(start, end)?);
    let out: Box<dyn Write> = if quiet {
        Box::new(io::sink())
    } else {
        Box::new(BufWriter::new(io::stdout().lock()))
    };
    let mut sink = Print {
        out,
        matches: 0,
        failed: None,
    };
    let mut file = File::open(&path)?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            scanner.finish(&mut sink)?;
            break;
        }
        // `Break` means the sink asked to stop: here, only when a write failed.
        if scanner.feed(&buf[..n], &mut sink)?.is_break() {
            break;
        }
    }
    if let Some(e) = sink.failed {
        return Err(e.into());
    }
    sink.out.flush()?;
    eprintln!("{} matches in {}", sink.matches, path.display());
    if quiet {
        std::fs::remove_file(&path)?;
        assert_eq!(sink.matches, (64 << 20) / 32);
    }
    Ok(())
}

/// A 64 MiB file with a match every line.
fn sample() -> io::Result<std::path::PathBuf> {
    let path = std::env::temp_dir().join(format!("scan_file-{}.txt", std::process::id()));
    let mut out = BufWriter::new(File::create(&path)?);
    for i in 0..(64 << 20) / 32 {
        writeln!(out, "line {i:>10} holds [item {:>4}]", i % 1000)?;
    }
    out.flush()?;
    Ok(path)
}
