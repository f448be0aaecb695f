"""Enum members of the dice notation as plain module names, for the hot paths.

Read off its class (`Kind.KEEP`), a member goes through `EnumType.__getattr__`'s slot on
Python 3.11, about the cost of a function call; the readers and rollers (`lone`, `parser`,
`rolling`) look these names up instead, many times per roll.

>>> KIND_KEEP is Kind.KEEP and OP_ADD is Op.ADD
True
"""

from __future__ import annotations

from referee.dice.dialects import Arg, Kind
from referee.dice.expr import Compare, Explode, KeepMode, Op

ARG_NONE = Arg.NONE
ARG_NUMBER = Arg.NUMBER
ARG_NUMBER_OR_ONE = Arg.NUMBER_OR_ONE
ARG_POINT_OR_TOP = Arg.POINT_OR_TOP
ARG_SELECTOR = Arg.SELECTOR
CMP_EQ = Compare.EQ
CMP_GE = Compare.GE
CMP_LE = Compare.LE
EXPLODE_COMPOUND = Explode.COMPOUND
EXPLODE_EACH = Explode.EACH
EXPLODE_PENETRATE = Explode.PENETRATE
KIND_ADD_ONCE = Kind.ADD_ONCE
KIND_CEILING = Kind.CEILING
KIND_CRIT = Kind.CRIT
KIND_EXPLODE = Kind.EXPLODE
KIND_FAILURE = Kind.FAILURE
KIND_FLOOR = Kind.FLOOR
KIND_FUMBLE = Kind.FUMBLE
KIND_KEEP = Kind.KEEP
KIND_REROLL = Kind.REROLL
KIND_REROLL_ONCE = Kind.REROLL_ONCE
KIND_SUCCESS = Kind.SUCCESS
MODE_DROP_HIGHEST = KeepMode.DROP_HIGHEST
MODE_DROP_LOWEST = KeepMode.DROP_LOWEST
MODE_HIGHEST = KeepMode.HIGHEST
MODE_LOWEST = KeepMode.LOWEST
MODE_MATCHING = KeepMode.MATCHING
OP_ADD = Op.ADD
OP_DIV = Op.DIV
OP_EQ = Op.EQ
OP_FLOORDIV = Op.FLOORDIV
OP_GE = Op.GE
OP_GT = Op.GT
OP_LT = Op.LT
OP_MOD = Op.MOD
OP_MUL = Op.MUL
OP_NE = Op.NE
OP_SUB = Op.SUB
