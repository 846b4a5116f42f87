"""`serve` under many tabs: live-update streams are bounded per client and in all, the oldest is closed for
a new one (with an event that tells its page), and a page request is always answered, however many streams
a browser or a program opened."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from generator.serve import LIVE_PREFIX, STREAMS_IN_ALL, STREAMS_PER_CLIENT, Generation, Streams, serve


@contextmanager
def live(site: Path):
    with serve(site, 0, Generation()) as server:
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        try:
            yield server
        finally:
            server.shutdown()


def open_stream(server, source: str = "127.0.0.1") -> socket.socket:
    host, port = server.bound
    connection = socket.create_connection((host, port), timeout=10, source_address=(source, 0))
    connection.sendall(f"GET {LIVE_PREFIX}events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return connection


def read_until(connection: socket.socket, marker: bytes) -> bytes:
    received = b""
    while marker not in received:
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    return received


def page(server) -> bytes:
    host, port = server.bound
    with socket.create_connection((host, port), timeout=10) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        return read_until(connection, b"</html>")


def test_a_page_is_answered_with_300_streams_open(examples_site):
    with live(examples_site) as server:
        streams = []
        try:
            for _ in range(300):
                streams.append(open_stream(server))
            # Each stream got its first line, or was closed for a newer one: none waits unanswered.
            for connection in streams[-STREAMS_PER_CLIENT:]:
                assert b"data: 0" in read_until(connection, b"data: 0")
            answer = page(server)  # a socket timeout of 10 s fails it
            assert answer.startswith(b"HTTP/1.0 200") and b"Claude Code sessions" in answer
            # The oldest were closed, each told why, and their threads let go.
            first = read_until(streams[0], b"too many streams")
            assert b"event: closed" in first
            assert streams[0].recv(1) == b""  # the server ended the connection
            assert server.RequestHandlerClass.func.streams.count() <= STREAMS_PER_CLIENT
        finally:
            for connection in streams:
                connection.close()


def test_streams_are_bounded_per_client_the_oldest_closed_first():
    generation = Generation()
    streams = Streams(generation, per_client=2, in_all=5)
    first, second = streams.open("a"), streams.open("a")
    other = streams.open("b")
    third = streams.open("a")
    assert first.closed and not second.closed and not third.closed and not other.closed
    assert streams.count() == 3


def test_streams_are_bounded_in_all_the_oldest_closed_first():
    streams = Streams(Generation(), per_client=10, in_all=3)
    opened = [streams.open(client) for client in ("a", "b", "c", "d", "e")]
    assert [stream.closed for stream in opened] == [True, True, False, False, False]
    assert streams.count() == 3
    streams.end(opened[3])
    assert streams.count() == 2
    assert STREAMS_PER_CLIENT < 6 <= STREAMS_IN_ALL  # a browser's six connections to a host: some stay free


def test_a_closed_stream_s_thread_wakes_at_once():
    """A stream waiting for the next build is closed by a newer one: it stops waiting now, not at its
    keep-alive."""
    generation = Generation()
    streams = Streams(generation, per_client=1, in_all=10)
    oldest = streams.open("a")
    woke = threading.Event()

    def wait() -> None:
        generation.wait_past(0, 60, oldest)
        woke.set()

    waiting = threading.Thread(target=wait, daemon=True)
    waiting.start()
    streams.open("a")
    assert woke.wait(10) and oldest.closed


@pytest.mark.parametrize("silent", [1, 50])
def test_connections_that_send_nothing_do_not_stop_pages(examples_site, silent):
    with live(examples_site) as server:
        host, port = server.bound
        quiet = [socket.create_connection((host, port), timeout=10) for _ in range(silent)]
        try:
            assert page(server).startswith(b"HTTP/1.0 200")
        finally:
            for connection in quiet:
                connection.close()
