"""Dice notation in three dialects, AOL chat dice, exact odds: parse, roll, render, odds.

>>> from referee.rng import ScriptedRng
>>> expr = parse("2d20+1d6")
>>> result = roll(expr, rng=ScriptedRng([14, 3, 5]))
>>> render(result)
'2d20+1d6 = [14, 3] + [5] = 22'
>>> (expr.minimum, expr.maximum)
(3, 46)
"""

from referee.dice.bounds import bounds
from referee.dice.chat import (
    AOL_DICE,
    AOL_SIDES,
    HostLine,
    aol_dice,
    format_host_line,
    parse_chat,
    parse_host_line,
)
from referee.dice.dialects import DEFAULT_DIALECT, DIALECTS, Dialect, dialect
from referee.dice.expr import (
    BinOp,
    Call,
    Compare,
    Const,
    Degrees,
    Dice,
    Explode,
    Expr,
    Keep,
    KeepMode,
    Label,
    Neg,
    Number,
    Op,
    Pool,
    Success,
)
from referee.dice.limits import DEFAULT_LIMITS, Limits
from referee.dice.notation import write
from referee.dice.odds import Odds, odds
from referee.dice.parser import parse, parse_cached
from referee.dice.plan import roll, roll_group, roll_text
from referee.dice.render import render, show_die
from referee.dice.rolling import Die, GroupRoll, PoolRoll, RollResult

__all__ = [
    "AOL_DICE",
    "AOL_SIDES",
    "DEFAULT_DIALECT",
    "DEFAULT_LIMITS",
    "DIALECTS",
    "BinOp",
    "Call",
    "Compare",
    "Const",
    "Degrees",
    "Dialect",
    "Dice",
    "Die",
    "Explode",
    "Expr",
    "GroupRoll",
    "HostLine",
    "Keep",
    "KeepMode",
    "Label",
    "Limits",
    "Neg",
    "Number",
    "Odds",
    "Op",
    "Pool",
    "PoolRoll",
    "RollResult",
    "Success",
    "aol_dice",
    "bounds",
    "dialect",
    "format_host_line",
    "odds",
    "parse",
    "parse_cached",
    "parse_chat",
    "parse_host_line",
    "render",
    "roll",
    "roll_group",
    "roll_text",
    "show_die",
    "write",
]
