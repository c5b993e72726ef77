//! The stream endpoint's query string: `start`, `end`, `max_matches`, `max_match_bytes`,
//! percent-decoded strictly, each failure naming its parameter.

use extract_between::Markers;
use extract_between::stream::Options;

/// The stream endpoint's query, validated.
pub(super) struct StreamQuery {
    pub(super) markers: Markers,
    pub(super) options: Options,
}

pub(super) fn parse_stream_query(
    query: Option<&str>,
    max_match_bytes: usize,
) -> Result<StreamQuery, (String, String)> {
    let mut start = None;
    let mut end = None;
    let mut options = Options::default().max_match_bytes(max_match_bytes);
    let bad = |field: &str, message: String| (field.to_owned(), message);
    for (key, value) in form_pairs(query.unwrap_or(""))? {
        let slot = match key.as_str() {
            "start" => &mut start,
            "end" => &mut end,
            "max_matches" => {
                let n = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| {
                        bad(
                            "max_matches",
                            format!(
                                "max_matches must be an integer of at least 1 (it is {value:?})"
                            ),
                        )
                    })?;
                options = options.max_matches(n);
                continue;
            }
            "max_match_bytes" => {
                let n = value
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| (1..=max_match_bytes).contains(&n))
                    .ok_or_else(|| {
                        bad(
                            "max_match_bytes",
                            format!("max_match_bytes must be an integer from 1 to {max_match_bytes} (it is {value:?})"),
                        )
                    })?;
                options = options.max_match_bytes(n);
                continue;
            }
            _ => {
                return Err(bad(
                    &key,
                    format!(
                        "unknown query parameter {key:?}: allowed are start, end, max_matches and max_match_bytes"
                    ),
                ));
            }
        };
        if slot.replace(value).is_some() {
            return Err(bad(
                &key,
                format!("query parameter {key} appears more than once"),
            ));
        }
    }
    let start = start.ok_or_else(|| bad("start", "start is required (query parameter)".into()))?;
    let end = end.ok_or_else(|| bad("end", "end is required (query parameter)".into()))?;
    let markers = Markers::new(start, end).map_err(|e| bad(e.which().field(), e.to_string()))?;
    Ok(StreamQuery { markers, options })
}

/// `application/x-www-form-urlencoded` pairs, percent-decoded (`+` is a space). A `%` not
/// followed by two hex digits, or a decoded name or value that is not UTF-8, is an error
/// naming the parameter: decoding it leniently (as browsers do) would search for a marker
/// the client never sent, such as U+FFFD for a cut `%E3%80`.
fn form_pairs(query: &str) -> Result<Vec<(String, String)>, (String, String)> {
    /// The decoded text, or why it is not text (with the byte offset in `s`).
    fn decode(s: &str) -> Result<String, String> {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' => {
                    let hex = bytes
                        .get(i + 1..i + 3)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        Some(b) => {
                            out.push(b);
                            i += 2;
                        }
                        None => {
                            return Err(format!(
                                "'%' at byte {i} is not followed by two hex digits (a literal % is written %25)"
                            ));
                        }
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8(out).map_err(|e| {
            // Where the bad byte came from in `s`: count escapes and pluses back.
            let bad = e.utf8_error().valid_up_to();
            let (mut at, mut decoded) = (0, 0);
            while decoded < bad {
                at += if bytes[at] == b'%' { 3 } else { 1 };
                decoded += 1;
            }
            format!("it is not valid UTF-8 once percent-decoded (from byte {at})")
        })
    }
    let mut pairs = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(k)
            .map_err(|why| (k.to_owned(), format!("query parameter name {k:?}: {why}")))?;
        let value =
            decode(v).map_err(|why| (key.clone(), format!("query parameter {key}: {why}")))?;
        pairs.push((key, value));
    }
    Ok(pairs)
}
