"""Property-based robustness: whatever a client sends, the service answers an envelope.

Never an HTTP 500; with `f=json` always a JSON object holding `error`, `success` or
`status`; with any other `f`, HTML or JSON, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.service.harness import Api, Service, write_state
from tests.service.world import READS, WRITES

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

KNOWN_FIELDS = sorted(
    {name for *_, form in WRITES.values() for name in form}
    | {
        "level",
        "userName",
        "description",
        "startTime",
        "interval",
        "repeatCount",
        "maxItemSizeInMB",
        "maxReplicationPackageSizeInMB",
        "copyByRefIfCopyFail",
        "config",
        "enableRealtimeSync",
        "enableFeatureServiceBidirectionalSync",
        "notificationAttempts",
        "notificationTimeOutInSeconds",
        "notificationElapsedTimeInSeconds",
        "numberOfFailures",
        "start",
        "num",
        "returnPrivileges",
        "token",
    }
)
values = st.one_of(
    st.text(max_size=40),
    st.text(min_size=200, max_size=3000),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(
        ["true", "false", "TRUE", "null", "[]", "{}", '{"privileges": [1]}', "-1", "0"]
    ),
    st.lists(st.text(max_size=10), max_size=3).map(json.dumps),
)
field_names = st.one_of(st.sampled_from(KNOWN_FIELDS), st.text(min_size=1, max_size=20))
PATH_EXCLUDED = "/?#%"
ids = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_characters=PATH_EXCLUDED, blacklist_categories=["Cs"]),
        min_size=1,
        max_size=30,
    ).map(lambda text: quote(text, safe="")),  # any text, percent-encoded as a client would
    st.sampled_from(["self", "..", "%2F", "0123456789abcdef", "c1", "ws1", "run1", "w1"]),
)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    directory: Path = tmp_path_factory.mktemp("fuzz")
    service = Service(directory / "state.sqlite", write_state("world", directory)).start()
    api = Api(service.url)
    yield api
    api.close()
    service.stop()
    assert "Traceback" not in service.output, service.output


def url_of(api: Api, root: str, portal: str, path: str) -> str:
    return api.admin(portal, path) if root == "admin" else api.sharing(portal, path)


def assert_envelope(response: httpx.Response, fmt: str = "json") -> None:
    assert response.status_code != 500, response.text
    if fmt.lower() not in ("json", "pjson"):
        assert response.headers.get("content-type", "").split(";")[0] in (
            "text/html",
            "application/json",
        ), response.headers
        return
    body = response.json()
    assert isinstance(body, dict), body
    if "error" in body:
        assert set(body["error"]) >= {"code", "messageCode", "message", "details"}, body
    else:
        assert "success" in body or "status" in body or body, body


def mutate(form: dict[str, str], drop: list[str], extra: dict[str, str]) -> dict[str, str]:
    kept = {name: value for name, value in form.items() if name not in drop}
    return {**kept, **extra}


@pytest.mark.parametrize("name", sorted(WRITES))
@FUZZ
@given(
    drop=st.lists(st.sampled_from(KNOWN_FIELDS), max_size=3),
    extra=st.dictionaries(field_names, values, max_size=4),
    fmt=st.sampled_from(["json", "json", "json", "pjson", "html", "xml"]),
)
def test_write_fuzz(
    fuzzed: Api, name: str, drop: list[str], extra: dict[str, str], fmt: str
) -> None:
    root, portal, path, form = WRITES[name]
    data = {**mutate(form, drop, extra), "f": fmt}
    data.pop("token", None)
    response = fuzzed.http.post(
        url_of(fuzzed, root, portal, path), data=data, headers=fuzzed.auth_headers(portal)
    )
    assert_envelope(response, fmt)


@pytest.mark.parametrize("name", sorted(WRITES))
@FUZZ
@given(segment=ids, position=st.integers(min_value=0, max_value=8))
def test_write_fuzz_unknown_ids(fuzzed: Api, name: str, segment: str, position: int) -> None:
    root, portal, path, form = WRITES[name]
    parts = path.split("/")
    parts[position % len(parts)] = segment
    response = fuzzed.http.post(
        url_of(fuzzed, root, portal, "/".join(parts)),
        data={**form, "f": "json"},
        headers=fuzzed.auth_headers(portal),
    )
    assert_envelope(response)


@pytest.mark.parametrize("name", sorted(WRITES))
@FUZZ
@given(body=st.binary(max_size=400))
def test_write_fuzz_raw_bytes(fuzzed: Api, name: str, body: bytes) -> None:
    root, portal, path, _ = WRITES[name]
    response = fuzzed.http.post(
        url_of(fuzzed, root, portal, path) + "?f=json",
        content=b"f=json&name=" + body + b"&\xff\xfe=\xc3\x28",
        headers={
            **fuzzed.auth_headers(portal),
            "content-type": "application/x-www-form-urlencoded",
        },
    )
    assert_envelope(response)


def _wrong_methods() -> list[tuple[str, str]]:
    """Each write with each method it does not take; GET is right where the address is
    also a read (docs/rules.md §A: webhook settings)."""
    pairs = []
    for name, (root, portal, path, _) in sorted(WRITES.items()):
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            if not (method == "GET" and (root, portal, path) in READS.values()):
                pairs.append((name, method))
    return pairs


@pytest.mark.parametrize(("name", "method"), _wrong_methods())
def test_write_with_a_wrong_method(fuzzed: Api, name: str, method: str) -> None:
    root, portal, path, _ = WRITES[name]
    response = fuzzed.http.request(
        method,
        url_of(fuzzed, root, portal, path),
        params={"f": "json"},
        headers=fuzzed.auth_headers(portal),
    )
    assert_envelope(response)
    assert "error" in response.json() or response.json().get("status") == "error"


@pytest.mark.parametrize("name", sorted(READS))
@FUZZ
@given(params=st.dictionaries(field_names, values, max_size=5))
def test_read_fuzz(fuzzed: Api, name: str, params: dict[str, str]) -> None:
    root, portal, path = READS[name]
    params = {**params, "f": "json"}
    params.pop("token", None)
    response = fuzzed.http.get(
        url_of(fuzzed, root, portal, path), params=params, headers=fuzzed.auth_headers(portal)
    )
    assert_envelope(response)


@FUZZ
@given(
    path=st.lists(ids, min_size=1, max_size=6).map("/".join),
    root=st.sampled_from(["sharing", "admin"]),
    portal=st.sampled_from(["hq", "field", "cloud", "nowhere"]),
    method=st.sampled_from(["GET", "POST"]),
)
def test_random_paths(fuzzed: Api, path: str, root: str, portal: str, method: str) -> None:
    response = fuzzed.http.request(method, url_of(fuzzed, root, portal, path), params={"f": "json"})
    assert response.status_code != 500, response.text
    body = response.json()
    assert "error" in body or body.get("status") == "error" or "success" in body or body


@FUZZ
@given(header=st.text(max_size=300))
def test_fuzzed_authorization_header(fuzzed: Api, header: str) -> None:
    try:
        response = fuzzed.http.post(
            fuzzed.sharing("hq", "portals/0123456789abcdef/createRole"),
            data={"name": "x", "f": "json"},
            headers={"X-Esri-Authorization": header},
        )
    except (httpx.LocalProtocolError, UnicodeEncodeError):
        return  # httpx refuses to send such a header at all; nothing reached the service
    assert_envelope(response)
    body = response.json()
    assert "error" in body and body["error"]["code"] in (498, 499)


@pytest.mark.parametrize(
    "path",
    ["hq/sharing/rest/portals/%0A/createRole", "hq/sharing/rest/%0A0", "%0A/sharing/rest/x"],
)
def test_encoded_newline_in_a_path(fuzzed: Api, path: str) -> None:
    response = fuzzed.http.post(
        f"{fuzzed.url}/{path}", data={"f": "json", "name": "x"}, headers=fuzzed.auth_headers("hq")
    )
    assert_envelope(response)
    assert response.json()["error"]["code"] == 404
