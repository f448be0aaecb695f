"""Roll lines that prove themselves: the service's Ed25519 signature on a roll's receipt.

The service holds one Ed25519 key (made at its first start, kept in its database). Every roll
receipt it says (an HTTP answer, a chat line, the Discord bot's, the Second Life HUD's) can
carry `sig:KEYID.BOUTTAG.SIGNATURE` after it (`referee.aol.SIGNATURE`, the text): the
signature of the canonical JSON (`referee.ledger.canonical`) of

    {"bout": BOUTTAG, "dice": ["d100"], "faces": [47], "nonce": 3, "roller": "Tarl",
     "signed": "referee roll receipt 1", "stream": "act:Tarl"}

`bout` is the bout's tag (`bout_tag`: its id's SHA-256, 16 base64url characters: a line says
its bout without saying the id, which is the invite while fighters may join), `stream` the
stream the receipt stands for (the one it names, else the roller's actions'), `signed` the
purpose, so no other message of the key's can be taken for a roll. So a line's faces, nonce,
stream, roller and bout are what the service rolled, whoever pastes the line; a genuine line
from another bout carries that bout's tag, and one pasted again repeats its nonce.

`cryptography` (a well-kept binding of OpenSSL) is imported only when a key is made, used or
read: reading a log that holds no signed line loads none of it.

>>> key = PrivateKey.from_text("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
>>> key.public.text, key.public.key_id
('A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg', '56475aa7')
>>> token = key.sign_roll("b1", "Tarl", {"dice": ["d100"], "faces": [47], "nonce": 3,
...                                      "stream": "act:Tarl"})
>>> token[:30]
'sig:56475aa7.SwCFNzvzuSKhoPDw.'
>>> check_line("OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3) " + token, key.public)
... # doctest: +NORMALIZE_WHITESPACE
Check(genuine=True, reason='signed by key 56475aa7 for bout SwCFNzvzuSKhoPDw',
      tag='SwCFNzvzuSKhoPDw')
>>> check_line("OnlineHost: Tarl rolled 1 100-sided die: 48 (nonce 3) " + token,
...            key.public).reason
'its signature does not verify: the line was changed after it was signed'
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.dice.chat import MIXED_LINE, SIGNATURE, parse_host_line, receipt_stream
from referee.errors import NotationError, RefereeError
from referee.ledger.canonical import canonical_json
from referee.payloads.events import Roll

#: The algorithm of the service's key, as published.
ALGORITHM = "Ed25519"
#: What a signature is for: part of every signed message.
PURPOSE = "referee roll receipt 1"
#: Where the service publishes its key (docs/api.md).
KEY_URL = "/api/signing-key"
#: The export's field with the key (docs/ledger.md, "Export").
EXPORT_FIELD = "signing_key"

_TOKEN = re.compile(
    r"sig:(?P<kid>[0-9a-f]{8})\.(?P<tag>[A-Za-z0-9_-]{16})\.(?P<sig>[A-Za-z0-9_-]{86})",
    re.ASCII,
)
_FIND = re.compile(SIGNATURE, re.ASCII)
_HOST_NAME = "OnlineHost: "
_B64_KEY = re.compile(r"(?:ed25519:)?(?P<key>[A-Za-z0-9_-]{43})=?", re.ASCII)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@functools.lru_cache(maxsize=1024)
def bout_tag(bout_id: str) -> str:
    """A bout's tag in its signed lines: SHA-256 of `referee bout ` and its id, 16 base64url
    characters (96 bits). Remembered for the last bouts asked of: every roll a bout's answers
    sign carries it.

    >>> bout_tag("b1")
    'SwCFNzvzuSKhoPDw'
    """
    return _b64(hashlib.sha256(f"referee bout {bout_id}".encode()).digest()[:12])


def roll_message(
    tag: str,
    roller: str,
    dice: Sequence[str],
    faces: Sequence[int],
    nonce: int,
    stream: str | None,
) -> bytes:
    """The bytes a roll's signature signs (see the module text).

    >>> roll_message("SwCFNzvzuSKhoPDw", "Tarl", ["d100"], [47], 3, None).decode()
    '{"bout":"SwCFNzvzuSKhoPDw","dice":["d100"],"faces":[47],"nonce":3,"roller":"Tarl",\
"signed":"referee roll receipt 1","stream":"act:Tarl"}'
    """
    return canonical_json(
        {
            "bout": tag,
            "dice": [str(d) for d in dice],
            "faces": [int(f) for f in faces],
            "nonce": int(nonce),
            "roller": roller,
            "signed": PURPOSE,
            "stream": receipt_stream(roller, stream),
        }
    )


@dataclass(frozen=True, slots=True)
class PublicKey:
    """The service's public key: its 32 bytes (`text`: base64url), its `key_id` (the first 8
    hex digits of its `fingerprint`, the SHA-256 of the 32 bytes)."""

    raw: bytes

    @property
    def text(self) -> str:
        """The key as published: its 32 bytes in base64url (43 characters)."""
        return _b64(self.raw)

    @property
    def fingerprint(self) -> str:
        """`SHA256:` and the hex SHA-256 of the key's 32 bytes."""
        return "SHA256:" + hashlib.sha256(self.raw).hexdigest()

    @property
    def key_id(self) -> str:
        """The key's id in a signed line: the fingerprint's first 8 hex digits."""
        return hashlib.sha256(self.raw).hexdigest()[:8]

    @property
    def pem(self) -> str:
        """The key as PEM (SubjectPublicKeyInfo), for tools that read that."""
        from cryptography.hazmat.primitives import serialization

        key = self._key()
        pem: bytes = key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return pem.decode("ascii")

    def published(self) -> dict[str, str]:
        """The key as the service publishes it (`KEY_URL`) and every export holds it."""
        return {
            "algorithm": ALGORITHM,
            "public_key": self.text,
            "key_id": self.key_id,
            "fingerprint": self.fingerprint,
        }

    def verifies(self, message: bytes, signature: bytes) -> bool:
        """Whether `signature` is this key's of `message`."""
        from cryptography.exceptions import InvalidSignature

        try:
            self._key().verify(signature, message)
        except InvalidSignature:
            return False
        return True

    def _key(self) -> Any:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(self.raw)


