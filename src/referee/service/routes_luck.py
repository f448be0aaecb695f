"""`POST /api/luck`: a record and a luck report from verified exports (docs/luck.md; no token).

The body is JSON: `{"exports"?: [EXPORT, ...], "bouts"?: ["ID", ...], "fighter"?: "NAME"}`:
exports uploaded, and closed bouts of this server by id (each exported as everyone gets it:
after the close, everything). Every export is verified first (`referee verify`'s check); one
that does not verify, or a bout not closed, is refused with its reason (`refused`). The answer
is the `referee luck --json` report, its lines, the refusals and the plots (SVG); when nothing
verifies, the report reads no dice ("no dice to read") and `refused` says why.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from referee.errors import LimitError, NotationError, RefereeError, VerificationError
from referee.lab.luck_exports import LuckReport, Reading, luck_report, reading, verified
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
    given = len(body.exports) + len(body.bouts)
    if not given:
        raise NotationError("give one or more exports or closed bouts' ids")
    if given > MAX_EXPORTS:
        raise LimitError(f"at most {MAX_EXPORTS} exports and bouts at once, got {given}")
    service: RefereeService = request.app.state.service
    readings: list[Reading] = []
    refused: list[dict[str, str]] = []
    sources: list[tuple[str, Any, str | None]]
    sources = [(f"export {n}", doc, None) for n, doc in enumerate(body.exports, 1)]
    sources += [(f"bout {bout}", None, bout) for bout in body.bouts]
    for name, doc, bout in sources:
        try:
            if bout is not None:
                if service.store.get_bout(bout).status != "closed":
                    raise VerificationError(f"{name} is not closed: its seed is not revealed yet")
                doc = service.export(bout, ANONYMOUS)
            readings.append(reading(verified(doc, name)))
        except RefereeError as err:
            refused.append({"source": name, "reason": err.public})
    report = luck_report(readings, body.fighter.strip() if body.fighter else None)
    return {
        **report.as_json(),
        "lines": report_lines(report),
        "refused": refused,
        "plots": plots(report),
    }
