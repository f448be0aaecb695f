"""What every part of the desk shares: its constants, the referee's caller, the small readers of
a command's words, and `DeskBase` (the service, the bot's links, where a spar is)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from referee import chat as k
from referee.bout.names import MAX_NAME
from referee.bout.state import BoutState, Status
from referee.chat import Remove as ChatRemove
from referee.chat import Roster, parse_line
from referee.dice import DEFAULT_DIALECT, parse
from referee.discord.aliases import Aliases
from referee.discord.links import Links
from referee.discord.personas import Personas
from referee.discord.proxy_trust import ProxyTrust
from referee.discord.replies import Person, Place
from referee.errors import (
    ForbiddenError,
    NotationError,
    NotFoundError,
)
from referee.keyvalue import read_pairs
from referee.rng import SECURE_ENTROPY, Entropy
from referee.service.bouts import Caller, RefereeService
from referee.store import Role, Store
from referee.systems import find_system
from referee.systems.msv.old import die_score
from referee.vocabulary import EventType

#: The rule system of a spar opened without naming one, and of every table ledger (free rolls
#: only: its rules are never asked).
DEFAULT_SYSTEM = "msv"


#: The dice OnlineHost scores the Rhy'Din way (d20 to d100), least and most sides.
RHYDIN_SIDES = (20, 100)


#: Most items `~choose` picks from (one die of that many sides).
MAX_CHOICE_ITEMS = 100


#: Buttons under one answer (four rows of five; the fifth row holds the select menu).
MAX_BUTTONS = 20


#: Events after which an answer shows the score again.
SCORE_CHANGES = frozenset(
    {EventType.WOUND, EventType.OVERRIDDEN, EventType.VOIDED, EventType.FIGHTER_UPDATED}
)


#: Choices in one select menu (Discord's limit).
MAX_CHOICES = 25


SPECIAL_MENU = "Special action..."


#: SRP-16 special actions offered against each foe (unhorse only against a mounted one).
SRP_SPECIALS = (("disarm", "Disarm"), ("grapple", "Grapple"), ("entangle", "Entangle"),
                ("unhorse", "Unhorse"))  # fmt: skip


#: SRP-16 actions that undo a condition of the actor's: (condition, label, action); offered
#: when the rules allow them.
SRP_UNDO = (("grappled", "Break free", "break_free"), ("disarmed", "Pick up", "pick_up"),
            ("grappling", "Release", "release"), ("entangling", "Release", "release"))  # fmt: skip


REF = Caller(Role.REFEREE)


#: A table ledger's one fighter: the member whose ledger it is, who fights nobody there (MSV's
#: rules need a CS; 0 says it is none).
LEDGER_STATS = {"cs": 0}


#: Bytes of a client seed part the bot draws (written as 16 hex characters).
SEED_PART_BYTES = 8


#: Commands anyone in the channel may give (they read, and store nothing).
READ_ONLY = (k.Help, k.Status, k.Score, k.Odds)


#: The proctor's typed words, and what the refusal says only the proctor can do.
PROCTOR_VERBS = {"init": "begin the spar", "add": "add fighters", "update": "update fighters",
                 "pause": "pause", "resume": "resume", "skip": "skip", "void": "void",
                 "cancel": "cancel", "end": "end", "close": "close the spar"}  # fmt: skip


#: States in which a spar can still be ended.
LIVE = (Status.OPEN, Status.RUNNING, Status.PAUSED)


def match_name(text: str, names: Sequence[str]) -> str:
    """The fighter a typed name means, by the shared chat grammar (`referee.chat`):
    case-insensitive, no quotes, longest name first; none or two is an error listing them.

    >>> match_name("tarl cabot", ["Tarl", "Tarl Cabot"])
    'Tarl Cabot'
    """
    command = parse_line(f"remove {text}", Roster(tuple(names)))
    assert isinstance(command, ChatRemove)
    return command.name


def _own(command: k.ChatCommand, mine: str | None) -> bool:
    """Whether a member gives `command` as the fighter it plays (not as the referee): its
    own attack, spirit or action (naming no other actor), `quit`, or removing itself."""
    if isinstance(command, k.Attack):
        return command.attacker is None
    if isinstance(command, k.Spirit):
        return command.actor is None
    if isinstance(command, k.Act):
        return "actor" not in dict(command.options)
    if isinstance(command, k.Remove):
        return mine is not None and command.name == mine
    return isinstance(command, k.Quit)


def _proctor_what(command: k.ChatCommand) -> str:
    """What a refusal says only the proctor can do, for a referee's command."""
    if isinstance(command, k.Referee):
        return command.power.value
    words = {k.Init: "begin the spar", k.Add: "add fighters", k.Update: "update fighters",
             k.Remove: "remove fighters", k.End: "end", k.Cancel: "cancel",
             k.Close: "close the spar", k.CloseJoining: "close the spar"}  # fmt: skip
    return words.get(type(command), "act for another fighter")


def rhydin_line(sides: Sequence[int], faces: Sequence[int]) -> str | None:
    """The Rhy'Din scoring of a plain roll whose dice all have 20 to 100 sides, as OnlineHost
    scores them (MSV-9: each die max(0, (face - 10) // 5), summed); None for other dice.

    >>> rhydin_line([22, 22], [14, 17]), rhydin_line([100], [47]), rhydin_line([6, 6], [3, 4])
    ("Rhy'Din score: 0 + 1 = 1", "Rhy'Din score: 7", None)
    """
    if not faces or not all(RHYDIN_SIDES[0] <= n <= RHYDIN_SIDES[1] for n in sides):
        return None
    scores = [die_score(face) for face in faces]
    if len(scores) == 1:
        return f"Rhy'Din score: {scores[0]}"
    return f"Rhy'Din score: {' + '.join(str(x) for x in scores)} = {sum(scores)}"


