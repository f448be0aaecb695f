"""What of each SRP outcome stays public while a fighter it names has hidden stats (SRP-10).

The public part of an outcome is who did what to whom, the dice, the levels they reached, the
damage rolled and the hits (docs/api.md). Anything computed from a hidden stat is left out: the
effective skill, a volley's skill and the reason that gives it, the armor, the explanation lines,
the defense a break-free roll is measured against, a spirit round's totals and PM. A key not
named here is left out too, so a field added to a payload later stays private until it is
declared public here.

>>> sorted(PUBLIC_OUTCOMES["break_free"])
['freed', 'roll', 'step']
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.systems.base import PublicShape

#: One strike (a melee attack, a charge's extra attack): its dice and levels, the damage rolled,
#: the hits and a stun. `defense` is the kind of defense (weapon, shield, avoid, none).
STRIKE: PublicShape = {
    "dice": True, "attack_level": True, "defense": True, "defense_level": True,
    "hit_level": True, "damage": True, "hits": True, "stun": True,
}  # fmt: skip
#: One shot of a volley.
SHOT: PublicShape = {"dice": True, "attack_level": True, "hit_level": True, "hits": True}
#: A special action (SRP-16): whether it worked and the conditions it left.
SPECIAL: PublicShape = {
    "target": True, "action": True, "dice": True, "attack_level": True,
    "defense_level": True, "worked": True, "effects": True,
}  # fmt: skip
#: A move, step or charge: the path walked, the zone that stopped it, and each extra attack
#: made on the mover (SRP-15), by whom, or why it was not made.
MOVE: PublicShape = {
    "path": True,
    "stopped_by": True,
    "extra_attacks": {"attacker": True, "skipped": True, **STRIKE},
}

PUBLIC_OUTCOMES: Mapping[str, PublicShape] = {
    "attack": {"target": True, "weapon": True, "rear": True, **STRIKE},
    "shoot": {"target": True, "weapon": True, "range": True, "fire": True, "hits": True,
              "shots": SHOT},
    **{kind: SPECIAL for kind in ("disarm", "entangle", "grapple", "unhorse")},
    # The second step's roll is public; the defense it is measured against is not.
    "break_free": {"step": True, "roll": True, "freed": True},
    "pick_up": {},
    "release": {"released": True},
    **{kind: MOVE for kind in ("move", "step", "charge")},
    "face": {"facing": True},
    # Who led, who helped, the dice, who lost PM and who passed out; the totals (2d6 + Spirit)
    # and the PM after the round are the summary's, which says `?` for a hidden one.
    "spirit": {"target": True, "helpers": True, "leads": True, "dice": True, "lost_pm": True,
               "passed_out": True},
    "pass": {},
}  # fmt: skip
