"""The vendor's JavaScript client, ArcGIS REST JS (pinned in package.json, installed by
`npm ci` here), against `orgctl serve --tls` with the Python compat suite's state: the
`*.test.mjs` files run under Node's own test runner, which trusts the service's CA
through NODE_EXTRA_CA_CERTS, and a failure here carries their output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import Service

HERE = Path(__file__).resolve().parent
STATE = HERE.parent / "compat" / "state.yaml"
# `*.demo.mjs` run against the demo world as shipped, whose clock stands at a fixed date.
DEMO_STATE = HERE.parents[1] / "examples" / "demo" / "state.yaml"
PACKAGES = ("@esri/arcgis-rest-request", "@esri/arcgis-rest-portal")
NODE_TIMEOUT_SECONDS = 180


@pytest.fixture
def node() -> str:
    """Node and the installed packages, or a skip saying which is missing and the fix
    (asked before the service starts)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the REST JS compat suite needs node >= 20")
    missing = [name for name in PACKAGES if not (HERE / "node_modules" / name).is_dir()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: run `npm ci` in {HERE}")
    return node


def _tls_service(tmp_path: Path, state: Path) -> Iterator[tuple[Service, str]]:
    service = Service(tmp_path / "compat.sqlite", state, options=("--tls",)).start()
    try:
        yield service, printed_ca(service)
    finally:
        service.stop()


@pytest.fixture
def tls_service(tmp_path: Path) -> Iterator[tuple[Service, str]]:
    """`orgctl serve --tls` and the CA file it says to trust."""
    yield from _tls_service(tmp_path, STATE)


@pytest.fixture
def demo_tls_service(tmp_path: Path) -> Iterator[tuple[Service, str]]:
    """The same, serving examples/demo/state.yaml as shipped."""
    yield from _tls_service(tmp_path, DEMO_STATE)


def printed_ca(service: Service) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = re.search(r"CA certificate to trust: (\S+)", service.output)
        if found:
            return found.group(1)
        time.sleep(0.05)
    raise AssertionError(f"orgctl serve --tls named no CA file:\n{service.output}")


def test_rest_js_signs_in_reads_and_drives_every_seed_operation(
    node: str, tls_service: tuple[Service, str]
) -> None:
    run_node_suite(node, *tls_service, "*.test.mjs")


def test_rest_js_keeps_its_tokens_on_the_shipped_demo_state(
    node: str, demo_tls_service: tuple[Service, str]
) -> None:
    run_node_suite(node, *demo_tls_service, "*.demo.mjs")


def run_node_suite(node: str, service: Service, ca: str, pattern: str) -> None:
    env = {**os.environ, "ORGCTL_SERVICE_URL": service.url, "NODE_EXTRA_CA_CERTS": ca}
    # One file after another: they drive the same service and the operations change it.
    files = sorted(path.name for path in HERE.glob(pattern))
    ran = subprocess.run(
        [node, "--test", "--test-concurrency=1", "--test-reporter=spec", *files],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_SECONDS,
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, f"REST JS suite failed:\n{output}\nservice:\n{service.output}"
    # The runner found the files: an empty run also exits 0.
    passed = re.search(r"\bpass (\d+)", output)
    assert passed and int(passed.group(1)) >= len(files) and "fail 0" in output, output
