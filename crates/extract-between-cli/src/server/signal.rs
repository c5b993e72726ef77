//! The signals that end `serve` (the first begins the drain, a second exits at once), and
//! SIGHUP, which re-reads the token file and never ends the process.

/// SIGTERM and Ctrl-C (SIGINT), as a source of events.
///
/// The handlers are installed when this is built, not when first polled: `serve` may
/// accept and answer a connection before it polls its shutdown future, and a SIGTERM in
/// that window would have killed the process outright.
pub(super) struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
    /// Installed with the others so that a SIGHUP never kills the process, whether or not a
    /// token file is there to re-read (a handler once installed stays for the process).
    _hangups: Hangups,
}

/// SIGHUP, as a source of events.
pub(super) struct Hangups {
    #[cfg(unix)]
    hup: Option<tokio::signal::unix::Signal>,
}

impl Hangups {
    pub(super) fn listen() -> Hangups {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Hangups {
                hup: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        Hangups {}
    }

    /// Resolves at the next SIGHUP (never where there is none).
    pub(super) async fn recv(&mut self) {
        #[cfg(unix)]
        if let Some(hup) = self.hup.as_mut() {
            hup.recv().await;
            return;
        }
        std::future::pending::<()>().await;
    }
}

impl Signals {
    pub(super) fn install() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                term: signal(SignalKind::terminate()).ok(),
                int: signal(SignalKind::interrupt()).ok(),
                _hangups: Hangups::listen(),
            }
        }
        #[cfg(not(unix))]
        Signals {
            _hangups: Hangups::listen(),
        }
    }

    /// Resolves at the next SIGTERM or Ctrl-C.
    pub(super) async fn recv(&mut self) {
        #[cfg(unix)]
        {
            async fn wait(s: Option<&mut tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = wait(self.term.as_mut()) => {},
                () = wait(self.int.as_mut()) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("signal received: shutting down");
    }
}
