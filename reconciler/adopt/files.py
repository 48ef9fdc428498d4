"""The manifest files of a folder as round-trip YAML trees, edited in place and written
back only where something changed, comments, key order and quoting kept."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from reconciler.errors import UserError
from reconciler.kind import kind_named
from reconciler.manifest.loader import manifest_files
from reconciler.manifest.writer import manifest_yaml, to_node
from reconciler.names import IDS, NameRule


@dataclass(slots=True)
class ManifestFiles:
    root: Path
    trees: dict[Path, list[Any]] = field(default_factory=dict)
    originals: dict[Path, str | None] = field(default_factory=dict)  # None: a new file
    changed: set[Path] = field(default_factory=set)

    @classmethod
    def read(cls, root: Path) -> ManifestFiles:
        files = cls(root)
        for path in manifest_files(root):
            text = path.read_text(encoding="utf-8")
            try:
                files.trees[path] = list(manifest_yaml().load_all(text))
            except YAMLError as exc:  # validated already; a file changed meanwhile
                raise UserError(f"{path}: not valid YAML ({exc})") from None
            files.originals[path] = text
        return files

    def documents(self, kind: str) -> Iterator[tuple[Path, CommentedMap]]:
        for path, documents in self.trees.items():
            for document in documents:
                if isinstance(document, CommentedMap) and document.get("kind") == kind:
                    yield path, document

    def find(
        self, kind: str, identity: str, key: str = "name", rule: NameRule = IDS
    ) -> tuple[Path, CommentedMap] | None:
        """The document of `kind` whose identity (its metadata's `key`) is `identity` under
        the kind's `rule` for its names."""
        for path, document in self.documents(kind):
            if rule.same(str((document.get("metadata") or {}).get(key)), identity):
                return path, document
        return None

    def touch(self, path: Path) -> None:
        self.changed.add(path)

    def append(self, document: dict[str, Any]) -> Path:
        """Add a new document to the file where its kind lives, else to a file of its own."""
        kind = str(document["kind"])
        path = next((p for p, _ in self.documents(kind)), None)
        if path is None:
            folder = self.root if self.root.is_dir() else self.root.parent
            # Where export would write the kind, so adopted and exported folders agree.
            path = folder / (kind_named(kind).export.file or f"{kind.lower()}.yaml")
            if path not in self.trees:
                self.trees[path] = []
                self.originals[path] = None
        self.trees[path].append(to_node(document))
        self.changed.add(path)
        return path

    def texts(self) -> dict[Path, str]:
        """The new text of every changed file."""
        out = {}
        for path in sorted(self.changed):
            stream = io.StringIO()
            manifest_yaml().dump_all(self.trees[path], stream)
            out[path] = stream.getvalue()
        return out

    def write(self) -> list[Path]:
        written = []
        try:
            for path, text in self.texts().items():
                if text != self.originals.get(path):
                    path.write_text(text, encoding="utf-8")
                    written.append(path)
        except OSError as exc:
            self.restore()
            raise UserError(f"cannot write {exc.filename}: {exc.strerror}") from None
        return written

    def restore(self) -> None:
        """Put back every file as it was before (remove the files this run created)."""
        for path in self.changed:
            original = self.originals.get(path)
            if original is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(original, encoding="utf-8")
