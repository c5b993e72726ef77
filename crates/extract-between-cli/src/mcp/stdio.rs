//! The stdio transport: one JSON-RPC message a line on stdin, one answer a line on stdout,
//! nothing else on stdout. Lines are bounded like execute bodies: a longer one is read to
//! its end and dropped, and answered with an error; the server keeps serving.

use super::dispatch::{self, OverBudget, Session, Transport};
use super::rpc;
use rmcp::model::ErrorData;
use std::io::{self, BufRead, Write};

/// The longest message read (as an execute body): every valid tool call fits.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// Serves MCP on `input` and `output` until `input` ends.
///
/// # Errors
///
/// Reading `input` or writing `output` failed.
///
/// ```
/// let input = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
/// let mut output = Vec::new();
/// extract_between_cli::mcp::serve_stdio(&input[..], &mut output).unwrap();
/// let answer: serde_json::Value = serde_json::from_slice(&output).unwrap();
/// assert_eq!(answer["result"]["supportedVersions"][0], "2026-07-28");
/// ```
pub fn serve_stdio(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut session = Session::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        let (ended, oversized) = read_line(&mut input, &mut line)?;
        if ended && line.is_empty() && !oversized {
            return Ok(());
        }
        let answer = if oversized {
            let e = ErrorData::invalid_request(
                format!("the message is over {MAX_MESSAGE_BYTES} bytes; it was dropped"),
                None,
            );
            Some(rpc::error(None, &e))
        } else {
            let message = line.trim_ascii();
            if message.is_empty() {
                None
            } else {
                // One client, whose own messages these are: its batches answer whole.
                match dispatch::handle(&mut session, message, Transport::Stdio, &mut |_| true) {
                    Ok(answer) => answer.body,
                    Err(OverBudget) => {
                        let e = ErrorData::internal_error("the batch's answer is too large", None);
                        Some(rpc::error(None, &e))
                    }
                }
            }
        };
        if let Some(answer) = answer {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
        if ended {
            return Ok(());
        }
    }
}

/// Reads up to the next newline into `line`, keeping at most [`MAX_MESSAGE_BYTES`]; returns
/// whether the input ended and whether the line was longer (and so dropped).
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<(bool, bool)> {
    let mut oversized = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((true, oversized));
        }
        let (piece, found) = match memchr::memchr(b'\n', buf) {
            Some(at) => (&buf[..at], Some(at)),
            None => (buf, None),
        };
        if !oversized && line.len() + piece.len() <= MAX_MESSAGE_BYTES {
            line.extend_from_slice(piece);
        } else {
            oversized = true;
            line.clear();
        }
        let used = found.map_or(buf.len(), |at| at + 1);
        input.consume(used);
        if found.is_some() {
            return Ok((false, oversized));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_line_is_answered_and_the_next_served() {
        let mut input = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let mut out = Vec::new();
        serve_stdio(&input[..], &mut out).unwrap();
        let lines: Vec<serde_json::Value> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0]["error"]["code"],
            rmcp::model::ErrorCode::INVALID_REQUEST.0
        );
        assert_eq!(lines[1]["id"], 2);
        assert_eq!(lines[1]["result"], serde_json::json!({}));
    }
}
