"""The verifiable ("provably fair") source: the scheme of CONTEXT.md, exactly.

1. The server seed is 32 random bytes written as 64 lowercase hex characters;
   its commitment is SHA-256 of that text (ASCII), in hex.
2. Each roll takes the next nonce, from 0: of the bout (scheme 1), or of its stream
   (scheme 2, `VerifiableStreams`: each owner's dice come from a stream of its own).
3. Bytes: HMAC-SHA256(key = server seed hex text, msg = "<client seed>:<nonce>:<cursor>"),
   in scheme 2 msg = "<client seed>:<stream>:<nonce>:<cursor>"; cursor 0, 1, 2, ... as more
   bytes are needed, read as 4-byte big-endian words.
4. A die of n sides takes the next word w; w >= 2**32 - (2**32 mod n) is rejected,
   else the face is (w mod n) + 1. Dice of one roll are drawn in stated order.

>>> seed = "00" * 32
>>> commitment(seed)[:16]
'60e05bd1b195af2f'
>>> verifiable_faces(seed, "table", 0, (20, 20, 6))
(6, 14, 6)
>>> verifiable_faces(seed, "table", 0, (20, 20, 6), stream="act:Tarl")
(19, 19, 6)
"""

from __future__ import annotations

import hashlib
import re
import secrets
import struct
from collections.abc import Callable, Sequence

from referee.errors import RuleError, VerificationError
from referee.rng.base import Throw, check_sides
from referee.rng.streams import check_stream

_SEED = re.compile(r"[0-9a-f]{64}")
_WORD = 1 << 32

#: Where server seeds come from: `entropy(n)` gives n fresh bytes. The service takes one as
#: an argument (randomness passed in); production always uses `SECURE_ENTROPY`, and nothing
#: outside the Python API (no flag, no setting, no request field) can choose another, since
#: a server seed known in advance would let its holder know every roll.
Entropy = Callable[[int], bytes]
#: The operating system's secure random source (`secrets.token_bytes`).
SECURE_ENTROPY: Entropy = secrets.token_bytes


def new_server_seed(entropy: Entropy = SECURE_ENTROPY) -> str:
    """Draw a fresh server seed: 32 bytes from `entropy` (the OS by default), as 64 lowercase
    hex characters.

    >>> new_server_seed(lambda n: bytes(n)) == "00" * 32
    True
    """
    return check_server_seed(entropy(32).hex())


def check_server_seed(server_seed: str) -> str:
    """Return the seed if it is 64 lowercase hex characters, else raise VerificationError."""
    if not isinstance(server_seed, str) or not _SEED.fullmatch(server_seed):
        raise VerificationError(f"server seed {server_seed!r} is not 64 lowercase hex characters")
    return server_seed


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's hex text, in hex: published before the first roll."""
    return hashlib.sha256(check_server_seed(server_seed).encode("ascii")).hexdigest()


#: Each byte XORed with HMAC's inner and outer pads, as `bytes.translate` tables.
_IPAD = bytes(b ^ 0x36 for b in range(256))
_OPAD = bytes(b ^ 0x5C for b in range(256))


class _Hmac:
    """HMAC-SHA256 under one key, with the key's inner and outer states computed once.

    Equal to `hmac.digest(key, msg, "sha256")`; copying the two prepared SHA-256 states
    per message halves the cost of a roll.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


_BLOCK = struct.Struct(">8I")
_FIRST = struct.Struct(">I")


def _faces(mac: _Hmac, client_seed: bytes, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:
    """The faces of one roll; `client_seed` as UTF-8 bytes."""
    words = _BLOCK.unpack(mac.digest(b"%s:%d:0" % (client_seed, nonce)))
    if len(sides) == 1:  # the commonest roll (MSV's d100): no loop bookkeeping
        n = sides[0]
        w = words[0]
        if w < _WORD - (_WORD % n):
            return (w % n + 1,)
    cursor, index = 0, 0
    faces = []
    for n in sides:
        limit = _WORD - (_WORD % n)
        while True:
            if index == 8:
                cursor += 1
                words = _BLOCK.unpack(mac.digest(b"%s:%d:%d" % (client_seed, nonce, cursor)))
                index = 0
            w = words[index]
            index += 1
            if w < limit:
                faces.append(w % n + 1)
                break
    return tuple(faces)


def verifiable_faces(
    server_seed: str,
    client_seed: str,
    nonce: int,
    sides: Sequence[int],
    stream: str | None = None,
) -> tuple[int, ...]:
    """Recompute the faces of one roll from (server seed, client seed, nonce), and in
    scheme 2 the roll's `stream`."""
    check_server_seed(server_seed)
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise VerificationError(f"nonce must be a whole number >= 0, got {nonce!r}")
    key = _Hmac(server_seed.encode("ascii"))
    return _faces(key, message_prefix(client_seed, stream), nonce, check_sides(sides))


def message_prefix(client_seed: str, stream: str | None = None) -> bytes:
    """What every HMAC message of a roll starts with, before `:<nonce>:<cursor>`: the client
    seed, and in scheme 2 `:` and the stream, as UTF-8.

    >>> message_prefix("table:tarl", "act:Tarl")
    b'table:tarl:act:Tarl'
    """
    text = client_seed if stream is None else f"{client_seed}:{stream}"
    return text.encode("utf-8")


