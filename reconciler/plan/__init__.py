"""Planning: the diff of desired against live state as a `Plan` value, its renderers
(text, JSON, Markdown) and the check that a saved plan is still fresh."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from reconciler.lazy import exports as _exports
from reconciler.lazy import listing as _listing

if _TYPE_CHECKING:
    from reconciler.plan.fingerprint import StalePlan, check_fresh
    from reconciler.plan.model import Call, Change, Plan, PlanProblem, Ref
    from reconciler.plan.planner import build_plan
    from reconciler.plan.render import Mode
    from reconciler.plan.render.json import PlanFileError, plan_from_json, render_json
    from reconciler.plan.render.markdown import render_markdown
    from reconciler.plan.render.text import render_text

# Each name and the module that defines it, imported on first use (PEP 562): a module
# below the package (`plan.elements`, `plan.members`) is imported by `validate` and the
# access report, which need neither the planner nor the renderers with rich and ruamel.
_HOMES = {
    "StalePlan": "fingerprint",
    "check_fresh": "fingerprint",
    "Call": "model",
    "Change": "model",
    "Plan": "model",
    "PlanProblem": "model",
    "Ref": "model",
    "build_plan": "planner",
    "Mode": "render",
    "PlanFileError": "render.json",
    "plan_from_json": "render.json",
    "render_json": "render.json",
    "render_markdown": "render.markdown",
    "render_text": "render.text",
}


__getattr__ = _exports(__name__, _HOMES)
__dir__ = _listing(globals(), _HOMES)


__all__ = [
    "Call",
    "Change",
    "Mode",
    "Plan",
    "PlanFileError",
    "PlanProblem",
    "Ref",
    "StalePlan",
    "build_plan",
    "check_fresh",
    "plan_from_json",
    "render_json",
    "render_markdown",
    "render_text",
]
