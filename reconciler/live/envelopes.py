"""Turning an HTTP answer into a JSON object or a typed error.

The Sharing API answers errors with HTTP 200 and `{"error": {...}}`; the admin root with
`{"status": "error", "messages": [...], "code": N}`; some servers with a real 4xx. All
three become the same `ServiceError` family.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from reconciler.errors import UserError
from reconciler.live.errors import LimitExceeded, PortalError, ServiceError, service_error
from reconciler.live.limits import DEFAULTS, Limits
from reconciler.live.urls import shown


def decode(response: httpx.Response, limits: Limits = DEFAULTS) -> dict[str, Any]:
    """The JSON object of a successful answer; raises for envelopes, redirects and bodies
    that are not JSON or nest deeper than `limits.json_depth`."""
    url = shown(response.request.url)
    if 300 <= response.status_code < 400:
        raise _redirect(response, url)
    body = _json_body(response, url, limits)
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


def _redirect(response: httpx.Response, url: str) -> PortalError:
    """Redirects are never followed (a credential must not follow one elsewhere), so the
    answer says where it pointed: a web adaptor's sign-in page, http to https, a moved
    portal."""
    location = response.headers.get("location")
    where = (
        f"a redirect to {shown(response.request.url.join(location))}"
        if location
        else "a redirect with no Location"
    )
    return PortalError(
        f"portal at {url} answered HTTP {response.status_code}, {where}; orgctl does not"
        " follow redirects: is the URL the portal's sharing REST root, with the scheme and"
        " host it answers on?"
    )


def _json_body(response: httpx.Response, url: str, limits: Limits) -> dict[str, Any]:
    # Parsed first, the depth checked on what was parsed: the parser stops at its own
    # recursion limit (a RecursionError, never a crash), and walking a page's values
    # costs half of peeling its text's brackets before parsing (nested_deeper), once per
    # page of every listing. The text is peeled only for an answer the parser refused.
    text = response.text
    try:
        body = json.loads(text)
    except ValueError:
        body = None
        if nested_deeper(response.content, limits.json_depth):
            raise _too_deep(url, limits) from None
    except RecursionError:
        if nested_deeper(response.content, limits.json_depth):
            raise _too_deep(url, limits) from None
        raise LimitExceeded(  # a depth limit set beyond what the parser can recurse
            f"portal at {url} answered JSON nested deeper than this Python can parse; lower"
            f" the limit of {limits.told('json_depth')}"
        ) from None
    if deeper_than(body, limits.json_depth):
        raise _too_deep(url, limits)
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


_ESCAPED = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _too_deep(url: str, limits: Limits) -> LimitExceeded:
    return LimitExceeded(
        f"portal at {url} answered JSON nested deeper than the depth limit of"
        f" {limits.told('json_depth')}"
    )


def deeper_than(value: Any, depth: int) -> bool:
    """Whether a value `json.loads` returned nests arrays and objects more than `depth`
    levels (as `nested_deeper` counts them in its text): one level of containers at a time.
    The parser makes exact dicts and lists, so their types are compared, not asked with
    `isinstance` of a union: a 100-member page takes 82 us against 235 us, on every page
    of every listing."""
    level = [value] if type(value) is dict or type(value) is list else []
    for _ in range(depth):
        if not level:
            return False
        below: list[Any] = []
        for node in level:
            below += [
                child
                for child in (node.values() if type(node) is dict else node)
                if type(child) is dict or type(child) is list
            ]
        level = below
    return bool(level)


def nested_deeper(body: bytes, depth: int) -> bool:
    """Whether JSON text nests arrays and objects more than `depth` levels, found before
    it is parsed (the parser would recurse once per level, 100,000 deep a RecursionError):
    with its strings taken out, its brackets alone are peeled an innermost level a pass,
    each pass in C; any real answer takes a handful."""
    if body.count(b"[") + body.count(b"{") <= depth:
        return False
    brackets = _STRING.sub(b"", _ESCAPED.sub(b"", body)).translate(None, _NOT_BRACKET)
    for _ in range(depth):
        peeled = _INNERMOST.sub(b"", brackets)
        if len(peeled) == len(brackets):
            return False  # empty, or not nested as JSON is: the parser says what is wrong
        brackets = peeled
    return bool(brackets)


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
