"""The suite calls the engine (loader, planner, reader) directly, as a program using the
library does, so it loads the built-in kinds first, as the CLI does (reconciler/kind.py)."""

import reconciler.kinds  # noqa: F401
