"""Outgoing HTTP(S) that only reaches public addresses: the guard against server-side request forgery.

A visitor of the Space names an endpoint URL; the Space must not become a way to call addresses
inside its own network (loopback, private ranges, link-local cloud metadata at 169.254.169.254, ...).
Checking the host *name* is not enough: a public-looking name can resolve to 127.0.0.1, resolve
differently a second time (DNS rebinding), or redirect to an internal URL. So the check sits in the
connection itself: :func:`guarded_opener` builds a urllib opener whose connections resolve the host
once, refuse the whole name if any of its addresses is not public, connect to one of the checked
addresses by number, and check the peer address of the connected socket again. Redirects go through
the same opener, so every hop is checked. Proxies from the environment are ignored: through a proxy
the guard would check the proxy's address instead of the target's.

Standard library only.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import urllib.request
from dataclasses import dataclass

from .cluster_format import ModelError
from .http_retry import WatchedConnection

# Ranges that embed an IPv4 address a gateway may forward to: NAT64 (RFC 6052, RFC 8215).
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class BlockedAddressError(ModelError):
    """An endpoint resolves to (or redirects to) an address the Space may not call."""


def address_problem(address: str) -> str | None:
    """Why ``address`` (an IP literal) is not a public unicast address, or None when it is.

    IPv4 addresses embedded in IPv6 ones (IPv4-mapped ``::ffff:127.0.0.1``, 6to4, Teredo, NAT64)
    are judged by the IPv4 address they reach.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # a scope id (fe80::1%eth0) is not part of the address
    if ip.version == 6:
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and any(ip in network for network in _NAT64):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            problem = address_problem(str(embedded))
            return f"{problem} (embedded in {ip})" if problem else None
    for kind, flag in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
    ):
        if flag:
            return f"{ip} is a {kind} address"
    if not ip.is_global:  # e.g. 100.64.0.0/10, shared carrier-grade NAT space
        return f"{ip} is not a public address"
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """Which addresses connections may reach.

    ``allow_private``: every address (local use, where the model server runs beside the app).
    ``allowed_sockets``: ``(ip, port)`` pairs allowed although not public, e.g. one model server on
    loopback next to a published Space; an address's other ports stay refused.
    """

    allow_private: bool = False
    allowed_sockets: frozenset = frozenset()

    def problem(self, address: str, port: int) -> str | None:
        if self.allow_private:
            return None
        if (str(ipaddress.ip_address(address.split("%", 1)[0])), port) in self.allowed_sockets:
            return None
        return address_problem(address)


def parse_sockets(text: str) -> frozenset:
    """``"127.0.0.1:8808, [::1]:8809"`` → ``{("127.0.0.1", 8808), ("::1", 8809)}``."""
    sockets = set()
    for item in filter(None, (part.strip() for part in text.split(","))):
        host, sep, port = item.rpartition(":")
        try:
            if not sep or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError
            sockets.add((str(ipaddress.ip_address(host.strip("[]"))), int(port)))
        except ValueError:
            raise ValueError(f"{item!r} is not <ip>:<port> (e.g. 127.0.0.1:8808 or [::1]:8808)") from None
    return frozenset(sockets)


def connect(host: str, port: int, timeout, source_address, policy: AddressPolicy, resolve=socket.getaddrinfo):
    """A socket connected to ``host:port`` at an address ``policy`` allows (else BlockedAddressError)."""
    try:
        infos = resolve(host, port, 0, socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"cannot resolve {host}: {error}") from None
    for *_, sockaddr in infos:
        problem = policy.problem(sockaddr[0], port)
        if problem:
            shown = problem if _is_literal(host) else f"{host} resolves to {sockaddr[0]} ({problem})"
            raise BlockedAddressError(
                f"refused to connect to {_netloc(host, port)}: {shown}; this Space calls public endpoints only "
                "(its owner can allow private addresses with COREFBIAS_SPACE_ALLOW_PRIVATE_ENDPOINTS=1 or "
                "single ones with COREFBIAS_SPACE_ALLOWED_ENDPOINTS=<ip>:<port>)"
            )
    last_error: OSError = OSError(f"{host} has no address")
    for family, kind, protocol, _, sockaddr in infos:
        sock = socket.socket(family, kind, protocol)
        try:
            if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)  # the checked address, by number: nothing is resolved again
            peer = sock.getpeername()[0]
            problem = policy.problem(peer, port)
            if problem:
                raise BlockedAddressError(f"refused the connection to {_netloc(host, port)}: {problem}")
            return sock
        except BlockedAddressError:
            sock.close()
            raise
        except OSError as error:
            sock.close()
            last_error = error
    raise last_error


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _CheckedConnect:
    def __init__(self, *args, policy: AddressPolicy, resolve, **kwargs):
        super().__init__(*args, **kwargs)
        # http.client opens every connection through this attribute (socket.create_connection by default).
        self._create_connection = functools.partial(self._connect_checked, policy=policy, resolve=resolve)

    def _connect_checked(self, address, timeout, source_address=None, *, policy, resolve):
        return connect(address[0], address[1], timeout, source_address, policy, resolve)


class _GuardedHTTPConnection(_CheckedConnect, WatchedConnection, http.client.HTTPConnection):
    pass


class _GuardedHTTPSConnection(_CheckedConnect, WatchedConnection, http.client.HTTPSConnection):
    """TLS is wrapped around the checked socket with the URL's host name, so certificates are still verified."""


class _GuardedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, policy: AddressPolicy, resolve):
        super().__init__()
        self._connection = functools.partial(_GuardedHTTPConnection, policy=policy, resolve=resolve)

    def http_open(self, req):
        return self.do_open(self._connection, req)


class _GuardedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, policy: AddressPolicy, resolve):
        super().__init__()
        self._connection = functools.partial(_GuardedHTTPSConnection, policy=policy, resolve=resolve)

    def https_open(self, req):
        return self.do_open(self._connection, req, context=self._context)


def guarded_opener(policy: AddressPolicy, resolve=socket.getaddrinfo) -> urllib.request.OpenerDirector:
    """A urllib opener for http and https whose every connection, redirects included, obeys ``policy`` (and is
    cut when its request's deadline passes, ``http_retry.read_within``).

    ``resolve`` (``socket.getaddrinfo``'s signature) is replaceable so that tests can stub DNS.
    """
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}), _GuardedHTTPHandler(policy, resolve), _GuardedHTTPSHandler(policy, resolve)
    )
