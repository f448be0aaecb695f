"""A whole d20 text read by one tokenising regex and a short descent over its tokens.

`scan` cuts a lower-cased text into tokens with one `findall` (numbers, groups with their
modifiers, operators, parentheses, commas, labels, a set's keep), reads each group's
modifiers with one match of a regex built from the dialect's table, and builds the tree with
a small descent over the tokens: sums of products of signed, labelled atoms, parentheses and
sets, as the grammar (parser.py) reads them. It reads only what the grammar would read the
same way, and declines anything else (a comparison, a bound passed, a divisor that can be 0,
a modifier out of order, a label in other letter case than the text's, any stray mark) by
giving None; the grammar then reads the text and says what is wrong. Tests compare the two.

Only a dialect that writes its modifiers in referee's order (d20) has a scanner: there, each
stage of a group's modifiers is one optional part of one regex.

>>> from referee.dice.dialects import DIALECTS
>>> from referee.dice.limits import DEFAULT_LIMITS
>>> scan("4d6kh3 + (1, 2d4)kl1", "4d6kh3 + (1, 2d4)kl1", DEFAULT_LIMITS, DIALECTS["d20"])
parse('4d6kh3+{1,2d4}kl1')
>>> scan("1d20 > 10", "1d20 > 10", DEFAULT_LIMITS, DIALECTS["d20"]) is None
True
"""

from __future__ import annotations

import re
from typing import Any

from referee.dice.bounds import bounds
from referee.dice.dialects import Dialect, Modifier
from referee.dice.expr import (
    BinOp,
    Compare,
    Const,
    Dice,
    Expr,
    KeepMode,
    Label,
    Neg,
    Number,
    Pool,
)
from referee.dice.limits import Limits
from referee.dice.lone import keep, most_dice_of, success
from referee.dice.members import (
    ARG_NUMBER,
    ARG_SELECTOR,
    CMP_EQ,
    EXPLODE_EACH,
    KIND_ADD_ONCE,
    KIND_CEILING,
    KIND_EXPLODE,
    KIND_FLOOR,
    KIND_KEEP,
    KIND_REROLL,
    KIND_REROLL_ONCE,
    MODE_DROP_HIGHEST,
    MODE_DROP_LOWEST,
    MODE_HIGHEST,
    MODE_LOWEST,
    MODE_MATCHING,
    OP_ADD,
    OP_DIV,
    OP_FLOORDIV,
    OP_MOD,
    OP_MUL,
    OP_SUB,
)

_PRODUCT = {"*": OP_MUL, "/": OP_DIV, "//": OP_FLOORDIV, "%": OP_MOD}
_new = tuple.__new__  # a node made without its named tuple's Python-level `__new__`: the same
_PLAIN_TAIL = Dice(1, 1)[2:]  # every field of a group after count and sides, at its default
_KEEP_TAIL = Dice(1, 1)[4:]  # every field after `keep` at its default
_INDEX = {name: i for i, name in enumerate(Dice._fields)}
_NUMBERS = {str(number): number for number in range(1, 1001)}
"""Numbers as written, for the counts and sides most texts write (a lookup costs a fifth of
`int`'s call; a number not here, `0` or `07` say, is read by `int`)."""
_REROLL, _REROLL_ONCE, _ADD_ON = _INDEX["reroll"], _INDEX["reroll_once"], _INDEX["add_on"]
_FLOOR, _CEILING, _KEEP = _INDEX["floor"], _INDEX["ceiling"], _INDEX["keep"]
_EXPLODE, _EXPLODE_ON = _INDEX["explode"], _INDEX["explode_on"]


class _Declined(Exception):
    """Raised inside the descent when the text is not one the scanner reads as the grammar."""


