"""`sessionsite serve`: a preview of a built site over HTTP on this machine (127.0.0.1 only).

Pages work from file:// too; this shows them as a web host such as GitHub Pages will.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LOOPBACK = "127.0.0.1"


class _SiteHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".md": "text/markdown; charset=utf-8",
                      ".js": "text/javascript; charset=utf-8", ".txt": "text/plain; charset=utf-8"}

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # a request log line per file would bury the one line that says where the site is

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a rebuild shows at the next reload
        super().end_headers()


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


def serve(site: Path, port: int = 8000) -> SiteServer:
    """A server for `site`, listening but not yet serving: call `serve_forever()` (or run it in a thread),
    and close it (it is a context manager). OSError when the port is taken."""
    handler = functools.partial(_SiteHandler, directory=str(site.resolve()))
    return SiteServer((LOOPBACK, port), handler)
