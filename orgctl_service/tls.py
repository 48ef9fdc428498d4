"""Certificates for `orgctl serve --tls`: one made on the spot for localhost, or the
user's own pair.

The made certificate comes from a private certificate authority created for this run
(trustme, on the cryptography library); clients trust the service by trusting that
authority's file, exactly as they would trust a portal behind a company CA.
"""

from __future__ import annotations

import shutil
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import UserError

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True, slots=True)
class TlsFiles:
    cert: Path
    key: Path
    ca: Path | None = None  # the authority to trust, when the certificate was made here
    # The temporary folder made to hold them: removed when the service stops, for it
    # holds a private key.
    temporary: Path | None = None

    def remove_temporary(self) -> None:
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)


def make_local_certificate(folder: Path | None = None) -> TlsFiles:
    """A fresh CA and a certificate it signs for localhost, 127.0.0.1 and ::1."""
    import trustme

    made = None if folder else Path(tempfile.mkdtemp(prefix="orgctl-tls-"))
    where = folder or made
    assert where is not None
    authority = trustme.CA(organization_name="orgctl serve")
    issued = authority.issue_cert(*LOCAL_NAMES)
    files = TlsFiles(where / "server.pem", where / "server.key", where / "ca.pem", made)
    issued.cert_chain_pems[0].write_to_path(str(files.cert))
    for extra in issued.cert_chain_pems[1:]:
        extra.write_to_path(str(files.cert), append=True)
    issued.private_key_pem.write_to_path(str(files.key))
    files.key.chmod(0o600)
    authority.cert_pem.write_to_path(str(files.ca))
    return files


def user_certificate(cert: Path, key: Path) -> TlsFiles:
    """The user's pair, checked now so that a bad file is one line naming it."""
    for what, path in (("certificate", cert), ("key", key)):
        try:
            path.read_bytes()
        except OSError as exc:
            raise UserError(f"{path}: cannot read the TLS {what}: {exc.strerror or exc}") from None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(str(cert), str(key))
    except ssl.SSLError as exc:
        raise UserError(
            f"{cert}: not a usable TLS certificate and key pair with {key} ({exc.reason or exc})"
        ) from None
    return TlsFiles(cert, key)
