"""Both ways the client signs in: its default OAuth2 sign-in (the `pythonapi` app's
implicit grant) and generateToken (`use_gen_token=True`), plus an app's own client id."""

from __future__ import annotations

import time

import pytest

from .conftest import SignIn


def test_default_sign_in_is_oauth_and_reads_the_portal(sign_in: SignIn) -> None:
    gis = sign_in("hq")
    assert type(gis._con._session.auth).__name__ == "EsriBuiltInAuth"
    assert gis.users.me.username == "admin"
    # currentVersion is the REST version of 10.6.1, below the client's 6.4 gate for levels
    assert gis.version == [6, 2]
    assert (gis.properties.portalName, gis.properties.isPortal) == ("Portal for ArcGIS", True)
    assert gis.properties.fullVersion == "10.6.1"


def test_generate_token_sign_in_keeps_its_token_valid(sign_in: SignIn) -> None:
    gis = sign_in("field", use_gen_token=True)
    auth = gis._con._session.auth
    assert type(auth).__name__ == "EsriGenTokenAuth"
    assert gis.users.me.username == "admin"
    # The client judges `expires` by its own clock: a service clock in the past made
    # every token look expired, and the client then sent no token at all.
    assert auth.expiration.timestamp() > time.time()
    assert auth.token() is not None
    assert gis.users.get("frank").username == "frank"


def test_registered_app_signs_in_with_the_code_grant(sign_in: SignIn) -> None:
    gis = sign_in("hq", client_id="pythonapi")
    assert type(gis._con._session.auth).__name__ == "EsriOAuth2Auth"
    assert gis.users.me.username == "admin"


def test_wrong_password_is_refused(sign_in: SignIn) -> None:
    # The implicit grant finds no redirect, falls back to the code grant, and that one
    # reads the sign-in page's messages.
    with pytest.raises(Exception, match=r"(?i)invalid username or password"):
        sign_in("hq", password="wrong")


def test_generate_token_sign_in_works_on_the_shipped_demo_state(demo_sign_in: SignIn) -> None:
    """The demo's clock stands at 2026-11-01: a token whose `expires` followed it was
    judged expired at once, and the client sent `Bearer None` (498) on its next read."""
    gis = demo_sign_in("hq", use_gen_token=True)
    auth = gis._con._session.auth
    assert auth.expiration.timestamp() > time.time()
    assert gis.users.me.username == "admin"
    assert gis.users.get("alice").username == "alice"
    assert gis.properties.fullVersion == "10.6.1"
