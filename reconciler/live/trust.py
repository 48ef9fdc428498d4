"""Which certificate authorities orgctl trusts: the system's, or the file the user names.

`ORGCTL_CA_BUNDLE` (first) or the standard `SSL_CERT_FILE` names a PEM file of CA
certificates, for a portal whose certificate a private CA signed; that file is then the
whole trust store, as `curl --cacert` makes it. Verification is never turned off.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Mapping

import httpx

from reconciler.errors import UserError
from reconciler.settings import CA_BUNDLE

CA_VARIABLES = (CA_BUNDLE.name, "SSL_CERT_FILE")


def trust_store(env: Mapping[str, str]) -> ssl.SSLContext:
    """An SSL context for the named CA file, or the default store's when none is.

    Each is read once a process while its file is unchanged: loading a system's bundle
    of certificates took 29 ms, a fleet of 50 portals makes a client for each, and one
    context is made to be shared. A file replaced (a rotated CA, in a long-running agent)
    is read again."""
    for variable in CA_VARIABLES:
        path = (env.get(variable) or "").strip()
        if not path:
            continue
        try:
            return _named_store(path, _version(path))
        except (OSError, ssl.SSLError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
            raise UserError(f"{path}: cannot read the CA file named by {variable}: {why}") from None
    # The process's own variables choose the default store, as httpx reads them.
    return _default_store(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


def _version(path: str) -> tuple[int, int, int]:
    """What tells one content of the file at `path` from the next."""
    status = os.stat(path)
    return status.st_ino, status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=8)
def _named_store(path: str, version: tuple[int, int, int]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=path)


@functools.cache
def _default_store(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's default store (certifi's, or the variables' when set)."""
    return httpx.create_ssl_context()
