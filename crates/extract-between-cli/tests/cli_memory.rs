//! The binary over big inputs, as a user would feed them: gigabytes through a pipe and
//! large files in bounded memory, matches cut across reads, a redirected file read from
//! its position, and one input searched on one thread.

use crate::common::cli::{BIN, run, spawn_piped, temp, text};
use crate::common::process::{blocked_reading, poll_until, status_kib, thread_names};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// Reads the child's stdout to the end while sampling its peak RSS (`VmHWM`, a high-water
/// mark, so samples taken while output flows see the peak); returns bytes read and KiB.
fn drain_sampling_peak_rss(child: &mut std::process::Child) -> (u64, u64) {
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let (mut total, mut peak_kib) = (0u64, 0u64);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        total += n as u64;
        if let Some(kib) = status_kib(pid, "VmHWM") {
            peak_kib = peak_kib.max(kib);
        }
    }
    (total, peak_kib)
}

/// Peak RSS while streaming 2 GiB with matches through a pipe. Slow in debug builds:
/// `cargo test --release --test tests -- --ignored cli_memory::`.
#[test]
#[ignore]
fn two_gib_through_a_pipe_in_bounded_memory() {
    let mut child = spawn_piped(&["-s", "[", "-e", "]"]);
    let mut stdin = child.stdin.take().unwrap();
    const LINE: &[u8] = b"lorem ipsum dolor sit amet [a match of moderate length] consectetur\n";
    let block = LINE.repeat(1000);
    let blocks = (2u64 << 30) / block.len() as u64 + 1;
    let writer = std::thread::spawn(move || {
        for _ in 0..blocks {
            stdin.write_all(&block).unwrap();
        }
    });
    let (total, peak_kib) = drain_sampling_peak_rss(&mut child);
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    eprintln!("output {total} bytes, peak RSS {peak_kib} KiB");
    let per_match = "a match of moderate length\n".len() as u64;
    assert_eq!(total, blocks * 1000 * per_match);
    assert!(peak_kib < 16 * 1024, "peak RSS {peak_kib} KiB");
}

const MIB: usize = 1 << 20;

#[test]
fn count_holds_nothing_of_a_match_however_long() {
    let mut child = spawn_piped(&["-c", "-s", "[", "-e", "]"]);
    let mut stdin = child.stdin.take().unwrap();
    // 64 MiB inside one match, four times the default `--max-match-bytes`.
    stdin.write_all(b"[").unwrap();
    let block = vec![b'x'; MIB];
    for _ in 0..64 {
        stdin.write_all(&block).unwrap();
    }
    // The pipe holds at most its buffer: the child has read nearly all of it and still
    // waits for more, so its high-water mark covers the match.
    let peak_kib = status_kib(child.id(), "VmHWM").unwrap();
    stdin.write_all(b"]").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(text(&out.stdout), "1\n");
    assert!(out.status.success());
    assert!(peak_kib < 16 * 1024, "peak RSS {peak_kib} KiB");
}

/// A text of `len` bytes (ASCII filler with `「…」` matches) in which, at each offset of
/// `cuts`, a start marker, a four-byte character inside a match and an end marker are
/// each cut by that offset (e.g. where the CLI's 64 KiB reads of a file end).
fn text_cut_at(len: usize, cuts: &[usize]) -> String {
    let mut s = String::with_capacity(len + 64);
    let filler = "lorem ipsum [not a marker] dolor sit amet 「one match」 consectetur\n";
    for &cut in cuts {
        // 「 (3 bytes) straddles `cut - 40`; 😀 straddles `cut`; 」 straddles `cut + 40`.
        while s.len() + filler.len() <= cut - 41 {
            s.push_str(filler);
        }
        while s.len() < cut - 41 {
            s.push('z');
        }
        s.push('「');
        while s.len() < cut - 2 {
            s.push('x');
        }
        s.push('😀');
        while s.len() < cut + 39 {
            s.push('y');
        }
        s.push('」');
        for at in [cut - 40, cut, cut + 40] {
            assert!(!s.is_char_boundary(at), "{at} must cut a character");
        }
    }
    while s.len() < len {
        s.push_str(filler);
    }
    s
}

