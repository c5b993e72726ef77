//! Who may use `/mcp`: the `Origin` header (against DNS rebinding) and, on a service that
//! listens on loopback, the `Host` it was asked by; and the 403 bodies of those refused (a
//! JSON-RPC error without an id, so that an MCP client can read it).

use super::origin_name::listed;
use crate::mcp::http::refusal;
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue};
use std::net::{Ipv4Addr, Ipv6Addr};

/// Whether a request's `Origin` may use the endpoint: absent (not a browser), an `http` or
/// `https` origin whose host is loopback (see [`is_loopback`]), or one of `allowed` (see
/// [`listed`]; `*` allows every origin).
pub(super) fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    headers
        .get(axum::http::header::ORIGIN)
        .is_none_or(|origin| origin_value_allowed(origin, allowed))
}

/// Whether an `Origin` header's value may use `/mcp` (see [`origin_allowed`]); CORS for
/// `/mcp` answers the same origins.
pub(super) fn origin_value_allowed(origin: &HeaderValue, allowed: &[String]) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if listed(origin, allowed) {
        return true;
    }
    let Ok(uri) = origin.parse::<axum::http::Uri>() else {
        return false;
    };
    let web = matches!(uri.scheme_str(), Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    web && uri.authority().is_some_and(|a| is_loopback(a.as_str()))
}

/// The host of a well-formed `Host` authority (`name`, `name:port`, `[v6]:port`), without
/// its port; `None` for a malformed one (user info, a port that is not a number below 65536,
/// anything around a bracketed address).
fn parsed_host(authority: &str) -> Option<&str> {
    let parsed: Authority = authority.parse().ok()?;
    if authority.contains('@') {
        return None;
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (inside, rest) = v6.split_once(']')?;
            (&authority[..inside.len() + 2], rest.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    if authority.starts_with('[') && !authority[host.len()..].is_empty() && port.is_none() {
        return None;
    }
    if port.is_some() && parsed.port_u16().is_none() {
        return None;
    }
    Some(host)
}

/// Whether an authority names this machine, any port: `localhost` (a trailing dot too),
/// `127.0.0.0/8`, `[::1]` or an IPv4-mapped loopback address; a malformed authority does not.
pub(crate) fn is_loopback(authority: &str) -> bool {
    let Some(host) = parsed_host(authority) else {
        return false;
    };
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|ip| {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        });
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a request's `Host` (or HTTP/2 authority) may reach the endpoint of a service
/// listening on loopback: a loopback name (see [`is_loopback`]), or one of `allowed` (`host`
/// for any port, `host:port` for that one; `*` allows every host). A malformed authority
/// never passes but with `*`. A web page that rebinds its own name to 127.0.0.1 sends its
/// own name.
pub(super) fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else {
        return false;
    };
    if allowed.iter().any(|a| a == "*") {
        return true;
    }
    let Some(name) = parsed_host(host) else {
        return false;
    };
    is_loopback(host)
        || allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host) || a.eq_ignore_ascii_case(name))
}

/// The body of a 403 for a host a loopback service does not answer.
pub(super) fn forbidden_host() -> String {
    refusal(
        "this Host may not use the MCP endpoint of a service on loopback (serve --allow-host adds hosts)",
    )
}

/// The body of a 403 for a foreign origin: a JSON-RPC error without an id.
pub(super) fn forbidden_origin() -> String {
    refusal("this Origin may not use the MCP endpoint (serve --allow-origin adds origins)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_pass_and_others_need_allowing() {
        let check = |origin: &str, allowed: &[String]| {
            let mut h = HeaderMap::new();
            h.insert("origin", HeaderValue::from_str(origin).unwrap());
            origin_allowed(&h, allowed)
        };
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:8080",
            "http://127.1.2.3",
        ] {
            assert!(check(ok, &[]), "{ok}");
        }
        for bad in [
            "https://evil.example",
            "null",
            "http://localhost.evil.example",
            "x://localhost",
            "://localhost",
            "http://[::1].evil.com",
        ] {
            assert!(!check(bad, &[]), "{bad}");
        }
        assert!(check(
            "https://app.example",
            &["https://app.example".into()]
        ));
        assert!(origin_allowed(&HeaderMap::new(), &[]));
    }

    #[test]
    fn loopback_hosts_pass_and_others_need_allowing() {
        for ok in [
            "localhost:8080",
            "127.0.0.1",
            "[::1]:9",
            "127.9.9.9:80",
            "localhost.",
            "localhost.:8080",
            "LOCALHOST",
            "127.0.0.1.",
            "[::ffff:127.0.0.1]",
            "[::ffff:127.0.0.1]:80",
        ] {
            assert!(host_allowed(Some(ok), &[]), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "[::1].evil.com",
            "[::1]evil.com:80",
            "127.0.0.1:99999",
            "localhost:abc",
            "user@localhost",
            "[::ffff:10.0.0.1]",
            "",
        ] {
            assert!(!host_allowed(Some(bad), &[]), "{bad}");
        }
        assert!(!host_allowed(None, &[]));
        let allowed = ["mcp.example".to_owned(), "other.example:8443".to_owned()];
        assert!(host_allowed(Some("mcp.example:8080"), &allowed));
        assert!(host_allowed(Some("other.example:8443"), &allowed));
        assert!(!host_allowed(Some("other.example:80"), &allowed));
        assert!(host_allowed(Some("anything"), &["*".to_owned()]));
    }
}
