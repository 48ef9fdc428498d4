"""Canonical values for comparison, so a plan right after a successful apply is empty.

The service answers with strings where the manifests hold booleans ("true"), floats where
they hold integers (1024.0), lists where they hold sets; schedule times arrive as
milliseconds while a manifest may say ISO 8601. Both sides of every comparison go through
`canonical()`, field by field, so none of these spellings ever shows up as a change.
What a field is (a boolean, a number, ...) is what its kind's model says (`Fields`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler import values
from reconciler.kinds import registry
from reconciler.manifest.models import Meaning
from reconciler.plan.meanings import kind_meanings


@dataclass(frozen=True, slots=True)
class Fields:
    """What one kind says of its fields: what each means (read off its model,
    `plan.meanings`) and the service's default of each it may leave out (docs/rules.md §2)."""

    meanings: Mapping[str, Meaning]
    defaults: Mapping[str, Any]


# The fields of an address no kind owns: every value is compared as it is.
AS_IS = Fields({}, {})

# Fields a kind's plan shows that its manifest does not declare (a deleted run's creation
# time), by kind: its module states them (`shows`), as no model of its holds them.
_SHOWN: dict[str, dict[str, Meaning]] = {}
# By address head, for plans of 100,000 records. A head is one kind's for the life of the
# process: the registry refuses a second claim, and a test's kind comes back as itself.
# An unowned head is never kept, as a kind may still be registered for it.
_AT: dict[str, Fields] = {}


def shows(kind: str, **meanings: Meaning) -> None:
    """Kind `kind`'s plan shows these fields, which its model does not declare."""
    _SHOWN.setdefault(kind, {}).update(meanings)
    _AT.clear()


def fields_at(address: str) -> Fields:
    """The fields of the kind whose address `address` is ("Workspace/c1/ws1")."""
    head = address.partition("/")[0]
    known = _AT.get(head)
    if known is not None:
        return known
    found = registry.owner(head)
    if found is None:
        return AS_IS
    kind = found[0]
    # A plain dict, never written to: looked up for every field of every record.
    meanings = {**kind_meanings(kind.model), **_SHOWN.get(kind.name, {})}
    fields = Fields(meanings, registry.field_defaults(kind.name))
    _AT[head] = fields
    return fields


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


def canonical(fields: Fields, name: str, value: Any) -> Any:
    """The comparable form of field `name`'s value, as its kind's `fields` say."""
    meaning = fields.meanings.get(name)
    if meaning is None and isinstance(value, str | int):
        return value  # the common case: a name, an id, a role
    if value is None:
        # The service's defaults, as each kind states its own: a value it leaves out is
        # this one; else an empty text the service answers as null, or a role created
        # without privileges listed without the key.
        if name in fields.defaults:
            return fields.defaults[name]
        empty = _EMPTY.get(meaning)
        return None if empty is None else empty()
    convert = _CONVERT.get(meaning)
    if convert is not None:
        return convert(value)
    if isinstance(value, Mapping):
        return canonical_fields(fields, value)
    if isinstance(value, frozenset | set) or (meaning is _SET and isinstance(value, list)):
        return sorted({str(v) for v in value})
    return value


def canonical_fields(fields: Fields, values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: canonical(fields, name, value) for name, value in values.items()}


_CONVERT: dict[Meaning | None, Callable[[Any], Any]] = {
    Meaning.BOOLEAN: canonical_boolean,
    Meaning.NUMBER: canonical_number,
    Meaning.TIME: canonical_time,
}
_EMPTY: dict[Meaning | None, Callable[[], Any]] = {Meaning.TEXT: str, Meaning.SET: list}
_SET = Meaning.SET  # looked up once: an enum member's lookup costs more than a global's


def form_value(value: Any) -> str:
    """How a value is sent form-encoded: booleans as true/false, 1024.0 as 1024."""
    if isinstance(value, bool):
        return "true" if value else "false"
    value = canonical_number(value)
    return str(value)
