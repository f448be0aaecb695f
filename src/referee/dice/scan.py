"""The scanner: a whole text read by one tokenising regex and a short descent over its tokens,
where it reads the text exactly as the grammar (parser.py) would; else it declines.

`parse` asks the scanner first and falls back to the grammar, which then reads the text and
says what is wrong. `scan` cuts a lower-cased text into tokens with one `findall` (numbers,
groups with their modifiers, operators, parentheses, commas, labels, a set's keep) and builds
the tree with a small descent over them: sums of products of signed, labelled atoms,
parentheses and sets, as the grammar reads them, in every dialect. It declines (gives None)
whatever it is not sure of: a comparison, a bound passed, a divisor that can be 0, a form the
dialect does not have, a label in other letter case than the text's, any stray mark.

A group's modifiers are read by one match of a regex built from the dialect's table, where
the dialect writes them in referee's order (d20): there each stage is one optional part of
the regex. In the other dialects (roll20, onlinehost: modifiers in any order) a group token
is read modifier by modifier from the dialect's table (`referee.dice.modifiers`).

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
from referee.dice.dialects import Arg, Dialect, Kind, Modifier
from referee.dice.expr import (
    BinOp,
    Compare,
    Const,
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
from referee.dice.limits import Limits
from referee.dice.modifiers import read_group

_PRODUCT = {"*": Op.MUL, "/": Op.DIV, "//": Op.FLOORDIV, "%": Op.MOD}
_ADD, _SUB, _MUL, _MOD = Op.ADD, Op.SUB, Op.MUL, Op.MOD
_EQ, _EACH, _PENETRATE = Compare.EQ, Explode.EACH, Explode.PENETRATE
_MATCHING, _HIGHEST, _LOWEST = KeepMode.MATCHING, KeepMode.HIGHEST, KeepMode.LOWEST
_DROP_HIGHEST, _DROP_LOWEST = KeepMode.DROP_HIGHEST, KeepMode.DROP_LOWEST
_STAGES = (
    Kind.REROLL,
    Kind.REROLL_ONCE,
    Kind.ADD_ONCE,
    Kind.FLOOR,
    Kind.CEILING,
    Kind.EXPLODE,
    Kind.KEEP,
)
_Rerolls = tuple[tuple[Success, ...], bool, tuple[int, int] | None]  # (`_rerolls`')
_NO_REROLLS: _Rerolls = ((), False, None)
_NUMBERS = {str(number): number for number in range(1, 1001)}
"""Numbers as written, for the counts and sides most texts write (a lookup costs a fifth of
`int`'s call; a number not here, `0` or `07` say, is read by `int`)."""


class _Declined(Exception):
    """Raised inside the descent when the text is not one the scanner reads as the grammar."""


class _Table:
    """One dialect's tokens and what it scans: its operators, signs, sets, labels and, where
    it writes modifiers in referee's order, its group regex by stage (rerolls, any number of
    them in one run; add once; floor; ceiling; explode; keep) with what each letter means."""

    def __init__(self, dialect: Dialect) -> None:
        self.products = {text: op for text, op in _PRODUCT.items() if text in dialect.operators}
        self.signs = "-+" if dialect.unary_plus else "-"
        self.labels = dialect.labels
        self.sets = dialect.sets
        self.python_remainder = dialect.python_remainder
        self.dialect = dialect
        self.compares: dict[str, Compare] = dict(dialect.points)
        self.modes: dict[str, tuple[Any, bool]] = {}
        self.keeps: dict[tuple[str | None, ...], Keep] = {}  # (`_keep`'s, as written)
        self.tests: dict[tuple[str, str], Success] = {}  # (`_test`'s)
        self.reroll_runs: dict[tuple[str, str, str, str], _Rerolls] = {}  # (`_rerolls`')
        by_kind = _stages(dialect)
        self.group: re.Pattern[str] | None = None
        self.rerolls: re.Pattern[str] | None = None
        self.pool_keep: re.Pattern[str] | None = None
        keeps = "(?!)"  # (no set keeps: the pattern that matches nothing)
        if by_kind is not None:
            # Possessive (`*+`, `++`, `?+`: nothing given back once matched): every stage
            # starts with its own letters, none the start of another's, and a number ends at
            # a letter, so giving back never lets a later part match; it only costs time.
            point = "([<>]?+)([0-9]++)"
            rerolls = "|".join(
                re.escape(m.letters) for m in by_kind[Kind.REROLL] + by_kind[Kind.REROLL_ONCE]
            )
            keeps = "|".join(re.escape(m.letters) for m in by_kind[Kind.KEEP])
            self.group = re.compile(
                f"([0-9]*+)d([0-9]++)"
                f"(?:({rerolls}){point}((?:(?:{rerolls})[<>]?+[0-9]++)*+))?+"  # first, more
                f"(?:{re.escape(by_kind[Kind.ADD_ONCE][0].letters)}{point})?+"
                f"(?:{re.escape(by_kind[Kind.FLOOR][0].letters)}([0-9]++))?+"
                f"(?:{re.escape(by_kind[Kind.CEILING][0].letters)}([0-9]++))?+"
                f"(?:{re.escape(by_kind[Kind.EXPLODE][0].letters)}{point})?+"
                f"(?:({keeps})(?:([hl])|([<>]?+))([0-9]++))?+"
            )
            self.rerolls = re.compile(f"({rerolls})([<>]?)([0-9]+)")
            self.pool_keep = re.compile(f"({keeps})(?:([hl])|([<>]?))([0-9]+)")
            for kind in (Kind.REROLL, Kind.REROLL_ONCE, Kind.KEEP):
                for mod in by_kind[kind]:
                    self.modes[mod.letters] = (mod.mode, kind is Kind.REROLL_ONCE)
        # A token after blanks: an operator or mark, a group and every letter, mark and digit
        # after it (its modifiers, or whatever stray follows: then declined), a number, a
        # label, a keep right after a set's ')' (after blanks it is a stray letter, as in the
        # grammar), or any other single character (declined). Possessive, as the group's.
        self.tokens = re.compile(
            r"[ \t]*+(//|[-+*/%(),]|[0-9]*+d(?:[0-9]++|%)[a-z<>=!0-9]*+|[0-9]++|\[[^\]]*+\]"
            rf"|(?<![ \t])(?:{keeps})[hl<>]?+[0-9]++|[^ \t])"
        )


def _stages(dialect: Dialect) -> dict[Kind, list[Modifier]] | None:
    """The dialect's group modifiers by kind, when every group it writes can be read by one
    regex of stages in referee's order (d20's); else None."""
    if not dialect.written_order or dialect.fudge_dice or dialect.percent_die:
        return None
    if dialect.points != ((">", Compare.GT), ("<", Compare.LT), ("", Compare.EQ)):
        return None
    if dialect.pool != tuple(m for m in dialect.dice if m.kind is Kind.KEEP):
        return None
    by_kind: dict[Kind, list[Modifier]] = {kind: [] for kind in _STAGES}
    letters = [m.letters for m in dialect.dice]
    for mod in dialect.dice:
        if mod.kind not in by_kind or not _d20_shaped(mod):
            return None
        if any(o != mod.letters and o.startswith(mod.letters) for o in letters):
            return None  # the grammar picks the longest letters; one regex might not
        by_kind[mod.kind].append(mod)
    for kind, mods in by_kind.items():
        if not mods or (len(mods) > 1 and kind is not Kind.KEEP):
            return None
    return by_kind


def _d20_shaped(mod: Modifier) -> bool:
    """Whether a modifier takes what the d20 dialect's of its kind take."""
    number = mod.kind is Kind.FLOOR or mod.kind is Kind.CEILING
    if mod.arg is not (Arg.NUMBER if number else Arg.SELECTOR) or not mod.letters.isalpha():
        return False
    if mod.kind is Kind.EXPLODE:
        return mod.mode is Explode.EACH
    return mod.kind is not Kind.KEEP or mod.mode in (KeepMode.MATCHING, KeepMode.NOT_MATCHING)


_TABLES: dict[str, _Table] = {}


def scan(text: str, low: str, limits: Limits, dialect: Dialect) -> Expr | None:
    """The tree of a whole lower-cased text `low` (`text` as written), as the grammar reads it;
    None when the scanner does not read it (the grammar then does)."""
    table = _TABLES.get(dialect.name)
    if table is None:
        table = _TABLES[dialect.name] = _Table(dialect)
    if "[[" in low:
        return None
    tokens = table.tokens.findall(low)
    if len(tokens) == 1:  # a number or a group alone (`1d20`, `4d6kh3`)
        try:
            return _atom(tokens[0], table, limits)[0]
        except _Declined:
            return None
    reader = _Reader(text is low or text == low, "[" in low, tokens, limits, table)
    try:
        node = reader.sum()
    except (_Declined, IndexError):  # (IndexError: the tokens ended where one must come)
        return None
    if reader.at != len(tokens) or reader.dice > limits.max_dice:
        return None
    return node


class _Reader:
    """The descent over one text's tokens; `at` is the index of the next token."""

    __slots__ = ("at", "dice", "labels", "limits", "nesting", "same_case", "table", "tokens")

    def __init__(
        self, same_case: bool, labels: bool, tokens: list[str], limits: Limits, table: _Table
    ) -> None:
        self.same_case = same_case  # labels are read from the lower-cased text
        self.labels = labels and table.labels  # (no '[' in the text: no token is a label)
        self.tokens = tokens
        self.at = 0
        self.limits = limits
        self.table = table
        self.dice = 0
        self.nesting = 0

    def sum(self) -> Expr:
        """Products joined by + and -, each of signed atoms joined by * / // %, left to right
        (the grammar's `binary(1)` and `binary(2)` in one loop). A divisor is checked as the
        grammar checks it: one that can be 0, or a `%` side that can be negative, declined."""
        tokens, products = self.tokens, self.table.products
        end = len(tokens)
        node: Expr | None = None
        join = _ADD  # the sign before the next product (none before the first)
        while True:
            term = self.operand()
            while self.at < end and tokens[self.at] in products:
                op = products[tokens[self.at]]
                self.at += 1
                right = self.operand()
                if op is not _MUL:
                    self.check_divisor(op, term, right)
                term = BinOp(op, term, right)
            node = term if node is None else BinOp(join, node, term)
            if self.at == end:
                return node
            token = tokens[self.at]
            if token == "+":
                join = _ADD
            elif token == "-":
                join = _SUB
            else:
                return node
            self.at += 1

    def check_divisor(self, op: Op, left: Expr, right: Expr) -> None:
        low: Number
        if _at_least_one(right):
            low = 1  # (what `bounds` finds is 1 at least)
        else:
            low, high = bounds(right, self.limits)
            if low <= 0 <= high:
                raise _Declined
        if (
            op is _MOD
            and self.table.python_remainder
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
        if first in "0123456789d":
            node, most = _atom(token, self.table, self.limits)
            self.dice += most
        elif first == "(":
            node = self.parenthesis()
        elif first in self.table.signs:
            self.nesting += 1
            if self.nesting > self.limits.max_nesting:
                raise _Declined
            inner = self.operand()
            self.nesting -= 1
            return Neg(inner) if first == "-" else inner
        else:
            raise _Declined
        while self.labels and self.at < len(tokens) and tokens[self.at][0] == "[":
            label = tokens[self.at]
            if len(label) == 1 or not self.same_case:
                raise _Declined  # not closed; or the label as written is not the token
            node = Label(node, label[1:-1])
            self.at += 1
        return node

    def parenthesis(self) -> Expr:
        """From after '(': a parenthesis, or (where the dialect has sets) a set (`(a, b)`,
        `(a,)`, `()`) and its keep."""
        self.nesting += 1
        if self.nesting > self.limits.max_nesting:
            raise _Declined
        tokens, sets = self.tokens, self.table.sets
        if tokens[self.at] == ")" and sets:
            self.at += 1
            self.nesting -= 1
            return self.pool(())
        node = self.sum()
        items = [node]
        is_set = False
        while tokens[self.at] == "," and sets:
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
        pool_keep = self.table.pool_keep
        if pool_keep is not None and self.at < len(tokens) and pool_keep.match(tokens[self.at]):
            kept = self.pool((node,))
            if type(node) is not Dice:
                return kept
            if node.keep is not None:
                raise _Declined  # a second keep on the group: the grammar refuses it
            return node.replace(keep=kept.keep)  # d20 keeps among the dice of `(3d6)kh1`
        return node

    def pool(self, items: tuple[Expr, ...]) -> Pool:
        """A set of `items`, with the keep that follows its ')' at once (if any)."""
        tokens, pool_keep = self.tokens, self.table.pool_keep
        if pool_keep is not None and self.at < len(tokens):
            found = pool_keep.fullmatch(tokens[self.at])
            if found is not None:
                self.at += 1
                letter, side, mark, number = found.groups()
                return Pool(items, _keep(self.table, letter, side, mark, number))  # (keep)
        return Pool(items)


def _at_least_one(node: Expr) -> bool:
    """Whether every roll of `node` (a tree the scanner made) gives 1 or more, as `bounds`
    finds it, told without `bounds`: a positive number; a group summing its dice (its faces
    are 1 or more, rerolled, raised, exploded or compounded; not counted as successes, not
    penetrating) whose ceiling is 1 or more and whose keep is by rank and keeps a die; a set
    of such items, not empty, whose keep is by rank and keeps an item; any of these
    labelled. False for anything else (then `bounds` is asked)."""
    while type(node) is Label:
        node = node.operand
    if type(node) is Const:
        return node.value > 0
    if type(node) is Dice:
        ceiling, kept = node.ceiling, node.keep
        return (
            (ceiling is None or ceiling >= 1)
            and (kept is None or (kept.test is None and kept.kept(node.count) >= 1))
            and node.success is None
            and node.failure is None
            and node.explode_kind is not _PENETRATE
        )
    if type(node) is Pool:
        items, kept = node.items, node.keep
        return (
            len(items) > 0
            and (kept is None or (kept.test is None and kept.kept(len(items)) >= 1))
            and all(_at_least_one(item) for item in items)
        )
    return False


def _atom(token: str, table: _Table, limits: Limits) -> tuple[Const | Dice, int]:
    """A number or a group (with its modifiers), and the most dice it may throw."""
    if "d" not in token:
        if not (token.isascii() and token.isdigit()):
            raise _Declined  # (a lone `²` or `٣` is a digit to `isdigit`, not to the grammar)
        return Const(_NUMBERS.get(token) or int(token)), 0
    count_text, _, sides_text = token.partition("d")
    if sides_text.isdigit() or (sides_text == "%" and table.dialect.percent_die):
        size = 100 if sides_text == "%" else _NUMBERS.get(sides_text) or int(sides_text)
        many = (_NUMBERS.get(count_text) or int(count_text)) if count_text else 1
        if not (1 <= many <= limits.max_dice and 1 <= size <= limits.max_sides):
            raise _Declined
        return Dice(many, size), many  # (a plain group; `d%` a d100 where the dialect has it)
    # a group with modifiers (or something else): the dialect's group regex (or, without one,
    # its modifier table: `referee.dice.modifiers`), checked as the grammar checks it
    if table.group is None:
        read = read_group(token, limits, table.dialect)
        if read is None:
            raise _Declined
        return read
    found = table.group.fullmatch(token)
    if found is None:
        raise _Declined
    (
        count_text,
        sides_text,
        reroll_letters,
        reroll_mark,
        reroll_on,
        more_rerolls,
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
    kept = None if letter is None else _keep(table, letter, side, mark, number)
    if not (reroll_on or add_on or floor or ceiling or on):
        # the commonest (`4d6kh3`, `2d20kl1`): a keep alone, nothing else to check
        return Dice(count, sides, False, kept), count  # (keep, by position)
    tests, once, span = _NO_REROLLS
    if reroll_on is not None:
        key = (reroll_letters, reroll_mark, reroll_on, more_rerolls)
        tests, once, span = table.reroll_runs.get(key) or _rerolls(table, *key)
    made = table.tests
    explode_on = None
    if on is not None and (on_mark or (_NUMBERS.get(on) or int(on)) != sides):  # (`e`: the top)
        explode_on = made.get((on_mark, on)) or _test(table, on_mark, on)
    adds = None
    if add_on is not None:
        adds = made.get((add_mark, add_on)) or _test(table, add_mark, add_on)
    dice = Dice(  # (by position, in `DiceFields.FIELDS` order: half the cost of keywords)
        count,
        sides,
        on is not None,  # explode
        kept,  # keep
        None,  # success
        explode_on,
        _EACH,  # explode_kind
        tests,  # reroll
        once,  # reroll_once
        adds,  # add_on
        None if floor is None else _NUMBERS.get(floor) or int(floor),  # floor
        None if ceiling is None else _NUMBERS.get(ceiling) or int(ceiling),  # ceiling
    )
    depth = limits.max_explode_depth  # (`DiceFields.most_dice`, without the call)
    rerolled = (1 if once else depth) if tests else 0
    exploded = depth if on is not None else 0
    most = count * (exploded + 1) * (rerolled + 1) + (add_on is not None)
    if most > limits.max_dice:
        raise _Declined  # the grammar says why
    clamps = floor is not None or ceiling is not None
    if on is not None and (tests or clamps or add_on is not None):
        raise _Declined  # d20 means otherwise by these pairs (`written_order_conflict`)
    if clamps and add_on is not None:
        raise _Declined
    if tests:  # the tests' range tells whether they take every face (`DiceFields.endless`)
        if span is None:
            if dice.endless() is not None:
                raise _Declined
        elif span[0] <= 1 and span[1] >= sides:
            raise _Declined
    if on is not None:
        lowest, highest = (sides, sides) if explode_on is None else explode_on.passing_range()
        if lowest <= 1 and highest >= sides:
            raise _Declined
    return dice, most


def _test(table: _Table, mark: str, number: str) -> Success:
    """A test as written (its mark, its number), made once for each spelling (as `_keep`)."""
    test = Success.of(table.compares[mark], _NUMBERS.get(number) or int(number))
    if len(table.tests) < 1024:
        table.tests[mark, number] = test
    return test


def _rerolls(table: _Table, letters: str, mark: str, number: str, more: str) -> _Rerolls:
    """A run of rerolls as written (the first's letters, mark and number, then any more), made
    once for each spelling (as `_keep`): its tests, whether once, and the values they pass as
    one range (None where they leave a gap: `DiceFields.reroll_span`)."""
    once = table.modes[letters][1]
    tests: tuple[Success, ...] = (_test(table, mark, number),)
    for more_letters, more_mark, target in table.rerolls.findall(more):  # type: ignore[union-attr]
        if table.modes[more_letters][1] != once:
            raise _Declined  # once and repeatedly: the grammar refuses it
        tests = (*tests, _test(table, more_mark, target))
    span = Dice(1, 1, reroll=tests).reroll_span()
    if len(table.reroll_runs) < 1024:
        table.reroll_runs[letters, mark, number, more] = (tests, once, span)
    return tests, once, span


def _keep(table: _Table, letter: str, side: str | None, mark: str | None, number: str) -> Keep:
    """A keep as written (its letters, `h` or `l` or a test's mark, its number), each made once
    for each way the dialect writes it (as `_NUMBERS` reads a number)."""
    key = (letter, side, mark, number)
    kept = table.keeps.get(key)
    if kept is not None:
        return kept
    mode = table.modes[letter][0]
    count = _NUMBERS.get(number) or int(number)
    if side is None:
        assert mark is not None
        kept = Keep.of(mode, 0, Success.of(table.compares[mark], count))
    elif mode is _MATCHING:
        kept = Keep.of(_HIGHEST if side == "h" else _LOWEST, count)
    else:
        kept = Keep.of(_DROP_HIGHEST if side == "h" else _DROP_LOWEST, count)
    if len(table.keeps) < 1024:
        table.keeps[key] = kept
    return kept
