//! The socket as hyper sees it, with two duties hyper does not have:
//!
//! - **Write stalls end the connection.** A write that cannot move for the stall bound (the
//!   client reads nothing) fails with `TimedOut`, so hyper drops the connection and with it
//!   the request, its slot and its answer.
//! - **Closing lingers.** On shutdown the socket sends its FIN, then reads and drops what the
//!   client still sends (bounded in time and bytes) before it closes. Closing with unread
//!   data makes the kernel send a reset, which can discard an answer the client has not read
//!   yet: a 413 to an upload still in progress, say.

use super::activity::Activity;
use core::pin::Pin;
use core::task::{Context, Poll, ready};
use std::io::{self, IoSlice};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// How long a closing connection reads what the client still sends.
const LINGER: Duration = Duration::from_secs(5);
/// How much it reads at most.
const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// A connection's socket with a write-stall bound and a lingering close.
pub(super) struct GuardedIo<T> {
    inner: T,
    activity: Arc<Activity>,
    stall_bound: Duration,
    /// Armed while a write waits: when it fires, the write fails.
    stall: Pin<Box<Sleep>>,
    stalled: bool,
    closing: Closing,
}

enum Closing {
    Open,
    /// FIN sent; reading until EOF, the deadline or the byte bound.
    Lingering {
        read: u64,
    },
    Closed,
}

impl<T> GuardedIo<T> {
    pub(super) fn new(inner: T, activity: Arc<Activity>, stall_bound: Duration) -> Self {
        GuardedIo {
            inner,
            activity,
            stall_bound,
            stall: Box::pin(tokio::time::sleep(stall_bound)),
            stalled: false,
            closing: Closing::Open,
        }
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> GuardedIo<T> {
    /// A write did not move: arms the stall bound, or fails once it has passed.
    fn on_pending_write(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if !self.stalled {
            self.stalled = true;
            self.stall.as_mut().reset(Instant::now() + self.stall_bound);
        }
        match self.stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read nothing for {} s",
                    self.stall_bound.as_secs()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn write_inner(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Pending => self.on_pending_write(cx),
            ready => {
                self.stalled = false;
                ready
            }
        }
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for GuardedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        self.activity.on_read(&buf.filled()[before..]);
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for GuardedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write_inner(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Pending => self.on_pending_write(cx),
            ready => {
                self.stalled = false;
                ready
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            match self.closing {
                Closing::Open => {
                    ready!(Pin::new(&mut self.inner).poll_shutdown(cx))?;
                    self.stall.as_mut().reset(Instant::now() + LINGER);
                    self.closing = Closing::Lingering { read: 0 };
                }
                Closing::Lingering { read } => {
                    if read >= LINGER_BYTES || self.stall.as_mut().poll(cx).is_ready() {
                        self.closing = Closing::Closed;
                        continue;
                    }
                    let mut scratch = [0u8; 8192];
                    let mut buf = ReadBuf::new(&mut scratch);
                    match ready!(Pin::new(&mut self.inner).poll_read(cx, &mut buf)) {
                        Ok(()) if !buf.filled().is_empty() => {
                            self.closing = Closing::Lingering {
                                read: read + buf.filled().len() as u64,
                            };
                        }
                        // End of stream, or the peer reset: nothing more will come.
                        _ => self.closing = Closing::Closed,
                    }
                }
                Closing::Closed => return Poll::Ready(Ok(())),
            }
        }
    }
}
