//! The codec in a `FramedRead`: any `AsyncRead` (here one end of an in-memory pipe that a
//! task fills in uneven pieces) decoded into matches, as tokio-util's line codecs are used.
//!
//! `cargo run --example framed_codec`

use extract_between::Markers;
use extract_between::codec::ExtractCodec;
use extract_between::stream::Options;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio_util::codec::FramedRead;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut writer, reader) = tokio::io::duplex(16);
    tokio::spawn(async move {
        let text = b"id=<<a1>> id=<<b22>> id=<<c333>> trailing";
        for piece in text.chunks(5) {
            writer.write_all(piece).await?;
        }
        writer.shutdown().await
    });
    let codec = ExtractCodec::new(&Markers::new("<<", ">>")?, Options::default());
    let mut frames = FramedRead::new(reader, codec);
    let mut ids = Vec::new();
    while let Some(m) = frames.next().await {
        let m = m?;
        println!("{} at bytes {:?}", m.as_str(), m.byte_range());
        ids.push(m.as_str().to_owned());
    }
    assert_eq!(ids, ["a1", "b22", "c333"]);
    Ok(())
}
