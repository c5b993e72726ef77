//! The stream route (`…/stream?start=…&end=…`), started as a real process on a real
//! socket: NDJSON lines as matches are found, errors after earlier matches, the query's
//! checks, percent-decoding, idle and place limits, bounded memory under large chunked
//! uploads, and the reference's answer under random chunkings.

use crate::common::http::{
    Server, TOOL, enc, ndjson, open_bracket_stream, read_chunk, read_chunked_body, read_head,
    request, start_upload, write_chunk,
};
use serde_json::{Value, json};
use std::io::BufReader;
use std::time::Duration;

#[test]
fn stream_endpoint_lines_and_summary() {
    let server = Server::start(&[]);
    let path = format!("{TOOL}/stream?start={}&end={}", enc("「"), enc("」"));
    let r = request(&server, "POST", &path, &[], "😀「a」b「cd」".as_bytes());
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
    assert_eq!(
        ndjson(&r.body),
        vec![
            json!({"match": "a", "byte_start": 7, "byte_end": 8, "utf16_start": 3, "utf16_end": 4}),
            json!({"match": "cd", "byte_start": 15, "byte_end": 17, "utf16_start": 7, "utf16_end": 9}),
            json!({"done": true, "matches": 2, "truncated": false}),
        ]
    );
}

#[test]
fn stream_endpoint_errors_come_after_earlier_matches() {
    let server = Server::start(&[]);
    let path = format!("{TOOL}/stream?start=%5B&end=%5D");
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[a] [b").body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "unclosed_start_marker");
    assert_eq!(lines[1]["error"]["offset"], 4);
    // The execute route's envelope, keys in its order.
    let raw = request(&server, "POST", &path, &[], b"[a] [b").text();
    assert!(
        raw.ends_with("{\"error\":{\"code\":\"unclosed_start_marker\",\"message\":\"unclosed start marker\",\"offset\":4,\"byte_offset\":4}}\n"),
        "{raw}"
    );
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[a] \xff [b]").body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "invalid_utf8");
    assert_eq!(lines[1]["error"]["byte_offset"], 4);
    let path = format!("{TOOL}/stream?start=%5B&end=%5D&max_match_bytes=3");
    let lines = ndjson(&request(&server, "POST", &path, &[], b"[abc][abcd]").body);
    assert_eq!(lines[0]["match"], "abc");
    assert_eq!(lines[1]["error"]["code"], "match_too_large");
}

#[test]
fn stream_endpoint_validates_its_query_before_streaming() {
    let server = Server::start(&[]);
    for (query, field) in [
        ("end=%5D", "start"),
        ("start=%5B", "end"),
        ("start=&end=%5D", "start"),
        ("start=%5B&end=%5D&max_matches=0", "max_matches"),
        ("start=%5B&end=%5D&max_matches=x", "max_matches"),
        ("start=%5B&end=%5D&max_match_bytes=0", "max_match_bytes"),
        ("start=%5B&end=%5D&bogus=1", "bogus"),
        // Not decodable: a bad escape, bytes that are not UTF-8 (a cut or a lone byte).
        ("start=%ZZ&end=%5D", "start"),
        ("start=%5B&end=x%", "end"),
        ("start=%E3%80&end=%5D", "start"),
        ("start=%5B&end=%FF", "end"),
    ] {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?{query}"),
            &[],
            b"[a]",
        );
        assert_eq!(r.status, 400, "{query}");
        assert_eq!(r.json()["error"]["field"], field, "{query}");
    }
    // max_matches above the card's 1000 is fine here: the stream has no such bound.
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D&max_matches=5000"),
        &[],
        b"[a]",
    );
    assert_eq!(r.status, 200);
}

