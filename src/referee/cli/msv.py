"""`referee msv ...`: the MSV 1d100 Combat Skill system and its analysis."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from referee.analysis.msv_duel import DuelAnalysis, analyse_duel, length_distribution
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_tables import Cell, comparison_cells
from referee.analysis.msv_text import RATIO_TITLES, STAT_TITLES
from referee.cli.chatlog import spar_log
from referee.cli.output import echo, emit_json
from referee.cli.skills import CS, SkillCommand
from referee.cli.typed import WHOLE, WholeRange
from referee.errors import NotationError, RuleError
from referee.numerals import is_whole
from referee.rng import SeededRng
from referee.systems.files import read_text_file
from referee.systems.msv.attack import CombatSkill, attack, check_fighter_cs, interpret
from referee.systems.msv.convert import conversion_table, cs_to_dice, dice_to_cs, parse_two_dice
from referee.systems.msv.initiative import InitiativeResult, InitiativeRound, roll_initiative
from referee.systems.msv.notation import read_fighter, read_sides
from referee.systems.msv.old import MAX_OLD_SIDES, MIN_OLD_SIDES, old_interpret, old_roll
from referee.systems.msv.rules import MsvRules, load_rules, rules_from_text

if TYPE_CHECKING:
    from referee.bout.state import BoutState

RULES_HELP = "A TOML rule pack (default: the text's reading, MSV-1..MSV-10)."
SEED_HELP = "Seed for reproducible dice (default: a fresh random seed)."
JSON_HELP = "Print JSON instead of text."


def parse_fighter(text: str) -> tuple[str, CombatSkill]:
    """`Pa-Kur=70` (or old dice `Pa-Kur=2d24`) -> ("Pa-Kur", 70), by the one reader of
    that form (`referee.systems.msv.notation.read_fighter`).

    >>> parse_fighter("Pa-Kur=70")
    ('Pa-Kur', 70)
    """
    name, cs = read_fighter(text)
    return name, check_fighter_cs(cs)  # MSV-2: at most CS 100


def parse_faces(text: str) -> tuple[int, int]:
    """`14,17` -> (14, 17).

    >>> parse_faces("14,17")
    (14, 17)
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(is_whole(p) for p in parts):
        raise NotationError(f"bad faces {text!r} (expected two faces like '14,17')")
    return int(parts[0]), int(parts[1])


def _rules(path: str | None) -> MsvRules:
    # The file is read here, so an unreadable or non-UTF-8 pack is one clear line.
    if not path:
        return load_rules(None)
    return rules_from_text(read_text_file(path, "rule pack"), path)


def wrote(path: str, what: str) -> None:
    """Say where a plot was written, on stderr (stdout may be CSV or JSON for a script)."""
    echo(f"{what} written to {Path(path).resolve()}", err=True)


