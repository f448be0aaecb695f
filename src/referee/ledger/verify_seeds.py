"""The verifier's seed checks: every seed the export names, its commitment, and the events that
reveal seeds (rotations, the close), each against the others."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.ledger.canonical import is_hex64, same_json
from referee.ledger.export import CLOSED, SEED_ROTATED
from referee.ledger.printable import shown
from referee.ledger.verify_checks import fairness_problem
from referee.payloads.events import (
    Closed,
    SeedRotated,
)
from referee.payloads.fields import Given
from referee.rng import commitment
from referee.vocabulary import Problem


@dataclass(frozen=True, slots=True)
class Seed:
    """One seed as verification sees it: committed to, maybe revealed, where it shows."""

    commitment: Any
    server_seed: Any
    seq: int | None


def check_seeds(
    fairness: dict[str, Any], events: list[Any], partial: bool = False
) -> tuple[list[Seed], dict[int, str], list[Problem]]:
    """Every seed the export names, checked against the events that reveal seeds.

    Returns the seeds, the revealed seed of each index that has one, and the problems.
    """
    listed = [Seed(fairness.get("commitment"), fairness.get("server_seed"), None)]
    rotations = fairness.get("rotations", [])
    if not isinstance(rotations, list) or not all(isinstance(r, dict) for r in rotations):
        return listed, {}, [fairness_problem("rotations is not a list of objects", "format")]
    listed += [Seed(r.get("commitment"), r.get("server_seed"), r.get("seq")) for r in rotations]
    problems: list[Problem] = [
        fairness_problem(
            f"fairness.rotations[{k}] has index {shown(r.get('index'))} (expected {k + 1})",
            "commitment",
        )
        for k, r in enumerate(rotations)
        if not same_json(r.get("index"), k + 1)
    ]
    reveals = _reveals(events, listed, problems)
    for index, seed in enumerate(listed):
        if index in reveals:
            continue
        if partial and seed.server_seed is None:  # not revealed yet: its rolls go unchecked
            problems += _commitment_shape(seed)
        else:
            problems += _check_listed_seed(index, seed)
    known = {i: s.server_seed for i, s in enumerate(listed) if is_hex64(s.server_seed)}
    return listed, known | reveals, problems


def _reveals(events: list[Any], listed: list[Seed], problems: list[Problem]) -> dict[int, str]:
    """Walk the `seed_rotated` events: each reveals seed k-1 and publishes seed k."""
    reveals: dict[int, str] = {}
    index = 0
    for event in events:
        if not isinstance(event, dict) or event.get("type") not in (SEED_ROTATED, CLOSED):
            continue
        seq = event.get("seq")
        if event["type"] == CLOSED:
            _closing_reveal(
                Closed.given(event.get("payload")), index, listed, reveals, problems, seq
            )
            continue
        rotation = SeedRotated.given(event.get("payload"))
        message = _rotation_message(rotation, index, listed, seq)
        if message is not None:
            problems.append(Problem(seq, SEED_ROTATED, message, "commitment"))
        if is_hex64(rotation.server_seed):
            reveals[index] = rotation.server_seed
        index += 1
    if index + 1 != len(listed):
        problems.append(
            fairness_problem(
                f"the events rotate the seed {index} times but fairness lists {len(listed)} seeds",
                "commitment",
            )
        )
    return reveals


def _closing_reveal(
    close: Given[Closed],
    index: int,
    listed: list[Seed],
    reveals: dict[int, str],
    problems: list[Problem],
    seq: Any,
) -> None:
    """A `closed` event may reveal the current seed in its payload's `server_seed`, and
    restate the commitment in force (`commitment`), which must then be that seed's."""
    stated = close.commitment
    in_force = listed[index].commitment if index < len(listed) else None
    if close.has("commitment") and index < len(listed) and not same_json(stated, in_force):
        message = (
            f"the close's commitment {shown(stated)} is not the commitment of seed {index}, "
            f"{shown(in_force)}"
        )
        problems.append(Problem(seq, CLOSED, message, "commitment"))
    revealed = close.server_seed
    if revealed is None:
        return
    if not is_hex64(revealed):
        message = f"revealed server seed {shown(revealed)} is not 64 lowercase hex characters"
    elif index < len(listed) and commitment(revealed) != listed[index].commitment:
        message = (
            f"revealed seed {index} does not match its commitment {shown(listed[index].commitment)}"
        )
    elif index < len(listed) and listed[index].server_seed != revealed:
        message = _listed_message(index, listed[index])
    else:
        reveals[index] = revealed
        return
    problems.append(Problem(seq, CLOSED, message, "commitment"))


def _listed_message(index: int, seed: Seed) -> str:
    """What is wrong with the export's listing of a seed its chain reveals (it must give it)."""
    if seed.server_seed is None:
        where = "fairness.server_seed" if index == 0 else f"fairness.rotations[{index - 1}]"
        return f"{where} gives no server seed {index}, but this event reveals it"
    return f"the export's server seed {index} differs from the one revealed here"


def _rotation_message(
    rotation: Given[SeedRotated], index: int, listed: list[Seed], seq: Any
) -> str | None:
    revealed, following = rotation.server_seed, rotation.next_commitment
    if not same_json(rotation.index, index + 1):
        return f"index {shown(rotation.index)} (expected {index + 1})"
    if not is_hex64(revealed):
        return f"revealed server seed {shown(revealed)} is not 64 lowercase hex characters"
    if index < len(listed) and commitment(revealed) != listed[index].commitment:
        return (
            f"revealed seed {index} does not match its commitment {shown(listed[index].commitment)}"
        )
    if index < len(listed) and listed[index].server_seed != revealed:
        return _listed_message(index, listed[index])
    if index + 1 >= len(listed):
        return f"fairness.rotations lists no seed {index + 1}"
    if following != listed[index + 1].commitment:
        return f"next commitment {shown(following)} differs from fairness.rotations"
    if not same_json(listed[index + 1].seq, seq):
        return f"fairness.rotations gives seq {shown(listed[index + 1].seq)} for this rotation"
    return None


def _commitment_shape(seed: Seed) -> list[Problem]:
    if is_hex64(seed.commitment):
        return []
    return [
        fairness_problem(
            f"commitment {shown(seed.commitment)} is not 64 hex characters", "commitment"
        )
    ]


def _check_listed_seed(index: int, seed: Seed) -> list[Problem]:
    """A seed not revealed by a rotation event: revealed in the export, or not yet."""
    name = "server seed" if index == 0 else f"server seed {index}"
    if not is_hex64(seed.commitment):
        return _commitment_shape(seed)
    if seed.server_seed is None:
        return [
            fairness_problem(
                f"{name} is not revealed yet, so the faces cannot be checked yet", "faces"
            )
        ]
    if not is_hex64(seed.server_seed):
        return [
            fairness_problem(
                f"{name} {shown(seed.server_seed)} is not 64 lowercase hex characters", "commitment"
            )
        ]
    if commitment(seed.server_seed) != seed.commitment:
        return [
            fairness_problem(
                f"commitment {seed.commitment} does not match the revealed {name} "
                f"(its commitment is {commitment(seed.server_seed)})",
                "commitment",
            )
        ]
    return []
