"""A small HTTP/1.1 server on the agent's own event loop (asyncio streams).

Chosen over Starlette and uvicorn (the `serve` extra): the agent's endpoints are a few
fixed routes that read the scheduler's state in place, the server shares the scheduler's
loop (no thread, no second loop), `--listen 127.0.0.1:0` tells its bound port at once,
and the `agent` extra stays one package (prometheus-client). Every request is untrusted:
the head and the body are bounded, a slow client is dropped, and one request is served
per connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus

HEAD_BYTES = 16 * 1024
BODY_BYTES = 1024 * 1024  # a GitHub push payload is at most 25 MB, but ours need none of it
CLIENT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Awaitable[Response]]


def plain(status: int, text: str) -> Response:
    return Response(status, (text + "\n").encode())


async def listen(host: str, port: int, handle: Handler) -> asyncio.Server:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            response = await asyncio.wait_for(_answer(reader, handle), CLIENT_SECONDS)
        except (TimeoutError, ConnectionError):
            writer.close()
            return
        try:
            writer.write(_encoded(response))
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    return await asyncio.start_server(serve, host, port, limit=HEAD_BYTES)


async def _answer(reader: asyncio.StreamReader, handle: Handler) -> Response:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return plain(400, "bad request")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return plain(400, "bad request")
    method, target, _ = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length", "0")
    if not length.isdigit() or int(length) > BODY_BYTES:
        return plain(413, "body too large")
    try:
        body = await reader.readexactly(int(length))
    except asyncio.IncompleteReadError:
        return plain(400, "bad request")
    return await handle(Request(method, target.split("?", 1)[0], headers, body))


def _encoded(response: Response) -> bytes:
    reason = HTTPStatus(response.status).phrase
    headers = {
        "Content-Type": response.content_type,
        "Content-Length": str(len(response.body)),
        "Connection": "close",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        **response.headers,
    }
    head = f"HTTP/1.1 {response.status} {reason}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items()
    )
    return (head + "\r\n").encode("latin-1") + response.body
