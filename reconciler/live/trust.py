"""Which certificate authorities orgctl trusts: the system's, or the file the user names.

`ORGCTL_CA_BUNDLE` (first) or the standard `SSL_CERT_FILE` names a PEM file of CA
certificates, for a portal whose certificate a private CA signed; that file is then the
whole trust store, as `curl --cacert` makes it. Verification is never turned off.

Reading a bundle costs 27 to 42 ms, a tenth of a short command. A client of an https
portal reads it at once (a file that cannot be read is named before any request); a
client of a loopback http portal (the reference service, a test) reads it at its first
TLS connection, which it usually never makes.
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
import threading
from collections.abc import Mapping
from typing import Any

import certifi

from reconciler.errors import UserError
from reconciler.settings import CA_BUNDLE

CA_VARIABLES = (CA_BUNDLE.name, "SSL_CERT_FILE")


def trust_store(env: Mapping[str, str], *, read_now: bool = True) -> ssl.SSLContext:
    """An SSL context for the named CA file, or the default store's when none is;
    `read_now`: read its certificates here, not at its first TLS connection.

    Each is made once a process while its file is unchanged: a fleet of 50 portals makes
    a client for each, and one context is made to be shared. A file replaced (a rotated
    CA, in a long-running agent) is read again."""
    for variable in CA_VARIABLES:
        path = (env.get(variable) or "").strip()
        if not path:
            continue
        try:
            store = _named_store(path, _version(path), variable)
        except OSError as exc:
            raise _unreadable(path, variable, exc) from None
        break
    else:
        # The process's own variables choose the default store, as httpx reads them.
        store = _default_store(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if read_now:
        store.read_certificates()
    return store


class _ReadOnFirstUse(ssl.SSLContext):
    """`ssl.create_default_context`'s context (certificates verified, host names checked)
    whose CA certificates are read at its first TLS connection, or `read_certificates`."""

    cafile: str | None
    capath: str | None
    variable: str  # what named the file, for its error ("" for the default store)

    def __new__(cls, *_args: Any, **_kwargs: Any) -> _ReadOnFirstUse:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self, cafile: str | None, capath: str | None, variable: str) -> None:
        self.verify_mode = ssl.CERT_REQUIRED
        self.check_hostname = True
        keylog = os.environ.get("SSLKEYLOGFILE")  # as create_default_context honours it
        if keylog and not sys.flags.ignore_environment:
            self.keylog_filename = keylog
        self.cafile, self.capath, self.variable = cafile, capath, variable
        self._lock = threading.Lock()
        self._read = False

    def read_certificates(self) -> None:
        with self._lock:
            if self._read:
                return
            try:
                self.load_verify_locations(self.cafile, self.capath)
            except (OSError, ssl.SSLError, ValueError) as exc:
                if not self.variable:
                    raise
                raise _unreadable(str(self.cafile), self.variable, exc) from None
            self._read = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.read_certificates()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.read_certificates()
        return super().wrap_bio(*args, **kwargs)


def _unreadable(path: str, variable: str, exc: BaseException) -> UserError:
    why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
    return UserError(f"{path}: cannot read the CA file named by {variable}: {why}")


def _version(path: str) -> tuple[int, int, int]:
    """What tells one content of the file at `path` from the next."""
    status = os.stat(path)
    return status.st_ino, status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=8)
def _named_store(path: str, version: tuple[int, int, int], variable: str) -> _ReadOnFirstUse:
    return _ReadOnFirstUse(path, None, variable)


@functools.cache
def _default_store(cert_file: str | None, cert_dir: str | None) -> _ReadOnFirstUse:
    """httpx's default store: the variables' file or folder when set, else certifi's."""
    if cert_file:
        return _ReadOnFirstUse(cert_file, None, "")
    if cert_dir:
        return _ReadOnFirstUse(None, cert_dir, "")
    return _ReadOnFirstUse(certifi.where(), None, "")
