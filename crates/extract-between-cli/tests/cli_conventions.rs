//! The conventions of a published command-line tool, checked on the built binary: the
//! current directory when stdin is a terminal, colour, progress bars, completions and the
//! man page.

use crate::common::cli::{BIN, run, temp, text};
use std::process::{Command, Stdio};

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
        crate::common::process::skipped(
            "script(1), for a pseudo-terminal",
            "apt-get install util-linux",
        );
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
        crate::common::process::skipped(
            "script(1), for a pseudo-terminal",
            "apt-get install util-linux",
        );
        return;
    };
    assert!(shown.starts_with(magenta), "{shown:?}");
    let plain = on_terminal(&dir, &command, &[("NO_COLOR", "1")]).unwrap();
    assert_eq!(plain, "a.txt:one\n");
}

/// On a terminal a small file's search shows no bar: one appears only for a file that takes
/// a second.
#[test]
fn a_quick_file_on_a_terminal_flashes_no_progress_bar() {
    let dir = temp("quick-bar/a.txt", b"x[one]y and more text")
        .parent()
        .unwrap()
        .to_path_buf();
    let Some(shown) = on_terminal(&dir, &format!("{BIN} -s [ -e ] a.txt"), &[]) else {
        crate::common::process::skipped(
            "script(1), for a pseudo-terminal",
            "apt-get install util-linux",
        );
        return;
    };
    assert_eq!(shown, "one\n", "{shown:?}");
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
    // And completes a subcommand's options and the subcommands themselves, as bash's
    // completion calls the function (COMP_WORDS, COMP_CWORD; the command, word, previous word).
    let complete = |words: &str| {
        let snippet = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _extract__between extract-between \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        );
        let out = Command::new("bash")
            .args(["-c", &snippet])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let serve = complete("extract-between serve --a");
    assert!(
        serve.lines().any(|l| l == "--allow-host"),
        "serve --a<TAB>: {serve:?}"
    );
    assert!(
        serve.lines().any(|l| l == "--auth-token-file"),
        "serve --a<TAB>: {serve:?}"
    );
    let tool = complete("extract-between tool --");
    assert!(
        tool.lines().any(|l| l == "--help"),
        "tool --<TAB>: {tool:?}"
    );
    let top = complete("extract-between se");
    assert_eq!(top.trim(), "serve", "se<TAB>: {top:?}");
    let man = Command::new(BIN).arg("man").output().unwrap();
    assert!(man.status.success());
    let page = text(&man.stdout);
    assert!(page.contains(".TH extract-between 1"), "{page}");
    assert!(page.contains("max\\-matches"), "{page}");
}

/// Mistakes a grep user makes get messages that say how to do it right.
#[test]
fn usage_mistakes_get_messages_that_say_how() {
    // The markers given as positional arguments, as `grep PATTERN FILE`.
    let out = run(&["<title>", "</title>", "page.html"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "tip: the markers are options: extract-between -s '<title>' -e '</title>' 'page.html'"
        ),
        "{}",
        text(&out.stderr)
    );
    // Counts in words.
    for flag in ["-m", "-j"] {
        let out = run(&[flag, "0", "-s", "[", "-e", "]"], b"");
        assert!(
            text(&out.stderr).contains("must be at least 1"),
            "{flag}: {}",
            text(&out.stderr)
        );
    }
    // A marker's error names its flag, not the JSON field.
    let out = run(&["-s", "", "-e", "]"], b"x");
    assert_eq!(
        text(&out.stderr),
        "extract-between: -s/--start must not be empty\n"
    );
    let long = "x".repeat(4097);
    let out = run(&["-s", "[", "-e", &long], b"x");
    assert!(
        text(&out.stderr).starts_with("extract-between: -e/--end must be at most 4096"),
        "{}",
        text(&out.stderr)
    );
    // The man page's synopsis says paths repeat.
    let man = Command::new(BIN).arg("man").output().unwrap();
    assert!(
        text(&man.stdout).contains("[\\fIPATH\\fR]..."),
        "synopsis without ..."
    );
}

/// Run by `a_test_without_its_tool_says_it_was_skipped` alone: probes a tool that does not
/// exist.
#[test]
#[ignore = "a probe run by a_test_without_its_tool_says_it_was_skipped"]
fn probe_of_an_absent_tool() {
    let found = crate::common::process::tool_available(
        &mut Command::new("/nonexistent/extract-between-test-tool"),
        "EXTRACT_BETWEEN_REQUIRE_NOTHING_THAT_EXISTS",
        "the test tool",
        "nothing: it does not exist",
    );
    assert!(!found);
}

