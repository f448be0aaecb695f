"""`referee lab ...`: the balance lab, exact analysis of any MSV pack beside the text's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np

from referee.analysis.msv_duel import DuelAnalysis
from referee.analysis.msv_matrix import win_matrix
from referee.analysis.msv_text import RATIO_TITLES, STAT_TITLES
from referee.cli.lab_battle import battle_lines
from referee.cli.output import emit_json
from referee.cli.skills import CS, SkillCommand
from referee.cli.typed import WHOLE, WholeRange
from referee.errors import NotationError, RefereeError
from referee.lab.battle import BattleResult, battle, parse_side
from referee.lab.battle_result import Policy, Progress
from referee.lab.msv_packs import (
    CompareRow,
    build_ladder,
    compare_rows,
    difference_matrix,
    duel_pair,
    load_pack,
    skill_range,
)
from referee.lab.svg import heat_map_svg
from referee.numerals import is_whole
from referee.systems.msv.rules import MsvRules
from referee.systems.srp.rules import SrpRules

if TYPE_CHECKING:
    from referee.lab.srp_battle import SrpBattleResult

PACK_HELP = "a TOML rule pack, or 'text' for the text's own"
AGAINST_HELP = "The pack to compare with (default: the text's, 'text')."
JSON_HELP = "Print JSON instead of text."


@click.group("lab")
def lab() -> None:
    """The balance lab: what a rule pack (fixed options or formulas) does to balance.

    PACK is a TOML rule pack (docs/lab.md), or 'text' for the text's own reading.

    \b
    Examples:
      referee lab duel my-pack.toml 60 65
      referee lab matrix my-pack.toml --against text --plot diff.svg
      referee lab compare my-pack.toml
      referee lab ladder my-pack.toml --cs 50,55,60,65,70,75
    """


def _pack(spec: str) -> MsvRules:
    return load_pack(spec)


def _duel_json(duel: DuelAnalysis) -> dict[str, object]:
    def exact(x: Fraction) -> str:
        return f"{x.numerator}/{x.denominator}"

    return {
        "p_a_first": float(duel.p_a_first),
        "p_a_wins": float(duel.p_a_wins),
        "p_a_wins_exact": exact(duel.p_a_wins),
        "expected_rounds": float(duel.expected_rounds),
        "expected_rounds_exact": exact(duel.expected_rounds),
    }


@lab.command("duel", cls=SkillCommand)
@click.argument("pack")
@click.argument("cs_a", **CS)
@click.argument("cs_b", **CS)
@click.option("--against", default="text", show_default=True, help=AGAINST_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def duel_command(pack: str, cs_a: int, cs_b: int, against: str, as_json: bool) -> None:
    """Exact duel of CS_A against CS_B under PACK, beside the same duel under --against.

    \b
    Examples:
      referee lab duel my-pack.toml 60 65
      referee lab duel my-pack.toml 50 75 --against other.toml --json
    """
    mine, theirs = duel_pair(_pack(pack), _pack(against), cs_a, cs_b)
    if as_json:
        emit_json(
            {"cs_a": cs_a, "cs_b": cs_b, "pack": _duel_json(mine), "against": _duel_json(theirs)}
        )
        return
    click.echo(f"A = CS {cs_a} vs B = CS {cs_b}: {pack} against {against}")
    click.echo(f"{'':<18}{'pack':<10}{'against':<10}change")
    rows = [
        ("P(A acts first)", mine.p_a_first, theirs.p_a_first, 4),
        ("P(A wins)", mine.p_a_wins, theirs.p_a_wins, 4),
        ("P(B wins)", mine.p_b_wins, theirs.p_b_wins, 4),
        ("expected rounds", mine.expected_rounds, theirs.expected_rounds, 3),
    ]
    for title, a, b, digits in rows:
        change = float(a) - float(b)
        click.echo(
            f"{title:<18}{float(a):<10.{digits}f}{float(b):<10.{digits}f}{change:+.{digits}f}"
        )


def write_heat_map(
    path: str, skills: Sequence[int], matrix: np.ndarray, title: str, difference: bool
) -> None:
    """A heat map as SVG (ours, self-contained) or PNG (matplotlib), by the file's suffix."""
    scale = float(np.nanmax(np.abs(matrix))) if difference and np.isfinite(matrix).any() else 1.0
    scale = scale or 1.0
    suffix = Path(path).suffix.lower()
    if suffix == ".svg":
        low, high = (-scale, scale) if difference else (0.0, 1.0)
        legend = (
            "change in the row's fighter's chance to win"
            if difference
            else "the row's fighter's chance to win (0 to 1)"
        )
        svg = heat_map_svg(
            skills, matrix, title, low, high, digits=4 if difference else 3, legend=legend
        )
        try:
            Path(path).write_text(svg, encoding="utf-8")
        except OSError as err:
            raise RefereeError(f"cannot write plot {path!r}: {err.strerror}") from None
        return
    if suffix != ".png":
        raise NotationError(f"--plot {path!r}: the file must end in .svg or .png")
    from referee.analysis.plots import plot_difference_matrix, plot_win_matrix

    if difference:
        plot_difference_matrix(skills, matrix, scale, path, title)
    else:
        plot_win_matrix(skills, matrix, path)


