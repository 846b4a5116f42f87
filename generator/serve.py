"""`sessionsite serve`: a site over HTTP on this machine (127.0.0.1 only).

Given a built site (a folder or a .zip), it shows it as a web host such as GitHub Pages will. Given logs,
it builds them into a private cache folder, watches them, rebuilds (incrementally) on each change, and
tells open pages, which update themselves: a script that only the server adds to the HTML it sends, so
that built and published sites never carry it.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import stat
import tempfile
import threading
import zipfile
from contextlib import contextmanager
from dataclasses import replace
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .core.errors import InputError, is_about, output_error
from .core.places import private_cache_folder, private_files
from .output.deploy import LEFT_OUT
from .output.write import is_sessionsite_output

if TYPE_CHECKING:
    import watchfiles

    from .config import BuildConfig

LOOPBACK = "127.0.0.1"
# Paths only the live server answers; a built site has no folder of this name.
LIVE_PREFIX = "/__sessionsite/"
LIVE_SCRIPT = Path(__file__).with_name("live.js")
# A comment line on an idle event stream: how a closed page is noticed, and its thread let go.
KEEPALIVE_SECONDS = 15
STREAMS_PER_CLIENT = 4
"""Live-update streams one client address may hold open. A browser opens at most six connections to one
host, across all its tabs: with a stream in each of six tabs, a seventh tab's page would wait for ever. At
four, two stay free for pages; the tab whose stream was closed opens it again when it is looked at."""
STREAMS_IN_ALL = 32
"""Live-update streams open at once, whoever holds them: each holds a thread."""
REQUEST_SECONDS = 30
"""How long a connection may take to send its request (and a stream, to take a keep-alive line): a
connection that sends nothing is let go instead of holding its thread."""

log = logging.getLogger("sessionsite")


class Generation:
    """The number of the last build of a live site; event streams wait on it."""

    def __init__(self) -> None:
        self.number = 0
        self.changed = threading.Condition()

    def advance(self) -> None:
        with self.changed:
            self.number += 1
            self.changed.notify_all()

    def wait_past(self, seen: int, timeout: float, stream: Stream | None = None) -> int:
        """The number once it is past `seen`, or after `timeout`, or once `stream` is closed."""
        with self.changed:
            self.changed.wait_for(lambda: self.number != seen or (stream is not None and stream.closed), timeout)
            return self.number

    def wake(self) -> None:
        with self.changed:
            self.changed.notify_all()


class Stream:
    """One open live-update stream: who holds it, and whether the server has closed it."""

    __slots__ = ("client", "closed")

    def __init__(self, client: str) -> None:
        self.client = client
        self.closed = False


class Streams:
    """The open live-update streams, oldest first, bounded per client and in all: a new stream past a bound
    closes the oldest one in its way (each stream is idle but for a line a build's end sends), so that the
    threads and, in a browser, the connections that pages need stay free."""

    def __init__(self, generation: Generation, per_client: int = STREAMS_PER_CLIENT,
                 in_all: int = STREAMS_IN_ALL) -> None:
        self.generation = generation
        self.per_client = per_client
        self.in_all = in_all
        self._open: list[Stream] = []
        self._lock = threading.Lock()

    def open(self, client: str) -> Stream:
        stream = Stream(client)
        with self._lock:
            while sum(other.client == client for other in self._open) >= self.per_client:
                self._close(next(other for other in self._open if other.client == client))
            while len(self._open) >= self.in_all:
                self._close(self._open[0])
            self._open.append(stream)
        self.generation.wake()
        return stream

    def end(self, stream: Stream) -> None:
        """`stream`'s connection is over (closed by either side)."""
        with self._lock:
            if stream in self._open:
                self._open.remove(stream)

    def count(self) -> int:
        with self._lock:
            return len(self._open)

    def _close(self, stream: Stream) -> None:
        stream.closed = True
        self._open.remove(stream)


class _SiteHandler(SimpleHTTPRequestHandler):
    """Answers as a web host would, and only to this machine's own pages: a request must name this server
    (`Host`), may not come from another site's page unless it opens a page (`Sec-Fetch-Site`), and gets only
    files inside the served folder (symlinks resolved), never a folder's listing."""

    # The base class reads this dict; typeshed declares it an instance attribute, so it cannot be a ClassVar.
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".md": "text/markdown; charset=utf-8",  # noqa: RUF012
                      ".js": "text/javascript; charset=utf-8", ".txt": "text/plain; charset=utf-8"}
    generation: Generation | None = None  # set on live servers only
    streams: Streams | None = None  # the live server's event streams
    timeout = REQUEST_SECONDS  # the socket's: a connection silent for this long is let go

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # a request log line per file would bury the one line that says where the site is

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a rebuild shows at the next reload
        # For browsers that do not send Sec-Fetch-Site: a page of another origin may not use what we send
        # (the search index is a script that hands its data to a function any page can define).
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        assert isinstance(self.server, SiteServer)
        refusal = _refusal(self.request_version, self.path, self.headers.get_all("Host") or [], self.server.bound,
                           self.headers.get("Sec-Fetch-Site", ""), self.headers.get("Sec-Fetch-Mode", ""))
        if refusal is None:
            return True
        self.send_error(*refusal)
        return False

    def translate_path(self, path: str) -> str:
        """The file `path` asks for, symlinks resolved, or "" (which no file is: 404) when that is outside
        the served folder, a folder without an index.html, or the build's own bookkeeping. A folder asked
        for without its slash keeps its path, for the base class to redirect to it with the slash."""
        lexical = super().translate_path(path)
        root = self.directory  # resolved by `serve`
        try:
            real = os.path.realpath(lexical)
            if lexical.endswith("/"):
                if not os.path.isdir(real):
                    return ""
                real = os.path.realpath(os.path.join(real, "index.html"))
                if not os.path.isfile(real):
                    return ""  # a web host lists no folder
        except (OSError, ValueError):  # ValueError: a NUL byte in the path
            return ""
        if not real.startswith(root + os.sep) or os.path.relpath(real, root) in NOT_SERVED:
            return ""
        return real

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")  # a web host lists no folder

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self.generation is None:
            return super().do_GET()
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == LIVE_PREFIX + "live.js":
            return self._send(LIVE_SCRIPT.read_bytes(), "text/javascript; charset=utf-8")
        if path == LIVE_PREFIX + "events":
            return self._events()
        local = self.translate_path(self.path)
        if local.endswith(".html") and os.path.isfile(local):
            return self._send(_with_live_script(Path(local).read_bytes(), self.generation.number),
                              "text/html; charset=utf-8")
        return super().do_GET()

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _events(self) -> None:
        """Server-sent events: the build's number now, then each new one (EventSource reconnects itself).
        A stream the server closes for a newer one (`Streams`) ends with a `closed` event: the page opens it
        again when it is looked at, rather than reconnecting at once and closing another."""
        assert self.generation is not None and self.streams is not None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        seen = self.generation.number
        stream = self.streams.open(self.client_address[0])
        try:
            self.wfile.write(f"retry: 500\ndata: {seen}\n\n".encode())
            self.wfile.flush()
            while not getattr(self.server, "closing", False):
                number = self.generation.wait_past(seen, KEEPALIVE_SECONDS, stream)
                if stream.closed:
                    self.wfile.write(b"event: closed\ndata: too many streams\n\n")
                    self.wfile.flush()
                    break
                message = f"data: {number}\n\n" if number != seen else ": still here\n\n"
                seen = number
                self.wfile.write(message.encode())
                self.wfile.flush()
        except OSError:  # the page was closed or reloaded (a reset, a broken pipe), or stopped taking lines
            pass
        finally:
            self.streams.end(stream)
            self.close_connection = True


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
"""What a page on this machine calls the server; a name any other page could point here (DNS rebinding) is
refused."""
NOT_SERVED = frozenset(LEFT_OUT)
"""The build's bookkeeping in a site folder, which a published site does not have."""


