"""Which environment variables hold a portal's credentials: its own, then those its
Portal names, then the plain ORGCTL_* ones."""

from __future__ import annotations

import re

import pytest

from reconciler.errors import UserError
from reconciler.live.credentials import load_credentials, portal_variables
from reconciler.state import Auth

DECLARED = Auth(usernameEnv="PROD_USER", passwordEnv="PROD_PASS")
# A secret name GitHub and GitLab accept, and a shell variable name.
SECRET_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("prod", "ORGCTL_PROD"),
        ("field-office", "ORGCTL_FIELD_OFFICE"),
        ("Field Office", "ORGCTL_FIELD_OFFICE"),
        ("eu.west-1", "ORGCTL_EU_WEST_1"),
        ("straße", "ORGCTL_STRASSE"),
        ("été", "ORGCTL__T_"),
        ("1st", "ORGCTL_1ST"),
    ],
)
def test_portal_variables_are_valid_secret_names(name: str, stem: str) -> None:
    own = portal_variables(name)
    assert (own.tokenEnv, own.usernameEnv, own.passwordEnv) == (
        f"{stem}_TOKEN",
        f"{stem}_USERNAME",
        f"{stem}_PASSWORD",
    )
    for variable in (own.tokenEnv, own.usernameEnv, own.passwordEnv):
        assert variable is not None and SECRET_NAME.match(variable)


def test_the_portals_own_token_comes_first() -> None:
    env = {"ORGCTL_FIELD_OFFICE_TOKEN": "t1", "PROD_USER": "u", "PROD_PASS": "p"}
    credentials = load_credentials(DECLARED, env, "field-office")
    assert credentials.token == "t1" and credentials.username is None
    assert credentials.auth.tokenEnv == "ORGCTL_FIELD_OFFICE_TOKEN"


def test_the_portals_own_username_and_password() -> None:
    env = {"ORGCTL_PROD_USERNAME": "admin", "ORGCTL_PROD_PASSWORD": "pw", "ORGCTL_TOKEN": "t"}
    credentials = load_credentials(DECLARED, env, "prod")
    assert (credentials.username, credentials.password, credentials.token) == ("admin", "pw", None)


def test_then_what_the_portal_declares_then_the_plain_names() -> None:
    declared = load_credentials(DECLARED, {"PROD_USER": "u", "PROD_PASS": "p"}, "prod")
    assert declared.username == "u"
    plain_token = load_credentials(DECLARED, {"ORGCTL_TOKEN": "t"}, "prod")
    assert plain_token.token == "t"
    plain_pair = load_credentials(
        Auth(tokenEnv="OTHER"), {"ORGCTL_USERNAME": "u", "ORGCTL_PASSWORD": "p"}, "prod"
    )
    assert (plain_pair.username, plain_pair.password) == ("u", "p")


def test_an_empty_variable_counts_as_unset() -> None:
    # GitHub Actions gives a secret that does not exist as an empty string.
    env = {"ORGCTL_PROD_TOKEN": "", "ORGCTL_USERNAME": "u", "ORGCTL_PASSWORD": "p"}
    assert load_credentials(DECLARED, env, "prod").username == "u"


def test_nothing_set_names_the_declared_and_the_portals_variables() -> None:
    with pytest.raises(UserError) as caught:
        load_credentials(DECLARED, {}, "field-office")
    message = str(caught.value)
    assert "PROD_USER is not set (named by Portal auth.usernameEnv)" in message
    assert "ORGCTL_FIELD_OFFICE_TOKEN" in message and "ORGCTL_FIELD_OFFICE_PASSWORD" in message


def test_half_of_the_portals_pair_is_refused_rather_than_falling_back() -> None:
    env = {"ORGCTL_PROD_USERNAME": "admin", "ORGCTL_TOKEN": "someone-else"}
    with pytest.raises(UserError, match="ORGCTL_PROD_USERNAME is set but ORGCTL_PROD_PASSWORD"):
        load_credentials(DECLARED, env, "prod")


def test_secrets_never_appear_in_the_repr() -> None:
    credentials = load_credentials(DECLARED, {"ORGCTL_PROD_TOKEN": "s3cr3t"}, "prod")
    assert "s3cr3t" not in repr(credentials)
    assert "ORGCTL_PROD_TOKEN" in credentials.describe()
