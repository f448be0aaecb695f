"""One chat line -> one command, or one clear error; a line is a command only when ALL of it is.

Names are matched against the bout's roster without regard to letter case and without quotes,
the longest fighter name first; no match, or two, is an error that lists the fighters.

>>> roster = Roster(("Tarl", "Pa Kur", "Bob the Bold"))
>>> parse_line("attack pa kur", roster)
Attack(target='Pa Kur', attacker=None)
>>> parse_line("ATTACK bob the bold tarl", roster)
Attack(target='Tarl', attacker='Bob the Bold')
>>> parse_line("close call!", roster)
Traceback (most recent call last):
...
referee.chat.grammar.NotACommand: not a command; did you mean `close bout`? (or `close joining`)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.chat import commands as k
from referee.dice import parse, parse_chat, write
from referee.errors import NotationError, NotFoundError, RefereeError
from referee.keyvalue import SIGNS, read_whole, split_pair
from referee.keyvalue import read_value as read_value
from referee.numerals import is_whole

_ACT = "act KIND key=value ..."
_ADD = "add NAME CS [SIDE]"
_UPDATE = "update NAME key=value ..."
#: Keys of `key=value` whose value is a fighter's name, matched against the roster.
NAME_KEYS = frozenset({"target", "actor"})


class NotACommand(NotationError):
    """A line that is not (all of it) one command: nothing was done."""

    code = "not_a_command"


class AmbiguousName(NotationError):
    """A name that fits two fighters (or two ways of reading the line)."""

    code = "ambiguous_name"


@dataclass(frozen=True, slots=True)
class Roster:
    """The names a line may use: the bout's fighters and sides."""

    names: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()
    dialect: str = "roll20"
    """The dice notation dialect of the bout's rolls."""


def parse_line(line: str, roster: Roster = Roster()) -> k.ChatCommand:
    """The command a whole chat line means, or `NotACommand` (or a name error) saying why not.

    >>> parse_line("add Bob the Bold 50")
    Add(name='Bob the Bold', cs=50, side=None)
    >>> str(parse_line("//ROLL-sides100-dice1")), str(parse_line("roll 2d20 + 1d6"))
    ('//roll -dice1 -sides100', 'roll 2d20+1d6')
    """
    words = line.split()
    if not words:
        raise NotACommand("not a command: the line is empty (say `help` for the list)")
    verb, rest = words[0].lower(), words[1:]
    if verb.startswith("//roll"):
        return _slash_roll(line, roster)
    verb = verb.lstrip("!/")
    reader = _VERBS.get(verb)
    if reader is None:
        raise NotACommand(f"not a command: {_quote(line)} (say `help` for the list)")
    return reader(rest, roster)


# -- one reader per verb ---------------------------------------------------------------


def _bare(command: k.ChatCommand) -> Callable[[list[str], Roster], k.ChatCommand]:
    def read(rest: list[str], roster: Roster) -> k.ChatCommand:
        if rest:
            raise _did_you_mean(str(command))
        return command

    return read


def _exact(command: k.ChatCommand, word: str) -> Callable[[list[str], Roster], k.ChatCommand]:
    """`close bout`, `cancel bout`: powers that end or reveal need their whole form."""

    def read(rest: list[str], roster: Roster) -> k.ChatCommand:
        if [w.lower() for w in rest] != [word]:
            raise _did_you_mean(str(command))
        return command

    return read


def _close(rest: list[str], roster: Roster) -> k.ChatCommand:
    """`close bout` (end, reveal the seed) or `close joining` (no more joiners)."""
    word = [w.lower() for w in rest]
    if word == ["joining"]:
        return k.CloseJoining()
    if word != ["bout"]:
        raise _did_you_mean("close bout", "or `close joining`")
    return k.Close()


