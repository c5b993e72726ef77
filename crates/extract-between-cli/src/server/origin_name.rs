//! An origin as `--allow-origin` and `--cors-origin` name it, and as a request's `Origin`
//! header carries it: parsed once into the form browsers send (`scheme://host[:port]`, scheme
//! and host in lower case, no port where it is the scheme's default), so that both flags
//! compare origins the same way and a value no browser could ever send is refused at start.

/// Why a value is not an origin a browser sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAnOrigin {
    Scheme,
    Path,
    QueryOrFragment,
    UserInfo,
    NoHost,
    Wildcard,
    TrailingDot,
    HostCharacters,
    Port,
}

impl std::fmt::Display for NotAnOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NotAnOrigin::Scheme => "the scheme must be http or https, followed by ://",
            NotAnOrigin::Path => "an origin has no path, not even a trailing /",
            NotAnOrigin::QueryOrFragment => "an origin has no ?query or #fragment",
            NotAnOrigin::UserInfo => "an origin has no user@ part",
            NotAnOrigin::NoHost => "the host is missing",
            NotAnOrigin::Wildcard => {
                "a wildcard host never matches: browsers send one origin, so name each (or * alone for any)"
            }
            NotAnOrigin::TrailingDot => {
                "a host with a trailing dot never matches: browsers send the name without it"
            }
            NotAnOrigin::HostCharacters => {
                "the host holds characters a browser never sends (write an internationalised name in its xn-- form)"
            }
            NotAnOrigin::Port => "the port must be a number from 1 to 65535",
        })
    }
}

/// The origin `value` names, in the form browsers send: `http` or `https`, a host of letters,
/// digits, dots and hyphens (or a bracketed IPv6 address), an optional port; scheme and host
/// lower-cased, the scheme's default port (80, 443) dropped.
pub(crate) fn normalise(value: &str) -> Result<String, NotAnOrigin> {
    let (scheme, rest) = value.split_once("://").ok_or(NotAnOrigin::Scheme)?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return Err(NotAnOrigin::Scheme),
    };
    if rest.contains(['?', '#']) {
        return Err(NotAnOrigin::QueryOrFragment);
    }
    if rest.contains('/') {
        return Err(NotAnOrigin::Path);
    }
    if rest.contains('@') {
        return Err(NotAnOrigin::UserInfo);
    }
    let (host, port) = match rest.strip_prefix('[') {
        Some(v6) => {
            let (inside, after) = v6.split_once(']').ok_or(NotAnOrigin::HostCharacters)?;
            inside
                .parse::<std::net::Ipv6Addr>()
                .map_err(|_| NotAnOrigin::HostCharacters)?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':').ok_or(NotAnOrigin::Port)?),
            };
            (&rest[..inside.len() + 2], port)
        }
        None => match rest.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        },
    };
    if host.is_empty() {
        return Err(NotAnOrigin::NoHost);
    }
    if host.contains('*') {
        return Err(NotAnOrigin::Wildcard);
    }
    if !host.starts_with('[') {
        if host.ends_with('.') {
            return Err(NotAnOrigin::TrailingDot);
        }
        let label_ok =
            |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !host.split('.').all(label_ok) {
            return Err(NotAnOrigin::HostCharacters);
        }
    }
    let port = match port {
        None => None,
        Some(p) => {
            let n = (!p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u32>().ok())
                .flatten()
                .filter(|n| (1..=65535).contains(n))
                .ok_or(NotAnOrigin::Port)?;
            (n.to_string() != default_port).then_some(n)
        }
    };
    let host = host.to_ascii_lowercase();
    Ok(match port {
        Some(n) => format!("{scheme}://{host}:{n}"),
        None => format!("{scheme}://{host}"),
    })
}

/// The flags' value parser: `*`, or an origin (see [`normalise`]), answered normalised.
pub(crate) fn parse_flag(value: &str) -> Result<String, String> {
    if value == "*" {
        return Ok(value.to_owned());
    }
    normalise(value).map_err(|why| {
        format!(
            "{value:?} is not an origin: {why}; write it as a browser sends it, scheme://host[:port] (https://app.example), or * for any"
        )
    })
}

/// Whether a request's `Origin` is one of `allowed` (normalised by [`parse_flag`]; `*`
/// allows any).
pub(crate) fn listed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a == "*") {
        return true;
    }
    normalise(origin).is_ok_and(|o| allowed.contains(&o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equivalent_spellings_become_the_one_browsers_send() {
        for (value, origin) in [
            ("https://app.example", "https://app.example"),
            ("HTTPS://App.Example", "https://app.example"),
            ("https://app.example:443", "https://app.example"),
            ("http://app.example:80", "http://app.example"),
            ("http://app.example:443", "http://app.example:443"),
            ("https://app.example:8443", "https://app.example:8443"),
            ("http://[::1]:3000", "http://[::1]:3000"),
            ("http://127.0.0.1", "http://127.0.0.1"),
        ] {
            assert_eq!(normalise(value).as_deref(), Ok(origin), "{value}");
        }
    }

    #[test]
    fn what_a_browser_never_sends_is_refused_with_its_reason() {
        for (value, why) in [
            ("https://app.example#x", NotAnOrigin::QueryOrFragment),
            ("https://app.example?x", NotAnOrigin::QueryOrFragment),
            ("https://app.example/", NotAnOrigin::Path),
            ("https://app.example/path", NotAnOrigin::Path),
            ("https://app.example:99999", NotAnOrigin::Port),
            ("https://app.example:0", NotAnOrigin::Port),
            ("https://app.example:", NotAnOrigin::Port),
            ("https://app.example:x", NotAnOrigin::Port),
            ("https://*.example", NotAnOrigin::Wildcard),
            ("https://app.example.", NotAnOrigin::TrailingDot),
            ("https://app..example", NotAnOrigin::HostCharacters),
            ("https://äpp.example", NotAnOrigin::HostCharacters),
            ("https://", NotAnOrigin::NoHost),
            ("https://user@app.example", NotAnOrigin::UserInfo),
            ("ftp://app.example", NotAnOrigin::Scheme),
            ("app.example", NotAnOrigin::Scheme),
            ("null", NotAnOrigin::Scheme),
            ("http://[::1", NotAnOrigin::HostCharacters),
        ] {
            assert_eq!(normalise(value), Err(why), "{value}");
        }
    }

    #[test]
    fn a_request_origin_is_compared_in_the_same_form() {
        let allowed = [parse_flag("https://App.Example:443").unwrap()];
        assert!(listed("https://app.example", &allowed));
        assert!(!listed("https://app.example:8443", &allowed));
        assert!(!listed("http://app.example", &allowed));
        assert!(!listed("null", &allowed));
        assert!(listed("null", &["*".to_owned()]));
    }
}