/// A test whose tool is absent says so where the runner's output shows it (not only under
/// `--nocapture`), naming itself, the tool and how to install it, and lists itself for CI's
/// summary.
#[test]
fn a_test_without_its_tool_says_it_was_skipped() {
    let list = temp("skipped-list.txt", b"");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "cli_conventions::probe_of_an_absent_tool",
        ])
        .env("EXTRACT_BETWEEN_SKIPPED_LIST", &list)
        .env_remove("EXTRACT_BETWEEN_REQUIRE_NOTHING_THAT_EXISTS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = "SKIPPED cli_conventions::probe_of_an_absent_tool: the test tool is not available (to run it: nothing: it does not exist)";
    assert!(text(&out.stderr).contains(line), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&list).unwrap().trim_end(), line);
}

/// A byte order mark that arrives a byte at a time (a pipe from a slow producer) is still
/// sniffed: UTF-16 is transcoded, a UTF-8 mark dropped (offsets count without it).
#[test]
fn a_byte_order_mark_split_across_reads_is_sniffed() {
    let cases: [(&str, &str, &str); 3] = [
        // UTF-16LE "[a]" with its mark, the mark's first byte alone.
        (r"printf '\377'", r"printf '\376[\000a\000]\000'", "a\n"),
        // UTF-8 BOM cut after one byte, then after two.
        (r"printf '\357'", r"printf '\273\277[b]'", "b\n"),
        (r"printf '\357\273'", r"printf '\277[c]'", "c\n"),
    ];
    for (head, tail, want) in cases {
        // The pause makes the two writes two reads on the pipe; the answer must not depend
        // on whether they are.
        let script = format!(
            "({head}; sleep 0.3; {tail}) | '{}' --json-lines -s '[' -e ']'",
            env!("CARGO_BIN_EXE_extract-between")
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let first: serde_json::Value =
            serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
        assert_eq!(
            format!("{}\n", first["match"].as_str().unwrap()),
            want,
            "{script}"
        );
        // Offsets count in the text without its mark: the match starts after "[".
        assert_eq!(first["byte_start"].as_u64(), Some(1), "{script}: {stdout}");
    }
}

/// The usage line after an error is the one `--help` shows, whichever arguments were given
/// (clap's own would write the paths given as `<PATH>...`, required).
#[test]
fn usage_after_an_error_is_the_usage_of_help() {
    let usage = |out: &std::process::Output, from: &[u8]| -> String {
        let all = text(from);
        let at = all
            .find("Usage: ")
            .unwrap_or_else(|| panic!("no usage in {all:?} ({:?})", out.status));
        all[at..].lines().take(2).collect::<Vec<_>>().join("\n")
    };
    let help = run(&["--help"], b"");
    let wanted = usage(&help, &help.stdout);
    assert!(wanted.contains("[PATH]..."), "{wanted}");
    for args in [&["-e", "b", "x"][..], &["-s", "a"], &["--bogus"]] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(usage(&out, &out.stderr), wanted, "{args:?}");
    }
}

/// A man page for each subcommand (`extract-between-serve(1)` names every option's
/// variable), and the main page's EXAMPLES, EXIT STATUS and ENVIRONMENT in place of clap's
/// "EXTRA".
#[test]
fn a_man_page_for_each_subcommand_and_the_sections_a_reader_looks_for() {
    let page = |args: &[&str]| {
        let out = Command::new(BIN).arg("man").args(args).output().unwrap();
        assert!(out.status.success(), "man {args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let main = page(&[]);
    for section in [
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH \"SEE ALSO\"",
    ] {
        assert!(main.contains(section), "{section} missing");
    }
    assert!(!main.contains(".SH EXTRA"), "{main}");
    for sub in ["tool", "card", "mcp", "serve", "completions", "man"] {
        let text = page(&[sub]);
        assert!(
            text.contains(&format!(".TH extract-between-{sub} 1")),
            "{sub}: {text}"
        );
        assert!(
            main.contains(&format!("extract\\-between\\-{sub}(1)")),
            "SEE ALSO lacks {sub}"
        );
    }
    let serve = page(&["serve"]);
    for needle in [
        "EXTRACT_BETWEEN_LISTEN",
        "EXTRACT_BETWEEN_CORS_ORIGIN",
        "cors\\-origin",
    ] {
        assert!(serve.contains(needle), "serve's page lacks {needle}");
    }
    let out = Command::new(BIN).args(["man", "bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no subcommand \"bogus\""));
}