class _Table:
    """One dialect's group regex, by stage: rerolls (any number, one run), add once, floor,
    ceiling, explode, keep; with what each stage's letters mean."""

    __slots__ = ("compares", "group", "modes", "pool_keep", "rerolls", "tokens")

    def __init__(self, dialect: Dialect, by_kind: dict[Any, list[Modifier]]) -> None:
        point = "([<>]?)([0-9]+)"
        rerolls = "|".join(
            re.escape(m.letters) for m in by_kind[KIND_REROLL] + by_kind[KIND_REROLL_ONCE]
        )
        keeps = "|".join(re.escape(m.letters) for m in by_kind[KIND_KEEP])
        self.group = re.compile(
            f"([0-9]*)d([0-9]+)"
            f"((?:(?:{rerolls})[<>]?[0-9]+)*)"
            f"(?:{re.escape(by_kind[KIND_ADD_ONCE][0].letters)}{point})?"
            f"(?:{re.escape(by_kind[KIND_FLOOR][0].letters)}([0-9]+))?"
            f"(?:{re.escape(by_kind[KIND_CEILING][0].letters)}([0-9]+))?"
            f"(?:{re.escape(by_kind[KIND_EXPLODE][0].letters)}{point})?"
            f"(?:({keeps})(?:([hl])|([<>]?))([0-9]+))?"
        )
        self.rerolls = re.compile(f"({rerolls})([<>]?)([0-9]+)")
        self.pool_keep = re.compile(f"({keeps})(?:([hl])|([<>]?))([0-9]+)")
        # A token after blanks: an operator or mark, a group and every letter, mark and digit
        # after it (its modifiers, or whatever stray follows: the group regex then declines
        # it), a number, a label, a keep right after a set's ')' (after blanks it is a stray
        # letter, as in the grammar), or any other single character (declined).
        self.tokens = re.compile(
            r"[ \t]*(//|[-+*/%(),]|[0-9]*d[0-9]+[a-z<>=!0-9]*|[0-9]+|\[[^\]]*\]"
            rf"|(?<![ \t])(?:{keeps})[hl<>]?[0-9]+|[^ \t])"
        )
        self.compares: dict[str, Compare] = {p: c for p, c in dialect.points}
        self.modes: dict[str, tuple[Any, bool]] = {}
        for kind in (KIND_REROLL, KIND_REROLL_ONCE, KIND_KEEP):
            for mod in by_kind[kind]:
                self.modes[mod.letters] = (mod.mode, kind is KIND_REROLL_ONCE)


_TABLES: dict[str, _Table | None] = {}


def _table(dialect: Dialect) -> _Table | None:
    """The dialect's group regex, or None when the dialect is not one the scanner reads: its
    modifiers not written in one order, not sets and labels, or not of d20's shapes."""
    found = _TABLES.get(dialect.name, False)
    if found is not False:
        return found  # type: ignore[return-value]
    by_kind: dict[Any, list[Modifier]] = {
        kind: []
        for kind in (
            KIND_REROLL,
            KIND_REROLL_ONCE,
            KIND_ADD_ONCE,
            KIND_FLOOR,
            KIND_CEILING,
            KIND_EXPLODE,
            KIND_KEEP,
        )
    }
    fits = (
        dialect.written_order
        and dialect.sets
        and dialect.labels
        and not dialect.braces
        and not dialect.functions
        and not dialect.percent_die
        and dialect.unary_plus
        and not dialect.fudge_dice
        and not dialect.fudge_count
        and not dialect.degrees
        and not dialect.aol
        and not dialect.prefixes
        and dialect.points == ((">", Compare.GT), ("<", Compare.LT), ("", Compare.EQ))
        and set(dialect.operators) == set(_PRODUCT) | {"+", "-"}
        and dialect.pool == tuple(m for m in dialect.dice if m.kind is KIND_KEEP)
    )
    letters = [m.letters for m in dialect.dice]
    for mod in dialect.dice:
        group = by_kind.get(mod.kind)
        if group is None or not _d20_shaped(mod):
            fits = False
        else:
            group.append(mod)
        if any(o != mod.letters and o.startswith(mod.letters) for o in letters):
            fits = False  # the grammar picks the longest letters; one regex might not
    for kind, mods in by_kind.items():
        if not mods or (len(mods) > 1 and kind not in (KIND_KEEP,)):
            fits = False
    table = _Table(dialect, by_kind) if fits else None
    _TABLES[dialect.name] = table
    return table


