"""The one place where loose values become exact ones: times, booleans and numbers.

The service answers numbers as strings ("1024", "1024.0"), booleans as strings ("true")
and times as Unix milliseconds; manifests say ISO 8601 or milliseconds. The manifest
models, the live records and the planner's comparisons all convert through these
functions, so a value means the same on both sides of a diff, on any machine.

Times: ISO 8601 with `Z` or an offset is that instant. A time without an offset is UTC,
the clock the service keeps, never the local time of the machine that runs orgctl, so a
plan made on a laptop in New York equals one made by a CI runner in UTC. Times must lie
between 1970 and 9999 (the service keeps Unix milliseconds and orgctl shows ISO dates).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

TRUE_WORDS = frozenset({"true", "yes", "1"})
FALSE_WORDS = frozenset({"false", "no", "0"})
# The range of times orgctl can show as ISO 8601: 1970-01-01 up to the end of year 9999.
LATEST_MS = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() * 1000)


def epoch_ms(value: Any) -> int | None:
    """Unix milliseconds from milliseconds (a number or numeric text), ISO 8601 text, a
    datetime or a date (its midnight, UTC); None for None or blank text."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        return _in_range(int(value))
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return _in_range(round(moment.timestamp() * 1000))
    if isinstance(value, date):
        return epoch_ms(datetime(value.year, value.month, value.day, tzinfo=UTC))
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return _in_range(int(text))
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text[:40]!r} is neither ISO 8601 nor Unix milliseconds") from None
    return epoch_ms(moment)


def _in_range(milliseconds: int) -> int:
    if not 0 <= milliseconds <= LATEST_MS:
        raise ValueError(f"time {milliseconds} ms is outside 1970 to 9999")
    return milliseconds


def boolean(value: Any) -> bool | None:
    """True/False from a boolean or the words the service uses; None for None or blank."""
    if value is None or isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word == "":
        return None
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a boolean: {str(value)[:40]!r}")


def number(value: Any) -> int | float | None:
    """A number; an integer when it is whole (1024.0 and "1024" are 1024)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    parsed = value if isinstance(value, int | float) else _parse_number(str(value))
    if isinstance(parsed, float):
        if parsed != parsed or parsed in (float("inf"), float("-inf")):
            raise ValueError(f"not a finite number: {value!r}")
        if parsed.is_integer():
            return int(parsed)
    return parsed


def _parse_number(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ValueError(f"not a number: {text[:40]!r}") from None


def integer(value: Any) -> int | None:
    """A whole number ("5", 5.0 and 5 are 5); a fraction is refused, not truncated."""
    parsed = number(value)
    if parsed is None or isinstance(parsed, int):
        return parsed
    raise ValueError(f"not a whole number: {value!r}")


def int_keys(mapping: Any) -> dict[int, Any]:
    """`{"1": v}` → `{1: v}`; anything not a mapping → {}."""
    if not isinstance(mapping, dict):
        return {}
    return {int(k): v for k, v in mapping.items()}


_DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?")


def seconds(text: str) -> float | None:
    """A wait like Terraform's `-lock-timeout`: `0`, `90s`, `2m`, `1h30m`, `0.5`, as
    seconds; None when `text` is no such duration."""
    match = _DURATION.fullmatch(text.strip().lower())
    if not match or not any(match.groups()):
        return None
    hours, minutes, rest = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + rest