@lab.command("matrix")
@click.argument("pack")
@click.option("--against", help="Show PACK minus this pack ('text' for the text's).")
@click.option("--from", "low", type=WHOLE, default=40, show_default=True, help="Lowest CS.")
@click.option("--to", "high", type=WHOLE, default=100, show_default=True, help="Highest CS.")
@click.option("--step", type=WHOLE, default=5, show_default=True, help="CS step.")
@click.option("--plot", "plot_path", help="Also write a heat map (.svg or .png).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
def matrix_command(
    pack: str,
    against: str | None,
    low: int,
    high: int,
    step: int,
    plot_path: str | None,
    as_csv: bool,
) -> None:
    """P(row beats column) under PACK, or with --against the change from another pack.

    \b
    Examples:
      referee lab matrix my-pack.toml --from 50 --to 75
      referee lab matrix my-pack.toml --against text --plot diff.svg
    """
    skills = skill_range(low, high, step)
    rules = _pack(pack)
    if against is None:
        matrix, title = win_matrix(skills, rules), f"P(row beats column) under {pack}"
    else:
        matrix = difference_matrix(rules, _pack(against), skills)
        title = f"P(row beats column): {pack} minus {against}"
    if plot_path:
        write_heat_map(plot_path, skills, matrix, title, against is not None)
    digits = 4 if against is not None else 3
    sep, fmt, blank = (",", "{:.6f}", "") if as_csv else (" ", f"{{:+.{digits}f}}", "n/a")
    if against is None and not as_csv:
        fmt = f"{{:.{digits}f}}"
    width = 0 if as_csv else digits + 3
    click.echo(
        sep.join(["cs" if as_csv else "A\\B".rjust(width), *(str(s).rjust(width) for s in skills)])
    )
    for cs, row in zip(skills, matrix.tolist(), strict=True):
        cells = [blank.rjust(width) if v != v else fmt.format(v).rjust(width) for v in row]
        click.echo(sep.join([str(cs).rjust(width), *cells]))


def _row_title(row: CompareRow) -> str:
    return RATIO_TITLES[row.stat] if row.table == "ratio" else STAT_TITLES[row.stat]


def _cell(value: Fraction | None, stat: str) -> str:
    if value is None:
        return "-"
    return f"{float(value):.1f}" if stat == "hit" and value > 2 else f"{float(value):.3f}"


def compare_lines(rows: Sequence[CompareRow], pack: str, against: str) -> list[str]:
    """The text's tables for two packs: printed, --against, PACK (and with free attacks)."""
    lines = []
    for row in rows:
        lines.append(f"{_row_title(row)}")
        lines.append(f"  {'':<22}" + "".join(f"{c:>10}" for c in row.columns))
        series = [
            ("printed in the text", list(row.printed)),
            (against[:22], [_cell(x, row.stat) for x in row.against]),
            (pack[:22], [_cell(x, row.stat) for x in row.pack]),
        ]
        if any(x is not None for x in row.pack_free):
            series.append(("  with free attacks", [_cell(x, row.stat) for x in row.pack_free]))
        lines += [f"  {title:<22}" + "".join(f"{c:>10}" for c in cells) for title, cells in series]
    return lines


@lab.command("compare")
@click.argument("pack")
@click.option("--against", default="text", show_default=True, help=AGAINST_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def compare_command(pack: str, against: str, as_json: bool) -> None:
    """The MSV text's comparison tables computed for PACK, against the old 2d20..2d25 system.

    Hit %, damage per round (the text's method: criticals as plain hits), the exact expected
    rounds to 15 damage, and the ratios to the old system; beside them the text's printed
    figures and the same under --against.

    \b
    Examples:
      referee lab compare my-pack.toml
      referee lab compare my-pack.toml --json
    """
    rows = compare_rows(_pack(pack), _pack(against))
    if as_json:
        emit_json([r.to_json() for r in rows])
        return
    for line in compare_lines(rows, pack, against):
        click.echo(line.rstrip())


def parse_skills(text: str) -> list[int]:
    """`50,55,60` -> [50, 55, 60].

    >>> parse_skills("50, 55,60")
    [50, 55, 60]
    """
    parts = [p.strip() for p in text.split(",")]
    if not all(is_whole(p) for p in parts):
        raise NotationError(f"bad CS list {text!r} (expected numbers like 50,55,60)")
    return [int(p) for p in parts]


@lab.command("ladder")
@click.argument("pack")
@click.option("--cs", "skills_text", default="50,55,60,65,70,75", show_default=True,
              help="The CS values of the ladder.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def ladder_command(pack: str, skills_text: str, as_json: bool) -> None:
    """Who beats whom on a ladder of CS under PACK, and what each step of CS is worth.

    \b
    Examples:
      referee lab ladder my-pack.toml
      referee lab ladder text --cs 40,50,60,70,80 --json
    """
    ladder = build_ladder(_pack(pack), parse_skills(skills_text))
    if as_json:
        emit_json(ladder.to_json())
        return
    skills = ladder.skills
    click.echo("P(row beats column)")
    click.echo(" A\\B " + "".join(f"{s:>7}" for s in skills))
    for cs, row in zip(skills, ladder.matrix.tolist(), strict=True):
        click.echo(f"{cs:>5}" + "".join("    n/a" if v != v else f"{v:>7.3f}" for v in row))
    click.echo("Each step up the ladder")
    for step in ladder.steps:
        click.echo(
            f"  CS {step.high} vs CS {step.low}: wins {step.p_higher_wins:.3f}, "
            f"{100 * step.edge_per_point:+.2f} points of win chance per CS point"
        )


@contextmanager
def _progress() -> Iterator[Progress]:
    """A rich progress bar on stderr while it runs when that is a terminal, else nothing."""
    import sys

    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    with Bar(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("battles", total=1)
        yield lambda done, total: bar.update(task, completed=done, total=total)


@lab.command("battle")
@click.argument("side_1")
@click.argument("side_2")
@click.option("--rules", "pack", default="text", show_default=True, help=f"The pack ({PACK_HELP}).")
@click.option(
    "--policy",
    default="focus-weakest",
    show_default=True,
    type=click.Choice([p.value for p in Policy]),
    help="Whom fighters attack.",
)
@click.option(
    "--n",
    "battles",
    type=WHOLE,
    default=1_000_000,
    show_default=True,
    help="Monte Carlo battles (at least 2: a standard error needs two).",
)
@click.option("--seed", type=WholeRange(min=0), help="Seed for the Monte Carlo (default: fresh).")
@click.option(
    "--exact/--monte-carlo",
    "exact",
    default=None,
    help="Force the exact chain (up to its bound) or the Monte Carlo.",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.option("--system", type=click.Choice(["msv", "srp"]), default="msv", show_default=True,
              help="The rules the battle is fought under.")  # fmt: skip
@click.option("--gear", help="SRP: a gear pack TOML for weapon=NAME (default: the example).")
@click.option("--fight", "fight_path", help="SRP: take the sides by name from a fight file.")
def battle_command(side_1: str, side_2: str, pack: str, policy: str, battles: int,
                   seed: int | None, exact: bool | None, as_json: bool, system: str,
                   gear: str | None, fight_path: str | None) -> None:  # fmt: skip
    """A group battle: P(each side wins), expected rounds, survivors and damage.

    MSV sides are NAME=CS lists. Initiative for all (MSV-5), attacks in turn order,
    criticals (MSV-4), defeat (MSV-7). SRP sides (--system srp) are NAME=SPEC fighters split
    by ';' (the spec of `referee srp odds`, or a sheet .toml file), or with --fight FILE the
    names of two sides of a fight file; turn order, attacks, stuns and defeat as SRP-4..9, 16,
    19 say. Exact when the chain is small enough (it says how big), else a numpy Monte
    Carlo with the standard error beside each figure.

    \b
    Examples:
      referee lab battle "Tarl=65" "Orc=50,Orc=50"
      referee lab battle "Tarl=65,Rask=55" "PaKur=70,Orc=50,Orc=50" --n 100000 --seed 1
      referee lab battle --system srp "Ann=skill=15 damage=3 hits=12" "Orc=skill=11 hits=8"
      referee lab battle --system srp --fight examples/srp/fight.toml raiders guards
    """
    if system == "msv" and (gear or fight_path):
        raise NotationError("--gear and --fight are for --system srp")
    gen = np.random.default_rng(seed)
    result: BattleResult | SrpBattleResult
    if system == "srp":
        from referee.cli.lab_srp import run_srp_battle, srp_battle_lines

        with _progress() as progress:
            result = run_srp_battle(side_1, side_2, pack, gear, fight_path, policy, battles,
                                    gen, progress, exact)  # fmt: skip
        lines = srp_battle_lines(result)
    else:
        rules = _pack(pack)
        first, second = parse_side(side_1), parse_side(side_2)
        with _progress() as progress:
            result = battle(first, second, rules, policy, battles, gen, progress, exact)
        lines = battle_lines(result, [f"{f.name} (CS {f.cs})" for f in result.fighters], "damage")
    if as_json:
        emit_json(result.to_json())
        return
    for line in lines:
        click.echo(line)


@lab.command("report")
@click.argument("pack")
@click.option("--against", default="text", show_default=True, help=AGAINST_HELP)
@click.option("-o", "--output", "output", required=True, help="The HTML file to write.")
@click.option("--system", type=click.Choice(["msv", "srp"]), default="msv", show_default=True,
              help="The system the packs are for.")  # fmt: skip
def report_command(pack: str, against: str, output: str, system: str) -> None:
    """One self-contained HTML page: the pack, the text's tables, heat maps and battles.

    With --system srp: the SRP pack's keys, levels and damage bonuses by skill, duel heat
    maps and a few exact battles, beside --against.

    \b
    Examples:
      referee lab report my-pack.toml -o report.html
      referee lab report my-pack.toml --against other.toml -o report.html
      referee lab report --system srp my-srp-pack.toml -o report.html
    """
    if system == "srp":
        from referee.cli.srp_base import read_rules
        from referee.lab.srp_report import build_srp_report
        from referee.systems.srp.rules import DEFAULT_RULES

        def srp_pack(spec: str) -> SrpRules:
            return DEFAULT_RULES if spec == "text" else read_rules(spec)

        page = build_srp_report(srp_pack(pack), srp_pack(against), pack, against)
    else:
        from referee.lab.report import build_report

        page = build_report(_pack(pack), _pack(against), pack, against)
    try:
        Path(output).write_text(page, encoding="utf-8")
    except OSError as err:
        raise RefereeError(f"cannot write report {output!r}: {err.strerror}") from None
    click.echo(f"wrote {output} ({len(page):,} bytes)")
