"""Writing a tree as notation in a dialect; parsing the text back in it gives an equal tree.

>>> from referee.dice import parse
>>> write(parse("4d6k3", dialect="d20"), "d20"), write(parse("4d6d1"), "d20")
('4d6k3', '4d6pl1')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.dice.dialects import DEFAULT_DIALECT, DIALECTS, Dialect, dialect
from referee.dice.fields import (
    BinOpFields,
    CallFields,
    ConstFields,
    DegreesFields,
    DiceFields,
    LabelFields,
    NegFields,
    PoolFields,
)
from referee.dice.tree import Compare, Explode, Keep, KeepMode, Op, Success
from referee.errors import NotationError

if TYPE_CHECKING:
    from referee.dice.expr import Expr

_ATOM = 4
_SIGN = 3
_PRECEDENCE = {
    Op.ADD: 1,
    Op.SUB: 1,
    Op.MUL: 2,
    Op.DIV: 2,
    Op.FLOORDIV: 2,
    Op.MOD: 2,
}

Leaf = Callable[["Expr"], str | None]


def precedence(node: Expr) -> int:
    """How tightly a node binds: comparisons 0, sums 1, products 2, signs 3, atoms 4.

    >>> from referee.dice.expr import BinOp, Const
    >>> precedence(BinOp(Op.MUL, Const(2), Const(3)))
    2
    """
    if isinstance(node, BinOpFields):
        return _PRECEDENCE.get(node.op, 0)
    return _SIGN if isinstance(node, NegFields) else _ATOM


def write(node: Expr, name: str | Dialect = DEFAULT_DIALECT) -> str:
    """The notation of a tree in one dialect; `NotationError` where it has no spelling.

    >>> from referee.dice import parse
    >>> write(parse("(1d20, 1d20)kh1", dialect="d20"), "roll20")
    '{1d20,1d20}kh1'
    """
    return show(node, dialect(name))


def canonical(node: Expr) -> str:
    """`str(node)`: roll20 notation, or the first dialect that can write the node."""
    return canonical_pair(node)[1]


def canonical_repr(node: Expr) -> str:
    """`repr(node)`: the call that parses it back.

    >>> from referee.dice import parse
    >>> parse("8d6mi2", dialect="d20")
    parse('8d6mi2', dialect='d20')
    """
    name, text = canonical_pair(node)
    if name == DEFAULT_DIALECT.name:
        return f"parse({text!r})"
    return f"parse({text!r}, dialect={name!r})"


def canonical_pair(node: Expr) -> tuple[str, str]:
    """The dialect `str(node)` is written in, and the text.

    >>> from referee.dice import parse
    >>> canonical_pair(parse("8d6mi2", dialect="d20"))
    ('d20', '8d6mi2')
    """
    for candidate in DIALECTS.values():
        try:
            return candidate.name, show(node, candidate)
        except NotationError:
            continue
    raise NotationError(f"no dialect can write {node!r:.80}")  # pragma: no cover


def show(node: Expr, d: Dialect, leaf: Leaf | None = None, spaced: bool = False) -> str:
    """Write a tree, with parentheses only where it needs them.

    `leaf(node)` may write a dice group, number or pool its own way (rendering a roll);
    `spaced` puts spaces around binary operators.
    """
    if leaf is not None:
        own = leaf(node)
        if own is not None:
            return own
    if isinstance(node, BinOpFields):
        mine = precedence(node)
        if node.op.value not in d.operators and not (mine == 0 and d.comparisons):
            raise NotationError(f"{d.name} has no operator {node.op.value!r}")
        left = show(node.left, d, leaf, spaced)
        right = show(node.right, d, leaf, spaced)
        if precedence(node.left) < mine:
            left = f"({left})"
        if precedence(node.right) <= mine:
            right = f"({right})"
        sep = f" {node.op.value} " if spaced else node.op.value
        return f"{left}{sep}{right}"
    if isinstance(node, NegFields):
        inner = show(node.operand, d, leaf, spaced)
        return f"-({inner})" if precedence(node.operand) < _SIGN else f"-{inner}"
    if isinstance(node, ConstFields):
        return str(node.value)
    if isinstance(node, LabelFields):
        if not d.labels:
            raise NotationError(f"{d.name} has no labels")
        inner = show(node.operand, d, leaf, spaced)
        if precedence(node.operand) < _ATOM or isinstance(node.operand, NegFields):
            inner = f"({inner})"
        return f"{inner}[{node.text}]"
    if isinstance(node, CallFields):
        if not d.functions:
            raise NotationError(f"{d.name} has no function {node.function}()")
        return f"{node.function}({show(node.operand, d, leaf, spaced)})"
    if isinstance(node, PoolFields):
        return _pool(node, d, leaf, spaced)
    if isinstance(node, DegreesFields):
        if not d.degrees:
            raise NotationError(f"{d.name} has no degrees of success")
        return f"dh{node.target}"
    return group_text(node, d)


def _pool(node: PoolFields, d: Dialect, leaf: Leaf | None, spaced: bool) -> str:
    items = [show(item, d, leaf, spaced) for item in node.items]
    sep = ", " if spaced else ","
    if d.braces and len(items) == 1 and node.keep is not None and not node.dice_level:
        raise NotationError("roll20 keeps among the dice of a one-item group")
    if d.braces:
        body = "{" + sep.join(items) + "}"
    elif d.sets and not node.dice_level:
        body = "(" + sep.join(items) + ("," if len(items) == 1 else "") + ")"
    else:
        raise NotationError(f"{d.name} has no pools")
    if node.failure is not None and not d.braces:
        raise NotationError(f"{d.name} counts no failures")
    if node.success is not None and not d.braces:
        raise NotationError(f"{d.name} counts no successes in a pool")
    text = body + (_keep(node.keep, d) if node.keep is not None else "")
    if node.success is not None:
        text += _success(node.success)
    if node.failure is not None:
        text += "f" + _point(node.failure, d)
    return text


def group_text(group: DiceFields, d: Dialect) -> str:
    """The notation of one dice group in one dialect.

    >>> from referee.dice.expr import Dice
    >>> group_text(Dice(1, 100, explode=True, success=Success(Compare.GE, 90)), DEFAULT_DIALECT)
    '1d100!100>90'
    """
    if group.fudge:
        if d.fudge_dice:
            text = f"{group.count}dF"
        elif d.fudge_count:
            text = f"{group.count}f"
        else:
            raise NotationError(f"{d.name} has no Fudge dice")
    else:
        text = f"{group.count}d{group.sides}"
    if group.plain:
        return text
    writer = _WRITERS[d.name]
    return text + writer(group, d)


def _roll20(group: DiceFields, d: Dialect) -> str:
    if group.add_on is not None or group.floor is not None or group.ceiling is not None:
        raise NotationError("roll20 has no ra, mi or ma")
    text = "".join(("ro" if group.reroll_once else "r") + _point(t, d) for t in group.reroll)
    if group.explode:
        text += group.explode_kind.value
        if group.explode_on is not None:
            text += _point(group.explode_on, d)
        elif group.keep is None and group.success is not None:
            text += str(1 if group.fudge else group.sides)  # `!>5` would explode on 5+
    if group.keep is not None:
        text += _keep(group.keep, d)
    if group.success is not None:
        text += _success(group.success)
    if group.failure is not None:
        text += "f" + _point(group.failure, d)
    if group.crit is not None:
        text += "cs" + _point(group.crit, d)
    if group.fumble is not None:
        text += "cf" + _point(group.fumble, d)
    if group.order:
        text += "s" + group.order
    return text


def _onlinehost(group: DiceFields, d: Dialect) -> str:
    extra = (group.reroll, group.add_on, group.floor, group.ceiling, group.failure)
    marks = (group.crit, group.fumble, group.order)
    if any(extra) or any(marks) or group.explode_kind is not Explode.EACH:
        raise NotationError("onlinehost has no such modifier")
    text = ""
    if group.explode:
        text += "!" + (_point(group.explode_on, d) if group.explode_on is not None else "")
    if group.keep is not None:
        text += _keep(group.keep, d)
    if group.success is not None:
        text += "c" + _point(group.success, d)
    return text


def _d20(group: DiceFields, d: Dialect) -> str:
    if group.failure is not None or group.crit is not None or group.fumble is not None:
        raise NotationError("d20 has no f, cs or cf")
    if group.order or group.explode_kind is not Explode.EACH or group.success is not None:
        raise NotationError("d20 has no such modifier")
    text = "".join(("ro" if group.reroll_once else "rr") + _point(t, d) for t in group.reroll)
    if group.add_on is not None:
        text += "ra" + _point(group.add_on, d)
    if group.floor is not None:
        text += f"mi{group.floor}"
    if group.ceiling is not None:
        text += f"ma{group.ceiling}"
    if group.explode:
        top = Success(Compare.EQ, 1 if group.fudge else group.sides)
        text += "e" + _point(group.explode_on or top, d)
    if group.keep is not None:
        text += _keep(group.keep, d)
    return text


_WRITERS = {"roll20": _roll20, "onlinehost": _onlinehost, "d20": _d20}


def _point(test: Success, d: Dialect) -> str:
    """A compare point in a dialect's spelling (an equal test is a bare number)."""
    if test.compare is Compare.EQ:
        return str(test.target)
    if d.name == "d20":
        if test.compare is Compare.GE:
            return f">{test.target - 1}"
        return f"<{test.target + 1}"
    if d.name == "onlinehost":
        return f"{test.compare.value}{test.target}"
    return f"{test.compare.value[0]}{test.target}"


def _success(test: Success) -> str:
    """roll20's success test: `>N` is at least N, `<N` at most N, `=N` exactly N."""
    return f"{test.compare.value[0]}{test.target}"


def _keep(keep: Keep, d: Dialect) -> str:
    mode = keep.mode
    if d.name == "d20":
        if keep.test is not None:
            return mode.value[0] + _point(keep.test, d)
        letters = {
            KeepMode.HIGHEST: "kh",
            KeepMode.LOWEST: "kl",
            KeepMode.DROP_HIGHEST: "ph",
            KeepMode.DROP_LOWEST: "pl",
        }
        return f"{letters[mode]}{keep.count}"
    if keep.test is not None:
        raise NotationError(f"{d.name} keeps no dice by value")
    if d.name == "onlinehost":
        if mode is KeepMode.HIGHEST:
            return f"k{keep.count}"
        if mode is KeepMode.DROP_HIGHEST:
            return f"d{keep.count}"
        raise NotationError("onlinehost keeps and drops the highest only")
    return f"{mode.value}{keep.count}"
