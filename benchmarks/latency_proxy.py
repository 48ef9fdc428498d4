"""A loopback TCP proxy that adds a fixed round-trip time, as a WAN link between orgctl and
a portal does: each chunk is delivered half the round trip after it was sent, in each
direction, and a new connection costs one round trip (its handshake) before data flows.
Bandwidth is not limited; only latency is what this measures.

It runs as its own process (`proxied`), so its work never competes with the measured
client for the interpreter lock:
    with proxied(upstream_port, 0.020) as port: ... http://127.0.0.1:{port} ...

Run alone: .venv/bin/python benchmarks/latency_proxy.py UPSTREAM_PORT RTT_MS
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator

CHUNK = 65_536
Chunks = asyncio.Queue[tuple[float, bytes]]


@contextlib.contextmanager
def proxied(upstream_port: int, rtt_seconds: float) -> Iterator[int]:
    """The port of a proxy to `upstream_port` adding `rtt_seconds`, for the block."""
    process = subprocess.Popen(
        [sys.executable, __file__, str(upstream_port), str(rtt_seconds * 1000)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield int(process.stdout.readline().split()[-1])
    finally:
        process.terminate()
        process.wait(timeout=10)


async def serve(upstream_port: int, one_way: float) -> None:
    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            await asyncio.sleep(2 * one_way)  # the TCP handshake's round trip
            upstream = await asyncio.open_connection("127.0.0.1", upstream_port)
            await asyncio.gather(
                pipe(reader, upstream[1], one_way), pipe(upstream[0], writer, one_way)
            )

    server = await asyncio.start_server(connected, "127.0.0.1", 0)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter, one_way: float) -> None:
    """Copy `source` to `sink`, each chunk held until one-way latency after it arrived
    (a queue keeps the order; chunks in flight overlap, as on a real link)."""
    queue: Chunks = asyncio.Queue()
    deliver = asyncio.create_task(_deliver(queue, sink))
    with contextlib.suppress(ConnectionError):
        while chunk := await source.read(CHUNK):
            queue.put_nowait((time.monotonic() + one_way, chunk))
    queue.put_nowait((time.monotonic() + one_way, b""))
    await deliver


async def _deliver(queue: Chunks, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while True:
            due, chunk = await queue.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if not chunk:
                sink.close()
                return
            sink.write(chunk)
            await sink.drain()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), float(sys.argv[2]) / 2000))
