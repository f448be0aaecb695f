"""Randomness sources: one small protocol passed to everything that rolls.

>>> rng = ScriptedRng([14, 3, 5])
>>> rng.throw((20, 20, 6)).faces
(14, 3, 5)
>>> SeededRng(7).throw((100,)) == SeededRng(7).throw((100,))
True
"""

from referee.rng.base import RecordingRng, Rng, Throw, die, die_name, fighter_dice, stream_of
from referee.rng.sources import ScriptedRng, ScriptedStreams, SeededRng, SystemRng
from referee.rng.streams import action_stream, free_stream
from referee.rng.verifiable import (
    SECURE_ENTROPY,
    Entropy,
    VerifiableRng,
    VerifiableStreams,
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
    "ScriptedStreams",
    "SeededRng",
    "SystemRng",
    "Throw",
    "VerifiableRng",
    "VerifiableStreams",
    "action_stream",
    "check_server_seed",
    "commitment",
    "die",
    "die_name",
    "fighter_dice",
    "free_stream",
    "new_server_seed",
    "stream_of",
    "verifiable_faces",
]
