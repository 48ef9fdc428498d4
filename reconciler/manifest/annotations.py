"""What a pydantic field's annotation holds: the model inside it, or the element of a list
or map; and the fields a path through a document's model reaches (for "did you mean")."""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from reconciler.manifest.raw import KeyPath


def bare(annotation: Any) -> Any:
    """The annotation without `Annotated` and without `None` in a union."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        others = [a for a in get_args(annotation) if a is not type(None)]
        if len(others) == 1:
            return bare(others[0])
    return annotation


def model_of(annotation: Any) -> type[BaseModel] | None:
    found = bare(annotation)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def element_of(annotation: Any) -> Any | None:
    """The element type of a list or the value type of a map, else None."""
    found = bare(annotation)
    origin = get_origin(found)
    if origin is list:
        return get_args(found)[0]
    if origin is dict:
        return get_args(found)[1]
    return None


def fields_at(model: type[BaseModel], path: KeyPath) -> list[str]:
    """The fields of the model reached from `model` along `path` (a list's index or a map's
    key stands for its element), or [] when the path reaches no model."""
    node: Any = model
    for part in path:
        nested = model_of(node)
        if nested is None:
            node = element_of(node)
        elif isinstance(part, str) and part in nested.model_fields:
            node = nested.model_fields[part].annotation
        else:
            return []
        if node is None:
            return []
    reached = model_of(node)
    return list(reached.model_fields) if reached is not None else []
