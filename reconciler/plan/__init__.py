"""Planning: the diff of desired against live state as a `Plan` value, its renderers
(text, JSON, Markdown) and the check that a saved plan is still fresh."""

from reconciler.plan.fingerprint import StalePlan, check_fresh
from reconciler.plan.model import Call, Change, Plan, PlanProblem, Ref
from reconciler.plan.planner import build_plan
from reconciler.plan.render import Mode
from reconciler.plan.render.json import PlanFileError, plan_from_json, render_json
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.text import render_text

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
