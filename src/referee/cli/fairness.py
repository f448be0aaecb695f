"""`referee verify-roll`: check one verifiable roll by hand."""

from __future__ import annotations

import re

import click

from referee.cli.output import emit_json
from referee.errors import NotationError, RefereeError
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


@click.command("verify-roll")
@click.option("--server-seed", required=True, help="The revealed server seed (64 hex characters).")
@click.option("--client-seed", required=True, help="The bout's whole client seed string.")
@click.option("--nonce", required=True, type=click.IntRange(min=0), help="The roll's nonce.")
@click.option("--dice", "dice_text", required=True, help="The roll's dice in order: d20,d20,d6.")
@click.option(
    "--stream",
    metavar="NAME",
    help="The roll's stream, in a bout with dice streams (its roll events name it): "
    "act:NAME, free:NAME or referee.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def verify_roll(
    server_seed: str,
    client_seed: str,
    nonce: int,
    dice_text: str,
    stream: str | None,
    as_json: bool,
) -> None:
    """Recompute one verifiable roll: the commitment and every face.

    Compare the commitment with the one published before the bout's first roll,
    and the faces with the roll in the log. A bout with dice streams (its first event
    says `"dice_scheme": 2`) gives every owner its own nonces: pass the roll's
    --stream too.

    \b
    Examples:
      referee verify-roll --server-seed 0000...0000 --client-seed table:tarl \\
          --nonce 0 --dice d20,d20,d6
      referee verify-roll --server-seed 0000...0000 --client-seed table:tarl \\
          --stream act:Tarl --nonce 0 --dice d20,d20,d6
    """
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
