//! Chunked upload processing in an axum app of your own: the request body, however large,
//! goes through the `Stream` adapter as it arrives, and each match goes back as a line of
//! NDJSON the moment it is found. Memory per request stays at the markers' carry-over and
//! one match (`max_match_bytes`), whatever the upload's size.
//!
//! `cargo run --example axum_upload -- --serve 127.0.0.1:3000`, then
//! `curl -T big.html -H 'Transfer-Encoding: chunked' 'localhost:3000/extract?start=<h1>&end=</h1>'`.
//! Without `--serve` it starts on a free port, uploads a text in chunks to itself, prints
//! the answer and exits.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Query;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use extract_between::Markers;
use extract_between::stream::{Options, matches};
use futures::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use serde::Deserialize;

#[derive(Deserialize)]
struct Params {
    start: String,
    end: String,
    max_matches: Option<u64>,
}

/// `POST /extract?start=…&end=…[&max_matches=…]`: one JSON line a match, then a summary.
async fn extract(Query(params): Query<Params>, body: Body) -> Response {
    let markers = match Markers::new(&params.start, &params.end) {
        Ok(m) => m,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    let mut options = Options::default().max_match_bytes(1 << 20);
    if let Some(n) = params.max_matches {
        options = options.max_matches(n);
    }
    let mut found = matches(body.into_data_stream(), &markers, options);
    let lines = async_stream(move |tx| async move {
        while let Some(m) = found.next().await {
            let line = match m {
                Ok(m) => serde_json::json!({"match": m.as_str()}),
                // Matches found before the error were sent already.
                Err(e) => serde_json::json!({"error": e.to_string()}),
            };
            if tx.send(Ok(Bytes::from(format!("{line}\n")))).await.is_err() {
                return;
            }
        }
        let done = serde_json::json!({"done": true, "truncated": found.truncated()});
        let _ = tx.send(Ok(Bytes::from(format!("{done}\n")))).await;
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response()
}

/// A stream fed by a task through a small channel: the answer goes out as it is made, and a
/// client that stops reading stops the task (the channel fills up).
fn async_stream<F, Fut>(task: F) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>>
where
    F: FnOnce(tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(task(tx));
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let app = Router::new().route("/extract", post(extract));
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, addr] = &args[..]
        && flag == "--serve"
    {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        println!("listening on http://{}", listener.local_addr()?);
        return Ok(axum::serve(listener, app).await?);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });

    // A chunked upload, as `curl -T` sends one, with hyper's client: markers cut across
    // chunks; the answer's lines are read as they come, without the chunk framing.
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let page = "<html><h1>First</h1><p>…</p><h1>Zweite Überschrift</h1><h1>三</h1></html>";
    let chunks: Vec<Result<Frame<Bytes>, std::convert::Infallible>> = page
        .as_bytes()
        .chunks(7)
        .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
        .collect();
    let request = hyper::Request::post("/extract?start=%3Ch1%3E&end=%3C%2Fh1%3E")
        .header(header::HOST, addr.to_string())
        .body(StreamBody::new(futures::stream::iter(chunks)))?;
    let response = sender.send_request(request).await?;
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let mut answer = String::new();
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            answer.push_str(std::str::from_utf8(&data)?);
        }
    }
    print!("{answer}");
    assert!(
        answer.contains(r#"{"match":"Zweite Überschrift"}"#),
        "{answer}"
    );
    assert!(answer.contains(r#""done":true"#), "{answer}");
    Ok(())
}