def head_line(export: Mapping[str, Any]) -> str:
    """The line that tells a closed bout's head hash: the hash of its last event (the
    `closed` one), in full, with its number.

    >>> line = head_line({"events": [{"seq": 57, "hash": "ab" * 32}]})
    >>> line.replace("ab" * 32, "H")[:64].rstrip()
    'Head hash: H (event 57). Keep it: referee verify --expect-hash H'
    """
    head = export["events"][-1]
    return (
        f"Head hash: {head['hash']} (event {head['seq']}). Keep it: referee verify "
        f"--expect-hash {head['hash']} checks any export of this ledger against it."
    )


def ledger_name(channel: str, member: str) -> str:
    """A table ledger's bout name: the channel and the member, or the channel alone when both
    do not fit in a name (at most 40 characters).

    >>> ledger_name("general", "Tarl"), ledger_name("general", "Tarl of Ko-ro-ba, the Elder")
    ('table ledger #general, Tarl', 'table ledger #general')
    """
    both = f"table ledger #{channel}, {member}"
    return both if len(both) <= MAX_NAME else f"table ledger #{channel}"[:MAX_NAME].rstrip()


def _on_side(args: str) -> tuple[str, str | None]:
    """`Tarl on red` -> ("Tarl", "red"): what a join names, and the side it names (fighters
    on one side fight together; without it each fights on a side of its own).

    >>> _on_side("65 on the raiders"), _on_side("Bran"), _on_side("Don Juan")
    (('65', 'the raiders'), ('Bran', None), ('Don Juan', None))
    """
    words = args.split()
    lowered = [w.lower() for w in words]
    if "on" not in lowered:
        return args.strip(), None
    cut = len(lowered) - 1 - lowered[::-1].index("on")
    side = " ".join(words[cut + 1 :])
    if not side:
        raise NotationError("say ~spar:join CS on SIDE (or CHARACTER on SIDE)")
    return " ".join(words[:cut]), side


def pairs(words: Sequence[str]) -> dict[str, Any]:
    """`cs=70 wounds=3` -> {"cs": 70, "wounds": 3}: each value read as a chat line reads it
    (`referee.keyvalue`: a whole number, `true`/`false` as a boolean, or the text).

    >>> pairs(["cs=70", "defend=shield", "aimed=true"])
    {'cs': 70, 'defend': 'shield', 'aimed': True}
    """
    return read_pairs(words)


def _only_foe(state: BoutState, actor: str) -> str:
    foes = [f.name for f in state.enemies_of(actor)]
    if len(foes) == 1:
        return foes[0]
    raise NotationError(f"name your target: {', '.join(foes)} (~spar:attack @user)")


def _json_bytes(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, indent=2).encode("utf-8")


@functools.cache
def typed_attack(system: str) -> object:
    """The dice a player of `system` types to attack (`RuleSystem.typed_attack`), read, or None
    when the system throws its own."""
    typed = find_system(system).typed_attack
    return None if typed is None else parse(typed)


class DeskBase:
    """The desk's service and links, and the spar of a channel; the parts of `Desk` build on it."""

    def __init__(
        self, store: Store, public_url: str | None = None, entropy: Entropy = SECURE_ENTROPY
    ) -> None:
        """`entropy`: the server seeds' source, and of the client seed parts the bot draws for
        the fighters it adds (the OS's; tests pass a deterministic one)."""
        self.service = RefereeService(store, entropy=entropy)
        self.entropy = entropy
        self.links = Links(store)
        self.aliases = Aliases(store)
        self.personas = Personas(store)
        self.proxy_trust = ProxyTrust(store)
        #: The words of the bot's own commands, which no alias may take (set by the bot).
        self.command_words: frozenset[str] = frozenset()
        self.public_url = public_url.rstrip("/") if public_url else None

    def dialect_of(self, place: Place) -> str:
        """The dice dialect of the channel (`~dialect`), roll20 unless set."""
        return self.links.dialect(place.channel) or DEFAULT_DIALECT.name

    def _spar(self, place: Place, *, required: bool = True) -> str | None:
        spar = self.links.spar(place.channel)
        if spar is not None and self.service.store.get_bout(spar).status == "closed":
            spar = None
        if spar is None and required:
            raise NotFoundError("no spar is open in this channel (open one: ~spar:open msv NAME)")
        return spar

    def bout_of(self, place: Place) -> str:
        bout = self._spar(place)
        assert bout is not None
        return bout

    def require_proctor(self, bout: str, who: Person, what: str) -> None:
        proctor = self.links.proctor(bout)
        if who.admin or proctor == str(who.id):
            return
        name = next((m.name for m in self.links.members(bout) if m.proctor), None)
        raise ForbiddenError(f"only the proctor ({name or 'nobody'}) can {what}")

    def _seed_part(self, bout: str) -> str | None:
        """A part of the client seed drawn by the bot for a fighter it adds (after the spar's
        commitment was published), or None once the spar has rolled (its client seed is then
        fixed): so that whoever runs the server could not have chosen its seed to suit it."""
        rolled = any(r["type"] == EventType.ROLL for r in self.service.records(bout))
        return None if rolled else self.entropy(SEED_PART_BYTES).hex()

    def _links(self, bout: str) -> list[str]:
        if not self.public_url:
            return []
        return [
            f"Scoreboard: {self.public_url}/static/board.html#bout={bout}",
            f"Verify, once the proctor closes the spar (~spar:close bout; nobody can verify "
            f"it before): {self.public_url}/static/verify.html#bout={bout}",
        ]
