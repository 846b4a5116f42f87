"""`serve` as strict as a web host, against a stranger: a web page the user visits (DNS rebinding, a script
tag pointing at 127.0.0.1), and paths that try to leave the served folder. Each request is sent raw, as an
attacker would send it, and each answer is checked for its status and for any byte of what it must not show."""

from __future__ import annotations

import os
import socket
import stat
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from generator.build import BuildConfig, build
from generator.core.errors import SessionsiteError
from generator.core.places import user_cache_folder
from generator.serve import LIVE_PREFIX, LiveSite, cache_folder, live_config, serve
from helpers import OTHER_SESSION_ID, PROJECT_DIR, SESSION_ID, assistant, chain, text, user, write_jsonl

PROMPT = "how high is the tide at noon?"
OUTSIDE_SECRET = "outside-the-served-folder-4f2a9c"


def a_session(logs: Path, session_id: str = SESSION_ID) -> None:
    write_jsonl(logs / PROJECT_DIR / f"{session_id}.jsonl", chain(
        user(PROMPT, sessionId=session_id),
        assistant(text("About 2.1 m at the harbour gauge."), sessionId=session_id),
    ))


def raw_request(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """What the server answers to exactly these bytes: its status, headers (lower-cased names) and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("iso-8859-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def get(port: int, target: str, host: str | None = "", extra: str = "", version: str = "HTTP/1.1") -> tuple[int, dict[str, str], bytes]:
    """GET `target` as sent; `host` "" means the right one, None none at all."""
    host_line = "" if host is None else f"Host: {host or f'127.0.0.1:{port}'}\r\n"
    return raw_request(port, f"GET {target} {version}\r\n{host_line}{extra}Connection: close\r\n\r\n".encode("latin-1"))


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A folder beside the served one, holding what no request may show."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.html").write_text(f"<html><body>{OUTSIDE_SECRET}</body></html>")
    (folder / "index.html").write_text(f"<html><body>{OUTSIDE_SECRET}</body></html>")
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory, outside) -> Path:
    logs = tmp_path_factory.mktemp("logs")
    a_session(logs)
    folder = tmp_path_factory.mktemp("served") / "site"
    build(BuildConfig(inputs=(logs,), output=folder, vault=None, jobs=1))
    # What a stranger's symlink in the served folder could point at: the system, a file and a folder outside.
    (folder / "etc").symlink_to("/etc")
    (folder / "secret.html").symlink_to(outside / "secret.html")
    (folder / "elsewhere").symlink_to(outside)
    (folder / "assets" / "up").symlink_to("../..")
    (folder / "assets" / "same.css").symlink_to("style.css")  # inside the root: a web host serves it
    return folder


@pytest.fixture(scope="module")
def port(site) -> int:
    with serve(site, 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()


def assert_nothing_shown(body: bytes) -> None:
    for shown in (PROMPT.encode(), b"sessionsiteSearch", OUTSIDE_SECRET.encode(), b"root:", b"Directory listing",
                  b"harbour gauge"):
        assert shown not in body


def test_the_right_hosts_get_the_site(port):
    """The control: without it every refusal below could be a server that answers nothing."""
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        status, headers, body = get(port, "/", host)
        assert status == 200, host
        assert b"<html" in body
    status, _, body = get(port, "/search/index.js")
    assert status == 200 and b"sessionsiteSearch" in body


@pytest.mark.parametrize("host", [
    "evil.example:{port}", "127.0.0.1.evil.example:{port}", "localhost.evil.example:{port}", "localhost:{other}",
    "127.0.0.1:{other}", "localhost", "127.0.0.1", "evil.example", "127.0.0.2:{port}", "0.0.0.0:{port}",
    "[::1]:{other}", "localhost:{port}@evil.example", "evil.example@localhost:{port}", "localhost:+{port}",
    "localhost.:{port}", "localhost:{port}, evil.example",
])
def test_a_request_for_another_host_gets_421_and_nothing(port, host):
    """DNS rebinding: a page at evil.example points its own name at 127.0.0.1 and reads the site as its own;
    the browser then sends `Host: evil.example:PORT`."""
    named = host.format(port=port, other=port + 1 if port < 65535 else port - 1)
    for target in ("/", "/search/index.js", f"/{LIVE_PREFIX.strip('/')}/events", "/no-such-page"):
        status, _, body = get(port, target, named)
        assert status == 421, (named, target)
        assert_nothing_shown(body)


@pytest.mark.parametrize("request_bytes", [
    b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n",
    b"GET / HTTP/1.0\r\n\r\n",
    b"GET /search/index.js HTTP/1.0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n",
    b"GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n",
    b"GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n",
])
def test_a_request_without_one_host_of_ours_is_refused(port, request_bytes):
    """No Host, two Hosts, an empty one, or a target that names its own host: 400, nothing shown. HTTP/1.0
    without Host too: every browser sends Host on every request, so only a program would leave it out."""
    status, _, body = raw_request(port, request_bytes.replace(b"{port}", str(port).encode()))
    assert status == 400
    assert_nothing_shown(body)


@pytest.mark.parametrize("target", [
    "/../../etc/passwd", "/../../../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/..%2f..%2fetc%2fpasswd", "/..%5c..%5cetc%5cpasswd", "/..\\..\\etc\\passwd",
    "//etc/passwd", "/./../etc/passwd", "/%252e%252e/etc/passwd",
    "/etc/passwd", "/etc/", "/etc", "/secret.html", "/elsewhere/", "/elsewhere/secret.html", "/elsewhere/index.html",
    "/assets/up/", "/assets/up/etc/passwd", "/assets/up/elsewhere/secret.html",
    "/assets/", "/projects/", "/search/", "/search/terms/",
    "/.sessionsite-manifest.json", "/.sessionsite", "/%00", "/index.html%00.js",
])
def test_no_path_leaves_the_served_folder_or_lists_one(port, target):
    status, _, body = get(port, target)
    # 301: a folder asked for without its slash, to the same path + /; 400: a raw backslash
    assert status in (301, 404) or (status == 400 and "\\" in target), target
    assert_nothing_shown(body)
    if status == 301:
        assert get(port, target + "/")[0] == 404


def test_an_http_0_9_request_gets_nothing(port):
    """HTTP/0.9: no status line, no headers (so none of those above), only a body."""
    for request in (b"GET /\r\n\r\n", b"GET /\r\nHost: 127.0.0.1:%d\r\n\r\n" % port, b"GET /search/index.js\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(request)
            connection.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        assert b"Error response" in answer  # the control: it answers, with an error page
        assert_nothing_shown(answer)


def test_a_symlink_inside_the_served_folder_is_followed(port, site):
    status, _, body = get(port, "/assets/same.css")
    assert status == 200 and body == (site / "assets" / "style.css").read_bytes()


@pytest.mark.parametrize("fetch_site", ["cross-site", "same-site"])
@pytest.mark.parametrize("target", ["/search/index.js", "/assets/app.js", "/", f"/{LIVE_PREFIX.strip('/')}/events"])
def test_another_site_cannot_load_a_file_as_a_script(port, fetch_site, target):
    """`<script src="http://127.0.0.1:8000/search/index.js">` on any web page: the Host is ours, but the
    browser says where the request comes from (Sec-Fetch-Site), and the index is a script that hands its
    data to a function the page may define."""
    status, _, body = get(port, target, extra=f"Sec-Fetch-Site: {fetch_site}\r\nSec-Fetch-Mode: no-cors\r\n"
                                              "Sec-Fetch-Dest: script\r\n")
    assert status == 403
    assert_nothing_shown(body)


def test_a_link_from_elsewhere_still_opens_the_site_and_browsers_are_told_not_to_share_it(port):
    navigation = "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\n"
    status, headers, body = get(port, "/", extra=navigation)
    assert status == 200 and b"<html" in body
    # For browsers that do not send Sec-Fetch-Site: no page of another origin may use what we send.
    status, headers, _ = get(port, "/search/index.js", extra="Sec-Fetch-Site: same-origin\r\n")
    assert status == 200
    assert headers["cross-origin-resource-policy"] == "same-origin"
    assert headers["x-content-type-options"] == "nosniff"


# -- serve of logs: its event stream, and its cache folder ---------------------------------------------------


@contextmanager
def live_server(logs: Path, jobs: int = 1):
    live = LiveSite(live_config(BuildConfig(inputs=(logs,), output=Path(), vault=None, jobs=jobs)))
    live.build_once()
    with serve(live.config.output, 0, live.generation) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield server.server_address[1], live
        finally:
            live.stop()
            server.shutdown()


def test_the_live_event_stream_and_script_obey_the_host_rule(tmp_path):
    logs = tmp_path / "logs"
    a_session(logs)
    with live_server(logs) as (port, _):
        for target in (f"{LIVE_PREFIX}events", f"{LIVE_PREFIX}live.js", "/"):
            status, _, body = get(port, target, f"evil.example:{port}")
            assert status == 421, target
            assert b"data:" not in body and b"EventSource" not in body
            assert_nothing_shown(body)
        status, _, body = get(port, "/")
        assert status == 200 and LIVE_PREFIX.encode() in body


def modes_under(folder: Path) -> dict[str, int]:
    return {str(path.relative_to(folder)): stat.S_IMODE(path.lstat().st_mode)
            for path in [folder, *folder.rglob("*")] if not path.is_symlink()}


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("jobs", [1, 2])  # 2: pages written by worker processes too
def test_the_site_serve_builds_is_private_to_the_user(tmp_path, jobs):
    cache = user_cache_folder()
    cache.mkdir(parents=True, exist_ok=True)
    cache.chmod(0o755)  # as an earlier version, or another program, left it
    logs = tmp_path / "logs"
    a_session(logs)
    a_session(logs, OTHER_SESSION_ID)
    with live_server(logs, jobs) as (_, live):
        site = live.config.output
        assert (site / "index.html").is_file()
        shared = {name: oct(mode) for name, mode in modes_under(site).items() if mode & 0o077}
        assert shared == {}
        for folder in (site, site.parent, site.parent.parent, cache):  # site, <inputs' key>, serve, sessionsite
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        # A rebuild (the log grew) keeps it so.
        live.build_once()
        assert {name: oct(mode) for name, mode in modes_under(site).items() if mode & 0o077} == {}


@pytest.mark.parametrize("target", ["/\\evil.example/../assets", "/\\\\evil.example/../assets", "//evil.example/../assets",
                                    "/%5Cevil.example/../assets", "/%2F%2Fevil.example/../assets", "/./assets",
                                    "/assets"])
def test_a_folder_asked_for_without_its_slash_is_never_sent_to_another_site(port, target):
    """The server redirects a folder to its path with a slash; a browser reads a Location that starts with
    // or /\\ as another host's address."""
    status, headers, body = get(port, target)
    assert status in (301, 400, 404), target
    if status == 301:
        location = headers["location"]
        assert location.startswith("/") and not location.startswith(("//", "/\\")), location
        assert "\\" not in location


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a folder away")
def test_a_cache_folder_of_another_user_is_not_used(tmp_path, monkeypatch):
    """XDG_CACHE_HOME on a shared disk, where another user made sessionsite/ first: they could read the site."""
    cache = tmp_path / "shared-cache"
    (cache / "sessionsite").mkdir(parents=True)
    os.chown(cache / "sessionsite", 65534, 65534)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with pytest.raises(SessionsiteError, match="belongs to another user") as refused:
        cache_folder((tmp_path / "logs",))
    assert str(cache / "sessionsite") in refused.value.message
    assert list((cache / "sessionsite").iterdir()) == []
