//! The signals that end `serve`.

/// Resolves on SIGTERM or Ctrl-C. The handlers are installed when this is called, not when
/// the future is first polled: `serve` may accept and answer a connection before it polls
/// its shutdown future, and a SIGTERM in that window would have killed the process outright
/// (a flaky test caught it: the server gone 300 ms after SIGTERM with an upload in flight).
pub(super) fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    let (term, int) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::interrupt()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(term) => {},
                () = wait(int) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("shutting down: no new connections, finishing in-flight requests");
    }
}