def _refusal(version: str, target: str, hosts: list[str], bound: tuple[str, int], fetch_site: str,
             fetch_mode: str) -> tuple[HTTPStatus, str] | None:
    """Why a request is not answered, or None. One Host header is required, of HTTP/1.0 too: every browser
    sends it on every request, so only a program leaves it out, and the rule stays one rule."""
    if version == "HTTP/0.9":  # no browser sends it, and its answer could carry none of our headers
        return HTTPStatus.BAD_REQUEST, "HTTP/0.9 is not served"
    if not target.startswith("/"):  # "http://host/path" names its own host, which would stand for Host
        return HTTPStatus.BAD_REQUEST, "Only a path is accepted as the request target"
    if "\\" in target:  # never sent by a browser; a redirect to /\host/… would send the page to that host
        return HTTPStatus.BAD_REQUEST, "A backslash in a path is refused"
    if len(hosts) != 1 or not hosts[0].strip():
        return HTTPStatus.BAD_REQUEST, "One Host header is required"
    if not is_own_host(hosts[0], *bound):
        return HTTPStatus.MISDIRECTED_REQUEST, "This server answers only to localhost"
    # A page of another site may link to ours (a navigation shows it to the user, not to that page), but not
    # load a file of ours into itself (a script tag, fetch, an event stream).
    if fetch_site.strip().lower() in ("cross-site", "same-site") and fetch_mode.strip().lower() != "navigate":
        return HTTPStatus.FORBIDDEN, "Another site may not load this"
    return None


def is_own_host(host: str, bound_address: str, bound_port: int) -> bool:
    """Whether a Host header names this server: a loopback name (or the bound address) with the bound port,
    which a Host without a port names only when it is 80."""
    value = host.strip().lower()
    name, port = value, "80"
    if not value.endswith("]") and ":" in value:
        name, _, port = value.rpartition(":")
    if not (port.isascii() and port.isdigit()) or int(port) != bound_port:
        return False
    bound_name = f"[{bound_address.lower()}]" if ":" in bound_address else bound_address.lower()
    return name in (*LOOPBACK_NAMES, bound_name)


