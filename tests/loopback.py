"""Servers the tests run on 127.0.0.1: a free port to give one, and a fixture that serves and stops them."""

import socket
import threading

import pytest


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def start_server():
    """``start_server(server)``: serve a ``socketserver`` server from a thread of its own; it is shut down and
    closed after the test."""
    started = []

    def start(server):
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()