def _d20_shaped(mod: Modifier) -> bool:
    """Whether a modifier takes what the d20 dialect's of its kind take."""
    number = mod.kind is KIND_FLOOR or mod.kind is KIND_CEILING
    if mod.arg is not (ARG_NUMBER if number else ARG_SELECTOR) or not mod.letters.isalpha():
        return False
    if mod.kind is KIND_EXPLODE:
        return mod.mode is EXPLODE_EACH
    return mod.kind is not KIND_KEEP or mod.mode in (MODE_MATCHING, KeepMode.NOT_MATCHING)


def scan(text: str, low: str, limits: Limits, dialect: Dialect) -> Expr | None:
    """The tree of a whole lower-cased text `low` (`text` as written), as the grammar reads it;
    None when the scanner does not read it (the grammar then does)."""
    table = _TABLES[dialect.name] if dialect.name in _TABLES else _table(dialect)
    if table is None or "[[" in low:
        return None
    tokens = table.tokens.findall(low)
    if len(tokens) == 1:  # one group and its modifiers (`4d6kh3`), or nothing it reads
        try:
            return _group(tokens[0], table, limits, dialect)[0]
        except _Declined:
            return None
    if not tokens:
        return None
    reader = _Reader(text is low or text == low, "[" in low, tokens, limits, dialect, table)
    try:
        node = reader.sum()
    except (_Declined, IndexError):  # (IndexError: the tokens ended where one must come)
        return None
    if reader.at != len(tokens) or reader.dice > limits.max_dice:
        return None
    return node


