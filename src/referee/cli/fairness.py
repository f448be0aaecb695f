"""`referee verify-roll`: check one verifiable roll by hand."""

from __future__ import annotations

import re

import click

from referee.cli.output import emit_json
from referee.errors import NotationError
from referee.numerals import is_whole
from referee.rng import commitment, verifiable_faces

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
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def verify_roll(
    server_seed: str, client_seed: str, nonce: int, dice_text: str, as_json: bool
) -> None:
    """Recompute one verifiable roll: the commitment and every face.

    Compare the commitment with the one published before the bout's first roll,
    and the faces with the roll in the log.

    \b
    Examples:
      referee verify-roll --server-seed 0000...0000 --client-seed table:tarl \\
          --nonce 0 --dice d20,d20,d6
    """
    sides = parse_dice_list(dice_text)
    if not SEED_PATTERN.fullmatch(server_seed):
        # Bad input (exit 2), not a roll that fails to verify (exit 1).
        raise NotationError(f"--server-seed {server_seed!r} is not 64 lowercase hex characters")
    digest = commitment(server_seed)
    faces = verifiable_faces(server_seed, client_seed, nonce, sides)
    if as_json:
        emit_json({"commitment": digest, "faces": list(faces)})
        return
    click.echo(f"commitment: {digest}")
    dice = ",".join(f"d{s}" for s in sides)
    click.echo(f"roll {nonce} ({dice}): {' '.join(str(f) for f in faces)}")
