"""Characters that last beyond one bout: a player's key holds them, every door uses them.

A key (`ck_` and 32 URL-safe characters) is made on first use, handed back once, and kept by
the door the player uses (the browser, the Discord bot per member, the HUD per wearer); the
service keeps only its SHA-256 (`referee.store`), like a token's. A key is a bearer secret:
no answer, log or chat line says it back. Each character holds a name, its rule system, its
sheet (the stats as the rule system checks them: MSV `{"cs": 65}`, an SRP sheet), its gear
(items carried, words only: the rules read weapons and armor from the sheet) and which stats
are hidden when the referee fields it as an NPC. A change writes the next version; a bout the
character joins records its id and version in the join (`fighter_added.character`,
`character_version`), so an export says which sheet fought.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> made = create(store, None, "Tarl", "msv", {"cs": 65})
>>> made["key"][:3], made["character"]["version"], made["character"]["sheet"]
('ck_', 1, {'cs': 65})
>>> key, tarl = made["key"], made["character"]["id"]
>>> change(store, key, tarl, sheet={"cs": 70})["version"]
2
>>> [(c["name"], c["version"]) for c in listed(store, key)]
[('Tarl', 2)]
>>> listed(store, "ck_" + "x" * 32)
Traceback (most recent call last):
...
referee.errors.AuthError: unknown character key
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from referee.bout.names import character_name, same_name
from referee.breaks import one_line_json
from referee.errors import AuthError, ConflictError, LimitError, RuleError
from referee.ledger.seal import HIDDEN
from referee.service.bouts import Caller, RefereeService
from referee.store import CharacterRecord, Role, Store
from referee.systems.base import find_system

#: How a key is written: `ck_` and 32 URL-safe characters (192 random bits).
KEY_PATTERN = r"^ck_[A-Za-z0-9_-]{32}$"
_KEY = re.compile(KEY_PATTERN)
#: Characters one key holds at most (retired ones not counted).
MAX_CHARACTERS = 50
#: A sheet's canonical JSON, at most (an SRP sheet with its weapons is well under 1 KiB).
MAX_SHEET_BYTES = 4096
#: Gear: at most this many items, each 1 to `MAX_ITEM` printable characters.
MAX_GEAR = 30
MAX_ITEM = 60
#: The header a request to a bout's route gives a character key in (its Authorization is the
#: bout's token); the `/api/characters` routes take the key as `Authorization: Bearer KEY`.
KEY_HEADER = "X-Character-Key"


def new_key() -> str:
    """A fresh character key."""
    return "ck_" + secrets.token_urlsafe(24)


def new_character_id() -> str:
    """A fresh character id (12 URL-safe characters; public: the chains name it)."""
    return secrets.token_urlsafe(9)


def checked_key(key: object, sent: str = "Authorization: Bearer") -> str:
    """`key` when it is written as a key is (401 otherwise, never saying it back); `sent`:
    how the route takes it, said when it is missing."""
    if not isinstance(key, str) or not key:
        raise AuthError(f"this needs a character key ({sent} ck_...)")
    if not _KEY.match(key):
        raise AuthError("that is not a character key (ck_ and 32 letters, digits, - or _)")
    return key


def known_key(store: Store, key: object, *, lock: bool = False) -> str:
    """`key` when the service made it (401 otherwise); with `lock`, its row locked for the
    rest of the unit, so that what the unit reads of its characters (how many, their names)
    stays true until it commits: two creates or renames under one key queue there."""
    found = checked_key(key)
    known = store.lock_character_key(found) if lock else store.has_character_key(found)
    if not known:
        raise AuthError("unknown character key")
    return found


def checked_sheet(
    system: str, sheet: Mapping[str, Any], hidden: Sequence[str] = ()
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The sheet as its rule system checks a fighter's (its default rules), and the hidden
    stats, each one it may hide; else RuleError or LimitError, and nothing is kept."""
    rules = find_system(system)()
    if not isinstance(sheet, Mapping):
        raise RuleError('a sheet is an object (MSV: {"cs": 65}; SRP: a sheet\'s keys)')
    size = len(json.dumps(sheet, sort_keys=True, default=str).encode("utf-8"))
    if size > MAX_SHEET_BYTES:
        raise LimitError(f"the sheet is {size} bytes of JSON (at most {MAX_SHEET_BYTES})")
    one_line_json(dict(sheet), "stats of fighter")  # said in sentences (referee.breaks)
    stats = dict(rules.check_stats(sheet))
    wrong = [h for h in hidden if h not in rules.hidden_stats()]
    if wrong:
        raise RuleError(f"cannot hide {wrong!r}: hideable stats are {list(rules.hidden_stats())!r}")
    return stats, tuple(dict.fromkeys(hidden))


