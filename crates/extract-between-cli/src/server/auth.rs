//! Bearer-token authentication: when tokens are configured (`--auth-token-file`,
//! `EXTRACT_BETWEEN_AUTH_TOKEN`), every route but the probes requires `Authorization:
//! Bearer <token>`; otherwise 401 with the error envelope and `WWW-Authenticate: Bearer`.
//!
//! Tokens are kept as SHA-256 digests and a presented token is hashed and compared against
//! every one of them in constant time (`subtle`), so neither the comparison nor the number of
//! tokens tried tells an attacker how much of a guess was right. Tokens are never logged.
//! The file is re-read when it changes, so a token can be added, then the old one removed,
//! without a restart (as a Kubernetes Secret mounted as a file is updated).

use super::error::{ApiError, ErrorCode};
use super::urls::PLAYGROUND;
use super::urls::PROBES;
use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};
use subtle::ConstantTimeEq;

/// How often the token file is looked at for changes.
const RELOAD_EVERY: Duration = Duration::from_secs(2);

type TokenDigest = [u8; 32];

/// The accepted tokens.
#[derive(Debug)]
pub(super) struct Auth {
    file: Option<PathBuf>,
    from_env: Option<TokenDigest>,
    from_file: RwLock<Arc<Vec<TokenDigest>>>,
    stamp: std::sync::Mutex<Option<FileStamp>>,
}

/// What tells a changed file: its modification time, length and inode.
#[derive(Clone, Debug, PartialEq)]
struct FileStamp(Option<SystemTime>, u64, u64);

fn stamp(path: &Path) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some(FileStamp(meta.modified().ok(), meta.len(), inode))
}

fn digest(token: &[u8]) -> TokenDigest {
    Sha256::digest(token).into()
}

/// The line of a token file that revokes every token (the file's other lines included).
pub(super) const REVOKE_ALL: &str = "!revoke-all";

/// Whether `c` may appear in a bearer token (RFC 6750's `b64token`).
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/=".contains(c)
}

/// The most a token file may hold: tokens are short, and a larger file is a mistake (a log
/// moved over it, a link to a device) that would otherwise be read whole.
const MAX_TOKEN_FILE_BYTES: u64 = 1 << 20;

/// A token file's text, read only if it is a regular file of at most
/// [`MAX_TOKEN_FILE_BYTES`]. It is opened without blocking (a FIFO put in its place would
/// otherwise block the reloader until a writer came) and checked on the open descriptor, so
/// nothing can be swapped in between.
fn read_regular(path: &Path) -> Result<String, AuthError> {
    let unreadable = |source| AuthError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(unreadable)?;
    if !file.metadata().map_err(unreadable)?.is_file() {
        return Err(AuthError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_TOKEN_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_TOKEN_FILE_BYTES {
        return Err(AuthError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_TOKEN_FILE_BYTES,
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        unreadable(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            e.utf8_error(),
        ))
    })
}

/// Why the tokens cannot be set up, or a token file cannot be read again.
#[derive(Debug)]
pub enum AuthError {
    /// `EXTRACT_BETWEEN_AUTH_TOKEN` is set to nothing.
    EmptyEnvToken,
    /// The token file cannot be read.
    Unreadable {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The token file is not a regular file (a FIFO, a device, a directory).
    NotRegular {
        /// The file.
        path: std::path::PathBuf,
    },
    /// The token file is larger than a token file can be.
    TooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// The most it may hold, in bytes.
        limit: u64,
    },
    /// The token file holds no token (nor `!revoke-all`).
    NoToken {
        /// The file.
        path: std::path::PathBuf,
    },
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthError::EmptyEnvToken => f.write_str("EXTRACT_BETWEEN_AUTH_TOKEN is set but empty"),
            AuthError::Unreadable { path, source } => {
                write!(f, "cannot read the token file {}: {source}", path.display())
            }
            AuthError::NotRegular { path } => write!(
                f,
                "the token file {} is not a regular file (a FIFO, a device or a directory)",
                path.display()
            ),
            AuthError::TooLarge { path, limit } => write!(
                f,
                "the token file {} holds more than {limit} bytes: tokens are one short line each",
                path.display()
            ),
            AuthError::NoToken { path } => write!(
                f,
                "the token file {} holds no token (one a line; a line {REVOKE_ALL} refuses every request)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for AuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AuthError::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The tokens in a token file: one a line, blank lines and `#` comments skipped, a leading
/// byte order mark dropped, each line trimmed of ASCII whitespace (as the `Authorization`
/// header is). A line `!revoke-all` leaves no token accepted. Lines holding
/// characters a bearer token cannot have are kept (a client may send them all the same) and
/// logged by line number, never by content.
fn read_tokens(path: &Path) -> Result<Vec<TokenDigest>, AuthError> {
    let text = read_regular(path)?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let mut tokens = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == REVOKE_ALL {
            tracing::warn!(file = %path.display(), "the token file revokes every token: every request but the probes gets 401");
            return Ok(Vec::new());
        }
        if !line.chars().all(token_char) {
            tracing::warn!(
                file = %path.display(),
                line = n + 1,
                "a token holds characters a bearer token cannot have (RFC 6750: letters, digits, -._~+/=)"
            );
        }
        tokens.push(digest(line.as_bytes()));
    }
    if tokens.is_empty() {
        return Err(AuthError::NoToken {
            path: path.to_path_buf(),
        });
    }
    Ok(tokens)
}

impl Auth {
    /// The configured tokens; `None` when authentication is off.
    ///
    /// # Errors
    ///
    /// A token file that cannot be read or holds no token, or an empty token: starting
    /// without the authentication asked for would be worse than not starting.
    pub(super) fn load(
        file: Option<&Path>,
        env_token: Option<&str>,
    ) -> Result<Option<Auth>, AuthError> {
        if file.is_none() && env_token.is_none() {
            return Ok(None);
        }
        let from_env = match env_token.map(str::trim) {
            Some("") => return Err(AuthError::EmptyEnvToken),
            Some(t) => Some(digest(t.as_bytes())),
            None => None,
        };
        let (from_file, file_stamp) = match file {
            Some(path) => (read_tokens(path)?, stamp(path)),
            None => (Vec::new(), None),
        };
        Ok(Some(Auth {
            file: file.map(Path::to_path_buf),
            from_env,
            from_file: RwLock::new(Arc::new(from_file)),
            stamp: std::sync::Mutex::new(file_stamp),
        }))
    }

    /// Whether `token` is one of the accepted tokens.
    fn accepts(&self, token: &[u8]) -> bool {
        let presented = digest(token);
        let file = self
            .from_file
            .read()
            .map(|t| Arc::clone(&t))
            .unwrap_or_default();
        if file.is_empty() && self.file.is_some() {
            // The file revoked every token, the environment's too.
            return false;
        }
        let mut ok = subtle::Choice::from(0);
        for known in file.iter().chain(self.from_env.iter()) {
            ok |= known.ct_eq(&presented);
        }
        ok.into()
    }

    /// Re-reads the token file if it changed, or at once with `force` (SIGHUP). A file that
    /// became unreadable or empty keeps the tokens read before (and says so): locking every
    /// client out is not a rotation; `!revoke-all` is how to do that.
    pub(super) fn reload(&self, force: bool) {
        let Some(path) = &self.file else { return };
        let now = stamp(path);
        let Ok(mut seen) = self.stamp.lock() else {
            return;
        };
        if now == *seen && !force {
            return;
        }
        match read_tokens(path) {
            Ok(tokens) => {
                if let Ok(mut held) = self.from_file.write() {
                    *held = Arc::new(tokens);
                }
                *seen = now;
                tracing::info!(file = %path.display(), "token file re-read");
            }
            Err(why) => {
                *seen = now;
                tracing::warn!("{why}; keeping the tokens read before");
            }
        }
    }

    /// Looks at the token file every few seconds, and at once on SIGHUP, for as long as
    /// the service runs.
    pub(super) fn watch(self: Arc<Self>) {
        if self.file.is_none() {
            return;
        }
        let mut hangups = super::signal::Hangups::listen();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(RELOAD_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                let force = tokio::select! {
                    _ = every.tick() => false,
                    () = hangups.recv() => {
                        tracing::info!("SIGHUP: re-reading the token file");
                        true
                    }
                };
                let auth = Arc::clone(&self);
                // File reads block: off the runtime's workers.
                let _ = tokio::task::spawn_blocking(move || auth.reload(force)).await;
            }
        });
    }
}

