"""`POST /api/luck`: a record and a luck report from verified exports (docs/luck.md; no token).

The body is JSON: `{"exports"?: [EXPORT, ...], "bouts"?: ["ID", ...], "fighter"?: "NAME",
"character"?: "ID"}`: exports uploaded, and closed bouts of this server by id (each exported
as everyone gets it: after the close, everything); `character` reads a saved character's dice
and record, whatever names it fought under, over the bouts given, or with none given, over
the last 40 bouts of this server it fought (the store keeps each of its joins). Every export
is verified first (`referee verify`'s check); one that does not verify, or a bout not closed,
is refused with its reason (`refused`). The answer is the `referee luck --json` report, its
lines, the refusals and the plots (SVG); when nothing verifies, the report reads no dice ("no
dice to read") and `refused` says why.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from referee.errors import (
    LimitError,
    NotationError,
    NotFoundError,
    RefereeError,
    VerificationError,
)
from referee.lab.luck_exports import (
    LuckReport,
    Reading,
    as_character,
    counted_once,
    luck_report,
    reading,
    verified,
)
from referee.lab.luck_svg import distribution_svg, faces_svg
from referee.lab.luck_text import report_lines
from referee.service.bouts import ANONYMOUS, RefereeService
from referee.service.models import Strict

LUCK_PATH = "/api/luck"
#: The most exports and bouts one request reads, and the largest body (the exports uploaded).
MAX_EXPORTS = 40
MAX_LUCK_BODY = 8 * 1024 * 1024
BODY_LIMITS = {LUCK_PATH: MAX_LUCK_BODY}

router = APIRouter()


class LuckRequest(Strict):
    """Exports to read, closed bouts of this server by id, and whose dice."""

    exports: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_EXPORTS)
    bouts: list[str] = Field(default_factory=list, max_length=MAX_EXPORTS)
    fighter: str | None = Field(None, max_length=80, examples=["Tarl"])
    character: str | None = Field(None, min_length=1, max_length=64, examples=[None])


def plots(report: LuckReport) -> dict[str, str | None]:
    """The report's plots: the primary test's exact distribution, the damage's, the faces."""
    found = report.luck
    halves = found.halves
    damage = found.damage
    return {
        "halves": None
        if halves is None
        else distribution_svg(
            found.halves_distribution,
            halves.observed,
            "Low halves: exact for fair dice",
            "low faces",
        ),
        "damage": None
        if damage is None
        else distribution_svg(damage.distribution, damage.total, "Total damage: exact", "damage"),
        "faces": None if found.faces is None else faces_svg(found.faces.bins),
    }


@router.post(LUCK_PATH, tags=["luck"])
def luck(body: LuckRequest, request: Request) -> dict[str, Any]:
    """The luck of a fighter's (or every fighter's) dice over verified exports."""
    service: RefereeService = request.app.state.service
    character = body.character
    if character is not None and body.fighter:
        raise NotationError("give a fighter or a character, not both")
    bouts = list(body.bouts)
    if character is not None and not (body.exports or bouts):
        bouts = service.store.bouts_of_character(character)[-MAX_EXPORTS:]
        if not bouts:
            raise NotFoundError(f"character {character!r} has fought in no bout of this server")
    given = len(body.exports) + len(bouts)
    if not given:
        raise NotationError("give one or more exports or closed bouts' ids")
    if given > MAX_EXPORTS:
        raise LimitError(f"at most {MAX_EXPORTS} exports and bouts at once, got {given}")
    readings: list[Reading] = []
    refused: list[dict[str, str]] = []
    sources: list[tuple[str, Any, str | None]]
    sources = [(f"export {n}", doc, None) for n, doc in enumerate(body.exports, 1)]
    sources += [(f"bout {bout}", None, bout) for bout in bouts]
    seen: dict[str, str] = {}
    for name, doc, bout in sources:
        try:
            if bout is not None:
                if service.store.get_bout(bout).status != "closed":
                    raise VerificationError(f"{name} is not closed: its seed is not revealed yet")
                doc = service.export(bout, ANONYMOUS)
            readings.append(counted_once(reading(verified(doc, name)), seen, name))
        except RefereeError as err:
            refused.append({"source": name, "reason": err.public})
    if character is not None:
        readings, label = as_character(readings, character)
        if label is None and not refused:
            raise NotFoundError(f"character {character!r} fought in none of the bouts given")
        report = luck_report(readings, label)
    else:
        report = luck_report(readings, body.fighter.strip() if body.fighter else None)
    return {
        **report.as_json(),
        "lines": report_lines(report),
        "refused": refused,
        "plots": plots(report),
    }
