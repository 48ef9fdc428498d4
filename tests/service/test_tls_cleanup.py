"""`orgctl serve --tls` makes a private key in a temporary folder: it is removed when the
service ends, by Ctrl-C (SIGINT), SIGTERM or an error, never left behind."""

from __future__ import annotations

import os
import re
import signal
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"


def started_with_tls(*options: str) -> tuple[subprocess.Popen[str], Path, list[str]]:
    """`orgctl serve --tls` in a subprocess, the folder its CA file is in, and its output
    (read on as it comes)."""
    command = [sys.executable, "-m", "reconciler", "serve", "--tls", "--port", "0", *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    output: list[str] = []
    for line in process.stdout:
        output.append(line)
        found = re.search(r"CA certificate to trust: (\S+)", line)
        if found:
            break
    else:
        raise AssertionError("".join(output))
    rest = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
    rest.start()
    return process, Path(found.group(1)).parent, output


@pytest.mark.parametrize("serving", [False, True], ids=["starting", "serving"])
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_made_private_key_is_removed_when_serve_is_stopped(
    sent: signal.Signals, code: int, serving: bool
) -> None:
    process, folder, output = started_with_tls("--state", str(DEMO_STATE))
    try:
        assert (folder / "server.key").exists()
        if serving:  # the signal then reaches uvicorn's own handler first
            url = re.search(r"https://\S+", output[0])
            assert url, output
            trusted = ssl.create_default_context(cafile=str(folder / "ca.pem"))
            answer = httpx.get(
                f"{url.group(0)}/hq/sharing/rest", params={"f": "json"}, verify=trusted
            )
            assert answer.json()["fullVersion"] == "10.6.1"
        process.send_signal(sent)
        assert process.wait(20) == code, "".join(output)
    finally:
        if process.poll() is None:
            process.kill()
    assert not folder.exists(), sorted(p.name for p in folder.iterdir())
    assert "Traceback" not in "".join(output), "".join(output)


def test_a_service_that_fails_to_start_leaves_no_key(tmp_path: Path) -> None:
    broken = tmp_path / "state.yaml"
    broken.write_text("portals: [{id: x}]\n")  # no urlKey: the state is refused
    temporary = tmp_path / "tmp"  # the service's own temporary folder, watched alone
    temporary.mkdir()
    command = [sys.executable, "-m", "reconciler", "serve", "--tls", "--port", "0"]
    result = subprocess.run(
        [*command, "--state", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert list(temporary.iterdir()) == []
