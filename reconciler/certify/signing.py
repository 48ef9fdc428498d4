"""Signing an evidence bundle with an SSH key, as Git signs commits (`ssh-keygen -Y`):
one namespace, so a signature made for anything else never verifies a bundle."""

from __future__ import annotations

import base64
import hashlib
import struct
import subprocess
import tempfile
from pathlib import Path

from reconciler.errors import UserError

NAMESPACE = "orgctl-evidence"


def sign(payload: bytes, key: Path) -> str:
    """The armored SSH signature of `payload` by the private key in `key`."""
    done = _keygen(["-Y", "sign", "-f", str(key), "-n", NAMESPACE], payload)
    if done.returncode != 0:
        raise UserError(f"{key}: cannot sign with this key: {_said(done)}")
    return done.stdout.decode()


def verify(payload: bytes, signature: str, allowed: Path | None) -> str | None:
    """None when `signature` is a good signature of `payload` (by a key `allowed` lists,
    when given), else why not."""
    with tempfile.TemporaryDirectory() as folder:
        sig = Path(folder) / "bundle.sig"
        sig.write_text(signature, encoding="utf-8")
        if allowed is None:
            done = _keygen(["-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(sig)], payload)
            return None if done.returncode == 0 else _said(done)
        found = _keygen(["-Y", "find-principals", "-s", str(sig), "-f", str(allowed)], b"")
        principals = found.stdout.decode().split()
        if found.returncode != 0 or not principals:
            return f"the signer's key is not listed in {allowed}"
        command = ["-Y", "verify", "-f", str(allowed), "-I", principals[0], "-n", NAMESPACE]
        done = _keygen([*command, "-s", str(sig)], payload)
        return None if done.returncode == 0 else _said(done)


def fingerprint(signature: str) -> str:
    """The SHA-256 fingerprint of the key a signature names, as ssh-keygen prints it;
    a UserError for text that is no SSH signature."""
    body = "".join(line for line in signature.splitlines() if not line.startswith("-----"))
    try:
        blob = base64.b64decode(body, validate=True)
        if not blob.startswith(b"SSHSIG"):
            raise ValueError("no SSHSIG magic")
        (size,) = struct.unpack(">I", blob[10:14])  # after the magic and the version
        key = blob[14 : 14 + size]
    except (ValueError, struct.error) as exc:
        raise UserError(f"the bundle's signature is no SSH signature ({exc})") from None
    digest = base64.b64encode(hashlib.sha256(key).digest()).decode().rstrip("=")
    return f"SHA256:{digest}"


def _keygen(arguments: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["ssh-keygen", *arguments], input=stdin, capture_output=True, check=False
        )
    except OSError as exc:
        raise UserError(f"ssh-keygen cannot be run ({exc.strerror}): install OpenSSH") from None


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    lines = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"ssh-keygen exited {done.returncode}"
