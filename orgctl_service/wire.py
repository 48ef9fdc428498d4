"""Where clients and the vendor's documentation put a field differently than the
operation's own table does, and what the service makes of each (docs/rules.md §B lists
every variant with its answer; the others need no code: paths match regardless of case,
any `referer` text binds a token, and the token header is read beside the field).
"""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from typing import Any

from orgctl_service.errors import ApiError, bad_request

# Below this a `startTime` in milliseconds falls before 1973-03-03, no schedule anyone
# sets; above it in seconds it would fall after the year 5138. So a smaller value is a
# time in seconds, as the documentation's schedule sample writes it (`1615586200`).
SECONDS_BELOW = 100_000_000_000


def start_time_in_seconds(start: int | None) -> None:
    """Refuse a `startTime` that reads as seconds: taken as milliseconds it would start
    the job in January 1970 and fire it at once; taken as seconds it would be a guess
    against the parameter's own table. The message names both readings."""
    if start is None or not 0 <= start < SECONDS_BELOW:
        return
    as_ms = datetime.fromtimestamp(start / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    as_s = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    raise ApiError(
        400,
        "COLL_1002",
        f"startTime {start} is {as_ms} in milliseconds, the unit it takes; it looks like"
        f" seconds ({as_s}): send Unix time in milliseconds ({start * 1000})",
    )


def privileges_field(text: str) -> Any:
    """The `privileges` field: JSON, or the single-quoted Python literal Esri's ArcREST
    library sends (`str(dict)`); the portal's JSON reader is lenient about quotes, and
    scripts built on ArcREST set privileges that way. Only literals are read, never code."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    except RecursionError:
        raise bad_request("'privileges' is nested too deeply") from None
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        raise bad_request(
            '\'privileges\' is not JSON: send {"privileges": ["<privilege id>", ...]}'
        ) from None


def role_id_field(given: str | None, addressed: str) -> None:
    """ArcREST also sends the role's id as a field `id`; one naming another role than the
    path is refused rather than ignored, since the caller meant a different role."""
    if given is not None and given.strip() and given.strip() != addressed:
        raise bad_request(
            f"Field 'id' names role '{given.strip()[:40]}' but the path names role"
            f" '{addressed}': send the role's id in the path only"
        )
