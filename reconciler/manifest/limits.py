"""Limits on untrusted YAML, enforced while a manifest file is read (`yamltree`).

Manifests arrive in pull requests, so a file is input from anyone who can open one. A few
hundred bytes of nested aliases expand to billions of nodes (the "billion laughs"), deep
nesting exhausts the stack, and a custom tag asks for a type orgctl never declared. No
manifest needs any of that, so each is refused with the place it starts.
"""

from __future__ import annotations

# A file larger than this is no manifest (100,000 members take about 4 MB).
MAX_FILE_BYTES = 32 * 1024 * 1024
# Deeper than any manifest goes (a workspace's group link field is at depth 6).
MAX_DEPTH = 32
# How many nodes aliases may add to one document, all aliases together.
MAX_ALIAS_EXPANSION = 10_000
# Problems of one sort (unknown keys, wrong types) one document lists before the rest are
# only counted: 200,000 unknown keys printed 200,000 lines (17 MB) that nobody reads.
MAX_PROBLEMS_OF_A_SORT = 10
# Problems of any sorts one document lists before the rest are only counted.
MAX_PROBLEMS_PER_DOCUMENT = 100
