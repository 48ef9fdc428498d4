"""The service's loose wire values made exact: "1" → 1, "true" → True, times → epoch ms."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

TRUE_WORDS = frozenset({"true", "yes", "1"})
FALSE_WORDS = frozenset({"false", "no", "0"})


def to_int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    return int(float(str(value).strip()))


def to_number(value: Any) -> int | float | None:
    """An integer when the value is whole (1024.0 → 1024), else a float."""
    if value is None or value == "":
        return None
    number = float(value) if not isinstance(value, int | float) else value
    if isinstance(number, float) and number.is_integer():
        return int(number)
    return number


def to_bool(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def to_epoch_ms(value: Any) -> int | None:
    """Epoch milliseconds from an int, a numeric string or an ISO-8601 time."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def int_keys(mapping: Any) -> dict[int, Any]:
    """`{"1": v}` → `{1: v}`; anything not a mapping → {}."""
    if not isinstance(mapping, dict):
        return {}
    return {int(k): v for k, v in mapping.items()}
