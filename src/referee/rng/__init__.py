"""Randomness sources: one small protocol passed to everything that rolls.

>>> rng = ScriptedRng([14, 3, 5])
>>> rng.throw((20, 20, 6)).faces
(14, 3, 5)
>>> SeededRng(7).throw((100,)) == SeededRng(7).throw((100,))
True
"""

from referee.rng.base import RecordingRng, Rng, Throw, die, die_name
from referee.rng.sources import ScriptedRng, SeededRng, SystemRng
from referee.rng.verifiable import (
    SECURE_ENTROPY,
    Entropy,
    VerifiableRng,
    check_server_seed,
    commitment,
    new_server_seed,
    verifiable_faces,
)

__all__ = [
    "SECURE_ENTROPY",
    "Entropy",
    "RecordingRng",
    "Rng",
    "ScriptedRng",
    "SeededRng",
    "SystemRng",
    "Throw",
    "VerifiableRng",
    "check_server_seed",
    "commitment",
    "die",
    "die_name",
    "new_server_seed",
    "verifiable_faces",
]
