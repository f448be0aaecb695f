"""The ledger: canonical JSON, the hash chain of a bout's events, export and verification.

Pure functions and frozen records only; no I/O.

>>> e0 = chain(None, "note", "ref", {"text": "hi"}, "2026-11-29T22:40:12.000000Z")
>>> verify_chain([e0])
[]

A bout's export is checked with `verify_export` (its header, its close, the rules too); a bare
chain of any events with `verify_ledger`.
"""

from referee.ledger.canonical import (
    GENESIS,
    canonical_json,
    check_json,
    event_hash,
    is_hex64,
    is_utc_time,
    utc_time,
)
from referee.ledger.chain import EVENT_KEYS, Event, chain, check_event, link, verify_chain
from referee.ledger.export import (
    CLOSED,
    LEDGER_FORMATS,
    OPENED,
    ROLL,
    SEED_ROTATED,
    WHOLE_RECORD,
    SeedPosition,
    SeedRecord,
    advance,
    build_export,
    client_seed_part_of,
    dice_scheme,
    ledger_format,
    parse_export,
    roll_payload,
    rotation_payload,
    seed_position,
    stream_nonce,
)
from referee.ledger.header import HEADER_FIELDS
from referee.ledger.rulings import Ruling, rulings
from referee.ledger.verify import (
    Checker,
    Report,
    check_roll,
    verify_export,
    verify_ledger,
)
from referee.vocabulary import Problem

__all__ = [
    "CLOSED",
    "EVENT_KEYS",
    "GENESIS",
    "HEADER_FIELDS",
    "LEDGER_FORMATS",
    "OPENED",
    "ROLL",
    "SEED_ROTATED",
    "WHOLE_RECORD",
    "Checker",
    "Event",
    "Problem",
    "Report",
    "Ruling",
    "SeedPosition",
    "SeedRecord",
    "advance",
    "build_export",
    "canonical_json",
    "chain",
    "check_event",
    "check_json",
    "check_roll",
    "client_seed_part_of",
    "dice_scheme",
    "event_hash",
    "is_hex64",
    "is_utc_time",
    "ledger_format",
    "link",
    "parse_export",
    "roll_payload",
    "rotation_payload",
    "rulings",
    "seed_position",
    "stream_nonce",
    "utc_time",
    "verify_chain",
    "verify_export",
    "verify_ledger",
]