#[test]
fn big_file_reads_like_a_pipe_across_chunk_ends() {
    let input = text_cut_at(9 * MIB, &[64 * 1024, 4 * MIB, 8 * MIB]);
    let path = temp("big-chunks.txt", input.as_bytes());
    let file = path.to_str().unwrap();
    let args = ["--json-lines", "-s", "「", "-e", "」"];
    let from_file = run(&[&args[..], &[file]].concat(), b"");
    let piped = run(&args, input.as_bytes());
    assert_eq!(
        from_file.status.code(),
        Some(0),
        "{}",
        text(&from_file.stderr)
    );
    // Same lines as from stdin, but for the file name.
    assert_eq!(
        text(&from_file.stdout),
        text(&piped.stdout).replace("\"file\":\"-\"", &format!("\"file\":{file:?}"))
    );
    // And the matches are the library's.
    let markers = extract_between::Markers::new("「", "」").unwrap();
    let expected = extract_between::Extractor::new(&markers)
        .unlimited()
        .extract(&input)
        .unwrap();
    let lines: Vec<String> = text(&from_file.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), expected.matches.len());
    for (line, m) in lines.iter().zip(&expected.matches) {
        assert!(
            line.starts_with(&format!("{{\"match\":{m:?},")),
            "{line} vs {m}"
        );
    }
    assert!(
        expected
            .matches
            .iter()
            .any(|m| m.contains('😀') && m.len() > 70)
    );
}

#[test]
fn big_file_invalid_utf8_names_its_offset_after_earlier_matches() {
    let mut bytes = text_cut_at(5 * MIB, &[]).into_bytes();
    let bad = 4 * MIB + 7;
    bytes[bad] = 0xFF;
    let path = temp("big-bad.txt", &bytes);
    let out = run(&["-s", "「", "-e", "」", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("invalid UTF-8 at byte offset {bad}")),
        "{}",
        text(&out.stderr)
    );
    let before = String::from_utf8_lossy(&bytes[..bad])
        .matches("「one match」")
        .count();
    assert!(before > 0);
    assert_eq!(
        text(&out.stdout).lines().count(),
        before,
        "matches before the bad byte"
    );
}

#[test]
fn big_file_in_bounded_memory() {
    // 48 MiB read in 64 KiB chunks: the file's size must not show in peak RSS.
    let path = temp("big.txt", text_cut_at(48 * MIB, &[]).as_bytes());
    let mut child = Command::new(BIN)
        .args(["-s", "「", "-e", "」", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (total, peak_kib) = drain_sampling_peak_rss(&mut child);
    assert!(child.wait().unwrap().success());
    assert!(total > 0);
    assert!(peak_kib < 16 * 1024, "peak RSS {peak_kib} KiB");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn stdin_redirected_from_a_file_is_read_from_its_position() {
    use std::io::{Seek, SeekFrom};
    // The first `skip` bytes were consumed by someone else (a shell's `read`, `head -c`).
    let input = text_cut_at(3 * MIB, &[2 * MIB]);
    let path = temp("stdin-file.txt", input.as_bytes());
    let skip = 1_000_003; // inside the filler, on a character boundary (filler is ASCII)
    assert!(input.is_char_boundary(skip));
    let mut file = std::fs::File::open(&path).unwrap();
    file.seek(SeekFrom::Start(skip as u64)).unwrap();
    let out = Command::new(BIN)
        .args(["-s", "「", "-e", "」"])
        .stdin(file.try_clone().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let markers = extract_between::Markers::new("「", "」").unwrap();
    let expected: String = extract_between::Extractor::new(&markers)
        .unlimited()
        .extract(&input[skip..])
        .unwrap()
        .matches
        .iter()
        .map(|m| format!("{m}\n"))
        .collect();
    assert_eq!(text(&out.stdout), expected);
    // The shared position is left at the end.
    assert_eq!(file.stream_position().unwrap(), input.len() as u64);
}

#[test]
fn one_input_is_searched_on_the_main_thread_alone() {
    // Standard input, then a named file (a FIFO, so that the process waits in its read).
    let mut child = spawn_piped(&["-s", "[", "-e", "]"]);
    let pid = child.id();
    let waiting = poll_until(std::time::Duration::from_secs(10), || {
        blocked_reading(pid, 0).then_some(())
    });
    assert!(waiting.is_some(), "never blocked reading stdin");
    assert_eq!(thread_names(pid).len(), 1, "{:?}", thread_names(pid));
    child.stdin.take().unwrap().write_all(b"a[b]c").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(text(&out.stdout), "b\n");

    let fifo = crate::common::scratch::path("fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let child = Command::new(BIN)
        .args(["-s", "[", "-e", "]"])
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let pid = child.id();
    let waiting = poll_until(std::time::Duration::from_secs(10), || {
        // The FIFO is the first descriptor after the standard three.
        blocked_reading(pid, 3).then_some(())
    });
    assert!(waiting.is_some(), "never blocked reading the file");
    assert_eq!(thread_names(pid).len(), 1, "{:?}", thread_names(pid));
    writer.write_all(b"x[y]z").unwrap();
    drop(writer);
    let out = child.wait_with_output().unwrap();
    assert_eq!(text(&out.stdout), "y\n");
    let _ = std::fs::remove_file(&fifo);
}
