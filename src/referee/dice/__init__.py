"""Dice notation and AOL chat dice: parse -> frozen tree, roll -> frozen result, render.

>>> from referee.rng import ScriptedRng
>>> expr = parse("2d20+1d6")
>>> result = roll(expr, rng=ScriptedRng([14, 3, 5]))
>>> render(result)
'2d20+1d6 = [14, 3] + [5] = 22'
>>> (expr.minimum, expr.maximum)
(3, 46)
"""

from referee.dice.chat import (
    AOL_DICE,
    AOL_SIDES,
    HostLine,
    aol_dice,
    format_host_line,
    parse_chat,
    parse_host_line,
)
from referee.dice.expr import (
    BinOp,
    Compare,
    Const,
    Dice,
    Expr,
    Keep,
    KeepMode,
    Neg,
    Op,
    Success,
    bounds,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.parser import parse, parse_cached
from referee.dice.rolling import (
    Die,
    GroupRoll,
    RollResult,
    render,
    roll,
    roll_group,
    roll_text,
    show_die,
)

__all__ = [
    "AOL_DICE",
    "AOL_SIDES",
    "DEFAULT_LIMITS",
    "BinOp",
    "Compare",
    "Const",
    "Dice",
    "Die",
    "Expr",
    "GroupRoll",
    "HostLine",
    "Keep",
    "KeepMode",
    "Limits",
    "Neg",
    "Op",
    "RollResult",
    "Success",
    "aol_dice",
    "bounds",
    "format_host_line",
    "parse",
    "parse_cached",
    "parse_chat",
    "parse_host_line",
    "render",
    "roll",
    "roll_group",
    "roll_text",
    "show_die",
]
