"""The spellings the client redacts: a secret inside base64 at each alignment of a group,
base64url and hex in both cases, besides the escaped spellings."""

from __future__ import annotations

import base64

from reconciler.live.client import _redact, forms
from reconciler.live.redaction import spelled

SECRET = "s3cr3t/pa+ss?word"


def test_a_secret_inside_base64_text_is_redacted_at_every_alignment() -> None:
    spellings = spelled(forms(SECRET))
    for before in ("", "a", "ab", "abc", "user=admin&password="):
        data = f"{before}{SECRET}&client=referer".encode()
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            echoed = encode(data).decode()
            redacted = _redact(f"echo {echoed}", spellings)
            assert "***" in redacted and echoed not in redacted
            kept = redacted.removeprefix("echo ").split("***")
            assert all(len(part) < len(echoed) - 8 for part in kept)


def test_hex_in_either_case_is_redacted() -> None:
    spellings = spelled(forms(SECRET))
    for text in (SECRET.encode().hex(), SECRET.encode().hex().upper()):
        assert _redact(f"[{text}]", spellings) == "[***]"


def test_a_secret_inside_base64_wrapped_at_any_width_is_redacted() -> None:
    """MIME's base64 breaks lines at 76 characters (PEM at 64); a gateway may wrap at any
    width, with CRLF, or indent the next line: a break inside the secret's spelling must
    not let it through."""
    spellings = spelled(forms(SECRET))
    for before in ("", "a", "ab", "user=admin&password="):
        data = f"{before}{SECRET}&client=referer&f=json".encode()
        flat = base64.b64encode(data).decode()
        for width in (4, 7, 16, 76):
            for newline in ("\n", "\r\n", "\n    "):
                lines = [flat[i : i + width] for i in range(0, len(flat), width)]
                echoed = newline.join(lines)
                redacted = _redact(f"echo {echoed}", spellings)
                assert "***" in redacted, (width, newline)
                kept = redacted.removeprefix("echo ").split("***")
                assert all(len(part.replace(newline, "")) < len(flat) - 8 for part in kept)


def test_base64_the_standard_library_wraps_is_redacted() -> None:
    data = ("x" * 50 + SECRET).encode()  # its spelling crosses the 76th character
    echoed = base64.encodebytes(data).decode()
    assert "\n" in echoed.strip()
    redacted = _redact(echoed, spelled(forms(SECRET)))
    assert "***" in redacted
