"""`POST /api/lab/analyse`: the balance lab for the web console (no token needed).

The body is `{"pack": {...}, "from"?: 40, "to"?: 100, "step"?: 5, "ladder"?: [50, ...]}`:
an MSV pack (fixed options and formulas, docs/lab.md) and the CS to look at. The answer
checks every formula on its own and, when all load, gives the heat maps (as self-contained
SVG and as numbers), the ladder and the text's tables for the pack beside the text's own.

Limits on work per request: a formula at most `MAX_FORMULA` characters, at most `MAX_SIDE`
CS values in the matrix and `MAX_LADDER` on the ladder; a bad value is a 4xx JSON error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter
from pydantic import Field

from referee.analysis.msv_matrix import win_matrix
from referee.errors import LimitError, RefereeError
from referee.lab.msv_packs import build_ladder, compare_rows, skill_range
from referee.lab.svg import heat_map_svg
from referee.service.models import RulePack, Strict
from referee.systems.formula import parse_formula
from referee.systems.msv.attack import MAX_CS
from referee.systems.msv.rules import FORMULA_KEYS, default_rules, rules_from_mapping

LAB_PATH = "/api/lab/analyse"
MAX_FORMULA = 200
MAX_SIDE = 41
MAX_LADDER = 11
#: What the heat maps' colours measure, under each map's colour scale.
WIN_LEGEND = "the row's fighter's chance to win the duel (0 to 1)"
CHANGE_LEGEND = "change in that chance from the text's own pack (+ the row's fighter gains)"

router = APIRouter()


class LabRequest(Strict):
    """A pack to analyse and the CS range and ladder to show."""

    pack: RulePack = Field(default_factory=dict, examples=[{"damage": "min(5, ceil(roll / 12))"}])
    # Each CS a fighter's (0..100), as every lab door takes it (`lab.msv_packs.skill_range`).
    low: int = Field(40, alias="from", ge=0, le=MAX_CS)
    high: int = Field(100, alias="to", ge=0, le=MAX_CS)
    step: int = Field(5, ge=1, le=100)
    ladder: list[Annotated[int, Field(ge=0, le=MAX_CS)]] = Field(
        default_factory=lambda: [50, 55, 60, 65, 70, 75], max_length=MAX_LADDER
    )


def _formula_errors(pack: dict[str, Any]) -> dict[str, str]:
    """Each formula column checked on its own (so the page can show every error at once)."""
    errors = {}
    for key in (*FORMULA_KEYS, "critical_extra_damage"):
        text = pack.get(key)
        if not isinstance(text, str):
            continue
        if len(text) > MAX_FORMULA:
            raise LimitError(f"formula {key!r} is longer than {MAX_FORMULA} characters here")
        try:
            parse_formula(text, key)
        except RefereeError as err:
            errors[key] = str(err)
    return errors


def _numbers(matrix: np.ndarray) -> list[list[float | None]]:
    return [[None if v != v else round(v, 6) for v in row] for row in matrix.tolist()]


@router.post(LAB_PATH, tags=["lab"])
def analyse(body: LabRequest) -> dict[str, Any]:
    """Check a pack's formulas; if they load, its heat maps, ladder and the text's tables."""
    errors = _formula_errors(body.pack)
    if errors:
        return {"ok": False, "errors": errors}
    try:
        pack = rules_from_mapping(body.pack, "pack")
    except RefereeError as err:
        return {"ok": False, "errors": {_column(str(err)): str(err)}}
    skills = skill_range(body.low, body.high, body.step)
    if len(skills) > MAX_SIDE:
        raise LimitError(f"at most {MAX_SIDE} CS values per request, got {len(skills)}")
    text = default_rules()
    mine, theirs = win_matrix(skills, pack), _text_matrix(tuple(skills))
    change = mine - theirs
    scale = float(np.nanmax(np.abs(change))) if np.isfinite(change).any() else 0.0
    ladder = build_ladder(pack, body.ladder, (skills, mine))
    return {
        "ok": True,
        "pack": pack.to_json(),
        "skills": skills,
        "matrix": _numbers(mine),
        "change": _numbers(change),
        "matrix_svg": heat_map_svg(
            skills, mine, "P(row beats column) under this pack", legend=WIN_LEGEND
        ),
        "change_svg": heat_map_svg(
            skills,
            change,
            "change from the text's pack",
            -(scale or 1.0),
            scale or 1.0,
            4,
            legend=CHANGE_LEGEND,
        ),
        "ladder": ladder.to_json(),
        "compare": [r.to_json() for r in compare_rows(pack, text)],
    }


@lru_cache(maxsize=32)
def _text_matrix(skills: tuple[int, ...]) -> np.ndarray:
    """The text's own matrix, the same for every request over these CS."""
    result: np.ndarray = win_matrix(skills, default_rules())
    result.setflags(write=False)
    return result


def _column(message: str) -> str:
    """The key a pack error names (`key 'x'` or `formula 'x'`), else "pack"."""
    for marker in ("formula '", "key '"):
        if marker in message:
            return message.split(marker, 1)[1].split("'", 1)[0]
    return "pack"
