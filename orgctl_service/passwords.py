"""Password hashes: salted scrypt from the standard library, its cost stored beside the
hash so it can be raised later without losing anyone.

A stored hash reads `scrypt$<n>$<r>$<p>$<salt hex>$<key hex>`. Sixty-four hex digits
alone are the unsalted SHA-256 an older service stored: they still verify, and the
member's next successful sign-in replaces them (as it replaces any hash cheaper than
`SIGN_IN`).

Costs, measured on one core of the test machine:
- `SIGN_IN` (n=2^14, r=8, p=1: 16 MiB, about 50 ms) is the scrypt paper's figure for
  interactive sign-ins. Every sign-in pays it once; a wrong password always pays it.
- `SEED` (n=2^10: 1 MiB, about 3 ms) is for members seeded from a state file, which
  holds their passwords in clear text beside the database anyway: seeding the 21 members
  of the test world at `SIGN_IN` cost would add a second to every service the suite
  starts. Equal passwords of one seeding share one hash (`seed_hash` remembers them
  until `forget_seeded`), so 10,000 seeded members with one password cost one hash. The
  member's first sign-in raises the hash to `SIGN_IN` with a salt of its own.
- The first sign-in's new hash is made by `Service.raise_hash` after the answer is
  ready, in a worker thread (scrypt releases the GIL) and outside the service's lock:
  made in line, the 50 ms stopped every other request, and a fleet's first drift of 50
  portals stood 2.5 s in line behind them.
- `Remembered` spares a member who signs in again (every orgctl run does) the 50 ms: it
  keeps, in memory only, an HMAC of the last right password under a key made at start.
  A wrong password never matches it and pays the full cost; the database holds only the
  scrypt hashes. This held the test suite's added time to a few seconds.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

SALT_BYTES = 16
KEY_BYTES = 32
_LEGACY_HEX_DIGITS = 64
MAX_MEMORY = 256 * 2**20  # the most a stored cost may ask of scrypt (2^14, r=8 asks 16 MiB)


@dataclass(frozen=True, slots=True)
class Cost:
    n: int
    r: int
    p: int

    def below(self, other: Cost) -> bool:
        return (self.n, self.r, self.p) < (other.n, other.r, other.p)


SIGN_IN = Cost(n=2**14, r=8, p=1)
SEED = Cost(n=2**10, r=8, p=1)


def hash_password(password: str, cost: Cost = SIGN_IN) -> str:
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password, salt, cost)
    return f"scrypt${cost.n}${cost.r}${cost.p}${salt.hex()}${key.hex()}"


def verify(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` was made from; compared in constant time."""
    if _is_legacy(stored):
        legacy = hashlib.sha256(password.encode("utf-8")).hexdigest()
        return hmac.compare_digest(legacy, stored.lower())
    parsed = _parse(stored)
    if parsed is None:
        return False
    cost, salt, key = parsed
    return hmac.compare_digest(_scrypt(password, salt, cost), key)


def needs_rehash(stored: str) -> bool:
    """Unsalted, unreadable, or cheaper than a sign-in's cost: replace at the next sign-in."""
    parsed = None if _is_legacy(stored) else _parse(stored)
    return parsed is None or parsed[0].below(SIGN_IN)


@dataclass(frozen=True, slots=True)
class Rehash:
    """A member's password to store at `SIGN_IN` cost, in place of the hash it replaces
    (kept only if that is still the member's hash once the new one is made)."""

    portal_id: str
    username: str
    password: str
    replaces: str


@dataclass
class Remembered:
    """The last password each member signed in with, as an HMAC under a per-process key,
    valid while their stored hash is unchanged."""

    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    entries: dict[tuple[str, str], tuple[str, bytes]] = field(default_factory=dict)
    max_entries: int = 10_000

    def matches(self, who: tuple[str, str], stored: str, password: str) -> bool:
        entry = self.entries.get(who)
        return (
            entry is not None
            and entry[0] == stored
            and hmac.compare_digest(entry[1], self._mac(password))
        )

    def keep(self, who: tuple[str, str], stored: str, password: str) -> None:
        self.entries.pop(who, None)
        self.entries[who] = (stored, self._mac(password))
        while len(self.entries) > self.max_entries:
            del self.entries[next(iter(self.entries))]

    def _mac(self, password: str) -> bytes:
        return hmac.new(self.key, password.encode("utf-8"), hashlib.sha256).digest()


@functools.cache
def unknown_member_hash() -> str:
    """What a sign-in as a member who does not exist is checked against, so that it takes
    as long as a wrong password and the time does not tell which names exist."""
    return hash_password(secrets.token_urlsafe(16))


@functools.lru_cache(maxsize=4096)
def seed_hash(password: str) -> str:
    return hash_password(password, SEED)


def forget_seeded() -> None:
    """Drop the passwords `seed_hash` remembers once a seeding is done."""
    seed_hash.cache_clear()


def _scrypt(password: str, salt: bytes, cost: Cost) -> bytes:
    memory = 128 * cost.r * (cost.n + cost.p + 2)  # what scrypt needs, plus headroom below
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=cost.n,
        r=cost.r,
        p=cost.p,
        maxmem=memory + 1024 * 1024,
        dklen=KEY_BYTES,
    )


def _is_legacy(stored: str) -> bool:
    return len(stored) == _LEGACY_HEX_DIGITS and all(c in "0123456789abcdefABCDEF" for c in stored)


def _parse(stored: str) -> tuple[Cost, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return None
    try:
        cost = Cost(int(parts[1]), int(parts[2]), int(parts[3]))
        salt, key = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return None
    # A hash this service could not have written (n not a power of two, absurd costs) is
    # unreadable rather than a way to make a sign-in take minutes.
    valid_n = cost.n >= 2 and cost.n & (cost.n - 1) == 0
    valid_r_p = 1 <= cost.r <= 32 and 1 <= cost.p <= 16
    if not (valid_n and valid_r_p and 128 * cost.r * cost.n <= MAX_MEMORY and salt and key):
        return None
    return cost, salt, key
