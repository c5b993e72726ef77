//! `--tag` and `--outside`: several pairs in one pass, each match named by its pair, and the
//! text outside every match, through the built binary.

use crate::common::cli::{run, temp, text};

const REPLY: &[u8] = b"<think>2+2?</think>It is 4. <tool_call>{\"n\":1}</tool_call> Done.\n";

fn tags() -> Vec<&'static str> {
    vec![
        "--tag",
        "<think>",
        "</think>",
        "--tag",
        "<tool_call>",
        "</tool_call>",
    ]
}

#[test]
fn each_match_prints_after_its_start_marker_and_a_tab() {
    let out = run(&tags(), REPLY);
    assert_eq!(text(&out.stdout), "<think>\t2+2?\n<tool_call>\t{\"n\":1}\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn tag_index_names_pairs_by_number_counting_dash_s_first() {
    let mut args = vec!["--tag-index", "-s", "<think>", "-e", "</think>"];
    args.extend(["--tag", "<tool_call>", "</tool_call>"]);
    let out = run(&args, REPLY);
    assert_eq!(text(&out.stdout), "0\t2+2?\n1\t{\"n\":1}\n");
}

#[test]
fn json_lines_carry_the_pair_index() {
    let mut args = tags();
    args.push("--json-lines");
    let out = run(&args, REPLY);
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (lines[0]["tag"].as_u64(), lines[0]["match"].as_str()),
        (Some(0), Some("2+2?"))
    );
    assert_eq!(
        (lines[1]["tag"].as_u64(), lines[1]["byte_start"].as_u64()),
        (Some(1), Some(39))
    );
}

#[test]
fn outside_prints_the_text_outside_every_match() {
    let mut args = tags();
    args.push("--outside");
    let out = run(&args, REPLY);
    assert_eq!(text(&out.stdout), "It is 4.  Done.\n");
    assert_eq!(out.status.code(), Some(0));
    // One pair: what sed users write a state machine for, across reads of any size.
    let comments = "keep<!-- drop -->this<!--\nand\n-->.".repeat(20_000);
    let file = temp("comments.html", comments.as_bytes());
    let out = run(
        &[
            "--outside",
            "-s",
            "<!--",
            "-e",
            "-->",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(text(&out.stdout), "keepthis.".repeat(20_000));
}

#[test]
fn an_unclosed_start_is_exit_2_after_the_text_before_it() {
    let out = run(&["--outside", "-s", "<", "-e", ">"], b"a<b>c<d");
    assert_eq!(text(&out.stdout), "ac");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unclosed start marker at byte offset 5"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn tags_count_and_cap_as_one_pair_does() {
    let mut args = tags();
    args.push("-c");
    assert_eq!(text(&run(&args, REPLY).stdout), "2\n");
    let mut args = tags();
    args.extend(["-m", "1"]);
    let out = run(&args, REPLY);
    assert_eq!(text(&out.stdout), "<think>\t2+2?\n");
    assert!(text(&out.stderr).contains("truncated"));
}

#[test]
fn a_repeated_start_marker_is_refused_naming_both_pairs() {
    let out = run(&["-s", "[", "-e", "]", "--tag", "[", ")"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("pair 1's start marker \"[\" is pair 0's"),
        "{}",
        text(&out.stderr)
    );
    let out = run(&["--tag", "", ")"], b"");
    assert!(
        text(&out.stderr).contains("pair 0's start must be a non-empty string"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn outside_refuses_flags_that_print_matches() {
    let out = run(&["--outside", "-s", "[", "-e", "]", "-c"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot be used with"),
        "{}",
        text(&out.stderr)
    );
}
