"""Canonical values for comparison, so a plan right after a successful apply is empty.

The service answers with strings where the manifests hold booleans ("true"), floats where
they hold integers (1024.0), lists where they hold sets; schedule times arrive as
milliseconds while a manifest may say ISO 8601. Both sides of every comparison go through
`canonical()`, field by field, so none of these spellings ever shows up as a change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reconciler import values
from reconciler.kind import field_defaults

BOOLEAN_FIELDS = frozenset(
    {
        "copyByRefIfCopyFail",
        "enableRealtimeSync",
        "copyFeatureServiceData",
        "enableFeatureServiceBidirectionalSync",
        "active",
    }
)
NUMBER_FIELDS = frozenset(
    {
        "maxItemSizeInMB",
        "maxReplicationPackageSizeInMB",
        "interval",
        "repeatCount",
        "level",
        "notificationAttempts",
        "notificationTimeOutInSeconds",
        "notificationElapsedTimeInSeconds",
        "numberOfFailures",
        "daysInPast",
    }
)
TIME_FIELDS = frozenset({"startTime", "created"})
# Order and duplicates do not matter, whatever container the value comes in.
SET_FIELDS = frozenset({"privileges"})
# A text the service may answer as null when it is empty.
TEXT_FIELDS = frozenset({"description"})


SPECIAL_FIELDS = BOOLEAN_FIELDS | NUMBER_FIELDS | TIME_FIELDS | TEXT_FIELDS | SET_FIELDS


def canonical_boolean(value: Any) -> Any:
    return _or_as_is(values.boolean, value)


def canonical_number(value: Any) -> Any:
    """1024, 1024.0 and "1024" are the same number; 1024.5 stays a float."""
    return _or_as_is(values.number, value)


def canonical_time(value: Any) -> Any:
    """Unix milliseconds; ISO 8601 text is converted (without an offset: UTC)."""
    return _or_as_is(values.epoch_ms, value)


def _or_as_is(convert: Callable[[Any], Any], value: Any) -> Any:
    """The converted value, or the value itself when it is not of that kind: then it
    differs from any well-formed one, and the diff shows it as it is."""
    if value is None:
        return None
    try:
        return convert(value)
    except ValueError:
        return value


def canonical(name: str, value: Any) -> Any:
    """The comparable form of field `name`'s value."""
    if name not in SPECIAL_FIELDS and isinstance(value, str | int):
        return value  # the common case: a name, an id, a role
    # The service's defaults (docs/rules.md §2), as each kind states its own: a value it
    # leaves out is this one.
    if value is None and name in (defaults := field_defaults()):
        return defaults[name]
    if isinstance(value, Mapping):
        return canonical_fields(value)
    if isinstance(value, frozenset | set) or (name in SET_FIELDS and isinstance(value, list)):
        return sorted({str(v) for v in value})
    if name in BOOLEAN_FIELDS:
        return canonical_boolean(value)
    if name in NUMBER_FIELDS:
        return canonical_number(value)
    if name in TIME_FIELDS:
        return canonical_time(value)
    if name in TEXT_FIELDS and value is None:
        return ""
    if name in SET_FIELDS and value is None:
        return []  # a role created without privileges may be listed without the key
    return value


def canonical_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: canonical(name, value) for name, value in values.items()}


def form_value(value: Any) -> str:
    """How a value is sent form-encoded: booleans as true/false, 1024.0 as 1024."""
    if isinstance(value, bool):
        return "true" if value else "false"
    value = canonical_number(value)
    return str(value)
