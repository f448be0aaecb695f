"""`referee verify-roll`: check one verifiable roll by hand, or signed roll lines by the
service's public key."""

from __future__ import annotations

import re

import click

from referee.cli.output import emit_json
from referee.cli.typed import WholeRange, utf8_text
from referee.errors import NotationError, NotFoundError, RefereeError
from referee.numerals import is_whole
from referee.rng import commitment, verifiable_faces
from referee.rng.streams import check_stream, owner_of

SEED_PATTERN = re.compile(r"[0-9a-f]{64}")


def parse_dice_list(text: str) -> tuple[int, ...]:
    """`d20,d20,d6` -> (20, 20, 6); a clear error for anything else.

    >>> parse_dice_list("d20,d20,d6")
    (20, 20, 6)
    """
    sides = []
    for part in text.split(","):
        item = part.strip().lower()
        if item == "d%":
            item = "d100"
        if not item.startswith("d") or not is_whole(item[1:]) or int(item[1:]) < 1:
            raise NotationError(
                f"bad die {part.strip()!r} in {text!r} (expected a list like 'd20,d20,d6')"
            )
        sides.append(int(item[1:]))
    return tuple(sides)


def read_key_option(given: str) -> str:
    """What `--key` names: a file's text (a key, PEM, the service's key answer or an export)
    when it names a readable file, else the text itself (the key as published)."""
    from pathlib import Path

    path = Path(given)
    try:
        named, there = len(given) < 1024 and path.is_file(), path.exists()
    except OSError:  # no file can have this name (too long a part): the key's text itself
        named = there = False
    if named:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise NotationError(f"--key: cannot read {given!r}: {err}") from None
    if _names_a_file(given) and not there:
        raise NotFoundError(f"--key: cannot read {given!r}: No such file or directory")
    return given


def _names_a_file(given: str) -> bool:
    """Whether `--key` can only be a file's name: a key's text has no `.` or `/` (43 base64url
    characters) unless it is PEM or JSON, which have more than one line or braces.

    >>> _names_a_file("bout-b1.json"), _names_a_file("A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg")
    (True, False)
    """
    text = given.strip()
    shaped = "." in text or "/" in text
    return shaped and not any(c in text for c in "{\n") and "BEGIN" not in text


@click.command("verify-roll")
@click.argument("lines", nargs=-1, metavar="[LINE]...")
@click.option(
    "--key",
    "key_given",
    metavar="KEY",
    help="With LINEs: the service's public key (its text, or a file: the key, PEM, "
    "GET /api/signing-key's answer, or a bout's export).",
)
@click.option(
    "--bout",
    "bout_id",
    metavar="ID",
    callback=utf8_text,
    help="With LINEs: the bout they must be of (its id or its tag).",
)
@click.option("--server-seed", help="The revealed server seed (64 hex characters).")
@click.option("--client-seed", callback=utf8_text, help="The bout's whole client seed string.")
@click.option("--nonce", type=WholeRange(min=0), help="The roll's nonce.")
@click.option("--dice", "dice_text", help="The roll's dice in order: d20,d20,d6.")
@click.option(
    "--stream",
    metavar="NAME",
    callback=utf8_text,
    help="The roll's stream, in a bout with dice streams (its roll events name it): "
    "act:NAME, free:NAME or referee.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def verify_roll(
    lines: tuple[str, ...],
    key_given: str | None,
    bout_id: str | None,
    server_seed: str | None,
    client_seed: str | None,
    nonce: int | None,
    dice_text: str | None,
    stream: str | None,
    as_json: bool,
) -> None:
    """Recompute one verifiable roll: the commitment and every face; or check signed roll
    lines (LINE..., as the service said them) by the service's public key (--key).

    Compare the commitment with the one published before the bout's first roll,
    and the faces with the roll in the log. A bout with dice streams (its first event
    says `"dice_scheme": 2`) gives every owner its own nonces: pass the roll's
    --stream too. With LINEs: exit status 0 when every line is genuine, 1 when one is
    not (each line's verdict printed), 2 for bad input.

    \b
    Examples:
      referee verify-roll --server-seed 0000...0000 --client-seed table:tarl \\
          --nonce 0 --dice d20,d20,d6
      referee verify-roll --server-seed 0000...0000 --client-seed table:tarl \\
          --stream act:Tarl --nonce 0 --dice d20,d20,d6
      referee verify-roll --key bout-b1.json "OnlineHost: Tarl rolled ... sig:..."
    """
    if lines or key_given is not None:
        _check_lines(lines, key_given, bout_id, as_json)
        return
    missing = [
        name
        for name, value in (
            ("--server-seed", server_seed),
            ("--client-seed", client_seed),
            ("--nonce", nonce),
            ("--dice", dice_text),
        )
        if value is None
    ]
    if missing:
        raise NotationError(
            f"missing {', '.join(missing)}: give the roll's seeds, nonce and dice, or signed "
            "LINEs with --key"
        )
    assert server_seed is not None and client_seed is not None
    assert nonce is not None and dice_text is not None
    sides = parse_dice_list(dice_text)
    if not SEED_PATTERN.fullmatch(server_seed):
        # Bad input (exit 2), not a roll that fails to verify (exit 1).
        raise NotationError(f"--server-seed {server_seed!r} is not 64 lowercase hex characters")
    if stream is not None:
        try:
            owner_of(check_stream(stream))
        except RefereeError as err:
            raise NotationError(f"--stream: {err}") from None
    digest = commitment(server_seed)
    faces = verifiable_faces(server_seed, client_seed, nonce, sides, stream)
    if as_json:
        answer: dict[str, object] = {"commitment": digest, "faces": list(faces)}
        if stream is not None:
            answer["stream"] = stream
        emit_json(answer)
        return
    click.echo(f"commitment: {digest}")
    dice = ",".join(f"d{s}" for s in sides)
    where = f"{stream} " if stream is not None else ""
    click.echo(f"roll {where}{nonce} ({dice}): {' '.join(str(f) for f in faces)}")


def _check_lines(
    lines: tuple[str, ...], key_given: str | None, bout_id: str | None, as_json: bool
) -> None:
    from referee.errors import VerificationError
    from referee.ledger.signatures import check_line, read_key

    if key_given is None:
        raise NotationError("--key is needed to check signed lines (the service's public key)")
    if not lines:
        raise NotationError("no LINE to check (give each signed roll line as an argument)")
    key = read_key(read_key_option(key_given))
    found = [check_line(line, key, bout_id) for line in lines]
    if as_json:
        emit_json(
            {
                "key_id": key.key_id,
                "lines": [
                    {"genuine": c.genuine, "reason": c.reason, "bout_tag": c.tag} for c in found
                ],
            }
        )
    else:
        for number, check in enumerate(found, start=1):
            click.echo(
                f"line {number}: {'genuine' if check.genuine else 'NOT genuine'}: {check.reason}"
            )
    bad = [n for n, c in enumerate(found, start=1) if not c.genuine]
    if bad:
        first = found[bad[0] - 1]
        more = f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
        raise VerificationError(f"line {bad[0]} is not genuine: {first.reason}{more}")
