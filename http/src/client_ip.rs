//! Who a request comes from, for the per-address limits (sign-ins, new conversations, new
//! live connections).
//!
//! Why not the TCP peer alone: behind a reverse proxy (the usual way to put TLS in front of a
//! self-hosted server) every request's peer is the proxy, so every visitor would share one
//! budget and the sixth new conversation of the hour would be refused to everyone. Why not
//! X-Forwarded-For alone: any client can write that header. So the header counts only when
//! the peer is a proxy the owner listed (`trusted_proxies`), and it is read from the right:
//! each trusted proxy appends the address it got the request from, so the right-most entry
//! that is not itself a trusted proxy is the client; whatever stands left of it was written
//! by that client and is ignored.

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::http::header::HeaderMap;
use ipnet::IpNet;

/// Resolves a request's client address. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct ClientIp {
    trusted: Arc<[IpNet]>,
}

impl ClientIp {
    /// Trusts the given proxies (none: every peer is the client).
    pub fn new(trusted: Vec<IpNet>) -> ClientIp {
        ClientIp { trusted: trusted.into() }
    }

    /// From `trusted_proxies` (validated when the settings were loaded; a list that does not
    /// parse trusts no one).
    pub fn from_settings(settings: &parley_config::Settings) -> ClientIp {
        ClientIp::new(settings.trusted_proxy_nets().unwrap_or_default())
    }

    /// The client of a request that came from `peer` with these headers.
    pub fn resolve(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let mut client = peer.map(|ip| ip.to_canonical())?;
        if !self.is_trusted(client) {
            return Some(client);
        }
        // Every X-Forwarded-For header, in order, as one list; walked from its right end.
        let listed: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        for entry in listed.iter().rev() {
            match parse_forwarded(entry) {
                Some(ip) => client = ip,
                // An entry that is not an address ends the chain: the last hop that is known
                // is the client.
                None => break,
            }
            if !self.is_trusted(client) {
                break;
            }
        }
        Some(client)
    }

    /// [`ClientIp::resolve`] for an actix request.
    pub fn of(&self, req: &actix_web::HttpRequest) -> Option<IpAddr> {
        self.resolve(req.peer_addr().map(|a| a.ip()), req.headers())
    }

    fn is_trusted(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|net| net.contains(&ip))
    }
}

/// One X-Forwarded-For entry: an address, possibly with a port (`1.2.3.4:5678`,
/// `[2001:db8::1]:443`).
fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    entry.parse::<std::net::SocketAddr>().ok().map(|a| a.ip().to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(HeaderName::from_static("x-forwarded-for"), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn proxies(list: &[&str]) -> ClientIp {
        ClientIp::new(list.iter().map(|n| n.parse().unwrap()).collect())
    }

    #[test]
    fn a_peer_that_is_not_a_trusted_proxy_is_the_client_whatever_it_claims() {
        let c = proxies(&["127.0.0.0/8"]);
        assert_eq!(c.resolve(Some(ip("203.0.113.9")), &headers(&["198.51.100.1"])), Some(ip("203.0.113.9")));
        assert_eq!(ClientIp::default().resolve(Some(ip("127.0.0.1")), &headers(&["198.51.100.1"])), Some(ip("127.0.0.1")));
        assert_eq!(c.resolve(None, &headers(&["198.51.100.1"])), None);
    }

    #[test]
    fn behind_a_trusted_proxy_the_right_most_untrusted_entry_is_the_client() {
        let c = proxies(&["127.0.0.0/8", "10.0.0.0/8"]);
        // The proxy appended the address it saw; what the client wrote stands left of it.
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["6.6.6.6, 198.51.100.7"])), Some(ip("198.51.100.7")));
        // Two proxies: the inner one's entry is skipped.
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["6.6.6.6, 198.51.100.7, 10.0.0.5"])), Some(ip("198.51.100.7")));
        // Several headers are one list, in order.
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["6.6.6.6", "198.51.100.7"])), Some(ip("198.51.100.7")));
        // No header: the proxy itself (a local client, a health check).
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &HeaderMap::new()), Some(ip("127.0.0.1")));
        // Every hop trusted: the left-most.
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["10.0.0.9, 10.0.0.5"])), Some(ip("10.0.0.9")));
    }

    #[test]
    fn entries_with_ports_are_read_and_garbage_ends_the_chain() {
        let c = proxies(&["127.0.0.1/32"]);
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["198.51.100.7:51234"])), Some(ip("198.51.100.7")));
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["[2001:db8::7]:443"])), Some(ip("2001:db8::7")));
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["198.51.100.7, unknown"])), Some(ip("127.0.0.1")));
        assert_eq!(c.resolve(Some(ip("127.0.0.1")), &headers(&["unknown, 198.51.100.7"])), Some(ip("198.51.100.7")));
    }

    #[test]
    fn ipv4_mapped_addresses_are_the_ipv4_address() {
        let c = proxies(&["127.0.0.0/8"]);
        assert_eq!(c.resolve(Some(ip("::ffff:127.0.0.1")), &headers(&["::ffff:198.51.100.7"])), Some(ip("198.51.100.7")));
        assert_eq!(c.resolve(Some(ip("::ffff:203.0.113.9")), &HeaderMap::new()), Some(ip("203.0.113.9")));
    }
}