def _end(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest or rest[0].lower() != "bout":
        raise _did_you_mean("end bout", "or `end bout SIDE` to name the winners")
    if len(rest) == 1:
        return k.End()
    return k.End(_one_of(rest[1:], roster.sides, "side"))


def _roll(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest:
        raise _say("roll EXPR", "roll 2d20+1d6")
    return k.Roll(_notation(" ".join(rest), roster.dialect))


def _slash_roll(line: str, roster: Roster) -> k.ChatCommand:
    tail = line.strip()[len("//roll") :].strip()
    if tail and not tail.startswith("-"):
        return k.Roll(_notation(tail, roster.dialect))
    try:
        dice = parse_chat(line.strip())
    except RefereeError as err:
        raise NotACommand(f"not a command: {err}") from None
    return k.AolRoll(dice.count, dice.sides)


def _notation(text: str, dialect: str) -> str:
    try:
        return write(parse(text, dialect=dialect), dialect)
    except NotationError as err:
        raise NotACommand(f"not a command: {err}") from None


def _odds(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest:
        raise _say("odds EXPR", "odds 2d6+3")
    return k.Odds(_notation(" ".join(rest), roster.dialect))


def _target_and_actor(
    verb: str, who: str, rest: list[str], roster: Roster
) -> tuple[str, str | None]:
    """`VERB TARGET` or `VERB ACTOR TARGET` (the referee's form), names from the roster."""
    if not rest:
        raise _say(f"{verb} TARGET", f"the referee: `{verb} {who} TARGET`")
    whole = _matches(rest, roster.names)
    if len(whole) == 1:
        return whole[0], None
    if len(whole) > 1:
        raise _ambiguous(rest, whole)
    pairs = _two_names(rest, roster.names)
    if len(pairs) == 1:
        actor, target = pairs[0]
        return target, actor
    if len(pairs) > 1:
        readings = "; ".join(f"`{verb} {a} {t}`" for a, t in pairs)
        raise AmbiguousName(f"{_quote(' '.join(rest))} can be read as {readings}: say one of them")
    raise _no_such(rest, roster.names, "fighter")


def _attack(rest: list[str], roster: Roster) -> k.ChatCommand:
    return k.Attack(*_target_and_actor("attack", "ATTACKER", rest, roster))


def _spirit(rest: list[str], roster: Roster) -> k.ChatCommand:
    return k.Spirit(*_target_and_actor("spirit", "FIGHTER", rest, roster))


def _act(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest or "=" in rest[0]:
        raise _say(_ACT, "e.g. `act shoot target=Orc`")
    return k.Act(rest[0].lower(), _options(rest[1:], roster, _ACT, "e.g. `act shoot target=Orc`"))


def _add(rest: list[str], roster: Roster) -> k.ChatCommand:
    text = " ".join(rest)
    if text.startswith('"'):
        name, quote, after = text[1:].partition('"')
        words = [name.strip(), *after.split()]
        cs_at = 1
        if not quote or not words[0] or len(words) < 2 or not is_whole(words[1], signs=SIGNS):
            raise _say(_ADD, "e.g. `add Tarl 65`")
    else:
        words = rest
        cs_at = next((i for i, w in enumerate(words) if i > 0 and is_whole(w, signs=SIGNS)), -1)
        if cs_at < 0:
            raise _say(_ADD, "e.g. `add Tarl 65` or `add Bob the Bold 50 Reds`")
    name = " ".join(words[:cs_at])
    side = " ".join(words[cs_at + 1 :]) or None
    if side is not None:
        known = _matches(words[cs_at + 1 :], roster.sides)
        side = known[0] if len(known) == 1 else side
    return k.Add(name, _number(words[cs_at]), side)


def _update(rest: list[str], roster: Roster) -> k.ChatCommand:
    first = next((i for i, w in enumerate(rest) if "=" in w), -1)
    if first < 1:
        raise _say(_UPDATE, "e.g. `update Tarl wounds=3`")
    name = _one_of(rest[:first], roster.names, "fighter")
    return k.Update(name, _options(rest[first:], roster, _UPDATE, "e.g. `update Tarl wounds=3`"))


def _remove(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest:
        raise _say("remove NAME", "a fighter leaving says `quit`")
    return k.Remove(_one_of(rest, roster.names, "fighter"))


_CHAR = "char list | char new NAME key=value ... | char set NAME key=value ..."


def _char(rest: list[str], roster: Roster) -> k.ChatCommand:
    verb = rest[0].lower() if rest else ""
    if verb == "list" and len(rest) == 1:
        return k.Characters()
    words = rest[1:]
    first = next((i for i, w in enumerate(words) if "=" in w), -1)
    if verb not in ("new", "set") or first < 1:
        raise _say(_CHAR, "e.g. `char new Tarl cs=65`")
    name = " ".join(words[:first])
    options = _options(words[first:], Roster(), _CHAR, "e.g. `char set Tarl cs=70`")
    if verb == "new":
        return k.NewCharacter(name, options)
    return k.ChangeCharacter(name, options)


def _join(rest: list[str], roster: Roster) -> k.ChatCommand:
    if not rest or any("=" in w for w in rest):
        raise _say("join CHARACTER", "one of your key's characters, e.g. `join Tarl`")
    return k.JoinCharacter(" ".join(rest))


_VERBS: dict[str, Callable[[list[str], Roster], k.ChatCommand]] = {
    "help": _bare(k.Help()),
    "status": _bare(k.Status()),
    "score": _bare(k.Score()),
    "init": _bare(k.Init()),
    "quit": _bare(k.Quit()),
    **{p.value: _bare(k.Referee(p)) for p in k.Power},
    "close": _close,
    "cancel": _exact(k.Cancel(), "bout"),
    "end": _end,
    "roll": _roll,
    "odds": _odds,
    "attack": _attack,
    "spirit": _spirit,
    "act": _act,
    "add": _add,
    "update": _update,
    "remove": _remove,
    "char": _char,
    "join": _join,
}

#: Every verb a chat line may begin with (what a HUD or bot may forward).
VERBS = ("//roll", *_VERBS)


# -- names, numbers, options -----------------------------------------------------------


def _fold(text: str) -> str:
    return " ".join(text.strip().strip('"').split()).casefold()


#: What a typed name may leave out of a fighter's name: symbols (an emoji, a dagger), format
#: characters (the joiner inside an emoji) and the marks of Markdown (`**Kamchak**`). Letters,
#: digits, combining marks and the punctuation of names (Pa-Kur, Ko-ro-ba, O'Neil) stay.
_SPELLED = frozenset("-'.")


def _letters(text: str) -> str:
    """A name as people type it: `_fold`, without what a keyboard does not reach (`_SPELLED`).

    >>> _letters("🗡️ Rask of Treve"), _letters("**Kamchak**"), _letters("Pa-Kur")
    ('rask of treve', 'kamchak', 'pa-kur')
    """
    kept = "".join(
        ch
        if ch.isspace()
        or ch in _SPELLED
        or unicodedata.category(ch)[0] in "LN"
        or (unicodedata.category(ch) in ("Mn", "Mc") and not 0xFE00 <= ord(ch) <= 0xFE0F)
        else " "
        for ch in text
    )
    return _fold(kept)


def _matches(words: Sequence[str], names: Sequence[str]) -> list[str]:
    """The fighters `words` name: as written (any case and spacing), else by their letters
    alone (an emoji or Markdown in the name need not be typed); a typed name that is all
    symbols matches only as written."""
    typed = " ".join(words)
    wanted = _fold(typed)
    if not wanted:
        return []
    exact = [n for n in names if _fold(n) == wanted]
    if exact:
        return exact
    letters = _letters(typed)
    return [n for n in names if _letters(n) == letters] if letters else []


def _two_names(words: list[str], names: Sequence[str]) -> list[tuple[str, str]]:
    """Every way to read `words` as ATTACKER TARGET, the longest attacker name first."""
    pairs: list[tuple[str, str]] = []
    for cut in range(len(words) - 1, 0, -1):
        left, right = _matches(words[:cut], names), _matches(words[cut:], names)
        pairs.extend((a, t) for a in left for t in right)
    return pairs


def _one_of(words: list[str], names: Sequence[str], what: str) -> str:
    found = _matches(words, names)
    if len(found) == 1:
        return found[0]
    if found:
        raise _ambiguous(words, found)
    raise _no_such(words, names, what)


def _no_such(words: Sequence[str], names: Sequence[str], what: str) -> NotFoundError:
    listed = ", ".join(names) if names else "none yet"
    return NotFoundError(f"no {what} called {_quote(' '.join(words))} ({what}s: {listed})")


def _ambiguous(words: Sequence[str], found: Sequence[str]) -> AmbiguousName:
    return AmbiguousName(
        f"{_quote(' '.join(words))} fits {' and '.join(found)}: use the console to tell them apart"
    )


_number = read_whole


def _options(words: list[str], roster: Roster, usage: str, example: str) -> k.Options:
    """`key=value` pairs; words without `=` continue the value before them (`target=Pa Kur`);
    each value read by `referee.keyvalue.read_value`, as everywhere."""
    pairs: list[tuple[str, list[str]]] = []
    for word in words:
        pair = split_pair(word)
        if pair is not None:
            key, value = pair
            if any(key.lower() == seen for seen, _ in pairs):
                raise NotACommand(f"not a command: {key!r} given twice")
            pairs.append((key.lower(), [value] if value else []))
        elif pairs and "=" not in word:
            pairs[-1][1].append(word)
        else:
            raise _say(usage, example)
    out: list[tuple[str, k.Value]] = []
    for key, parts in pairs:
        if not parts:
            raise NotACommand(f"not a command: {key}= has no value")
        if key in NAME_KEYS:
            out.append((key, _one_of(parts, roster.names, "fighter")))
        else:
            out.append((key, read_value(" ".join(parts))))
    return tuple(out)


def _did_you_mean(form: str, more: str | None = None) -> NotACommand:
    tail = f" ({more})" if more else ""
    return NotACommand(f"not a command; did you mean `{form}`?{tail}")


def _say(usage: str, example: str) -> NotACommand:
    return NotACommand(f"not a command; say `{usage}` ({example})")


def _quote(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")
