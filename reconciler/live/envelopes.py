"""Turning an HTTP answer into a JSON object or a typed error.

The Sharing API answers errors with HTTP 200 and `{"error": {...}}`; the admin root with
`{"status": "error", "messages": [...], "code": N}`; some servers with a real 4xx. All
three become the same `ServiceError` family.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from reconciler.errors import UserError
from reconciler.live.errors import ServiceError, service_error
from reconciler.live.urls import shown


def decode(response: httpx.Response) -> dict[str, Any]:
    """The JSON object of a successful answer; raises for envelopes and non-JSON bodies."""
    url = shown(response.request.url)
    body = _json_body(response, url)
    error = envelope_error(body, url)
    if error is not None:
        raise error
    if response.status_code >= 400:
        raise service_error(url, response.status_code, f"HTTP {response.status_code}")
    return body


def envelope_error(body: dict[str, Any], url: str) -> ServiceError | None:
    raw = body.get("error")
    if isinstance(raw, dict):
        return service_error(
            url,
            _int_or_none(raw.get("code")),
            str(raw.get("message") or "the service reported an error"),
            _str_or_none(raw.get("messageCode")),
            tuple(str(d) for d in raw.get("details") or ()),
        )
    if str(body.get("status", "")).lower() == "error":
        messages = tuple(str(m) for m in body.get("messages") or ())
        message = "; ".join(messages) or "the service reported an error"
        return service_error(url, _int_or_none(body.get("code")), message)
    return None


def _json_body(response: httpx.Response, url: str) -> dict[str, Any]:
    text = response.text
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        return body
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or text.lstrip().startswith("<"):
        raise UserError(
            f"portal at {url} answered HTML, not JSON: is the URL the sharing REST root?"
        )
    raise UserError(
        f"portal at {url} answered something that is not a JSON object "
        f"(HTTP {response.status_code}): is the URL the sharing REST root?"
    )


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