class _Reader:
    """The descent over one text's tokens; `at` is the index of the next token."""

    __slots__ = ("at", "d", "dice", "labels", "limits", "nesting", "same_case", "table", "tokens")

    def __init__(
        self,
        same_case: bool,
        labels: bool,
        tokens: list[str],
        limits: Limits,
        dialect: Dialect,
        table: _Table,
    ) -> None:
        self.same_case = same_case  # labels are read from the lower-cased text
        self.labels = labels  # whether the text has a '[' (else no token is a label)
        self.tokens = tokens
        self.at = 0
        self.limits = limits
        self.d = dialect
        self.table = table
        self.dice = 0
        self.nesting = 0

    def sum(self) -> Expr:
        """Products joined by + and -, each of signed atoms joined by * / // %, left to right
        (the grammar's `binary(1)` and `binary(2)` in one loop). A divisor is checked as the
        grammar checks it: one that can be 0, or a `%` side that can be negative, declined."""
        tokens = self.tokens
        end = len(tokens)
        node: Expr | None = None
        join = OP_ADD  # the sign before the next product (none before the first)
        while True:
            term = self.operand()
            while self.at < end and tokens[self.at] in _PRODUCT:
                op = _PRODUCT[tokens[self.at]]
                self.at += 1
                right = self.operand()
                if op is not OP_MUL:
                    self.check_divisor(op, term, right)
                term = _new(BinOp, (op, term, right))
            node = term if node is None else _new(BinOp, (join, node, term))
            if self.at == end:
                return node
            token = tokens[self.at]
            if token == "+":
                join = OP_ADD
            elif token == "-":
                join = OP_SUB
            else:
                return node
            self.at += 1

    def check_divisor(self, op: Any, left: Expr, right: Expr) -> None:
        low: Number
        if _at_least_one(right):
            low = 1  # (what `bounds` finds is 1 at least)
        else:
            low, high = bounds(right, self.limits)
            if low <= 0 <= high:
                raise _Declined
        if (
            op is OP_MOD
            and self.d.python_remainder
            and (low < 0 or bounds(left, self.limits)[0] < 0)
        ):
            raise _Declined

    def operand(self) -> Expr:
        """A signed atom and its labels (the grammar's `unary`)."""
        tokens = self.tokens
        token = tokens[self.at]
        self.at += 1
        first = token[0]
        node: Expr
        if "0" <= first <= "9" or first == "d":
            if "d" not in token:
                node = _new(Const, ((_NUMBERS.get(token) or int(token)),))
            else:
                count, _, sides = token.partition("d")
                if sides.isdigit():  # a plain group
                    many = (_NUMBERS.get(count) or int(count)) if count else 1
                    size = _NUMBERS.get(sides) or int(sides)
                    limits = self.limits
                    if not (1 <= many <= limits.max_dice and 1 <= size <= limits.max_sides):
                        raise _Declined
                    self.dice += many
                    node = _new(Dice, (many, size, *_PLAIN_TAIL))
                else:
                    node, most = _group(token, self.table, self.limits, self.d)
                    self.dice += most
        elif first == "(":
            node = self.parenthesis()
        elif first == "-" or first == "+":
            self.nesting += 1
            if self.nesting > self.limits.max_nesting:
                raise _Declined
            inner = self.operand()
            self.nesting -= 1
            return _new(Neg, (inner,)) if first == "-" else inner
        else:
            raise _Declined
        while self.labels and self.at < len(tokens) and tokens[self.at][0] == "[":
            label = tokens[self.at]
            if len(label) == 1 or not self.same_case:
                raise _Declined  # not closed; or the label as written is not the token
            node = _new(Label, (node, label[1:-1]))
            self.at += 1
        return node

    def parenthesis(self) -> Expr:
        """From after '(': a parenthesis, or a set (`(a, b)`, `(a,)`, `()`) and its keep."""
        self.nesting += 1
        if self.nesting > self.limits.max_nesting:
            raise _Declined
        tokens = self.tokens
        if tokens[self.at] == ")":
            self.at += 1
            self.nesting -= 1
            return self.pool(())
        node = self.sum()
        items = [node]
        is_set = False
        while tokens[self.at] == ",":
            is_set = True
            self.at += 1
            if tokens[self.at] == ")":
                break
            items.append(self.sum())
        if tokens[self.at] != ")":
            raise _Declined
        self.at += 1
        self.nesting -= 1
        if is_set:
            return self.pool(tuple(items))
        if self.at < len(tokens) and self.table.pool_keep.match(tokens[self.at]):
            kept = self.pool((node,))
            if type(node) is not Dice:
                return kept
            if node.keep is not None:
                raise _Declined  # a second keep on the group: the grammar refuses it
            return node._replace(keep=kept.keep)  # d20 keeps among the dice of `(3d6)kh1`
        return node

    def pool(self, items: tuple[Expr, ...]) -> Pool:
        """A set of `items`, with the keep that follows its ')' at once (if any)."""
        tokens = self.tokens
        if self.at < len(tokens):
            found = self.table.pool_keep.fullmatch(tokens[self.at])
            if found is not None:
                self.at += 1
                letter, side, mark, number = found.groups()
                kept = _keep(self.table, letter, side, mark, number)
                return _new(Pool, (items, kept, None, None, False))
        return _new(Pool, (items, None, None, None, False))


def _at_least_one(node: Expr) -> bool:
    """Whether every roll of `node` (a tree the scanner made) gives 1 or more, as `bounds`
    finds it, told without `bounds`: a positive number; a group (its faces are 1 or more,
    rerolled, raised or exploded) whose ceiling is 1 or more and whose keep is by rank and
    keeps a die; a set of such items, not empty, whose keep is by rank and keeps an item;
    any of these labelled. False for anything else (then `bounds` is asked)."""
    while type(node) is Label:
        node = node.operand
    if type(node) is Const:
        return node.value > 0
    if type(node) is Dice:
        ceiling, kept = node.ceiling, node.keep
        return (ceiling is None or ceiling >= 1) and (
            kept is None or (kept.test is None and kept.kept(node.count) >= 1)
        )
    if type(node) is Pool:
        items, kept = node.items, node.keep
        return (
            len(items) > 0
            and (kept is None or (kept.test is None and kept.kept(len(items)) >= 1))
            and all(_at_least_one(item) for item in items)
        )
    return False


