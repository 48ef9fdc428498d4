"""A request imports nothing: httpcore imports sniffio on every request, and without it
installed each import failed after a search of sys.path (a tenth of a plan's reading
CPU). A finder placed first on sys.meta_path sees every import that is not already
loaded; after a warm-up request, further requests must ask it for nothing."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.machinery import ModuleSpec
from types import ModuleType

from reconciler.live.client import PortalClient


class RecordingFinder:
    def __init__(self) -> None:
        self.searched: list[str] = []

    def find_spec(
        self, name: str, import_path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        self.searched.append(name)
        return None  # let the real finders answer


class Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"id": "p"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def http_portal() -> Iterator[str]:
    """A real HTTP server on loopback, so the request goes through httpcore's pool."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/portal/sharing/rest"
    finally:
        server.shutdown()
        server.server_close()


def test_requests_after_the_first_import_nothing() -> None:
    finder = RecordingFinder()

    async def main(root: str) -> None:
        async with PortalClient(root, auth=None) as client:
            await client.get_json("portals/self")  # warm-up: first imports are fine
            sys.meta_path.insert(0, finder)
            try:
                for _ in range(20):
                    await client.get_json("portals/self")
            finally:
                sys.meta_path.remove(finder)

    with http_portal() as root:
        asyncio.run(main(root))
    assert finder.searched == []
