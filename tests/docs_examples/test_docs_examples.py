"""The vendor's REST reference, replayed against `orgctl serve`: each request example of
examples.yaml is sent as its page writes it, to a service seeded with the identifiers
the samples use (host.yaml, guest.yaml), and the answer must carry every key of the
page's response example with the same JSON type (`tests.shapes` says how types compare).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from ruamel.yaml import YAML

from tests.service.harness import Api, Service
from tests.shapes import shape_problems

HERE = Path(__file__).resolve().parent
EXAMPLES: list[dict[str, Any]] = YAML(typ="safe").load((HERE / "examples.yaml").read_text())
PORTAL = "org"  # the urlKey of the samples' organization in both worlds
ROOTS = ("/sharing/rest/", "/admin/")


@dataclass(frozen=True)
class Sent:
    """A sample request as the service receives it: method, path under the portal, body."""

    method: str
    path: str
    body: str


def parse_sample(text: str, add_format: bool) -> Sent:
    """`POST <path> HTTP/1.1` + blank line + body, or `GET <url>`."""
    head, _, body = text.partition("\n\n")
    method, target = head.split()[:2]
    parts = urlsplit(target)
    path = parts.path
    root = min((path.index(r) for r in ROOTS if r in path), default=-1)
    assert root >= 0, f"no REST root in {target}"
    query = parts.query
    if add_format:
        query = f"{query}&f=json" if query else "f=json"
    return Sent(method, path[root:] + (f"?{query}" if query else ""), body.strip())


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Api]]:
    """One service per side of the samples' collaboration; the samples run in file order."""
    started: dict[str, tuple[Service, Api]] = {}
    for world in ("host", "guest"):
        directory = tmp_path_factory.mktemp(world)
        service = Service(directory / "docs.sqlite", HERE / f"{world}.yaml").start()
        started[world] = (service, Api(service.url))
    yield {world: api for world, (_, api) in started.items()}
    for service, api in started.values():
        api.close()
        service.stop()
        assert "Traceback" not in service.output, service.output


def send(api: Api, sample: Sent) -> Any:
    url = f"{api.url}/{PORTAL}{sample.path}"
    headers = api.auth_headers(PORTAL)
    if sample.method == "GET":
        return api.http.get(url, headers=headers).json()
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    return api.http.post(url, content=sample.body.encode(), headers=headers).json()


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_the_documentation_sample_is_answered_as_documented(
    example: dict[str, Any], worlds: dict[str, Api]
) -> None:
    assert example["page"].startswith("https://"), "each sample names its page"
    sample = parse_sample(example["request"], bool(example.get("add_format")))
    answer = send(worlds[example["world"]], sample)
    expected = example.get("expect")
    if expected:
        assert answer.get("error", {}).get("messageCode") == expected, answer
        assert answer["error"]["code"] in (400, 404), answer
        return
    assert "error" not in answer and answer.get("status") != "error", answer
    if "response" in example:
        documented = json.loads(example["response"])
        assert shape_problems(documented, answer) == [], answer
        # A listing whose example shows entries must answer some, or nothing was compared.
        for key, value in documented.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                assert answer[key], f"{key}: no entry to compare with the example's"


def test_a_shape_that_differs_is_named() -> None:
    """The comparison itself: a missing key and a changed type are both reported."""
    problems = shape_problems({"a": 1, "b": [{"c": "x"}], "d": None}, {"a": "1", "b": [{}]})
    assert problems == [
        ".a: number in the example, string in the answer",
        ".b[].c: missing",
        ".d: missing",
    ]
