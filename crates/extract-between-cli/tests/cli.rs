//! The built binary, driven as a user would: stdin, files, flags, exit codes, tool mode.

use crate::common::cli::{BIN, run, spawn_piped, temp, text};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

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
    // The hint that another encoding can be named.
    assert!(err.contains("name it with -E, as -E latin1"), "{err}");
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
    // No match: nothing printed, as rg -c (`--include-zero` prints the 0).
    let out = run(&["--count", "-s", "[", "-e", "]"], b"nothing here");
    assert_eq!(text(&out.stdout), "");
    assert_eq!(out.status.code(), Some(1));
    let out = run(
        &["-c", "--include-zero", "-s", "[", "-e", "]"],
        b"nothing here",
    );
    assert_eq!(text(&out.stdout), "0\n");
    // Several inputs: each count named, as grep -c does; standard input as in messages.
    let a = temp("count-a.txt", b"[1][2][3]");
    let b = temp("count-b.txt", b"none");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = run(&["-c", "-s", "[", "-e", "]", a, b, "-"], b"[x]");
    assert_eq!(text(&out.stdout), format!("{a}:3\n(standard input):1\n"));
    let out = run(
        &["-c", "--include-zero", "-s", "[", "-e", "]", a, b, "-"],
        b"[x]",
    );
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
    assert!(text(&out.stderr).contains("-s/--start must not be empty"));
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

/// `-n` after a read that ends inside a multi-byte character: the character's first bytes
/// wait in the scanner for the rest, and the next read's newlines must still be placed at
/// their true offsets. Every cut point of 1- to 4-byte characters at the first read's edge,
/// then many lines of astral characters (cut wherever the reads fall), from a file and from a
/// pipe, against the line counted in the whole text.
#[test]
fn line_numbers_hold_after_a_read_ends_inside_a_character() {
    const READ: usize = 64 * 1024;
    for ch in ["x", "é", "€", "😀"] {
        for back in 1..=5 {
            let mut body = "a".repeat(READ - back);
            body.push_str(ch);
            body.push_str("[\n\n]");
            body.push_str(&"😀😀😀😀😀😀😀[\n]".repeat(3000));
            let expected: Vec<u64> = body
                .match_indices('[')
                .map(|(at, _)| 1 + body[..at].matches('\n').count() as u64)
                .collect();
            let path = temp("cut-lines.txt", body.as_bytes());
            let args = ["-n", "--json-lines", "-s", "[", "-e", "]"];
            for (from, out) in [
                (
                    "file",
                    run(&[&args[..], &[path.to_str().unwrap()]].concat(), b""),
                ),
                ("pipe", run(&args, body.as_bytes())),
            ] {
                assert_eq!(out.status.code(), Some(0), "{ch} {back} {from}");
                let got: Vec<u64> = text(&out.stdout)
                    .lines()
                    .map(|l| {
                        serde_json::from_str::<serde_json::Value>(l).unwrap()["line"]
                            .as_u64()
                            .unwrap()
                    })
                    .collect();
                assert_eq!(got.len(), expected.len(), "{ch} {back} {from}");
                let wrong = got.iter().zip(&expected).position(|(g, e)| g != e);
                assert_eq!(
                    wrong, None,
                    "{ch}, {back} bytes before the read's end, from a {from}"
                );
            }
        }
    }
}

/// `-n`: each match's line (its start marker's), `LINE:MATCH` after `PATH:`, and a `"line"`
/// field in JSON lines, right across read chunks (the file spans several, and markers
/// straddle their edges).
#[test]
fn line_numbers_count_the_start_markers_line_across_reads() {
    let mut body = String::new();
    let mut expected = Vec::new();
    for i in 0..20_000 {
        let line = i + 1;
        if i % 7 == 0 {
            expected.push(format!("{line}:m{i}"));
            body.push_str(&format!("<<m{i}>>"));
        }
        body.push_str("some text é\n");
    }
    let path = temp("lines.txt", body.as_bytes());
    let out = run(&["-n", "-s", "<<", "-e", ">>", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let got: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(got, expected);
    // From standard input too, with names and as JSON lines.
    let named = run(&["-n", "-H", "-s", "<<", "-e", ">>", "-"], body.as_bytes());
    assert_eq!(
        text(&named.stdout).lines().nth(1),
        Some(format!("(standard input):{}", expected[1]).as_str())
    );
    let json = run(
        &["-n", "--json-lines", "-s", "<<", "-e", ">>", "-"],
        body.as_bytes(),
    );
    let first: serde_json::Value =
        serde_json::from_str(text(&json.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["match"].as_str(), first["line"].as_u64()),
        (Some("m0"), Some(1))
    );
}
