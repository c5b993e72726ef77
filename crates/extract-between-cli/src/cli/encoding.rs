//! Text in other encodings, read as ripgrep reads it. By default a byte order mark is
//! sniffed: a UTF-16 file (little or big endian, as Windows tools write them) is transcoded
//! to UTF-8, a UTF-8 BOM is dropped, and anything else is scanned as the bytes it is, with no
//! copy. `-E LABEL` decodes every input from any WHATWG encoding (`encoding_rs`, through
//! `encoding_rs_io`, the reader ripgrep uses), a BOM still winning; `-E none` or
//! `--no-encoding` reads bytes as they are. Offsets then count in the decoded text.

use encoding_rs::Encoding;
use encoding_rs_io::DecodeReaderBytesBuilder;
use std::io::{Cursor, Read};

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How inputs are decoded.
#[derive(Clone, Copy, Debug)]
pub(super) enum Decoding {
    /// A BOM decides: UTF-16 is transcoded, a UTF-8 BOM dropped, no BOM means UTF-8 as is.
    Sniff,
    /// The bytes as they are, a BOM included.
    Off,
    /// Every input decoded from this encoding (a BOM overrides it).
    From(&'static Encoding),
}

impl Decoding {
    /// `-E LABEL` (`none` for off) and `--no-encoding`, as the command line gives them.
    pub(super) fn parse(label: Option<&str>, no_encoding: bool) -> Result<Decoding, String> {
        match label {
            _ if no_encoding => Ok(Decoding::Off),
            None => Ok(Decoding::Sniff),
            Some(l) if l.eq_ignore_ascii_case("none") => Ok(Decoding::Off),
            Some(l) => Encoding::for_label(l.as_bytes())
                .map(Decoding::From)
                .ok_or_else(|| {
                    format!(
                        "-E/--encoding: unknown encoding {l:?} (a WHATWG label such as utf-16le, latin1, shift_jis; or none)"
                    )
                }),
        }
    }

    /// Whether `head`, an input's first bytes, may be the start of a byte order mark that
    /// more bytes would complete: a pipe or a slow producer may deliver a mark a byte at a
    /// time, and a mark is only known whole.
    pub(super) fn wants_more(self, head: &[u8]) -> bool {
        matches!(self, Decoding::Sniff)
            && head.len() < UTF8_BOM.len()
            && (UTF8_BOM.starts_with(head) || head == b"\xFF" || head == b"\xFE")
    }

    /// The reader to scan for an input whose first read gave `head` and whose rest is
    /// `rest`, or `None` where its bytes are scanned as they are.
    pub(super) fn reader<'a>(
        self,
        head: &[u8],
        rest: &'a mut dyn Read,
    ) -> Option<Box<dyn Read + 'a>> {
        let utf16 = head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF");
        let encoding = match self {
            Decoding::Off => return None,
            Decoding::Sniff if head.starts_with(UTF8_BOM) => {
                // UTF-8 after all: drop the mark, keep the scanner's own UTF-8 check.
                let tail = Cursor::new(head[UTF8_BOM.len()..].to_vec());
                return Some(Box::new(tail.chain(rest)));
            }
            Decoding::Sniff if !utf16 => return None,
            Decoding::Sniff => None,
            Decoding::From(encoding) => Some(encoding),
        };
        let whole = Cursor::new(head.to_vec()).chain(rest);
        Some(Box::new(
            DecodeReaderBytesBuilder::new()
                .encoding(encoding)
                .bom_override(true)
                .strip_bom(true)
                .build(whole),
        ))
    }
}
