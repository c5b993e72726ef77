//! The CLI on real directory trees, made here in temporary directories (`git init` where
//! ignore files matter), against what ripgrep selects and prints: nested `.gitignore`s,
//! `.ignore`, `.git/info/exclude`, hidden files, binary files, symbolic links with and
//! without `-L`, globs, depth, an unreadable file and invalid UTF-8 in the middle of a walk.
//!
//! Each case states its expected files itself, so it fails without ripgrep too; where `rg`
//! is installed (`.ci/run` installs it and sets `EXTRACT_BETWEEN_REQUIRE_RG=1`), the same
//! command is also run through ripgrep and the outputs must agree.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp_tree(name: &str) -> PathBuf {
    let dir = crate::common::scratch::path(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A tree where every searchable file holds `<t>NAME</t>`, NAME its path.
fn tree(name: &str) -> PathBuf {
    let root = temp_tree(name);
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git init");
    let files = [
        "top.html",
        "a/one.html",
        "a/deep/two.html",
        "a/skipped.html",
        "a/keep.txt",
        "b/ignored-by-dot-ignore.html",
        "excluded.html",
        ".hidden.html",
        ".hid/inner.html",
        "logs/app.log",
    ];
    for f in files {
        write(&root, f, format!("x <t>{f}</t> y\n").as_bytes());
    }
    write(&root, ".gitignore", b"logs/\n");
    write(&root, "a/.gitignore", b"skipped.html\n");
    write(&root, "b/.ignore", b"ignored-by-dot-ignore.html\n");
    write(&root, ".git/info/exclude", b"excluded.html\n");
    // Binary: a NUL in the first block (valid UTF-8 all the same).
    write(&root, "a/image.bin", b"GIF89a\0\0<t>binary</t>");
    std::os::unix::fs::symlink("top.html", root.join("link-to-top.html")).unwrap();
    std::os::unix::fs::symlink("a/deep", root.join("link-to-deep")).unwrap();
    root
}

fn ours(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// ripgrep with `args` in `dir`, for comparison.
fn run_rg(dir: &Path, args: &[&str]) -> Output {
    Command::new("rg")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn rg_available() -> bool {
    crate::common::process::tool_available(
        Command::new("rg").arg("--version"),
        "EXTRACT_BETWEEN_REQUIRE_RG",
        "ripgrep, to compare with",
        "apt-get install ripgrep",
    )
}

fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

/// `-l` over the tree with `flags`: the files searched that hold a match, against the
/// expected set and, if installed, `rg -l` with the same flags.
fn check_selection(root: &Path, flags: &[&str], expected: &[&str]) {
    let mut args = vec!["-l", "-s", "<t>", "-e", "</t>"];
    args.extend_from_slice(flags);
    args.push(".");
    let out = ours(root, &args);
    let got = sorted_lines(&out.stdout);
    let mut want: Vec<String> = expected.iter().map(|f| format!("./{f}")).collect();
    want.sort();
    assert_eq!(
        got,
        want,
        "flags {flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if rg_available() {
        let mut rg = vec!["-l", "--fixed-strings", "<t>"];
        rg.extend_from_slice(flags);
        rg.push(".");
        let out = run_rg(root, &rg);
        assert_eq!(sorted_lines(&out.stdout), want, "rg {rg:?} differs");
    }
}

#[test]
fn selection_follows_ripgrep_defaults_and_flags() {
    let root = tree("selection");
    let base = ["top.html", "a/one.html", "a/deep/two.html", "a/keep.txt"];
    check_selection(&root, &[], &base);
    let mut hidden = base.to_vec();
    hidden.extend([".hidden.html", ".hid/inner.html"]);
    check_selection(&root, &["--hidden"], &hidden);
    let mut all = base.to_vec();
    all.extend([
        "a/skipped.html",
        "b/ignored-by-dot-ignore.html",
        "excluded.html",
        "logs/app.log",
    ]);
    check_selection(&root, &["--no-ignore"], &all);
    // A glob that includes overrides the ignore rules for the files it names, as in
    // ripgrep; directories it does not name are still skipped (`.hid/`, `logs/`).
    check_selection(
        &root,
        &["-g", "*.html"],
        &[
            "top.html",
            "a/one.html",
            "a/deep/two.html",
            "a/skipped.html",
            "b/ignored-by-dot-ignore.html",
            "excluded.html",
            ".hidden.html",
        ],
    );
    check_selection(&root, &["-g", "!*.html"], &["a/keep.txt"]);
    check_selection(&root, &["--max-depth", "1"], &["top.html"]);
    let mut followed = base.to_vec();
    followed.extend(["link-to-top.html", "link-to-deep/two.html"]);
    check_selection(&root, &["-L"], &followed);
}

#[test]
fn a_file_named_on_the_command_line_is_always_searched() {
    let root = tree("named");
    // Ignored, hidden, binary: named, each is searched.
    for f in ["a/skipped.html", ".hidden.html", "a/image.bin"] {
        let out = ours(&root, &["-s", "<t>", "-e", "</t>", f]);
        assert_eq!(out.status.code(), Some(0), "{f}");
        assert!(!out.stdout.is_empty(), "{f}");
    }
}

#[test]
fn matches_are_printed_with_their_file_as_ripgrep_prints_them() {
    let root = tree("printed");
    let out = ours(&root, &["-s", "<t>", "-e", "</t>", "--sort", "path", "."]);
    assert_eq!(out.status.code(), Some(0));
    let got = String::from_utf8(out.stdout.clone()).unwrap();
    // In path order with --sort path.
    assert_eq!(
        got,
        "./a/deep/two.html:a/deep/two.html\n./a/keep.txt:a/keep.txt\n./a/one.html:a/one.html\n./top.html:top.html\n"
    );
    if rg_available() {
        let rg = run_rg(
            &root,
            &["-o", "--sort", "path", "<t>(.*?)</t>", "-r", "$1", "."],
        );
        assert_eq!(String::from_utf8_lossy(&rg.stdout), got);
    }
    // The same lines on many threads, in some order.
    let out = ours(&root, &["-j", "4", "-s", "<t>", "-e", "</t>", "."]);
    assert_eq!(sorted_lines(&out.stdout), sorted_lines(got.as_bytes()));
    // --no-filename, -c, and -H on one file.
    let out = ours(
        &root,
        &[
            "--no-filename",
            "--sort",
            "path",
            "-s",
            "<t>",
            "-e",
            "</t>",
            "a",
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a/deep/two.html\na/keep.txt\na/one.html\n"
    );
    let out = ours(
        &root,
        &["-c", "--sort", "path", "-s", "<t>", "-e", "</t>", "a"],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a/deep/two.html:1\na/keep.txt:1\na/one.html:1\n"
    );
    let out = ours(&root, &["-H", "-s", "<t>", "-e", "</t>", "top.html"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "top.html:top.html\n");
}

#[test]
fn errors_across_many_files_name_each_file_and_the_rest_is_searched() {
    let root = temp_tree("errors");
    for i in 0..20 {
        write(
            &root,
            &format!("f{i:02}.txt"),
            format!("<t>{i}</t>").as_bytes(),
        );
    }
    write(&root, "f07.txt", b"<t>ok</t> \xff\xfe <t>late</t>");
    write(&root, "f13.txt", b"<t>unclosed");
    std::os::unix::fs::symlink("nowhere", root.join("dangling")).unwrap();
    let out = ours(&root, &["-s", "<t>", "-e", "</t>", ".", "dangling"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("f07.txt") && stderr.contains("byte offset 10"),
        "{stderr}"
    );
    assert!(
        stderr.contains("f13.txt") && stderr.contains("unclosed start marker"),
        "{stderr}"
    );
    assert!(stderr.contains("dangling"), "{stderr}");
    let lines = sorted_lines(&out.stdout);
    // 18 good files, and f07's match before its invalid bytes.
    assert_eq!(lines.len(), 19, "{lines:?}");
    assert!(lines.contains(&"./f07.txt:ok".to_owned()));
    // Nothing matched anywhere: 1; no error and a match: 0.
    let out = ours(
        &root,
        &[
            "-s",
            "<none>",
            "-e",
            "</none>",
            "--no-ignore",
            "-g",
            "!f07.txt",
            "-g",
            "!f13.txt",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let out = ours(
        &root,
        &[
            "-s", "<t>", "-e", "</t>", "-g", "!f07.txt", "-g", "!f13.txt", ".",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn each_files_output_stays_together_in_parallel() {
    let root = temp_tree("grouped");
    // Files whose output passes the held-back buffer, and many small ones.
    for i in 0..4 {
        let body: String = (0..40_000).map(|n| format!("<t>big{i}-{n}</t>")).collect();
        write(&root, &format!("big{i}.txt"), body.as_bytes());
    }
    for i in 0..200 {
        write(
            &root,
            &format!("small/{i}.txt"),
            format!("<t>s{i}a</t><t>s{i}b</t>").as_bytes(),
        );
    }
    let out = ours(&root, &["-j", "4", "-s", "<t>", "-e", "</t>", "."]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    // Lines of one file are contiguous and in order.
    let mut seen = std::collections::HashSet::new();
    let mut current = String::new();
    let mut count = 0;
    for line in text.lines() {
        let (file, _) = line.split_once(':').unwrap();
        if file != current {
            assert!(seen.insert(file.to_owned()), "{file} printed in two pieces");
            current = file.to_owned();
        }
        count += 1;
    }
    assert_eq!(count, 4 * 40_000 + 200 * 2);
}

/// A glob that does not parse refuses the command before anything is searched, naming it,
/// alone or beside a valid one (as ripgrep: "error parsing glob").
/// `-c` over a tree leaves out files without a match, as `rg -c` does, and prints them with
/// `--include-zero`.
#[test]
fn counts_leave_out_files_without_a_match_unless_asked() {
    let root = temp_tree("counts");
    write(&root, "one.txt", b"<t>a</t> <t>b</t>\n");
    write(&root, "none.txt", b"nothing here\n");
    write(&root, "two.txt", b"<t>c</t>\n");
    for (flags, want) in [
        (&[][..], vec!["./one.txt:2", "./two.txt:1"]),
        (
            &["--include-zero"][..],
            vec!["./none.txt:0", "./one.txt:2", "./two.txt:1"],
        ),
    ] {
        let mut args = vec!["-c", "-s", "<t>", "-e", "</t>"];
        args.extend_from_slice(flags);
        args.push(".");
        let out = ours(&root, &args);
        assert_eq!(sorted_lines(&out.stdout), want, "{flags:?}");
        if rg_available() {
            // One match a line in these files: rg's line counts are the match counts.
            let mut rg = vec!["-c", "--fixed-strings", "</t>"];
            rg.extend_from_slice(flags);
            rg.push(".");
            let theirs = run_rg(&root, &rg);
            let ours_lines: Vec<String> = sorted_lines(&out.stdout)
                .into_iter()
                .map(|l| l.replace(":2", ":1"))
                .collect();
            assert_eq!(sorted_lines(&theirs.stdout), ours_lines, "rg {rg:?}");
        }
    }
    // A single file without a match prints nothing and exits 1, as rg -c.
    let out = ours(&root, &["-c", "-s", "<t>", "-e", "</t>", "none.txt"]);
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(1), &b""[..])
    );
}

/// A binary file named on the command line is searched, and its matches replaced by the
/// notice ripgrep prints; `-a` prints them; a walked binary file is skipped unless `-a`.
#[test]
fn a_named_binary_file_prints_a_notice_as_ripgrep_does() {
    let root = temp_tree("binary-notice");
    write(&root, "b.bin", b"bin\0ary <t>x</t> more\n");
    write(&root, "t.txt", b"text <t>z</t>\n");
    let notice = "binary file matches (found \"\\0\" byte around offset 3)\n";
    let cases: [(&[&str], String); 3] = [
        (&["b.bin"], notice.to_owned()),
        (&["b.bin", "t.txt"], format!("b.bin: {notice}t.txt:z\n")),
        (&["-a", "b.bin"], "x\n".to_owned()),
    ];
    for (paths, want) in cases {
        let mut args = vec!["-s", "<t>", "-e", "</t>"];
        args.extend_from_slice(paths);
        let out = ours(&root, &args);
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{paths:?}");
        assert_eq!(out.status.code(), Some(0), "{paths:?}");
        if rg_available() && !paths.contains(&"-a") {
            let mut rg = vec!["--fixed-strings", "<t>"];
            rg.extend_from_slice(paths);
            let theirs = run_rg(&root, &rg);
            let theirs = String::from_utf8_lossy(&theirs.stdout).into_owned();
            // rg prints lines, we print matches: the notices must be the same.
            let notices = |s: &str| {
                s.lines()
                    .filter(|l| l.contains("binary file"))
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            };
            assert_eq!(notices(&theirs), notices(&want), "rg {rg:?}");
        }
    }
    // Walking: skipped, or searched as text with -a.
    let out = ours(&root, &["-s", "<t>", "-e", "</t>", "--sort", "path", "."]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "./t.txt:z\n");
    let out = ours(
        &root,
        &["-a", "-s", "<t>", "-e", "</t>", "--sort", "path", "."],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "./b.bin:x\n./t.txt:z\n"
    );
}

/// UTF-16 files with a byte order mark (as Windows tools write them) are transcoded, a UTF-8
/// BOM dropped, and `-E LABEL` decodes any WHATWG encoding: the matches equal ripgrep's with
/// the same flags, and `--json-lines` offsets count in the decoded text.
#[test]
fn text_in_other_encodings_reads_as_ripgrep_reads_it() {
    let root = temp_tree("encodings");
    let text = "naïve <t>héllo</t> x <t>二</t>\n";
    let utf16 = |big: bool| -> Vec<u8> {
        let mut out = if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for unit in text.encode_utf16() {
            out.extend(if big {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    };
    write(&root, "le.txt", &utf16(false));
    write(&root, "be.txt", &utf16(true));
    write(
        &root,
        "bom8.txt",
        &[b"\xEF\xBB\xBF", text.as_bytes()].concat(),
    );
    // Latin-1: "café <t>naïve</t>"
    write(&root, "latin1.txt", b"caf\xe9 <t>na\xefve</t>\n");
    let cases: [(&[&str], &str, &str); 4] = [
        (&[], "le.txt", "héllo\n二\n"),
        (&[], "be.txt", "héllo\n二\n"),
        (&[], "bom8.txt", "héllo\n二\n"),
        (&["-E", "latin1"], "latin1.txt", "naïve\n"),
    ];
    for (flags, file, want) in cases {
        let mut args = flags.to_vec();
        args.extend(["-s", "<t>", "-e", "</t>", file]);
        let out = ours(&root, &args);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want,
            "{file} {flags:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if rg_available() {
            let mut rg = flags.to_vec();
            rg.extend(["-o", "-r", "$1", "<t>(.*?)</t>", file]);
            let theirs = run_rg(&root, &rg);
            assert_eq!(String::from_utf8_lossy(&theirs.stdout), want, "rg {rg:?}");
        }
    }
    // Offsets in the decoded text: "naïve " is 7 UTF-8 bytes, 6 UTF-16 units.
    let out = ours(
        &root,
        &["--json-lines", "-s", "<t>", "-e", "</t>", "le.txt"],
    );
    let first: serde_json::Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(
        (first["byte_start"].as_u64(), first["utf16_start"].as_u64()),
        (Some(10), Some(9))
    );
    // Sniffing off: the UTF-16 bytes are not UTF-8.
    for off in [&["-E", "none"][..], &["--no-encoding"]] {
        let mut args = off.to_vec();
        args.extend(["-s", "<t>", "-e", "</t>", "le.txt"]);
        assert_eq!(ours(&root, &args).status.code(), Some(2), "{off:?}");
    }
    let out = ours(&root, &["-E", "klingon", "-s", "a", "-e", "b", "le.txt"]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("-E/--encoding: unknown encoding \"klingon\"")
    );
}

#[test]
fn a_bad_glob_refuses_the_command_before_searching() {
    let root = tree("bad-glob");
    for args in [
        &["-g", "a/[", "-s", "<t>", "-e", "</t>", "."][..],
        &["-g", "*.html", "-g", "{x", "-s", "<t>", "-e", "</t>", "."],
    ] {
        let out = ours(&root, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} searched anyway");
        assert!(stderr.contains("error parsing glob '"), "{stderr}");
        // Said once.
        assert_eq!(stderr.matches("error parsing glob").count(), 1, "{stderr}");
    }
}

/// An absurd `-j` starts a bounded number of threads: the search of a small tree ends at
/// once instead of starting a hundred million threads.
#[test]
fn an_absurd_thread_count_is_bounded() {
    let root = tree("many-threads");
    let mut child = Command::new(env!("CARGO_BIN_EXE_extract-between"))
        .args(["-j", "100000000", "-c", "-s", "<t>", "-e", "</t>", "."])
        .current_dir(&root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "did not finish in 60 s"
    );
    assert_eq!(
        sorted_lines(&out.stdout).len(),
        4,
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// File names that are not UTF-8 print as their bytes, as ripgrep prints them: plain and
/// `-0` output carry the name as it is (two names that differ in one invalid byte stay
/// apart), and JSON lines give it as `{"bytes":"<base64>"}`.
#[test]
fn file_names_that_are_not_utf8_print_as_their_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let root = temp_tree("byte-names");
    for name in [&b"bad\xffname"[..], b"bad\xfename"] {
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(name)), "<t>x</t>").unwrap();
    }
    let args = ["--sort", "path", "-s", "<t>", "-e", "</t>"];
    let run = |extra: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend_from_slice(extra);
        all.push(".");
        ours(&root, &all).stdout
    };
    assert_eq!(run(&["-l", "-0"]), b"./bad\xfename\0./bad\xffname\0");
    assert_eq!(run(&[]), b"./bad\xfename:x\n./bad\xffname:x\n");
    assert_eq!(run(&["-c"]), b"./bad\xfename:1\n./bad\xffname:1\n");
    let json = run(&["--json-lines"]);
    let files: Vec<serde_json::Value> = String::from_utf8(json)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].clone())
        .collect();
    assert_eq!(
        files,
        [
            serde_json::json!({"bytes": "Li9iYWT+bmFtZQ=="}),
            serde_json::json!({"bytes": "Li9iYWT/bmFtZQ=="})
        ]
    );
}