class PrivateKey:
    """The service's signing key. Its text (`secret_text`) is for the store alone: no answer,
    log, export or chat line says it, and its `repr` does not either."""

    __slots__ = ("_key", "_key_id", "public")

    def __init__(self, key: Any) -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = key
        raw = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = PublicKey(raw)
        #: The public key's id, said in every signed line (`sign_roll`): worked out once.
        self._key_id = self.public.key_id

    @classmethod
    def generate(cls) -> PrivateKey:
        """A new key from the operating system's secure source."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_text(cls, text: str) -> PrivateKey:
        """The key its `secret_text` (32 bytes, base64url) stands for."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(_unb64(text)))

    @property
    def secret_text(self) -> str:
        """The private key's 32 bytes in base64url: what the store keeps."""
        from cryptography.hazmat.primitives import serialization

        raw = self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return _b64(raw)

    def sign_roll(self, bout_id: str, roller: str, payload: Mapping[str, Any]) -> str:
        """The signature of one roll (a `roll` event's payload, as `roller` is shown rolling
        it), as its line carries it: `sig:KEYID.BOUTTAG.SIGNATURE`."""
        tag = bout_tag(bout_id)
        roll = Roll.given(payload)
        message = roll_message(
            tag, roller, roll.dice or (), roll.faces or (), int(roll.nonce), roll.stream
        )
        return f"sig:{self._key_id}.{tag}.{_b64(self._key.sign(message))}"

    def __repr__(self) -> str:
        return f"PrivateKey(key id {self.public.key_id})"


@dataclass(frozen=True, slots=True)
class Token:
    """A signature as a line carries it: the key id, the bout's tag, the 64 bytes."""

    key_id: str
    tag: str
    signature: bytes

    @classmethod
    def read(cls, text: str) -> Token:
        """A `sig:KEYID.BOUTTAG.SIGNATURE` read (NotationError when it is not one)."""
        match = _TOKEN.fullmatch(text.strip("`"))
        if match is None:
            raise NotationError(f"{text[:40]!r} is not a signature (sig:KEYID.BOUTTAG.SIGNATURE)")
        try:
            raw = _unb64(match["sig"])
        except (binascii.Error, ValueError):
            raise NotationError(f"{text[:40]!r} is not a signature (bad base64url)") from None
        return cls(match["kid"], match["tag"], raw)


@dataclass(frozen=True, slots=True)
class Said:
    """What a signed line says: who rolled which dice, the faces, the receipt, the token."""

    roller: str
    dice: tuple[str, ...]
    faces: tuple[int, ...]
    nonce: int | None
    stream: str | None
    token: Token | None


