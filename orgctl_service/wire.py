"""Where clients and the vendor's documentation put a field differently than the
operation's own table does, and what the service makes of each (docs/rules.md §B lists
every variant with its answer; the others need no code: paths match regardless of case,
any `referer` text binds a token, and the token header is read beside the field).
"""

from __future__ import annotations

import ast
import json
from typing import Any

from orgctl_service.errors import ApiError, bad_request
from reconciler.catalog import start_in_seconds_problem


def start_time_in_seconds(start: int | None) -> None:
    """Refuse a `startTime` that reads as seconds (catalog.start_in_seconds_problem)."""
    problem = start_in_seconds_problem(start)
    if problem is not None:
        raise ApiError(400, "COLL_1002", problem)


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