/// The token in an `Authorization` header: scheme `Bearer` (any case), one space or more.
fn bearer(value: &HeaderValue) -> Option<&[u8]> {
    let value = value.as_bytes();
    let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let token = rest.trim_ascii();
    (!token.is_empty()).then_some(token)
}

/// The 401 for a request that needs a token and carries no accepted one.
pub(super) fn refuse_unauthorized(auth: Option<&Auth>, req: &Request<Body>) -> Option<Response> {
    let auth = auth?;
    let path = req.uri().path();
    // The probes, the index, and the playground's static files (the page computes in the
    // browser, or asks the execute URL, which wants the token).
    if PROBES.contains(&path)
        || path == "/"
        || path
            .strip_prefix(PLAYGROUND)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    {
        return None;
    }
    let presented = req.headers().get(header::AUTHORIZATION);
    if presented
        .and_then(bearer)
        .is_some_and(|token| auth.accepts(token))
    {
        return None;
    }
    let (message, challenge) = if presented.is_some() {
        (
            "the bearer token is not valid",
            r#"Bearer realm="extract-between", error="invalid_token""#,
        )
    } else {
        (
            "this route requires a bearer token: send Authorization: Bearer <token>",
            r#"Bearer realm="extract-between""#,
        )
    };
    let mut response = ApiError::new(ErrorCode::Unauthorized, message)
        .field("Authorization")
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_scheme_is_case_insensitive_and_needs_a_token() {
        let v = |s: &'static str| HeaderValue::from_static(s);
        assert_eq!(bearer(&v("Bearer abc")), Some(&b"abc"[..]));
        assert_eq!(bearer(&v("bearer   abc ")), Some(&b"abc"[..]));
        assert_eq!(bearer(&v("Basic abc")), None);
        assert_eq!(bearer(&v("Bearer ")), None);
        assert_eq!(bearer(&v("Bearerabc")), None);
    }

    #[test]
    fn accepts_only_the_configured_tokens() {
        let auth = Auth::load(None, Some("alpha")).unwrap().unwrap();
        assert!(auth.accepts(b"alpha"));
        assert!(!auth.accepts(b"alph"));
        assert!(!auth.accepts(b"alphaa"));
        assert!(!auth.accepts(b""));
    }
}
