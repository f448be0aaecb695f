"""`referee srp fight`: a whole SRP fight from a fight file, through the bout engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from referee.cli.output import emit_json
from referee.cli.srp_base import json_option, seed_option
from referee.rng import ScriptedRng, SeededRng


@click.command("fight")
@click.argument("path")
@seed_option
@json_option
def fight_command(path: str, seed: int | None, as_json: bool) -> None:
    """Run a whole fight from a fight file: sheets, a scripted start, then default play.

    The file's `dice` are used first, then seeded rolls. Default play: deal with a
    condition, attack the weakest enemy in reach, else step toward the nearest.

    \b
    Examples:
      referee srp fight examples/srp/fight.toml --seed 1
      referee srp fight examples/srp/fight.toml --seed 1 --json
    """
    from referee.bout import commands as c
    from referee.bout.runner import BoutRunner
    from referee.bout.state import Status
    from referee.systems.srp.fightfile import FacesFirst, read_fight
    from referee.systems.srp.strategy import next_action
    from referee.systems.srp.system import SrpSystem

    plan = read_fight(path)
    source = SeededRng(seed)
    bout = BoutRunner.open("srp", plan.name, FacesFirst(ScriptedRng(plan.dice), source), plan.rules)
    for entrant in plan.entrants:
        bout.run(c.AddFighter(entrant.name, entrant.stats, entrant.side))
    bout.run(c.RollInitiative())
    for step in plan.script:
        if bout.state.status is not Status.RUNNING:
            break
        # A fight file is the referee's script: its terms (defense, modifiers) are the referee's.
        bout.run(c.Act(step.actor, step.kind, step.options))
    system = bout.system
    assert isinstance(system, SrpSystem)
    bout.play_out(lambda state, actor: next_action(system, state, actor), plan.max_actions)
    if as_json:
        emit_json(
            {
                "seed": source.seed,
                "winner": bout.state.winner,
                "events": [e.to_dict() for e in bout.events],
            }
        )
        return
    for event in bout.events:
        for line in event_lines(event.type, event.payload):
            click.echo(line)
    click.echo(f"(seed {source.seed})")


def event_lines(kind: str, p: Mapping[str, Any]) -> list[str]:
    """One bout event as text lines for the fight log, in the words of `referee.sentences`
    (the turn flush left, everything it brings indented; an outcome with its explanation and
    each extra attack's).

    >>> event_lines("wound", {"target": "Ann", "amount": 3, "total": 5})
    ['  Ann takes 3 hits (5 in all)']
    """
    from referee.payloads.events import Stat
    from referee.sentences import QUIET_STATS, explanation, sentence
    from referee.systems.srp.payloads import ExtraStrike, Move
    from referee.vocabulary import EventType

    if kind in (EventType.ACTION, EventType.BOUT_OPENED) or (
        kind == EventType.STAT and Stat.read(p).key in QUIET_STATS
    ):
        return []  # an action shows as its rolls and outcome; where one stands, on the map
    event = {"type": kind, "actor": "system", "payload": p}
    said = sentence(event, "srp")
    if kind in (EventType.TURN, EventType.ENDED, EventType.FIGHTER_ADDED, EventType.INITIATIVE):
        return [said]
    lines = [f"  {said}", *(f"    {ln}" for ln in explanation(event, "srp"))]
    if kind == EventType.OUTCOME and p.get("kind") in ("move", "step", "charge"):
        for extra in Move.read(p).extra_attacks:
            lines.append(f"    extra attack by {extra.attacker}:")
            why = extra.explanation if isinstance(extra, ExtraStrike) else (extra.skipped,)
            lines += [f"      {ln}" for ln in why]
    return lines
