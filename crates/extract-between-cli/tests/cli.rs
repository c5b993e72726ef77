//! The built binary, driven as a user would: stdin, files, flags, exit codes, tool mode.

mod common;

use common::process::{blocked_reading, poll_until, status_kib, thread_names};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_extract-between");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The binary with piped standard input and output, for tests that feed it as they go.
fn spawn_piped(args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

fn temp(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("extract-between-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn stdin_matches_one_per_line_exit_0() {
    let out = run(&["-s", "[", "-e", "]"], b"pre[one]mid[two]post");
    assert_eq!(text(&out.stdout), "one\ntwo\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn no_match_exits_1() {
    let out = run(&["-s", "[", "-e", "]"], b"nothing here");
    assert_eq!(out.stdout, b"");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn dash_means_stdin() {
    let out = run(&["-s", "<", "-e", ">", "-"], b"<a>");
    assert_eq!(text(&out.stdout), "a\n");
}

#[test]
fn each_file_is_its_own_text() {
    // An unclosed start at the end of one file must not pair with the next file's end.
    let a = temp("a.txt", b"[a1] [open");
    let b = temp("b.txt", b"close] [b1]");
    let out = run(
        &[
            "-s",
            "[",
            "-e",
            "]",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
    );
    // Several files: each match after its file's name, as grep and ripgrep print.
    assert_eq!(
        text(&out.stdout),
        format!("{}:a1\n{}:b1\n", a.display(), b.display())
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("a.txt") && err.contains("unclosed start marker at byte offset 5"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_file_is_an_error_but_others_are_read() {
    let b = temp("ok.txt", b"[x]");
    let out = run(
        &[
            "-s",
            "[",
            "-e",
            "]",
            "/nonexistent/file",
            b.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(text(&out.stdout), format!("{}:x\n", b.display()));
    assert!(text(&out.stderr).contains("/nonexistent/file"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn null_separator() {
    let out = run(&["-0", "-s", "[", "-e", "]"], b"[a\nb][c]");
    assert_eq!(out.stdout, b"a\nb\0c\0");
}

#[test]
fn json_lines_offsets_on_multibyte_text() {
    let out = run(
        &["--json-lines", "-s", "「", "-e", "」"],
        "😀「é」".as_bytes(),
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"match": "é", "file": "-", "byte_start": 7, "byte_end": 9, "utf16_start": 3, "utf16_end": 4})
    );
}

/// Every `--json-lines` line names its own file (JSON-escaped) and gives offsets that slice
/// exactly its match out of that file, over texts long enough for the vector fast paths.
#[test]
fn json_lines_name_each_file_and_slice_its_text() {
    let one = format!("{}[first]{}[é😀]", "x".repeat(300), "字".repeat(100));
    let two = format!("{}[\"quoted\\\"]{}", "y".repeat(70), "z".repeat(200));
    let paths = [
        temp("json \"one\".txt", one.as_bytes()),
        temp("json\\two.txt", two.as_bytes()),
    ];
    let names: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let out = run(
        &["--json-lines", "-s", "[", "-e", "]", names[0], names[1]],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected = [(0, "first"), (0, "é😀"), (1, "\"quoted\\\"")];
    assert_eq!(lines.len(), expected.len(), "{lines:?}");
    for (line, (file, content)) in lines.iter().zip(expected) {
        let source = [&one, &two][file];
        assert_eq!(line["file"], names[file]);
        assert_eq!(line["match"], content);
        let at = |k: &str| line[k].as_u64().unwrap() as usize;
        assert_eq!(&source[at("byte_start")..at("byte_end")], content);
        let utf16: Vec<u16> = source.encode_utf16().collect();
        let sliced = String::from_utf16(&utf16[at("utf16_start")..at("utf16_end")]).unwrap();
        assert_eq!(sliced, content);
    }
}

#[test]
fn max_matches_stops_and_says_truncated() {
    let out = run(
        &["-m", "2", "-s", "[", "-e", "]"],
        b"[a][b][c] [never closed",
    );
    assert_eq!(text(&out.stdout), "a\nb\n");
    assert!(text(&out.stderr).contains("truncated"));
    assert_eq!(out.status.code(), Some(0));
    // Exactly at the cap: not truncated, and the rest is judged.
    let out = run(&["-m", "2", "-s", "[", "-e", "]"], b"[a][b]");
    assert_eq!(out.stderr, b"");
}

#[test]
fn unclosed_prints_earlier_matches_then_fails() {
    let out = run(&["-s", "[", "-e", "]"], b"[a][b] [c");
    assert_eq!(text(&out.stdout), "a\nb\n");
    let err = text(&out.stderr);
    assert!(
        err.contains("(standard input)") && err.contains("byte offset 7"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn invalid_utf8_mid_file_reports_offset_after_earlier_matches() {
    let mut data = b"[a]".repeat(50_000);
    let bad_at = data.len();
    data.push(0xFF);
    data.extend_from_slice(b"[z]");
    let path = temp("bad.txt", &data);
    let out = run(&["-s", "[", "-e", "]", path.to_str().unwrap()], b"");
    assert_eq!(out.stdout.len(), 50_000 * 2);
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.txt") && err.contains(&format!("invalid UTF-8 at byte offset {bad_at}")),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn match_longer_than_limit_fails() {
    let out = run(
        &["--max-match-bytes", "4", "-s", "[", "-e", "]"],
        b"[ok][too long]",
    );
    assert_eq!(text(&out.stdout), "ok\n");
    assert!(text(&out.stderr).contains("match_too_large"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn count_prints_how_many_matches_each_input_holds() {
    let out = run(&["-c", "-s", "[", "-e", "]"], b"[a][b] x [c]");
    assert_eq!(text(&out.stdout), "3\n");
    assert_eq!(out.status.code(), Some(0));
    let out = run(&["--count", "-s", "[", "-e", "]"], b"nothing here");
    assert_eq!(text(&out.stdout), "0\n");
    assert_eq!(out.status.code(), Some(1));
    // Several inputs: each count named, as grep -c does; standard input as in messages.
    let a = temp("count-a.txt", b"[1][2][3]");
    let b = temp("count-b.txt", b"none");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = run(&["-c", "-s", "[", "-e", "]", a, b, "-"], b"[x]");
    assert_eq!(
        text(&out.stdout),
        format!("{a}:3\n{b}:0\n(standard input):1\n")
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn count_gathers_nothing_so_match_length_is_no_limit() {
    // What `match_longer_than_limit_fails` refuses is counted here.
    let out = run(
        &["-c", "--max-match-bytes", "4", "-s", "[", "-e", "]"],
        b"[ok][too long]",
    );
    assert_eq!(text(&out.stdout), "2\n");
    assert_eq!(out.stderr, b"");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn count_of_matches_before_an_error_then_the_error() {
    let out = run(&["-c", "-s", "[", "-e", "]"], b"[a][b] [c");
    assert_eq!(text(&out.stdout), "2\n");
    assert!(
        text(&out.stderr).contains("unclosed start marker at byte offset 7"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn count_stops_at_max_matches() {
    let out = run(&["-c", "-m", "2", "-s", "[", "-e", "]"], b"[a][b][c] [d");
    assert_eq!(text(&out.stdout), "2\n");
    assert!(text(&out.stderr).contains("truncated"));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn count_is_its_own_format() {
    for other in ["--json-lines", "-0", "-q"] {
        let out = run(&["-c", other, "-s", "[", "-e", "]"], b"[a]");
        assert!(text(&out.stderr).contains("cannot be used with"), "{other}");
        assert_eq!(out.status.code(), Some(2));
    }
}

#[test]
fn quiet_prints_nothing_and_answers_by_exit_status() {
    // The unclosed start after the first match is never read: the match is the answer.
    let out = run(&["-q", "-s", "[", "-e", "]"], b"[a] [b");
    assert_eq!((out.stdout.len(), out.stderr.len()), (0, 0));
    assert_eq!(out.status.code(), Some(0));
    let out = run(&["--quiet", "-s", "[", "-e", "]"], b"nothing");
    assert_eq!((out.stdout.len(), out.status.code()), (0, Some(1)));
    let out = run(&["-q", "-s", "[", "-e", "]"], b"[a");
    assert!(text(&out.stderr).contains("unclosed start marker"));
    assert_eq!((out.stdout.len(), out.status.code()), (0, Some(2)));
    // As grep -q: an error before a match is said, and the match still decides.
    let ok = temp("quiet-ok.txt", b"[x]");
    let out = run(
        &[
            "-q",
            "-s",
            "[",
            "-e",
            "]",
            "/nonexistent/q",
            ok.to_str().unwrap(),
        ],
        b"",
    );
    assert!(text(&out.stderr).contains("/nonexistent/q"));
    assert_eq!((out.stdout.len(), out.status.code()), (0, Some(0)));
}

#[test]
fn quiet_stops_reading_at_the_first_match() {
    let mut child = spawn_piped(&["-q", "-s", "[", "-e", "]"]);
    // A match, and then the input stays open: only stopping at the match ends the run.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"text [a match] and more").unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "still reading after its first match"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert!(status.success());
    drop(stdin);
}

#[test]
fn bad_markers_exit_2() {
    let out = run(&["-s", "", "-e", "]"], b"");
    assert!(text(&out.stderr).contains("start must be a non-empty string"));
    assert_eq!(out.status.code(), Some(2));
    let long = "€".repeat(1366);
    let out = run(&["-s", "[", "-e", &long], b"");
    assert!(text(&out.stderr).contains("4098"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn closed_pipe_ends_quietly() {
    let mut child = Command::new(BIN)
        .args(["-s", "[", "-e", "]"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = b"[match]".repeat(10_000);
        for _ in 0..200 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 6];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"match\n");
    drop(stdout); // like `| head -1`
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn tool_mode_answers_like_the_contract() {
    for (body, code) in [
        (
            r#"{"text":"pre[one]mid[two]post","start":"[","end":"]"}"#,
            0,
        ),
        (r#"{"text":"a[b","start":"[","end":"]"}"#, 1),
        (r#"{"text":"a","start":"","end":"]"}"#, 2),
        ("not json", 2),
    ] {
        let out = run(&["tool"], body.as_bytes());
        let expected = extract_between::request::execute(body.as_bytes()).body + "\n";
        assert_eq!(text(&out.stdout), expected, "{body}");
        assert_eq!(out.status.code(), Some(code), "{body}");
    }
}

#[test]
fn tool_mode_reads_a_request_file() {
    let path = temp(
        "req.json",
        br#"{"text":"[x]","start":"[","end":"]","max_matches":1}"#,
    );
    // As `--request FILE` or as a plain argument, like the streaming mode's files.
    for args in [&["tool", "--request"][..], &["tool"][..]] {
        let out = Command::new(BIN).args(args).arg(&path).output().unwrap();
        assert_eq!(
            text(&out.stdout),
            "{\"matches\":[\"x\"],\"truncated\":false}\n",
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0));
    }
    let out = run(&["tool", "-"], &std::fs::read(&path).unwrap());
    assert_eq!(
        text(&out.stdout),
        "{\"matches\":[\"x\"],\"truncated\":false}\n"
    );
}

#[test]
fn tool_mode_rejects_oversized_body() {
    let body = vec![b' '; 4 * 1024 * 1024 + 10];
    let out = run(&["tool"], &body);
    assert!(text(&out.stdout).contains("payload_too_large"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn card_prints_the_card() {
    let out = run(&["card"], b"");
    assert_eq!(text(&out.stdout), extract_between::card::CARD_JSON);
}

#[test]
fn help_has_examples_and_version_works() {
    let out = run(&["--help"], b"");
    assert!(text(&out.stdout).contains("Examples:"));
    assert!(text(&out.stdout).starts_with("Streaming extraction of the exact text"));
    for (args, what) in [
        (&["--help"][..], "the long help"),
        (&["-h"], "the short help"),
    ] {
        let help = text(&run(args, b"").stdout);
        // The library's rustdoc (links, doctests) is not the user's help text.
        for leak in ["```", "[`", "clap"] {
            assert!(!help.contains(leak), "{what} shows {leak:?}:\n{help}");
        }
    }
    let out = run(&["--version"], b"");
    assert!(text(&out.stdout).starts_with("extract-between "));
}

/// Peak RSS while streaming 2 GiB with matches through a pipe. Slow in debug builds:
/// `cargo test --release --test cli -- --ignored`.
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
fn progress_only_when_asked_on_a_non_terminal() {
    let path = temp("progress.txt", &b"[x]".repeat(400_000));
    let args = ["-s", "[", "-e", "]", path.to_str().unwrap()];
    let quiet = run(&args, b"");
    assert_eq!(
        text(&quiet.stderr),
        "",
        "stderr is a pipe: no bar by default"
    );
    let forced = run(&[&["--progress"][..], &args[..]].concat(), b"");
    assert!(
        text(&forced.stderr).contains("MiB"),
        "{}",
        text(&forced.stderr)
    );
    assert_eq!(forced.stdout, quiet.stdout);
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

/// Output that cannot be written (a full disk: `/dev/full`) is one clear error and exit 2,
/// and the remaining files are not read for nothing. It was reported per file and again by
/// the final flush.
#[test]
fn a_failed_write_is_reported_once_and_ends_the_run() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: nothing to check.
    };
    let a = temp("full-a.txt", &b"[a]".repeat(100_000));
    let b = temp("full-b.txt", b"[b]");
    let out = Command::new(BIN)
        .args(["-s", "[", "-e", "]"])
        .arg(&a)
        .arg(&b)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.matches("writing output").count(), 1, "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

/// The tool mode and `card` report a failed write too (exit 2), instead of exiting 0 with
/// nothing written.
#[test]
fn tool_and_card_report_a_failed_write() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: nothing to check.
    };
    for args in [&["tool"][..], &["card"][..]] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(full.try_clone().unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(br#"{"text":"[a]","start":"[","end":"]"}"#);
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.matches("writing output").count(), 1, "{args:?}: {err}");
    }
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

    let fifo = std::env::temp_dir().join(format!("extract-between-fifo-{}", std::process::id()));
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

/// `command` run by `script` on a pseudo-terminal (stdin and stdout are a terminal), in
/// `dir`, with `env`; its output with the terminal's `\r\n` as `\n`. `None` without `script`.
fn on_terminal(dir: &std::path::Path, command: &str, env: &[(&str, &str)]) -> Option<String> {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(text(&out.stdout).replace("\r\n", "\n"))
}

#[test]
fn no_path_and_a_terminal_on_stdin_searches_the_current_directory() {
    let dir = temp("cwd-tree/a.txt", b"x[one]y")
        .parent()
        .unwrap()
        .to_path_buf();
    std::fs::write(dir.join("b.txt"), b"[two]").unwrap();
    let Some(out) = on_terminal(&dir, &format!("{BIN} -s [ -e ] --color never"), &[]) else {
        eprintln!("skipped: no script(1) for a pseudo-terminal");
        return;
    };
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    // Named as ripgrep names them: no `./` in front.
    assert_eq!(lines, ["a.txt:one", "b.txt:two"], "{out:?}");
    // A pipe on stdin is still read, whatever the directory holds.
    let out = run(&["-s", "[", "-e", "]"], b"[piped]");
    assert_eq!(text(&out.stdout), "piped\n");
}

#[test]
fn file_names_are_coloured_on_a_terminal_or_when_asked() {
    let dir = temp("colour/a.txt", b"[one]")
        .parent()
        .unwrap()
        .to_path_buf();
    let magenta = "\x1b[35m";
    let named = |args: &[&str]| {
        let mut all = vec!["-s", "[", "-e", "]", "-H"];
        all.extend_from_slice(args);
        let out = Command::new(BIN)
            .args(&all)
            .arg(dir.join("a.txt"))
            .output()
            .unwrap();
        text(&out.stdout)
    };
    assert!(named(&["--color", "always"]).starts_with(magenta));
    assert!(named(&["-l", "--color", "always"]).starts_with(magenta));
    assert!(!named(&["--color", "never"]).contains('\x1b'));
    // auto: a pipe gets none; JSON lines never.
    assert!(!named(&[]).contains('\x1b'));
    assert!(!named(&["--json-lines", "--color", "always"]).contains('\x1b'));
    // The terminal shows stderr too: no progress bar.
    let command = format!("{BIN} -s [ -e ] -H --no-progress a.txt");
    let Some(shown) = on_terminal(&dir, &command, &[]) else {
        eprintln!("skipped: no script(1) for a pseudo-terminal");
        return;
    };
    assert!(shown.starts_with(magenta), "{shown:?}");
    let plain = on_terminal(&dir, &command, &[("NO_COLOR", "1")]).unwrap();
    assert_eq!(plain, "a.txt:one\n");
}

#[test]
fn completions_and_the_man_page_come_from_the_same_definitions() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = text(&out.stdout);
        assert!(script.contains("max-matches"), "{shell}: {script}");
        assert!(script.contains("color"), "{shell}");
    }
    // The bash script parses.
    let bash = Command::new(BIN)
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let path = temp("completion.bash", &bash.stdout);
    assert!(
        Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status()
            .unwrap()
            .success()
    );
    let man = Command::new(BIN).arg("man").output().unwrap();
    assert!(man.status.success());
    let page = text(&man.stdout);
    assert!(page.contains(".TH extract-between 1"), "{page}");
    assert!(page.contains("max\\-matches"), "{page}");
}
