"""A gateway that echoes the request back base64-, base64url- and hex-encoded, the secret at
any of the three alignments of a base64 group, puts neither the password nor a token into
orgctl's output, the Markdown failure report, the --notify payload or the journal."""

from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import Path

import pytest

from tests.cli import env_with

from .catcher import Catcher
from .harness import ADMIN, MANIFESTS, Serve, output_of

pytestmark = pytest.mark.e2e

PASSWORD = "Vq8-xyzzy-Plugh-4417"  # the admin's password in states/secrets.yaml
SECRETS = MANIFESTS / "secrets"
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{8,}")


def decodings(text: str) -> list[bytes]:
    """Whatever the base64, base64url and hex runs of `text` decode to, from every
    starting character, so a secret at any alignment is found."""
    found = []
    for run in _BASE64_RUN.findall(text):
        standard = run.replace("-", "+").replace("_", "/")
        for start in range(4):
            chunk = standard[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                found.append(base64.b64decode(chunk))
            except binascii.Error:
                continue
    for run in _HEX_RUN.findall(text):
        for start in range(2):
            chunk = run[start:]
            found.append(bytes.fromhex(chunk[: len(chunk) - len(chunk) % 2]))
    return found


def leaked(secret: str, text: str) -> bool:
    unwrapped = text.replace("\r", "").replace("\n", "")  # base64 broken into lines
    return secret in text or any(
        secret.encode() in data for data in (*decodings(text), *decodings(unwrapped))
    )


def assert_nowhere(secret: str, texts: dict[str, str]) -> None:
    for where, text in texts.items():
        assert not leaked(secret, text), f"the secret, encoded or not, is in {where}:\n{text}"


def env_through(gateway: Catcher, **variables: str) -> dict[str, str]:
    return env_with(
        ORGCTL_PORTAL_URL=f"{gateway.origin}/hq/sharing/rest",
        ORGCTL_ADMIN_URL=f"{gateway.origin}/hq/admin",
        ORGCTL_USERNAME=ADMIN[0],
        **variables,
    )


def test_the_checker_finds_what_the_gateway_echoes() -> None:
    """The echo holds the password at each alignment: the check below can fail."""
    for pad in range(3):
        data = b"#" * pad + f"password={PASSWORD}&f=json".encode()
        for text in (base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode()):
            assert leaked(PASSWORD, f"gateway saw {text}.")
        assert leaked(PASSWORD, data.hex().upper())


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_an_echoed_sign_in_does_not_show_the_password(
    serve: Serve, tmp_path: Path, pad: int
) -> None:
    world = serve("secrets")
    sign_in = lambda method, path: path.endswith("/generateToken")  # noqa: E731
    with Catcher(world.service.url, echo=sign_in, pad=pad) as gateway, Catcher() as chat:
        env = env_through(gateway, ORGCTL_PASSWORD=PASSWORD)
        runs = {
            "plan": ["plan", SECRETS, "--notify", chat.origin + "/hook"],
            "plan markdown": ["plan", SECRETS, "--format", "markdown"],
            "drift markdown": ["--debug", "drift", SECRETS, "--format", "markdown"],
            "apply": ["apply", SECRETS, "--auto-approve", "--journal", tmp_path / "j.jsonl"],
        }
        texts: dict[str, str] = {}
        for name, args in runs.items():
            result = world.orgctl_process(*args, portal="hq", env=env)
            assert result.returncode == 1, output_of(result)
            assert "sign-in as user 'admin'" in result.stderr + result.stdout, output_of(result)
            texts[f"{name} stdout"], texts[f"{name} stderr"] = result.stdout, result.stderr
        assert "## " in texts["plan markdown stdout"], "no Markdown failure report"
    assert gateway.echoes and all(leaked(PASSWORD, echo) for echo in gateway.echoes)
    [posted] = chat.caught
    assert "X-Esri-Authorization" not in posted.headers and "Authorization" not in posted.headers
    texts["notify payload"] = json.loads(posted.body)["text"]
    assert "failed" in texts["notify payload"]
    journal = tmp_path / "j.jsonl"
    texts["journal"] = journal.read_text() if journal.exists() else ""
    assert_nowhere(PASSWORD, texts)


def test_a_sign_in_echoed_in_wrapped_base64_does_not_show_the_password(serve: Serve) -> None:
    """MIME's base64 breaks lines every 76 characters, others at any width: the password
    crosses a break."""
    world = serve("secrets")
    sign_in = lambda method, path: path.endswith("/generateToken")  # noqa: E731
    with Catcher(world.service.url, echo=sign_in, wrap=True) as gateway:
        env = env_through(gateway, ORGCTL_PASSWORD=PASSWORD)
        result = world.orgctl_process("--debug", "plan", SECRETS, portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    [echo] = gateway.echoes
    crossing = [line for line in echo.splitlines() if len(line) == 76]
    assert len(crossing) > 1 and leaked(PASSWORD, echo), "the echo must hold the password"
    assert "sign-in as user 'admin'" in result.stderr + result.stdout, output_of(result)
    assert_nowhere(PASSWORD, {"stdout": result.stdout, "stderr": result.stderr})


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_an_echoed_call_does_not_show_the_token(serve: Serve, tmp_path: Path, pad: int) -> None:
    world = serve("secrets")
    writes = ("/setPrivileges", "/updateuserrole", "/updateUserRole")
    echoed = lambda method, path: method == "POST" and path.endswith(writes)  # noqa: E731
    journal = tmp_path / "journal.jsonl"
    with Catcher(world.service.url, echo=echoed, pad=pad) as gateway, Catcher() as chat:
        env = env_through(gateway, ORGCTL_PASSWORD=PASSWORD)
        args = ["apply", SECRETS, "--auto-approve", "--journal", journal]
        result = world.orgctl_process(
            *args, "--notify", chat.origin + "/hook", portal="hq", env=env
        )
    assert result.returncode == 1, output_of(result)
    tokens = {
        c.headers["X-Esri-Authorization"].removeprefix("Bearer ")
        for c in gateway.caught
        if "X-Esri-Authorization" in c.headers
    }
    assert tokens and gateway.echoes, "the gateway echoed no signed request"
    assert all(any(leaked(t, echo) for t in tokens) for echo in gateway.echoes)
    written = journal.read_text()
    assert '"failed"' in written or "error" in written, written
    texts = {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "journal": written,
        "notify payload": chat.caught[0].body.decode(),
    }
    for secret in (*tokens, PASSWORD):
        assert_nowhere(secret, texts)
