"""Write live values into a declared YAML node, touching only what differs.

A field the manifest leaves out is not managed, so adoption leaves it out too; a declared
field the portal no longer has becomes unmanaged (removed). Set-like lists keep the
manifest's order for what stays, and what the portal added follows, sorted: the diff of the
file shows exactly the adopted values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from reconciler.manifest.models import _to_epoch_ms
from reconciler.manifest.writer import to_node

SET_FIELDS = frozenset({"privileges", "invalidInvitations"})


def merge_declared(node: CommentedMap, live: Mapping[str, Any]) -> list[str]:
    """Set each key `node` declares to its value in `live`; the keys that changed."""
    return merge_fields(node, live, list(node))


def merge_fields(node: CommentedMap, live: Mapping[str, Any], keys: list[Any]) -> list[str]:
    """`merge_declared` for the given keys of `node` only."""
    changed: list[str] = []
    for key in keys:
        if key not in live:
            del node[key]
            changed.append(str(key))
        elif _merge_key(node, str(key), live[key]):
            changed.append(str(key))
    return changed


def _merge_key(node: CommentedMap, key: str, value: Any) -> bool:
    old = node[key]
    if isinstance(old, CommentedMap) and isinstance(value, Mapping):
        return bool(merge_declared(old, value))
    if key in SET_FIELDS and isinstance(old, list) and isinstance(value, list):
        return _merge_set(node, key, old, value)
    if same_value(key, old, value):
        return False
    node[key] = to_node(value)
    return True


def _merge_set(node: CommentedMap, key: str, old: list[Any], live: list[Any]) -> bool:
    wanted = {str(v) for v in live}
    if {str(v) for v in old} == wanted and len(old) == len(wanted):
        return False
    kept = [v for v in old if str(v) in wanted]
    seen = {str(v) for v in kept}
    added = sorted(v for v in wanted if v not in seen)
    if isinstance(old, CommentedSeq):
        # Remove in place, from the end, so the comments of the items that stay stay too.
        for index in reversed(range(len(old))):
            if str(old[index]) not in wanted or str(old[index]) in old[:index]:
                del old[index]
        old.extend(to_node(v) for v in added)
    else:
        node[key] = to_node([*kept, *added])
    return True


def same_value(key: str, old: Any, new: Any) -> bool:
    """Equal as the manifest means them: a time in any notation, 1024 and 1024.0."""
    if key == "startTime":
        return bool(_to_epoch_ms(old) == _to_epoch_ms(new))
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new) and bool(old == new)
    if isinstance(old, int | float) and isinstance(new, int | float):
        return float(old) == float(new)
    return bool(old == new)
