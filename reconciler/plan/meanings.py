"""What each kind's fields mean (a boolean, a number, a time, a text, a set), read off the
kind's pydantic model, so normalize compares the service's spellings of a field without a
hand-kept list of field names.

Meanings are kept per kind: two kinds may give one field name different meanings. Within
one kind a name has one meaning wherever it sits (a workspace's `name` and a schedule's
`interval` are compared by name inside their nested records), and a model that gives one
name two meanings is refused where the table is built.

The rules, from a field's annotation (`None` left out of a union):
- `Meaning` in the metadata (`models.StartTime` carries TIME) says it outright;
- a `models.SetSchema` (every `models.string_set`) makes the list a SET;
- `bool` is a BOOLEAN; `int`, `float` or a Literal of integers a NUMBER;
- an optional `str` without a minimum length is a TEXT (it may be empty, and the service
  answers an empty text as null);
- a nested model, alone or as the values of a dict or the items of a list, adds its own
  fields; anything else means nothing special and is compared as it is.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from annotated_types import MinLen
from pydantic import BaseModel

from reconciler.manifest.models import Meaning, SetSchema

_NUMBERS = (int, float)
_UNIONS = (Union, types.UnionType)


@functools.cache
def kind_meanings(model: type[BaseModel]) -> Mapping[str, Meaning]:
    """The meaning of every field under a kind's `spec`, by name (its document `model`)."""
    return types.MappingProxyType(_model_meanings(model.model_fields["spec"].annotation))


def _model_meanings(annotation: Any) -> dict[str, Meaning]:
    table: dict[str, Meaning] = {}
    for model in _models_in(annotation):
        for name, field in model.model_fields.items():
            meaning = _meaning(field.annotation, list(field.metadata))
            found = {name: meaning} if meaning else {}
            for nested in (found, _model_meanings(field.annotation)):
                _merge(table, nested, model)
    return table


def _merge(table: dict[str, Meaning], more: Mapping[str, Meaning], model: type) -> None:
    for name, meaning in more.items():
        if table.setdefault(name, meaning) is not meaning:
            raise TypeError(
                f"{model.__qualname__}: field {name} is both a {table[name].value}"
                f" and a {meaning.value}"
            )


def _meaning(annotation: Any, metadata: list[Any]) -> Meaning | None:
    bases, extra, optional = _flatten(annotation)
    metadata = [*metadata, *extra]
    stated = [m for m in metadata if isinstance(m, Meaning)]
    if stated:
        return stated[0]
    if any(isinstance(m, SetSchema) for m in metadata):
        return Meaning.SET
    if bases == {bool}:
        return Meaning.BOOLEAN
    if bases and all(_is_number(base) for base in bases):
        return Meaning.NUMBER
    may_be_empty = not any(isinstance(m, MinLen) and m.min_length > 0 for m in metadata)
    if bases == {str} and optional and may_be_empty:
        return Meaning.TEXT
    return None


def _is_number(base: Any) -> bool:
    if get_origin(base) is Literal:
        return all(isinstance(v, int) and not isinstance(v, bool) for v in get_args(base))
    return base in _NUMBERS


def _flatten(annotation: Any) -> tuple[set[Any], list[Any], bool]:
    """The types a field may hold but None, the metadata of any `Annotated` among them,
    and whether None is one of them."""
    if get_origin(annotation) is Annotated:
        bases, metadata, optional = _flatten(annotation.__origin__)
        return bases, [*annotation.__metadata__, *metadata], optional
    if get_origin(annotation) in _UNIONS:
        bases, metadata, optional = set(), [], False
        for arm in get_args(annotation):
            more, extra, none = _flatten(arm)
            bases |= more
            metadata += extra
            optional = optional or none
        return bases, metadata, optional
    if annotation is type(None):
        return set(), [], True
    return {annotation}, [], False


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    """The models a field holds: itself, or in a union, a dict's values, a list's items."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = get_origin(annotation)
    if origin is Annotated:
        yield from _models_in(annotation.__origin__)
    elif origin in _UNIONS or origin in (list, dict, tuple, set, frozenset):
        for arm in get_args(annotation):
            yield from _models_in(arm)