def _with_live_script(page: bytes, generation: int) -> bytes:
    tag = f'<script src="{LIVE_PREFIX}live.js" data-generation="{generation}" defer></script>'.encode()
    end = page.rfind(b"</body>")
    return page[:end] + tag + page[end:] if end >= 0 else page + tag


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    closing = False
    # Connections waiting to be accepted: many pages opened at once (a browser restoring its tabs) would
    # overflow the default of 5, and each connection past it waits a second for the client to try again.
    request_queue_size = 128

    @property
    def bound(self) -> tuple[str, int]:
        """The address and port listened on (the port chosen, when 0 was asked for)."""
        host, port = self.server_address[:2]
        assert isinstance(host, str) and isinstance(port, int)  # as a TCP server's are (the types allow bytes)
        return host, port

    @property
    def url(self) -> str:
        host, port = self.bound
        return f"http://{host}:{port}/"

    def server_close(self) -> None:
        self.closing = True
        super().server_close()


def serve(site: Path, port: int = 8000, generation: Generation | None = None) -> SiteServer:
    """A server for `site`, listening but not yet serving: call `serve_forever()` (or run it in a thread),
    and close it (it is a context manager). With a `generation`, HTML pages get the live script and
    follow its builds. OSError when the port is taken."""
    handler_class = (type("LiveHandler", (_SiteHandler,), {"generation": generation, "streams": Streams(generation)})
                     if generation else _SiteHandler)
    handler = functools.partial(handler_class, directory=str(site.resolve()))
    return SiteServer((LOOPBACK, port), handler)


def is_site(folder: Path) -> bool:
    """A built site: written by sessionsite (its marker), or published or unzipped (a home page)."""
    return is_sessionsite_output(folder) or (folder / "index.html").is_file()


@contextmanager
def unzipped(archive: Path) -> Iterator[Path]:
    """The site inside a zip written by `build -o site.zip`, in a temporary folder while in use."""
    with tempfile.TemporaryDirectory(prefix="sessionsite-serve-") as temporary:
        try:
            with zipfile.ZipFile(archive) as opened:
                opened.extractall(temporary)  # extractall keeps every member inside the folder
        except zipfile.BadZipFile as error:
            raise InputError(f"{archive}: not a zip file ({error})") from None
        folder = Path(temporary)
        entries = list(folder.iterdir())
        site = entries[0] if len(entries) == 1 and entries[0].is_dir() else folder
        if not is_site(site):
            raise InputError(f"{archive}: holds no site (no index.html); make one with sessionsite build -o site.zip")
        yield site


def cache_folder(inputs: tuple[Path, ...]) -> Path:
    """Where `serve` builds a set of inputs: the user's cache folder, one site per set, so that serving the
    same logs again rebuilds only what changed since. Private to the user, as the logs are: the folders
    above it are made 0700."""
    key = "\n".join(sorted(str(path.resolve()) for path in inputs))
    return private_cache_folder("serve", hashlib.sha256(key.encode()).hexdigest()[:16]) / "site"


class LiveSite:
    """Logs built into a site and kept up to date: `build_once()`, then `watch()` in a thread until `stop()`."""

    def __init__(self, config: BuildConfig, rebuild: Callable[[BuildConfig], object] | None = None) -> None:
        from .build import build  # the build is loaded only by a live server

        self.config = config
        self.generation = Generation()
        self.stopping = threading.Event()
        self._build = rebuild or build
        self.saved: object = None
        """What the first build saved to the vault (None: no vault, or one that could not be used)."""

    def build_once(self) -> None:
        """Build, the site's files readable by the user alone (0600, folders 0700): a site meant to be
        read on this machine only, where other users may be."""
        with private_files():
            report = self._build(self.config)
        self.saved = getattr(report, "saved", None)
        site = self.config.output
        if site.is_dir() and stat.S_IMODE(site.stat().st_mode) & 0o077:
            site.chmod(0o700)  # the build opens a site folder to all readers, as a site to publish is
        self.generation.advance()

    def watch(self) -> None:
        """Rebuild after each change to a log under the inputs, until `stop()`. A build that fails is
        reported, and the pages keep the last good site."""
        import watchfiles

        def is_log(change: watchfiles.Change, path: str) -> bool:
            return path.endswith(".jsonl")

        # step: how long a quiet spell ends a batch of changes; a log written line by line is built
        # once per spell, not once per line.
        for _changes in watchfiles.watch(*self.config.inputs, watch_filter=is_log, step=30, debounce=800,
                                         stop_event=self.stopping, raise_interrupt=False):
            self.rebuild()

    def rebuild(self) -> bool:
        """`build_once`, and a failure reported in one line (naming the site's folder when it could not be
        written), not raised: one bad rebuild must not stop the server."""
        try:
            self.build_once()
        except OSError as error:
            log.error("rebuild failed: %s", output_error(self.config.output, error).message
                      if is_about(self.config.output, error) else error)
        except Exception as error:  # noqa: BLE001 - whatever it is, the server goes on with the last good site
            log.error("rebuild failed: %s", error)
        else:
            return True
        return False

    def stop(self) -> None:
        self.stopping.set()


def live_config(config: BuildConfig) -> BuildConfig:
    """The build config `serve` uses for logs: its cache folder as the output."""
    return replace(config, output=cache_folder(config.inputs))
