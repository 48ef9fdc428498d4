"""A request imports nothing: httpcore imports sniffio on every request, and without it
installed each import failed after a search of sys.path (a tenth of a plan's reading
CPU). A finder placed first on sys.meta_path sees every import that is not already
loaded; after a warm-up request, further requests must ask it for nothing."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
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


def test_requests_after_the_first_import_nothing(plain_http_root: str) -> None:
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

    asyncio.run(main(plain_http_root))  # a real server: the request goes through httpcore's pool
    assert finder.searched == []