def _ratio(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


@click.group("msv")
def msv() -> None:
    """MSV: everyone rolls 1d100 against a Combat Skill (CS).

    \b
    Examples:
      referee msv attack --cs 65 --roll 47
      referee msv initiative Tarl=65 Pa-Kur=70 --seed 7
      referee msv duel 60 65
      referee msv compare
    """


@msv.command("attack")
@click.option("--cs", "cs", required=True, **CS, help="The attacker's Combat Skill.")
@click.option("--roll", "roll", type=WHOLE, help="Interpret this d100 face instead of rolling.")
@click.option("--seed", type=WHOLE, help=SEED_HELP)
@click.option("--rules", "rules_path", help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def attack_command(
    cs: int, roll: int | None, seed: int | None, rules_path: str | None, as_json: bool
) -> None:
    """Roll (or read) one d100 attack against a CS (MSV-2..MSV-4).

    \b
    Examples:
      referee msv attack --cs 65 --roll 47     # 47 vs CS 65: hit, 4 damage
      referee msv attack --cs 65 --seed 7 --json
    """
    rules = _rules(rules_path)
    rng = SeededRng(seed)
    result = interpret(cs, roll, rules) if roll is not None else attack(cs, rng, rules)
    if as_json:
        data: dict[str, object] = {**result.to_json(), "text": str(result)}
        if roll is None:
            data["seed"] = rng.seed
        emit_json(data)
        return
    click.echo(str(result))


def _round_line(record: InitiativeRound) -> str:
    if record.unrollable:
        return (
            f"round {record.number}: {', '.join(record.group)} have CS 0 and can never "
            "succeed: kept in the order given"
        )
    rolls = ", ".join(f"{r.name} {r.roll} (effect {r.effect})" for r in record.rolls)
    ties = "; ".join(f"tied: {', '.join(t)}" for t in record.ties)
    return f"round {record.number}: {rolls}" + (f"; {ties}" if ties else "")


def initiative_lines(result: InitiativeResult) -> list[str]:
    """The rounds of rolls and the order, as text lines.

    >>> from referee.rng import ScriptedRng
    >>> initiative_lines(roll_initiative([("A", 65), ("B", 70)], ScriptedRng([47, 12])))
    ['round 1: A 47 (effect 4), B 12 (effect 1)', 'order: A, B']
    """
    return [*(_round_line(r) for r in result.rounds), f"order: {', '.join(result.order)}"]


@msv.command("initiative")
@click.argument("fighters", nargs=-1, required=True)
@click.option("--seed", type=WHOLE, help=SEED_HELP)
@click.option("--rules", "rules_path", help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def initiative_command(
    fighters: tuple[str, ...], seed: int | None, rules_path: str | None, as_json: bool
) -> None:
    """Roll initiative for any number of fighters, NAME=CS each (MSV-5).

    Ties (including everyone failing) reroll among themselves; every roll is shown.

    \b
    Examples:
      referee msv initiative Tarl=65 Pa-Kur=70 --seed 7
      referee msv initiative A=50 B=50 C=60 --json
    """
    rules = _rules(rules_path)
    rng = SeededRng(seed)
    result = roll_initiative([parse_fighter(f) for f in fighters], rng, rules)
    if as_json:
        emit_json({**result.to_json(), "seed": rng.seed})
        return
    for line in initiative_lines(result):
        click.echo(line)


@msv.command("convert")
@click.argument("dice", required=False)
@click.option("--cs", "cs", **CS, help="Convert this CS back to old dice.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def convert_command(dice: str | None, cs: int | None, as_json: bool) -> None:
    """Convert old 2dN dice to CS and back (MSV-8); no argument: the whole table.

    \b
    Examples:
      referee msv convert 2d22          # 2d22 = CS 60 (typical warrior)
      referee msv convert --cs 60 --json
      referee msv convert
    """
    if dice is not None and cs is not None:
        raise NotationError(f"give old dice ({dice!r}) or --cs ({cs!r}), not both")
    if dice is None and cs is None:
        rows = list(conversion_table())
    else:
        rows = [dice_to_cs(dice) if dice is not None else cs_to_dice(check_fighter_cs(cs))]
    if as_json:
        emit_json(rows[0].to_json() if len(rows) == 1 else [r.to_json() for r in rows])
        return
    for row in rows:
        click.echo(f"{row.dice} = CS {row.cs}" + (f" ({row.label})" if row.label else ""))


@msv.command("old-roll")
@click.argument("dice")
@click.option("--faces", help="Score these two faces instead of rolling: 14,17.")
@click.option("--seed", type=WHOLE, help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def old_roll_command(dice: str, faces: str | None, seed: int | None, as_json: bool) -> None:
    """Roll (or score) the old 2dN system with Rhy'Din scoring (MSV-9), for comparison.

    Each die scores max(0, floor((face - 10) / 5)); the damage is the sum; > 0 is a hit.

    \b
    Examples:
      referee msv old-roll 2d22 --faces 14,17   # 2d22: 14 17 -> 0 + 1 = 1 damage, hit
      referee msv old-roll 2d25 --seed 3 --json
    """
    sides = parse_two_dice(dice, MIN_OLD_SIDES, MAX_OLD_SIDES)
    rng = SeededRng(seed)
    result = old_interpret(sides, parse_faces(faces)) if faces else old_roll(sides, rng)
    if as_json:
        data: dict[str, object] = result.to_json()
        if not faces:
            data["seed"] = rng.seed
        emit_json(data)
        return
    click.echo(str(result))


def _quantile(lengths: Sequence[float], q: float) -> int:
    total = 0.0
    for k, p in enumerate(lengths, start=1):
        total += p
        if total >= q:
            return k
    return len(lengths)


def _duel_json(duel: DuelAnalysis) -> dict[str, object]:
    lengths = length_distribution(duel.cs_a, duel.cs_b, duel.rules, tail=1e-9)
    return {
        "rules": dict(duel.rules.to_json()),
        "p_a_first": float(duel.p_a_first),
        "p_a_first_exact": _ratio(duel.p_a_first),
        "p_a_wins": float(duel.p_a_wins),
        "p_a_wins_exact": _ratio(duel.p_a_wins),
        "p_b_wins": float(duel.p_b_wins),
        "p_b_wins_exact": _ratio(duel.p_b_wins),
        "expected_rounds": float(duel.expected_rounds),
        "expected_rounds_exact": _ratio(duel.expected_rounds),
        "length_distribution": list(lengths),
    }


def _duel_lines(duels: Sequence[DuelAnalysis]) -> list[str]:
    lengths = [length_distribution(d.cs_a, d.cs_b, d.rules, tail=1e-9) for d in duels]
    quantiles = [" / ".join(str(_quantile(x, q)) for q in (0.5, 0.9, 0.99)) for x in lengths]
    rows = [
        ("", ["with criticals", "without criticals"]),
        ("P(A acts first)", [f"{float(d.p_a_first):.4f}" for d in duels]),
        ("P(A wins)", [f"{float(d.p_a_wins):.4f}" for d in duels]),
        ("P(B wins)", [f"{float(d.p_b_wins):.4f}" for d in duels]),
        ("expected rounds", [f"{float(d.expected_rounds):.3f}" for d in duels]),
        ("rounds 50/90/99%", quantiles),
    ]
    # The first figure column is as wide as its widest cell plus two spaces, at least 18.
    width = max(18, *(len(cells[0]) + 2 for _, cells in rows))
    return [f"{title:<18}{cells[0]:<{width}}{cells[1]}" for title, cells in rows]


@msv.command("duel", cls=SkillCommand)
@click.argument("cs_a", **CS)
@click.argument("cs_b", **CS)
@click.option("--rules", "rules_path", help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def duel_command(cs_a: int, cs_b: int, rules_path: str | None, as_json: bool) -> None:
    """Exact chance that CS_A beats CS_B, with initiative and critical chains.

    A round is one action of each fighter (an action: one attack roll plus its free
    attacks). Figures are exact fractions shown as decimals; --json adds the fractions and
    the chance of every bout length in rounds.

    \b
    Examples:
      referee msv duel 60 65
      referee msv duel 50 75 --json
    """
    rules = _rules(rules_path)
    duel = analyse_duel(cs_a, cs_b, rules)
    plain = analyse_duel(cs_a, cs_b, rules.without_criticals())
    if as_json:
        emit_json(
            {"cs_a": cs_a, "cs_b": cs_b, **_duel_json(duel), "without_criticals": _duel_json(plain)}
        )
        return
    click.echo(
        f"A = CS {cs_a} vs B = CS {cs_b} (criticals: {rules.critical_effect.value}, "
        f"tie-break: {rules.tie_break.value}, defeat at {rules.defeat_threshold})"
    )
    for line in _duel_lines([duel, plain]):
        click.echo(line.rstrip())


@msv.command("matrix")
@click.option("--from", "low", **CS, default=40, show_default=True, help="Lowest CS.")
@click.option("--to", "high", **CS, default=100, show_default=True, help="Highest CS.")
@click.option("--step", type=WholeRange(min=1), default=5, show_default=True, help="CS step.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (row CS, then one column per CS).")
@click.option("--plot", "plot_path", help="Also write a heat map to this PNG file.")
@click.option("--rules", "rules_path", help=RULES_HELP)
def matrix_command(
    low: int, high: int, step: int, as_csv: bool, plot_path: str | None, rules_path: str | None
) -> None:
    """P(row beats column) for every pairing of a CS range, exact (float64 kernel).

    CS 0 vs CS 0 never ends: that cell is shown as n/a (empty in CSV).

    \b
    Examples:
      referee msv matrix --from 40 --to 100 --step 5
      referee msv matrix --from 1 --to 100 --step 1 --csv --plot matrix.png
    """
    rules = _rules(rules_path)
    if high < low:
        raise NotationError(f"--to {high!r} is below --from {low!r}")
    skills = list(range(low, high + 1, step))
    matrix = win_matrix(skills, rules)
    if plot_path:
        from referee.analysis.plots import plot_win_matrix

        plot_win_matrix(skills, matrix, plot_path)
        wrote(plot_path, "heat map")
    sep, fmt, blank = (",", "{:.6f}", "") if as_csv else (" ", "{:.3f}", "  n/a")
    head = "cs" if as_csv else "A\\B"
    width = 0 if as_csv else 5
    click.echo(sep.join([head.rjust(width), *(str(s).rjust(width) for s in skills)]))
    for cs, row in zip(skills, matrix.tolist(), strict=True):
        cells = [blank if v != v else fmt.format(v) for v in row]  # NaN: CS 0 vs CS 0
        click.echo(sep.join([str(cs).rjust(width), *cells]))


def _figure(value: Fraction | None, cell: Cell) -> str:
    if value is None:
        return "-"
    return f"{float(value):.3f}"


def compare_lines(cells: Sequence[Cell]) -> list[str]:
    """The three tables as text: printed, the text's method, exact, exact with free attacks.

    >>> compare_lines(comparison_cells())[2]
    '% to Hit                      2d20      51%      51.000   51.000   -'
    """
    titles = {
        "old": "Old system 2d20..2d25, Rhy'Din scoring (MSV-9)",
        "new": "New system CS 50..75 (MSV-2, MSV-3)",
        "ratio": "New / old",
    }
    lines: list[str] = []
    for table, title in titles.items():
        lines.append(title)
        lines.append(f"{'':30}{'column':10}{'printed':9}{'method':9}{'exact':9}free attacks")
        for cell in (c for c in cells if c.table == table):
            stat = (RATIO_TITLES if table == "ratio" else STAT_TITLES)[cell.stat]
            mark = ("*" if cell.differs else "") + ("!" if cell.inconsistent else "")
            lines.append(
                f"{stat:30}{cell.column:10}{cell.printed:9}{_figure(cell.method, cell):9}"
                f"{_figure(cell.exact, cell):9}{_figure(cell.exact_free, cell)} {mark}".rstrip()
            )
        lines.append("")
    lines.append("* the printed figure differs from the text's own method")
    lines.append("! the printed ratio is not even the quotient of the text's printed figures")
    return lines


def _cell_json(cell: Cell) -> dict[str, object]:
    def pair(value: Fraction | None) -> object:
        return None if value is None else round(float(value), 3)

    return {
        "table": cell.table,
        "stat": cell.stat,
        "column": cell.column,
        "printed": cell.printed,
        "method": pair(cell.method),
        "exact": pair(cell.exact),
        "exact_free_attacks": pair(cell.exact_free),
        "from_printed": pair(cell.from_printed),
        "differs": cell.differs,
        "inconsistent": cell.inconsistent,
    }


@msv.command("compare")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.option("--plot", "plot_path", help="Also write a bar chart of rounds to 15 to this PNG.")
@click.option("--rules", "rules_path", help=RULES_HELP)
def compare_command(as_json: bool, plot_path: str | None, rules_path: str | None) -> None:
    """Reproduce the text's three comparison tables (MSV-10).

    Every cell: the printed figure, the figure by the text's own method, the exact figure
    (rounds: expected rounds to reach 15 damage) and the exact figure with MSV-4 free
    attacks, to three decimals; * marks where the printed figure differs from its method.

    \b
    Examples:
      referee msv compare
      referee msv compare --json --plot compare.png
    """
    cells = comparison_cells(_rules(rules_path))
    if plot_path:
        from referee.analysis.plots import plot_comparison

        plot_comparison(cells, plot_path)
        wrote(plot_path, "bar chart")
    if as_json:
        emit_json([_cell_json(c) for c in cells])
        return
    for line in compare_lines(cells):
        click.echo(line)


def _spar_strategy(state: BoutState, actor: str) -> tuple[str, dict[str, Any]]:
    """A free attack goes to the stunned foe (MSV-4); otherwise hit the weakest enemy."""
    from referee.bout.runner import focus_weakest

    return ("attack", {}) if state.free_attack == actor else focus_weakest(state, actor)


@msv.command("spar")
@click.argument("fighters", nargs=-1, required=True)
@click.option("--side", "side_pairs", multiple=True, help="Put a fighter on a side: NAME=SIDE.")
@click.option("--seed", type=WHOLE, help=SEED_HELP)
@click.option("--rules", "rules_path", help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the events and the log as JSON.")
def spar_command(
    fighters: tuple[str, ...],
    side_pairs: tuple[str, ...],
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """Play a whole spar through the bout engine and print it as a chat log.

    Each fighter is NAME=CS and, unless --side says otherwise, its own side. Every turn the
    fighter attacks the enemy closest to defeat; a free attack goes to the stunned foe.

    \b
    Examples:
      referee msv spar Tarl=65 Pa-Kur=70 --seed 7
      referee msv spar Tarl=65 Rask=60 Pa-Kur=70 --side Tarl=Ar --side Rask=Ar --json
    """
    from referee.bout import commands as c
    from referee.bout.runner import BoutRunner

    rules = _rules(rules_path)
    parsed = [parse_fighter(f) for f in fighters]
    sides = read_sides(side_pairs, [name for name, _ in parsed], "--side")
    if all(cs == 0 for _, cs in parsed):
        raise RuleError("every fighter has CS 0: nobody can ever hit, the spar would never end")
    rng = SeededRng(seed)
    bout = BoutRunner.open("msv", "spar", rng=rng, rules=rules.to_json())
    for name, cs in parsed:
        bout.run(c.AddFighter(name, {"cs": cs}, side=sides.get(name)))
    bout.run(c.RollInitiative())
    bout.play_out(_spar_strategy)
    log = spar_log(bout.events, "msv")
    if as_json:
        emit_json(
            {
                "seed": rng.seed,
                "winner": bout.state.winner,
                "rounds": bout.state.round,
                "log": log,
                "events": [e.to_dict() for e in bout.events],
            }
        )
        return
    names = " vs ".join(f"{name} (CS {cs})" for name, cs in parsed)
    click.echo(f"Spar: {names}, seed {rng.seed}")
    for line in log:
        click.echo(line)
