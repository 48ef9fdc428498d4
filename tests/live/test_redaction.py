"""The spellings the client redacts: a secret inside base64 at each alignment of a group,
base64url and hex in both cases, besides the escaped spellings."""

from __future__ import annotations

import base64

from reconciler.live.client import _redact, forms

SECRET = "s3cr3t/pa+ss?word"


def test_a_secret_inside_base64_text_is_redacted_at_every_alignment() -> None:
    spellings = tuple(forms(SECRET))
    for before in ("", "a", "ab", "abc", "user=admin&password="):
        data = f"{before}{SECRET}&client=referer".encode()
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            echoed = encode(data).decode()
            redacted = _redact(f"echo {echoed}", spellings)
            assert "***" in redacted and echoed not in redacted
            kept = redacted.removeprefix("echo ").split("***")
            assert all(len(part) < len(echoed) - 8 for part in kept)


def test_hex_in_either_case_is_redacted() -> None:
    spellings = tuple(forms(SECRET))
    for text in (SECRET.encode().hex(), SECRET.encode().hex().upper()):
        assert _redact(f"[{text}]", spellings) == "[***]"
