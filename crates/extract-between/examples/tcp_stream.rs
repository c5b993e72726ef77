//! Matches as they cross a TCP socket: the `Stream` adapter over the socket's reads, while
//! the peer is still sending (here a task in the same program, sending in small pieces that
//! cut markers and characters).
//!
//! `cargo run --example tcp_stream`

use extract_between::Markers;
use extract_between::stream::{Options, matches_from_reader};
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let sender = tokio::spawn(async move {
        let mut peer = TcpStream::connect(addr).await?;
        let text = "log: «start» ... «ü-umlaut» ... «東京» ... done".as_bytes();
        for piece in text.chunks(3) {
            peer.write_all(piece).await?;
            peer.flush().await?;
        }
        peer.shutdown().await
    });
    let (socket, _) = listener.accept().await?;
    let markers = Markers::new("«", "»")?;
    let mut found = matches_from_reader(socket, &markers, Options::default().max_matches(10));
    let mut texts = Vec::new();
    while let Some(m) = found.next().await {
        let m = m?;
        println!("{} (UTF-16 {:?})", m.as_str(), m.utf16_range());
        texts.push(m.as_str().to_owned());
    }
    sender.await??;
    assert_eq!(texts, ["start", "ü-umlaut", "東京"]);
    println!("truncated: {:?}", found.truncated());
    Ok(())
}
