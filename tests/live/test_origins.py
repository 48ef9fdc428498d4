"""ORGCTL_TRUSTED_ORIGINS as the client reads it: origins spelled one way, entries bound to
a portal's name, and a request to any other origin never made, whatever gave its URL."""

from __future__ import annotations

import asyncio
import re

import pytest

from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.origins import TrustedOrigins, ci_warning, origin_of
from reconciler.state import Auth
from tests.e2e.catcher import Catcher

PASSWORD = "Vq8-xyzzy-Plugh-4417"


def test_origins_are_compared_in_one_spelling() -> None:
    assert origin_of("HTTPS://GIS.Example.com:443/portal/sharing/rest") == "https://gis.example.com"
    assert origin_of("https://gis.example.com:7443/x") == "https://gis.example.com:7443"
    assert origin_of("http://[::1]:8080/a") == "http://[::1]:8080"
    trusted = TrustedOrigins.from_env({"ORGCTL_TRUSTED_ORIGINS": "https://GIS.example.com:443/"})
    assert trusted is not None and trusted.allows("https://gis.example.com", "hq")
    assert not trusted.allows("https://gis.example.com:7443", "hq")  # the port is the origin's
    assert not trusted.allows("http://gis.example.com", "hq")  # and so is the scheme


def test_a_bound_origin_serves_its_portal_only() -> None:
    env = {"ORGCTL_TRUSTED_ORIGINS": "prod = https://gis.example.com, dev=https://dev.example.com"}
    trusted = TrustedOrigins.from_env(env)
    assert trusted is not None
    assert trusted.allows("https://gis.example.com", "prod")
    assert trusted.allows("https://gis.example.com", "PROD")  # named as ORGCTL_PROD_* are
    assert not trusted.allows("https://dev.example.com", "prod")
    assert not trusted.allows("https://gis.example.com", "dev")
    assert trusted.listed_for("dev") == ["https://dev.example.com"]


def test_unset_or_empty_enforces_nothing_and_bad_entries_are_errors() -> None:
    assert TrustedOrigins.from_env({}) is None
    assert TrustedOrigins.from_env({"ORGCTL_TRUSTED_ORIGINS": "  "}) is None
    for wrong in ("gis.example.com", "https://gis.example.com/portal", "https://u@h", "ftp://h"):
        with pytest.raises(UserError, match="is not an origin"):
            TrustedOrigins.from_env({"ORGCTL_TRUSTED_ORIGINS": wrong})


def test_the_ci_warning_is_given_only_in_ci_without_the_variable() -> None:
    assert ci_warning({"CI": "true"}) is not None
    assert ci_warning({"CI": "true", "ORGCTL_TRUSTED_ORIGINS": "https://h"}) is None
    assert ci_warning({}) is None and ci_warning({"CI": "false"}) is None


def test_a_url_from_an_answer_outside_the_trusted_origins_is_never_requested() -> None:
    """A tokenServicesUrl or owningSystemUrl a portal's `info` names, or any absolute URL
    the client is handed: refused before a sign-in or a request is made."""
    with Catcher() as portal, Catcher() as elsewhere:
        env = {
            "ORGCTL_USERNAME": "admin",
            "ORGCTL_PASSWORD": PASSWORD,
            "ORGCTL_TRUSTED_ORIGINS": portal.origin,
        }
        auth = Auth(usernameEnv="ORGCTL_USERNAME", passwordEnv="ORGCTL_PASSWORD")

        async def ask(url: str) -> None:
            async with PortalClient(f"{portal.origin}/p/sharing/rest", auth=auth, env=env) as c:
                await c.get_json(url)

        for derived in ("/p/sharing/rest/generateToken", "/arcgis/tokens/", "/portal"):
            with pytest.raises(UserError) as refused:
                asyncio.run(ask(elsewhere.origin + derived))
            assert f"refusing to send credentials to {elsewhere.origin}" in str(refused.value)
            assert "comes from an answer of the portal" in str(refused.value)
        assert elsewhere.caught == [] and portal.caught == []


def test_a_root_outside_the_trusted_origins_is_refused_when_the_client_is_made() -> None:
    env = {"ORGCTL_TOKEN": "t0k3n-value", "ORGCTL_TRUSTED_ORIGINS": "https://gis.example.com"}
    with pytest.raises(
        UserError, match=re.escape("refusing to send credentials to http://127.0.0.1:9")
    ):
        PortalClient("http://127.0.0.1:9/p/sharing/rest", auth=Auth("ORGCTL_TOKEN"), env=env)
    with pytest.raises(UserError, match="comes from the admin URL"):
        PortalClient(
            "https://gis.example.com/portal/sharing/rest",
            admin_root="https://gis.example.com:6443/arcgis/admin",
            auth=Auth("ORGCTL_TOKEN"),
            env=env,
        )
