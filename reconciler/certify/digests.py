"""The one way a campaign's records are serialized to be digested and signed: JSON with
sorted keys and no spaces, UTF-8. Any change to a value changes its SHA-256."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()