class VerifiableRng:
    """Rolls that anyone can recompute once the server seed is revealed.

    >>> rng = VerifiableRng("00" * 32, "table")
    >>> rng.throw((20, 20, 6))
    Throw(sides=(20, 20, 6), faces=(6, 14, 6), nonce=0, stream=None)
    >>> rng.nonce
    1
    """

    __slots__ = ("_client", "_mac", "client_seed", "nonce", "server_seed", "stream")

    def __init__(
        self,
        server_seed: str,
        client_seed: str,
        nonce: int = 0,
        stream: str | None = None,
        *,
        mac: _Hmac | None = None,
    ) -> None:
        """`stream` names the scheme-2 stream these rolls are drawn from (None: scheme 1);
        `mac` is the server seed's prepared HMAC, when the caller has it already."""
        self.server_seed = check_server_seed(server_seed)
        self.client_seed = client_seed
        self.nonce = nonce
        self.stream = None if stream is None else check_stream(stream)
        self._mac = mac or _Hmac(server_seed.encode("ascii"))
        self._client = message_prefix(client_seed, stream)

    @property
    def commitment(self) -> str:
        """The commitment to this source's server seed."""
        return commitment(self.server_seed)

    def throw(self, sides: Sequence[int]) -> Throw:
        if type(sides) is tuple and len(sides) == 1:  # one die: step 4 on the first word
            n = sides[0]
            if type(n) is int and n >= 1:
                nonce = self.nonce
                mac = self._mac
                inner = mac._inner.copy()
                inner.update(b"%s:%d:0" % (self._client, nonce))
                outer = mac._outer.copy()
                outer.update(inner.digest())
                w = _FIRST.unpack_from(outer.digest())[0]
                if w < _WORD - (_WORD % n):
                    self.nonce = nonce + 1
                    return Throw(sides, (w % n + 1,), nonce, self.stream)
                # a rejected first word: the general way reads on
        sizes = check_sides(sides)
        nonce = self.nonce
        faces = _faces(self._mac, self._client, nonce, sizes)
        self.nonce = nonce + 1
        return Throw(sizes, faces, nonce, self.stream)

    def __repr__(self) -> str:
        stream = "" if self.stream is None else f", stream={self.stream!r}"
        return f"VerifiableRng(commitment={self.commitment[:12]}..., nonce={self.nonce}{stream})"


class VerifiableStreams:
    """Scheme 2: every owner's dice from a stream of its own, each with its own nonces.

    `nonces(name)` says where stream `name` stands (its next nonce under this seed); a stream
    is set up the first time it is asked for. Every throw of every stream is kept in
    `throws`, in order. A throw that names no stream is refused: in a bout with streams every
    roll is somebody's (`referee.rng.streams` names them).

    >>> dice = VerifiableStreams("00" * 32, "table", lambda name: 0)
    >>> dice.stream("act:Tarl").throw((20, 20, 6))
    Throw(sides=(20, 20, 6), faces=(19, 19, 6), nonce=0, stream='act:Tarl')
    >>> dice.stream("act:Tarl").throw((100,)).nonce, dice.stream("free:Tarl").throw((100,)).nonce
    (1, 0)
    """

    __slots__ = ("_mac", "_nonces", "_streams", "client_seed", "server_seed", "throws")

    def __init__(self, server_seed: str, client_seed: str, nonces: Callable[[str], int]) -> None:
        self.server_seed = check_server_seed(server_seed)
        self.client_seed = client_seed
        self._mac = _Hmac(server_seed.encode("ascii"))
        self._nonces = nonces
        self._streams: dict[str, _Stream] = {}
        self.throws: list[Throw] = []

    def stream(self, name: str) -> _Stream:
        """The dice of stream `name`, at its next nonce."""
        found = self._streams.get(name)
        if found is None:
            start = self._nonces(check_stream(name))
            found = self._streams[name] = _Stream(self, name, start)
        return found

    def throw(self, sides: Sequence[int]) -> Throw:
        raise RuleError("a roll in a bout with dice streams must say whose stream it draws from")

    @property
    def thrown(self) -> bool:
        """Whether any die has been thrown."""
        return bool(self.throws)

    def __repr__(self) -> str:
        return f"VerifiableStreams(commitment={commitment(self.server_seed)[:12]}...)"


class _Stream(VerifiableRng):
    """One stream of a `VerifiableStreams`, which keeps its throws."""

    __slots__ = ("kept",)
    kept: list[Throw]

    def __init__(self, streams: VerifiableStreams, name: str, nonce: int) -> None:
        """Stream `name` (checked) of `streams`, at `nonce`: it shares their server seed, checked
        once, and its prepared HMAC key, where `VerifiableRng(...)` would check and prepare them
        again for every stream (a service's write makes one `VerifiableStreams` and a stream)."""
        self.server_seed = streams.server_seed
        self.client_seed = streams.client_seed
        self.nonce = nonce
        self.stream = name
        self._mac = streams._mac
        self._client = message_prefix(streams.client_seed, name)
        self.kept = streams.throws

    def throw(self, sides: Sequence[int]) -> Throw:
        done = VerifiableRng.throw(self, sides)
        self.kept.append(done)
        return done