/// The query is form-decoded: `%XX` escapes of UTF-8 (multi-byte markers included), `+` a
/// space, `%2B` a plus; a bad escape names its parameter and byte.
#[test]
fn stream_query_markers_are_percent_decoded_exactly() {
    let server = Server::start(&[]);
    let lines = |query: &str, body: &[u8]| {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?{query}"),
            &[],
            body,
        );
        assert_eq!(r.status, 200, "{query}");
        String::from_utf8(r.body).unwrap()
    };
    let cjk = lines("start=%E3%80%8C&end=%E3%80%8D", "a「b」".as_bytes());
    assert!(cjk.starts_with(r#"{"match":"b","#), "{cjk}");
    let plus = lines("start=%2B&end=+", b"x+y z+w ");
    assert!(plus.starts_with(r#"{"match":"y","#), "{plus}");
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=ab%E3%80&end=x"),
        &[],
        b"",
    );
    let message = r.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("start") && message.contains("UTF-8") && message.contains("byte 2"),
        "{message}"
    );
}

/// The answer (matches, then the summary) comes while the upload is still open; the server
/// then reads the rest of the upload unscanned and ends the response when it ends, so a
/// client that keeps sending gets no reset (curl reported "Send failure: Broken pipe" when
/// the server closed early).
#[test]
fn stream_answers_before_the_upload_ends_and_lets_it_finish() {
    let server = Server::start(&[]);
    let mut s = start_upload(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D&max_matches=2"),
    );
    let mut reader = BufReader::new(s.try_clone().unwrap());
    write_chunk(&mut s, b"[a][b]").unwrap();
    write_chunk(&mut s, b"[c] and the body goes on").unwrap();
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 200);
    let mut body = Vec::new();
    // Up to the summary line, with the upload still open.
    while !(String::from_utf8_lossy(&body).contains("\"done\"") && body.ends_with(b"\n")) {
        body.extend_from_slice(&read_chunk(&mut reader).expect("the summary before the end"));
    }
    let lines = ndjson(&body);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[2],
        json!({"done": true, "matches": 2, "truncated": true})
    );
    // 8 MiB more, not scanned (an unclosed `[` and invalid UTF-8 change nothing): every
    // write goes through, and the response then ends cleanly with nothing more in it.
    let more = [b"x[\xff".repeat(1 << 10), vec![b'y'; 61 << 10]].concat();
    for _ in 0..128 {
        write_chunk(&mut s, &more).expect("the server reads the rest of the upload");
    }
    write_chunk(&mut s, b"").unwrap();
    assert_eq!(read_chunk(&mut reader), None);
}

#[test]
fn stream_idle_upload_times_out() {
    let server = Server::start(&["--idle-timeout", "1"]);
    let (_s, mut reader) = open_bracket_stream(&server, b"[a] [b");
    let body = read_chunked_body(&mut reader);
    let lines = ndjson(&body);
    assert_eq!(lines[0]["match"], "a");
    assert_eq!(lines[1]["error"]["code"], "request_timeout");
}

#[test]
fn too_many_streams_get_503() {
    let server = Server::start(&["--max-streams", "1"]);
    let (mut first, mut reader) = open_bracket_stream(&server, b"[a]");
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D"),
        &[],
        b"[b]",
    );
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["error"]["code"], "overloaded");
    // Finishing the first frees its place.
    write_chunk(&mut first, b"").unwrap();
    while read_chunk(&mut reader).is_some() {}
    let r = request(
        &server,
        "POST",
        &format!("{TOOL}/stream?start=%5B&end=%5D"),
        &[],
        b"[b]",
    );
    assert_eq!(r.status, 200);
}

/// ≥ 256 MiB uploaded in small chunks while the NDJSON lines are checked; the server's
/// peak RSS stays bounded.
#[test]
fn large_chunked_upload_in_bounded_memory() {
    let server = Server::start(&[]);
    let mut s = start_upload(&server, "POST", &format!("{TOOL}/stream?start=%5B&end=%5D"));
    let mut reader = BufReader::new(s.try_clone().unwrap());
    const TOTAL: usize = 256 << 20;
    // A 4 KiB block with one match in it; chunks of 1000 bytes split it everywhere.
    let mut block = vec![b'.'; 4096];
    block[100..110].copy_from_slice(b"[match-01]");
    let expected_matches = TOTAL / block.len();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        let stream: Vec<u8> = block.repeat(64);
        while sent < TOTAL {
            for piece in stream.chunks(1000) {
                write_chunk(&mut s, piece).unwrap();
            }
            sent += stream.len();
        }
        write_chunk(&mut s, b"").unwrap();
    });
    assert_eq!(read_head(&mut reader).0, 200);
    let mut count = 0usize;
    let mut carry = Vec::new();
    let mut summary = Value::Null;
    let mut peak = 0;
    while let Some(chunk) = read_chunk(&mut reader) {
        carry.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(nl) = carry[start..].iter().position(|&b| b == b'\n') {
            let line: Value = serde_json::from_slice(&carry[start..start + nl]).unwrap();
            if line.get("match").is_some() {
                assert_eq!(line["match"], "match-01");
                assert_eq!(line["byte_start"], (count * 4096 + 101) as u64);
                count += 1;
            } else {
                summary = line;
            }
            start += nl + 1;
        }
        carry.drain(..start);
        if count.is_multiple_of(8192) {
            peak = peak.max(server.peak_rss_kib());
        }
    }
    writer.join().unwrap();
    peak = peak.max(server.peak_rss_kib());
    assert_eq!(count, expected_matches);
    assert_eq!(
        summary,
        json!({"done": true, "matches": expected_matches, "truncated": false})
    );
    eprintln!("server peak RSS {peak} KiB after {} MiB", TOTAL >> 20);
    assert!(peak < 64 * 1024, "server peak RSS {peak} KiB");
}

