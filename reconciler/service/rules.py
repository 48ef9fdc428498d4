"""Checks shared by every resource group: the portal id in a path, availability gates."""

from __future__ import annotations

from reconciler.catalog import Feature, feature_problem, operation_problem
from reconciler.service.context import Ctx
from reconciler.service.errors import not_found, unavailable
from reconciler.service.world import platform_of


def check_portal_id(ctx: Ctx) -> None:
    """`<portal_id>` in a path must be this portal's id or the literal `self`."""
    given = ctx.args.get("portalId")
    if given is not None and given not in ("self", ctx.portal["id"]):
        raise not_found(f"Portal '{given}' not found on this server")


def check_operation(ctx: Ctx, operation: str) -> None:
    problem = operation_problem(operation, platform_of(ctx.portal))
    if problem:
        raise unavailable(f"This operation is not available: {problem}")


def check_feature(ctx: Ctx, feature: Feature) -> None:
    problem = feature_problem(feature, platform_of(ctx.portal))
    if problem:
        raise unavailable(f"This parameter is not available: {problem}")
