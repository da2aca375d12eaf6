"""The endpoint address guard. Only loopback is ever connected to: every other address is judged by the
check itself, with name resolution stubbed and socket creation made to fail, so that even a broken guard
could not send a packet anywhere."""

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias.models import url_guard
from corefbias.models.http_protocol import HttpClusterModel, make_server
from corefbias.models.url_guard import AddressPolicy, BlockedAddressError, address_problem, guarded_opener


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("100.64.0.1", "not a public address"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback address (embedded in ::ffff:"),
        ("::ffff:169.254.169.254", "link-local"),
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 of the cloud metadata address
        ("2001:db8::1", "private"),  # documentation range
    ],
)
def test_addresses_that_are_not_public_are_refused_with_their_kind(address, kind):
    assert kind in address_problem(address)
    assert AddressPolicy(allow_private=True).problem(address, 80) is None


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert address_problem(address) is None


def test_single_sockets_can_be_allowed_port_by_port():
    policy = AddressPolicy(allowed_sockets=url_guard.parse_sockets("127.0.0.1:8808, [::1]:9000"))
    assert policy.problem("127.0.0.1", 8808) is None and policy.problem("::1", 9000) is None
    assert "loopback" in policy.problem("127.0.0.1", 8809) and "loopback" in policy.problem("::1", 8808)
    for bad in ("localhost:8808", "127.0.0.1", "127.0.0.1:0", "[::1]:x"):
        with pytest.raises(ValueError, match="is not <ip>:<port>"):
            url_guard.parse_sockets(bad)


@pytest.fixture
def no_sockets(monkeypatch):
    """Any attempt of the guard to open a socket fails the test before anything is sent."""
    opened = []

    def refuse(*args, **kwargs):
        opened.append(args)
        raise AssertionError("the guard opened a socket")

    monkeypatch.setattr(url_guard.socket, "socket", refuse)
    return opened


def _resolver(table):
    def resolve(host, port, family=0, kind=0):
        return [
            (socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in table[host]
        ]

    return resolve


NAMES = {
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["10.20.30.40"],
    "rebind.example": ["93.184.215.14", "192.168.0.7"],  # one public address does not excuse a private one
    "v6.example": ["fd00::5"],
    "mapped.example": ["::ffff:127.0.0.1"],
}


@pytest.mark.parametrize(
    "url",
    [
        "http://metadata.example/latest/meta-data",
        "https://intranet.example:8443/v1",
        "http://rebind.example",
        "https://v6.example",
        "http://mapped.example:80",
        "http://169.254.169.254/",
        "http://[fd00::1]:8808",
        "https://[::ffff:a00:1]/",
    ],
)
def test_urls_whose_host_resolves_to_a_private_address_are_refused_before_any_socket(url, no_sockets):
    names = {**NAMES, **{host: [host] for host in ("169.254.169.254", "fd00::1", "::ffff:a00:1")}}
    opener = guarded_opener(AddressPolicy(), resolve=_resolver(names))
    with pytest.raises(BlockedAddressError, match="refused to connect to .*(private|link-local|loopback)"):
        opener.open(url, timeout=1)
    assert no_sockets == []


def test_a_dns_name_is_named_with_the_address_it_resolves_to(no_sockets):
    with pytest.raises(BlockedAddressError, match=r"metadata.example resolves to 169.254.169.254 \(.*link-local"):
        url_guard.connect("metadata.example", 80, 1, None, AddressPolicy(), _resolver(NAMES))


class _Counting(BaseHTTPRequestHandler):
    """Counts every request; answers 200, or redirects to ``server.redirect_to``."""

    def do_GET(self):
        self.server.hits.append(self.path)
        target = getattr(self.server, "redirect_to", None)
        self.send_response(302 if target else 200)
        if target:
            self.send_header("Location", target + self.path)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


class _Server6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@pytest.fixture
def loopback_servers(start_server):
    def start(host="127.0.0.1", redirect_to=None, handler=_Counting):
        server = (_Server6 if ":" in host else ThreadingHTTPServer)((host, 0), handler)
        server.hits, server.redirect_to = [], redirect_to
        return start_server(server)

    return start


@pytest.mark.parametrize("target_host", ["127.0.0.1", "localhost", "[::1]"])
def test_a_redirect_from_an_allowed_server_to_loopback_is_refused(loopback_servers, target_host):
    target = loopback_servers("::1" if target_host == "[::1]" else "127.0.0.1")
    target_url = f"http://{target_host}:{target.server_address[1]}"
    redirector = loopback_servers(redirect_to=target_url)
    port = redirector.server_address[1]
    allowed = AddressPolicy(allowed_sockets=frozenset({("127.0.0.1", port)}))
    client = HttpClusterModel(f"http://127.0.0.1:{port}", timeout=5, retries=0, opener=guarded_opener(allowed))
    with pytest.raises(BlockedAddressError, match=f"refused to connect to .*{target.server_address[1]}.*loopback"):
        client.info  # noqa: B018
    assert redirector.hits == ["/v1/info"] and target.hits == []

    # The same redirect is followed once the target is allowed too: the servers really are reachable.
    both = AddressPolicy(
        allowed_sockets=frozenset({("127.0.0.1", port), (target.server_address[0], target.server_address[1])})
    )
    with guarded_opener(both).open(f"http://127.0.0.1:{port}/v1/info", timeout=5) as response:
        assert response.status == 200
    assert target.hits == ["/v1/info"]


def test_an_allowed_loopback_server_is_reached_through_the_guard(loopback_servers):
    server = make_server(lambda texts: [[] for _ in texts], "empty")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        client = HttpClusterModel(
            f"http://localhost:{port}", retries=0, opener=guarded_opener(AddressPolicy(allow_private=True))
        )
        assert client.predict_clusters(["She left."]) == [[]]
        refused = HttpClusterModel(f"http://localhost:{port}", retries=0, opener=guarded_opener(AddressPolicy()))
        with pytest.raises(BlockedAddressError, match=r"localhost resolves to (127.0.0.1|::1) \(.*loopback"):
            refused.info  # noqa: B018
    finally:
        server.shutdown()
        server.server_close()