#[test]
fn a_client_that_disconnects_mid_stream_frees_its_place() {
    let server = Server::start(&["--max-streams", "1"]);
    {
        let _open = open_bracket_stream(&server, b"[a] [b");
        // Dropped here: the connection closes mid-upload.
    }
    // The server notices the closed connection and drops the stream with its permit.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = request(
            &server,
            "POST",
            &format!("{TOOL}/stream?start=%5B&end=%5D"),
            &[],
            b"[c]",
        );
        if r.status == 200 {
            assert_eq!(ndjson(&r.body)[0]["match"], "c");
            break;
        }
        assert_eq!(r.status, 503);
        assert!(
            std::time::Instant::now() < deadline,
            "the disconnected stream still holds its place"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The stream endpoint against the card's reference loop over UTF-16 code units: random
/// texts and markers (matches common, long runs so the vector paths engage), each uploaded
/// chunked in the case's random piece sizes while the answer is read. The match lines must be
/// the reference's matches, each slicing the text at its UTF-16 offsets; the summary must
/// give their count and `truncated`; an unclosed start marker must come at the reference's
/// offset, after the matches the reference finds before it.
#[test]
fn stream_endpoint_equals_the_reference_under_chunked_uploads() {
    use extract_between::testing::{Case, reference};
    use quickcheck::{Arbitrary, Gen};

    fn check(server: &Server, c: &Case) -> Result<(), String> {
        let path = format!(
            "{TOOL}/stream?start={}&end={}&max_matches={}",
            enc(&c.start),
            enc(&c.end),
            c.max_matches
        );
        let mut upload = start_upload(server, "POST", &path);
        let reader = upload.try_clone().unwrap();
        let (text, plan) = (c.text.clone(), c.chunks.clone());
        // Sent from a thread: the server answers as it reads, and stops reading once the cap
        // and `truncated` are known, while the upload may still be going on.
        let sender = std::thread::spawn(move || {
            let (mut rest, mut k) = (text.as_bytes(), 0);
            while !rest.is_empty() {
                let (piece, tail) = rest.split_at(plan[k % plan.len()].min(rest.len()));
                if write_chunk(&mut upload, piece).is_err() {
                    return;
                }
                (rest, k) = (tail, k + 1);
            }
            let _ = write_chunk(&mut upload, b"");
        });
        let response = crate::common::http::read_response(&mut BufReader::new(reader));
        sender.join().unwrap();
        let lines = ndjson(&response.body);
        let Some((last, lines)) = lines.split_last() else {
            return Err("no lines".into());
        };
        let units: Vec<u16> = c.text.encode_utf16().collect();
        // Each line's content, checked against the text at its UTF-16 offsets.
        let mut got = Vec::new();
        let mut after = 0;
        for line in lines {
            let (Some(m), Some(a), Some(b)) = (
                line["match"].as_str(),
                line["utf16_start"].as_u64().map(|n| n as usize),
                line["utf16_end"].as_u64().map(|n| n as usize),
            ) else {
                return Err(format!("not a match line: {line}"));
            };
            if a < after
                || b < a
                || b > units.len()
                || units[a..b] != *m.encode_utf16().collect::<Vec<_>>()
            {
                return Err(format!("{m:?} is not at {a}..{b}"));
            }
            after = b;
            got.push(m.encode_utf16().collect::<Vec<u16>>());
        }
        let ok = match reference::extract(&c.text, &c.start, &c.end, c.max_matches) {
            Ok((found, truncated)) => {
                got == found
                    && last["done"] == true
                    && last["truncated"] == truncated
                    && last["matches"] == found.len()
            }
            Err(offset) => {
                // The matches before an unclosed start are the reference's on the text before it.
                let before = String::from_utf16(&units[..offset]).unwrap();
                let found = reference::extract(&before, &c.start, &c.end, c.max_matches);
                last["error"]["code"] == "unclosed_start_marker"
                    && last["error"]["offset"] == offset
                    && found.is_ok_and(|(found, _)| got == found)
            }
        };
        if response.status == 200 && ok {
            Ok(())
        } else {
            Err(format!(
                "status {}, lines {lines:?}, last {last}",
                response.status
            ))
        }
    }
    // Cases drawn as the scanner's properties draw them; one server for all of them (a
    // quickcheck `fn` property would need it in a static, which is never dropped, and the
    // server process would outlive the test).
    let server = Server::start(&[]);
    let mut g = Gen::new(100);
    for _ in 0..300 {
        let c = Case::arbitrary(&mut g);
        if let Err(e) = check(&server, &c) {
            panic!("{e}\n{c:?}");
        }
    }
}