def _group(token: str, table: _Table, limits: Limits, dialect: Dialect) -> tuple[Dice, int]:
    """A group with modifiers, from the dialect's group regex, checked as `lone.group_at`
    checks it, and the most dice it may throw."""
    found = table.group.fullmatch(token)
    if found is None:
        raise _Declined
    (
        count_text,
        sides_text,
        rerolls,
        add_mark,
        add_on,
        floor,
        ceiling,
        on_mark,
        on,
        letter,
        side,
        mark,
        number,
    ) = found.groups()
    count = (_NUMBERS.get(count_text) or int(count_text)) if count_text else 1
    sides = _NUMBERS.get(sides_text) or int(sides_text)
    if not (1 <= count <= limits.max_dice and 1 <= sides <= limits.max_sides):
        raise _Declined
    compares = table.compares
    if letter is not None and not (rerolls or add_on or floor or ceiling or on):
        # the commonest (`4d6kh3`, `2d20kl1`): a keep alone, nothing else to check
        kept = _keep(table, letter, side, mark, number)
        return _new(Dice, (count, sides, False, kept, *_KEEP_TAIL)), count
    if on is not None and (rerolls or add_on is not None or floor or ceiling):
        raise _Declined  # pairs d20 means otherwise (`lone.written_order_conflict`)
    if add_on is not None and (floor or ceiling):
        raise _Declined
    made = [count, sides, *_PLAIN_TAIL]  # `Dice(count, sides, ...)`, field by field
    depth = limits.max_explode_depth
    most = count  # the most dice it may throw, as `Dice.most_dice` counts them
    if rerolls:
        tests: tuple[Any, ...] = ()
        once = None
        for letters, reroll_mark, target in table.rerolls.findall(rerolls):
            this = table.modes[letters][1]
            if once is not None and once is not this:
                raise _Declined  # once and repeatedly: the grammar refuses it
            once = this
            tests = (*tests, success(compares[reroll_mark], (_NUMBERS.get(target) or int(target))))
        made[_REROLL] = tests
        if once:
            made[_REROLL_ONCE] = True
        if len(tests) == 1:
            lowest, highest = tests[0].passing_range()
            if lowest <= 1 and highest >= sides:
                raise _Declined  # it rerolls every face, so it would never stop
        most = count * ((1 if once else depth) + 1)
    if add_on is not None:
        made[_ADD_ON] = success(compares[add_mark], (_NUMBERS.get(add_on) or int(add_on)))
        most += 1
    if floor is not None:
        made[_FLOOR] = _NUMBERS.get(floor) or int(floor)
    if ceiling is not None:
        made[_CEILING] = _NUMBERS.get(ceiling) or int(ceiling)
    if on is not None:
        made[_EXPLODE] = True
        test = success(compares[on_mark], (_NUMBERS.get(on) or int(on)))
        if test.compare is not CMP_EQ or test.target != sides:
            made[_EXPLODE_ON] = test  # (the top face is what `e` alone means)
            lowest, highest = test.passing_range()
        else:
            lowest = highest = sides
        if lowest <= 1 and highest >= sides:
            raise _Declined  # it explodes on every face, so it would never stop
        most = count * (depth + 1)
    if letter is not None:
        made[_KEEP] = _keep(table, letter, side, mark, number)
    dice: Dice = _new(Dice, made)
    if rerolls and len(tests) > 1:  # `ro1ro2`: every face tried, as the grammar tries them
        checked = most_dice_of(dice, limits, dialect)
        if checked is None:
            raise _Declined
    if most > limits.max_dice:
        raise _Declined
    return dice, most


def _keep(table: _Table, letter: str, side: str | None, mark: str | None, number: str) -> Any:
    mode = table.modes[letter][0]
    count = _NUMBERS.get(number) or int(number)
    if side is None:
        assert mark is not None
        return keep(mode, 0, success(table.compares[mark], count))
    keeping = mode is MODE_MATCHING
    if side == "h":
        return keep(MODE_HIGHEST if keeping else MODE_DROP_HIGHEST, count)
    return keep(MODE_LOWEST if keeping else MODE_DROP_LOWEST, count)
