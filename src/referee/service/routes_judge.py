"""`POST /api/judge`: judge a pasted chat log of an MSV spar (no token; body at most 256 KiB).

The body is JSON: `{"log": TEXT, "fighters"?: ["NAME=CS", ...], "rules"?: {...},
"export"?: {...}, "format_files"?: [{"name"?: "my-bot.toml", "text": TOML}, ...], "key"?: KEY}`
(at most 4 format files of 64 KiB each, docs/judge.md's "Format files", read before the
built-in formats; a file that does not load is a 400 `bad_format_file` naming it, its key and
what is wrong). `key` is the host's public key (as `referee judge --key` takes it): given, the
log's host signs, and every roll line is held to it; not given, the log's signed lines are
checked by the export's key, else by this server's own. The answer is the `referee judge
--json` document plus what the web console shows: the verdict line, the fighters and where
they came from, the initiative order, and every line of the log with the judge's notes. Bad
input is a 4xx JSON error.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from referee.service.judge_worker import in_worker, judged
from referee.service.models import RulePack, Strict
from referee.transcripts.format_files import MAX_FORMAT_FILE

#: The path of the judge, and the largest body it takes (a pasted log, or one with its export).
JUDGE_PATH = "/api/judge"
MAX_JUDGE_BODY = 256 * 1024
#: Paths whose bodies may be larger than the service's default limit.
BODY_LIMITS = {JUDGE_PATH: MAX_JUDGE_BODY}

router = APIRouter()


class FormatFile(Strict):
    """A format file given with a log: its TOML text and a name for messages."""

    name: str = Field("pasted", min_length=1, max_length=80, examples=["gorean-meter.toml"])
    text: str = Field(max_length=MAX_FORMAT_FILE, examples=['[[format]]\nname = "my-irc"'])


class JudgeLog(Strict):
    """A log to judge; fighters as `NAME=CS` (default: read from the log's announcement)."""

    log: str = Field(max_length=MAX_JUDGE_BODY, examples=["OnlineHost: Tarl rolled ..."])
    fighters: list[str] = Field(default_factory=list, max_length=8, examples=[["Tarl=65"]])
    rules: RulePack | None = None
    export: dict[str, Any] | None = None
    key: str | None = Field(default=None, max_length=2048, examples=[None])
    format_files: list[FormatFile] = Field(default_factory=list, max_length=4)


@router.post(JUDGE_PATH, tags=["judge"])
def judge(body: JudgeLog, request: Request) -> dict[str, Any]:
    """Decide an MSV spar from its chat log and flag every roll line that does not count."""
    fighters = [f for f in body.fighters if f.strip()]
    # this server's own key checks the log's signed roll lines when neither the body nor its
    # export gives one; a log with none is not held to it (a `sig:` typed in chat held every
    # host line of a log to it, each then forged for want of a signature)
    own = request.app.state.service.key.public.text
    files = [(f.text, f.name) for f in body.format_files]
    if not files:
        return judged(body.log, fighters, body.rules, body.export, key=body.key, signed_by=own)
    # anyone's patterns: judged in a worker process, stopped past its time (judge_worker)
    args = (body.log, fighters, body.rules, body.export, files, body.key, own)
    return in_worker(judged, args)
