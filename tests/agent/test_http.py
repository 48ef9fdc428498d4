"""The agent's small HTTP server takes untrusted requests: a malformed head, an oversized
body or a client that never finishes gets an answer or is dropped, never a crash, and the
server keeps serving."""

from __future__ import annotations

import asyncio

from reconciler.agent.http import BODY_BYTES, Request, Response, listen


async def echo(request: Request) -> Response:
    return Response(200, f"{request.method} {request.path} {len(request.body)}".encode())


async def exchange(port: int, raw: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def scenario() -> list[bytes]:
    server = await listen("127.0.0.1", 0, echo)
    port = server.sockets[0].getsockname()[1]
    try:
        return [
            await exchange(port, b"GET /healthz?x=1 HTTP/1.1\r\nHost: a\r\n\r\n"),
            await exchange(port, b"NONSENSE\r\n\r\n"),
            await exchange(
                port, f"POST /x HTTP/1.1\r\nContent-Length: {BODY_BYTES + 1}\r\n\r\n".encode()
            ),
            await exchange(port, b"POST /x HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
            await exchange(port, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"),
            await exchange(port, b"POST /hooks/git HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"),
        ]
    finally:
        server.close()
        await server.wait_closed()


def test_bad_requests_are_answered_and_the_server_keeps_serving() -> None:
    answers = asyncio.run(scenario())
    statuses = [answer.split(b"\r\n", 1)[0].split(b" ")[:2] for answer in answers]
    codes = [b"200", b"400", b"413", b"413", b"400", b"200"]
    assert statuses == [[b"HTTP/1.1", code] for code in codes]
    assert answers[0].endswith(b"GET /healthz 0") and answers[-1].endswith(b"POST /hooks/git 3")
    assert b"Cache-Control: no-store" in answers[0]
