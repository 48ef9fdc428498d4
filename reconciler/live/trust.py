"""Which certificate authorities orgctl trusts: the system's, or the file the user names.

`ORGCTL_CA_BUNDLE` (first) or the standard `SSL_CERT_FILE` names a PEM file of CA
certificates, for a portal whose certificate a private CA signed; that file is then the
whole trust store, as `curl --cacert` makes it. Verification is never turned off.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping

from reconciler.errors import UserError
from reconciler.settings import CA_BUNDLE

CA_VARIABLES = (CA_BUNDLE.name, "SSL_CERT_FILE")


def trust_store(env: Mapping[str, str]) -> ssl.SSLContext | bool:
    """An SSL context for the named CA file, or True (the default store) when none is."""
    for variable in CA_VARIABLES:
        path = (env.get(variable) or "").strip()
        if not path:
            continue
        try:
            return ssl.create_default_context(cafile=path)
        except (OSError, ssl.SSLError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
            raise UserError(f"{path}: cannot read the CA file named by {variable}: {why}") from None
    return True
