"""The manifest layer: YAML documents in, validated desired state (or every problem) out."""

from reconciler.manifest.desired import load_desired
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.schema import schema_text
from reconciler.manifest.validation import validate

__all__ = ["Document", "Problem", "load_desired", "schema_text", "validate"]
