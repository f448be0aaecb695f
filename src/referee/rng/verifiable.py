"""The verifiable ("provably fair") source: the scheme of CONTEXT.md, exactly.

1. The server seed is 32 random bytes written as 64 lowercase hex characters;
   its commitment is SHA-256 of that text (ASCII), in hex.
2. Each roll takes the next nonce, from 0.
3. Bytes: HMAC-SHA256(key = server seed hex text, msg = "<client seed>:<nonce>:<cursor>"),
   cursor 0, 1, 2, ... as more bytes are needed, read as 4-byte big-endian words.
4. A die of n sides takes the next word w; w >= 2**32 - (2**32 mod n) is rejected,
   else the face is (w mod n) + 1. Dice of one roll are drawn in stated order.

>>> seed = "00" * 32
>>> commitment(seed)[:16]
'60e05bd1b195af2f'
>>> verifiable_faces(seed, "table", 0, (20, 20, 6))
(6, 14, 6)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, Sequence

from referee.errors import VerificationError
from referee.rng.base import Throw, check_sides

_SEED = re.compile(r"[0-9a-f]{64}")
_WORD = 1 << 32


def new_server_seed() -> str:
    """Draw a fresh server seed: 32 bytes from the OS, as 64 lowercase hex characters."""
    return secrets.token_hex(32)


def check_server_seed(server_seed: str) -> str:
    """Return the seed if it is 64 lowercase hex characters, else raise VerificationError."""
    if not isinstance(server_seed, str) or not _SEED.fullmatch(server_seed):
        raise VerificationError(f"server seed {server_seed!r} is not 64 lowercase hex characters")
    return server_seed


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's hex text, in hex: published before the first roll."""
    return hashlib.sha256(check_server_seed(server_seed).encode("ascii")).hexdigest()


def _words(key: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    cursor = 0
    while True:
        block = hmac.digest(key, f"{client_seed}:{nonce}:{cursor}".encode(), "sha256")
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        cursor += 1


def _faces(key: bytes, client_seed: str, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:
    words = _words(key, client_seed, nonce)
    faces = []
    for n in sides:
        limit = _WORD - (_WORD % n)
        w = next(words)
        while w >= limit:
            w = next(words)
        faces.append(w % n + 1)
    return tuple(faces)


def verifiable_faces(
    server_seed: str, client_seed: str, nonce: int, sides: Sequence[int]
) -> tuple[int, ...]:
    """Recompute the faces of one roll from (server seed, client seed, nonce)."""
    check_server_seed(server_seed)
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise VerificationError(f"nonce must be a whole number >= 0, got {nonce!r}")
    return _faces(server_seed.encode("ascii"), client_seed, nonce, check_sides(sides))


class VerifiableRng:
    """Rolls that anyone can recompute once the server seed is revealed.

    >>> rng = VerifiableRng("00" * 32, "table")
    >>> rng.throw((20, 20, 6))
    Throw(sides=(20, 20, 6), faces=(6, 14, 6), nonce=0)
    >>> rng.nonce
    1
    """

    __slots__ = ("_key", "client_seed", "nonce", "server_seed")

    def __init__(self, server_seed: str, client_seed: str, nonce: int = 0) -> None:
        self.server_seed = check_server_seed(server_seed)
        self.client_seed = client_seed
        self.nonce = nonce
        self._key = server_seed.encode("ascii")

    @property
    def commitment(self) -> str:
        """The commitment to this source's server seed."""
        return commitment(self.server_seed)

    def throw(self, sides: Sequence[int]) -> Throw:
        sizes = check_sides(sides)
        nonce = self.nonce
        faces = _faces(self._key, self.client_seed, nonce, sizes)
        self.nonce = nonce + 1
        return Throw(sizes, faces, nonce)

    def __repr__(self) -> str:
        return f"VerifiableRng(commitment={self.commitment[:12]}..., nonce={self.nonce})"