def read_line(text: str) -> Said:
    """A roll line of the service's (the host line, or a roll of mixed dice), with its
    signature when it has one; NotationError when it is neither.

    A line as a log shows it is read too: what comes before `OnlineHost: ` (a time stamp, a
    speaker) is left out, and a host line without the host's name (a Discord copy shows it
    above the message) is read as the host's.

    >>> read_line("OnlineHost: Tarl rolled 2 20-sided dice: 14 17 (nonce 1)").dice
    ('d20', 'd20')
    >>> read_line("[21:03]  Bosk: OnlineHost: Tarl rolled 1 100-sided die: 7 (nonce 1)").faces
    (7,)
    """
    line = text.strip()
    mixed = MIXED_LINE.fullmatch(line)
    at = line.find(_HOST_NAME)
    if mixed is None and at > 0:
        line = line[at:]
    elif mixed is None and at < 0:
        line = _HOST_NAME + line
    if mixed is not None:
        faces = tuple(int(f) for f in mixed["faces"].split())
        dice = tuple(mixed["dice"].split())
        token = Token.read(mixed["signature"]) if mixed["signature"] else None
        return Said(mixed["name"], dice, faces, int(mixed["nonce"]), mixed["stream"], token)
    try:
        host = parse_host_line(line)
    except RefereeError as err:
        raise NotationError(f"not a roll line of the service's: {err.public}") from None
    token = Token.read(host.signature) if host.signature else None
    dice = (f"d{host.sides}",) * host.count
    return Said(host.name, dice, host.faces, host.nonce, host.stream, token)


def find_token(text: str) -> Token | None:
    """The signature somewhere in a text (None: it has none; a broken one is none)."""
    found = _FIND.search(text)
    if found is None:
        return None
    try:
        return Token.read(found.group())
    except NotationError:
        return None


@dataclass(frozen=True, slots=True)
class Check:
    """Whether a signed line is genuine, why (or why not), and the bout tag it carries."""

    genuine: bool
    reason: str
    tag: str | None = None


def check_said(said: Said, key: PublicKey, bout: str | None = None) -> Check:
    """Whether a line's signature is `key`'s for what it says (and, `bout` given: an id or a
    tag, for that bout)."""
    token = said.token
    if token is None:
        return Check(False, "it carries no signature")
    if said.nonce is None:
        return Check(False, "a signature without a receipt (nonce)", token.tag)
    if token.key_id != key.key_id:
        return Check(
            False, f"signed by another key (key {token.key_id}; this host's is {key.key_id})",
            token.tag,
        )  # fmt: skip
    message = roll_message(token.tag, said.roller, said.dice, said.faces, said.nonce, said.stream)
    if not key.verifies(message, token.signature):
        return Check(
            False, "its signature does not verify: the line was changed after it was signed",
            token.tag,
        )  # fmt: skip
    if bout is not None:
        wanted = bout if _is_tag(bout) else bout_tag(bout)
        if token.tag != wanted:
            return Check(
                False, f"a genuine line of another bout (tag {token.tag}; the bout's is {wanted})",
                token.tag,
            )  # fmt: skip
    return Check(True, f"signed by key {key.key_id} for bout {token.tag}", token.tag)


def check_line(text: str, key: PublicKey, bout: str | None = None) -> Check:
    """`check_said` of a line's text (NotationError when it is no roll line of the service's)."""
    return check_said(read_line(text), key, bout)


def _is_tag(text: str) -> bool:
    return len(text) == 16 and re.fullmatch(r"[A-Za-z0-9_-]{16}", text) is not None


def read_key(text: str) -> PublicKey:
    """A public key from what people hand over: its base64url text (`ed25519:` before it or
    not), PEM, the service's key document (`KEY_URL`) or an export holding it
    (`EXPORT_FIELD`). NotationError, in one line, when it is none of those.

    >>> read_key("A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg").key_id
    '56475aa7'
    >>> doc = {"signing_key": {"public_key": "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"}}
    >>> read_key(json.dumps(doc)).key_id
    '56475aa7'
    """
    given = text.strip()
    if given.startswith("{"):
        return _key_of_json(given)
    if "BEGIN PUBLIC KEY" in given:
        return _key_of_pem(given)
    match = _B64_KEY.fullmatch(given)
    if match is None:
        raise NotationError(
            "not a public key: expected its 43 base64url characters, PEM, the service's "
            f"{KEY_URL} answer or an export"
        )
    return PublicKey(_unb64(match["key"]))


def _key_of_json(text: str) -> PublicKey:
    try:
        doc = json.loads(text)
    except ValueError:
        raise NotationError("the key is not readable JSON") from None
    found = doc.get(EXPORT_FIELD, doc) if isinstance(doc, dict) else None
    public = found.get("public_key") if isinstance(found, dict) else None
    if not isinstance(public, str):
        raise NotationError(
            f"the JSON holds no public key (an export's {EXPORT_FIELD!r} or {KEY_URL}'s "
            "'public_key'); an export made before signed lines has none"
        )
    return read_key(public)


def _key_of_pem(text: str) -> PublicKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(text.encode("ascii", "replace"))
    except ValueError:
        raise NotationError("the PEM text is not a public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise NotationError("the PEM key is not an Ed25519 key")
    return PublicKey(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
