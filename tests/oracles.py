"""Independent oracles the tests compare the fast code against."""

from __future__ import annotations

import hashlib
import hmac


def reference_faces(server_seed: str, client_seed: str, nonce: int, sides: list[int]) -> list[int]:
    """CONTEXT.md's verifiable-roll scheme written out a second time from the standard library:
    HMAC-SHA256 blocks, 4-byte big-endian words, rejection sampling, face = w mod n + 1."""
    words: list[int] = []
    cursor = 0
    faces = []
    for n in sides:
        while True:
            if not words:
                msg = f"{client_seed}:{nonce}:{cursor}".encode()
                block = hmac.new(server_seed.encode("ascii"), msg, hashlib.sha256).digest()
                words = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
                cursor += 1
            w = words.pop(0)
            if w < 2**32 - (2**32 % n):
                faces.append(w % n + 1)
                break
    return faces
