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
import tempfile
import threading
import zipfile
from contextlib import contextmanager
from dataclasses import replace
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .core.errors import InputError
from .core.places import user_cache_folder
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

    def wait_past(self, seen: int, timeout: float) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.number != seen, timeout)
            return self.number


class _SiteHandler(SimpleHTTPRequestHandler):
    # The base class reads this dict; typeshed declares it an instance attribute, so it cannot be a ClassVar.
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".md": "text/markdown; charset=utf-8",  # noqa: RUF012
                      ".js": "text/javascript; charset=utf-8", ".txt": "text/plain; charset=utf-8"}
    generation: Generation | None = None  # set on live servers only

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # a request log line per file would bury the one line that says where the site is

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a rebuild shows at the next reload
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self.generation is None:
            return super().do_GET()
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == LIVE_PREFIX + "live.js":
            return self._send(LIVE_SCRIPT.read_bytes(), "text/javascript; charset=utf-8")
        if path == LIVE_PREFIX + "events":
            return self._events()
        local = Path(self.translate_path(self.path))
        if local.is_dir() and path.endswith("/"):
            local = local / "index.html"
        if local.suffix == ".html" and local.is_file():
            return self._send(_with_live_script(local.read_bytes(), self.generation.number),
                              "text/html; charset=utf-8")
        return super().do_GET()

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _events(self) -> None:
        """Server-sent events: the build's number now, then each new one (EventSource reconnects itself)."""
        assert self.generation is not None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        seen = self.generation.number
        try:
            self.wfile.write(f"retry: 500\ndata: {seen}\n\n".encode())
            self.wfile.flush()
            while not getattr(self.server, "closing", False):
                number = self.generation.wait_past(seen, KEEPALIVE_SECONDS)
                message = f"data: {number}\n\n" if number != seen else ": still here\n\n"
                seen = number
                self.wfile.write(message.encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page was closed or reloaded


def _with_live_script(page: bytes, generation: int) -> bytes:
    tag = f'<script src="{LIVE_PREFIX}live.js" data-generation="{generation}" defer></script>'.encode()
    end = page.rfind(b"</body>")
    return page[:end] + tag + page[end:] if end >= 0 else page + tag


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    closing = False

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        assert isinstance(host, str)  # as a TCP server's is (the socket module's types allow bytes)
        return f"http://{host}:{port}/"

    def server_close(self) -> None:
        self.closing = True
        super().server_close()


def serve(site: Path, port: int = 8000, generation: Generation | None = None) -> SiteServer:
    """A server for `site`, listening but not yet serving: call `serve_forever()` (or run it in a thread),
    and close it (it is a context manager). With a `generation`, HTML pages get the live script and
    follow its builds. OSError when the port is taken."""
    handler_class = type("LiveHandler", (_SiteHandler,), {"generation": generation}) if generation else _SiteHandler
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
    same logs again rebuilds only what changed since."""
    key = "\n".join(sorted(str(path.resolve()) for path in inputs))
    return user_cache_folder() / "serve" / hashlib.sha256(key.encode()).hexdigest()[:16] / "site"


class LiveSite:
    """Logs built into a site and kept up to date: `build_once()`, then `watch()` in a thread until `stop()`."""

    def __init__(self, config: BuildConfig, rebuild: Callable[[BuildConfig], object] | None = None) -> None:
        from .build import build  # the build is loaded only by a live server

        self.config = config
        self.generation = Generation()
        self.stopping = threading.Event()
        self._build = rebuild or build

    def build_once(self) -> None:
        self._build(self.config)
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
            try:
                self.build_once()
            except Exception as error:  # noqa: BLE001 - one bad rebuild must not stop the server
                log.error("rebuild failed: %s", error)

    def stop(self) -> None:
        self.stopping.set()


def live_config(config: BuildConfig) -> BuildConfig:
    """The build config `serve` uses for logs: its cache folder as the output."""
    return replace(config, output=cache_folder(config.inputs))