def sheet_of_words(system: str, name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The sheet typed as `key=value` words (chat, Discord): MSV's is its CS (`cs=65`); an SRP
    sheet is a fight file's keys, checked against the example gear pack (SRP-19).

    >>> sheet_of_words("msv", "Tarl", {"cs": 65})
    {'cs': 65}
    """
    if system == "msv":
        cs = values.get("cs")
        if set(values) != {"cs"} or isinstance(cs, bool) or not isinstance(cs, int):
            raise RuleError("an MSV character is its CS: say cs=65 (a whole number)")
        return {"cs": cs}
    from referee.systems.srp.gear import example_pack
    from referee.systems.srp.sheet import sheet_from_table
    from referee.systems.srp.stats import sheet_to_stats

    sheet = sheet_from_table(name, dict(values), example_pack(), where="character")
    return dict(sheet_to_stats(sheet))


def checked_gear(gear: Sequence[Any]) -> tuple[str, ...]:
    """Gear as kept: at most `MAX_GEAR` items of 1 to `MAX_ITEM` printable characters."""
    if isinstance(gear, str) or not isinstance(gear, Sequence):
        raise RuleError("gear is a list of items (words)")
    if len(gear) > MAX_GEAR:
        raise LimitError(f"gear holds at most {MAX_GEAR} items, got {len(gear)}")
    for item in gear:
        if not isinstance(item, str) or not 1 <= len(item.strip()) <= MAX_ITEM:
            raise RuleError(f"each item of gear is 1 to {MAX_ITEM} characters of text")
        if not item.isprintable():
            raise RuleError("an item of gear is printable text")
    return tuple(item.strip() for item in gear)


def view(record: CharacterRecord, whole: bool = True) -> dict[str, Any]:
    """A character as an answer: whole to its key's holder, else each hidden stat's value
    said `"hidden"` (a list, a chat line, a channel)."""
    sheet = dict(record.sheet)
    if not whole:
        sheet = {k: (HIDDEN if k in record.hidden else v) for k, v in sheet.items()}
    return {
        "id": record.id,
        "version": record.version,
        "name": record.name,
        "system": record.system,
        "sheet": sheet,
        "gear": list(record.gear),
        "hidden": list(record.hidden),
    }


def create(
    store: Store,
    key: str | None,
    name: str,
    system: str,
    sheet: Mapping[str, Any],
    gear: Sequence[str] = (),
    hidden: Sequence[str] = (),
) -> dict[str, Any]:
    """A new character, in one transaction: under `key`, or under a new key made now (handed
    back once, as `key`)."""
    stats, hidden = checked_sheet(system, sheet, hidden)
    shown = character_name(name)
    kept = checked_gear(gear)
    with store.unit():
        fresh = key is None
        if key is None:
            key = new_key()
            store.add_character_key(key)
        else:
            key = known_key(store, key, lock=True)
            if store.count_characters(key) >= MAX_CHARACTERS:
                raise LimitError(f"a key holds at most {MAX_CHARACTERS} characters")
            _name_free(store, key, shown)
        record = store.add_character(
            key, new_character_id(), name=shown, system=system, sheet=stats,
            gear=kept, hidden=hidden,
        )  # fmt: skip
    answer: dict[str, Any] = {"character": view(record)}
    if fresh:
        answer["key"] = key
    return answer


def listed(store: Store, key: str) -> list[dict[str, Any]]:
    """The key's characters, by name, each hidden stat said `"hidden"`."""
    with store.unit():
        found = known_key(store, key)
        return [view(record, whole=False) for record in store.characters_of(found)]


def shown(store: Store, key: str, character_id: str) -> dict[str, Any]:
    """One of the key's characters, whole (404 unknown, 403 another key's)."""
    with store.unit():
        return view(store.character(known_key(store, key), character_id))


def change(
    store: Store,
    key: str,
    character_id: str,
    *,
    name: str | None = None,
    sheet: Mapping[str, Any] | None = None,
    gear: Sequence[str] | None = None,
    hidden: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The character's next version, in one transaction: what is given replaces what was
    (the sheet whole); the rest is kept."""
    with store.unit():
        found = known_key(store, key, lock=name is not None)
        last = store.character(found, character_id)
        stats, hide = checked_sheet(
            last.system,
            last.sheet if sheet is None else sheet,
            last.hidden if hidden is None else hidden,
        )
        if name is not None:
            name = character_name(name)
            _name_free(store, found, name, character_id)
        record = store.change_character(
            found, character_id,
            name=last.name if name is None else name,
            system=last.system, sheet=stats,
            gear=last.gear if gear is None else checked_gear(gear), hidden=hide,
        )  # fmt: skip
    return view(record)


def _name_free(store: Store, key: str, name: str, renamed: str | None = None) -> None:
    """ConflictError (409) when another of `key`'s characters than `renamed` has `name` in any
    letter case or width: every door finds a key's character by its name."""
    for other in store.characters_of(key):
        if other.id != renamed and same_name(other.name, name):
            raise ConflictError(f"this key already holds a character called {other.name!r}")


def retire(store: Store, key: str, character_id: str) -> None:
    """Take a character off the key's list for good (its versions stay, as its bouts do)."""
    with store.unit():
        store.retire_character(known_key(store, key), character_id)


def join_character(
    service: RefereeService,
    bout_id: str,
    caller: Caller,
    key: str,
    character_id: str,
    side: str | None = None,
    client_seed: str | None = None,
    hide: bool = False,
) -> dict[str, Any]:
    """The character joins the bout, in one transaction, its id and version in the join.

    With the referee's token it is the referee's NPC, its hidden stats (and with `hide` every
    stat its rule system may hide) kept from everyone else; without a token it joins as
    itself (the join's answer carries its fighter token), and a character with hidden stats
    is refused: only the referee fields an NPC.
    """
    with service.unit():
        record = service.store.character(known_key(service.store, key), character_id)
        rules = find_system(service.state(bout_id).system)
        if record.system != rules.name:
            raise RuleError(
                f"{record.name} is an {record.system.upper()} character; this bout is "
                f"{rules.name.upper()}"
            )
        referee = caller.role is Role.REFEREE
        hidden = record.hidden
        if hide:
            hidden = tuple(dict.fromkeys((*hidden, *rules().hidden_stats())))
        if hidden and not referee:
            raise RuleError(
                f"{record.name} has hidden stats (an NPC's): the referee adds it, with the "
                "referee's token"
            )
        joined = service.add_fighter(
            bout_id, caller, record.name, record.sheet, side,
            hidden if referee else (), client_seed, joining=not referee,
            character=(record.id, record.version),
        )  # fmt: skip
    return {**joined, "character": {"id": record.id, "version": record.version}}


def character_of_fighter(service: RefereeService, bout_id: str, key: str) -> str | None:
    """The fighter of the bout whose join names one of the key's characters (the one joined
    last), or None: whom a chat client holding the key acts for."""
    with service.unit():
        mine = {record.id for record in service.store.characters_of(known_key(service.store, key))}
        if not mine:
            return None
        playing = [
            f.name
            for f in service.state(bout_id).fighters
            if f.character is not None and f.character[0] in mine
        ]
        return playing[-1] if playing else None
