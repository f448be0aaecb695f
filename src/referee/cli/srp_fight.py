"""`referee srp fight`: a whole SRP fight from a fight file, through the bout engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from referee.cli.output import emit_json
from referee.cli.srp import json_option, seed_option
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
    """One bout event as text lines for the fight log.

    >>> event_lines("wound", {"target": "Ann", "amount": 3, "total": 5})
    ['  Ann takes 3 hits (5 in all)']
    """
    if kind == "turn":
        return [f"round {p['round']}: {p['fighter']}'s turn"]
    if kind == "outcome":
        lines = [f"  {p['summary']}", *(f"    {ln}" for ln in p.get("explanation") or [])]
        for extra in p.get("extra_attacks") or []:
            lines.append(f"    extra attack by {extra['attacker']}:")
            lines += [f"      {ln}" for ln in extra.get("explanation") or [extra.get("skipped")]]
        return lines
    if kind == "roll":
        return [f"  roll {' '.join(p['dice'])}: {' '.join(str(f) for f in p['faces'])}"]
    return _other_event(kind, p)


def _other_event(kind: str, p: Mapping[str, Any]) -> list[str]:
    if kind == "wound":
        return [f"  {p['target']} takes {p['amount']} hits ({p['total']} in all)"]
    if kind == "condition":
        rounds = p["rounds"]
        how = (
            "until cleared" if rounds is None else "cleared" if rounds == 0 else f"{rounds} turn(s)"
        )
        return [f"  {p['target']}: {_condition_words(p['condition'])} ({how})"]
    if kind == "stat" and p["key"] == "holds":
        held = p["value"]
        return [f"  {p['target']} holds {held}" if held else f"  {p['target']} lets go"]
    if kind == "stat" and p["key"] == "mounted":
        return [f"  {p['target']} is {'mounted' if p['value'] else 'on foot'}"]
    if kind == "skipped":
        return [f"  {p['name']} loses the turn: {p['reason']}"]
    if kind == "defeated":
        return [f"  {p['name']} is down" if p.get("defeated", True) else f"  {p['name']} is up"]
    if kind == "fighter_added":
        return [f"{p['name']} joins side {p['side']}"]
    if kind == "initiative":
        return [f"order: {', '.join(p['order'])}"]
    if kind == "ended":
        return [f"ended: {p['winner'] or 'nobody'} won ({p['reason']})"]
    return []


def _condition_words(name: str) -> str:
    """A condition's name as people read it (`lost_action` -> "loses an action").

    >>> _condition_words("breaking_free"), _condition_words("dazzled")
    ('breaking free', 'dazzled')
    """
    from referee.systems.srp.actions import Condition

    try:
        return Condition(name).words
    except ValueError:
        return name.replace("_", " ")
