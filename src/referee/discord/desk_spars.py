"""Spars by channel: opened, joined, fought (attacks, actions, the answers and their buttons) and
ended with their export."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee import chat as k
from referee.bout.engine import why_not
from referee.bout.state import BoutState, Status
from referee.chat import parse_line
from referee.dice import DEFAULT_DIALECT
from referee.discord.character_keys import characters
from referee.discord.desk_base import (
    DEFAULT_SYSTEM,
    LIVE,
    MAX_BUTTONS,
    MAX_CHOICES,
    PROCTOR_VERBS,
    READ_ONLY,
    REF,
    SCORE_CHANGES,
    SPECIAL_MENU,
    SRP_SPECIALS,
    SRP_UNDO,
    _json_bytes,
    _on_side,
    _only_foe,
    _own,
    _proctor_what,
    head_line,
    match_name,
)
from referee.discord.desk_ledgers import TableLedgers
from referee.discord.links import Character, Member
from referee.discord.personas import Persona
from referee.discord.presses import turn_mark
from referee.discord.proxy_trust import KINDS
from referee.discord.render import lines_for, signer
from referee.discord.replies import Button, Person, Place, Reply
from referee.errors import (
    ConflictError,
    ForbiddenError,
    NotationError,
    NotFoundError,
    RuleError,
)
from referee.numerals import is_whole
from referee.service.bouts import ANONYMOUS, Caller, Via, rule_system
from referee.service.chat import roster as chat_roster
from referee.service.chat import run_command
from referee.service.glance import as_known
from referee.service.redaction import hidden_stats, redact_hidden
from referee.store import Role
from referee.systems import find_system, system_names


class Spars(TableLedgers):
    """The spar part of `Desk`: a spar's life and its fighting."""

    def open(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:open [msv|srp] [NAME]`: the caller becomes the proctor."""
        if self._spar(place, required=False) is not None:
            raise ConflictError("a spar is already open in this channel (~spar:end ends it)")
        words = args.split()
        named = bool(words) and words[0].lower() in system_names()
        system = words.pop(0).lower() if named else DEFAULT_SYSTEM
        joined = find_system(system).join_stat
        name = " ".join(words) or f"Spar in #{place.channel_name}"
        notation = self.dialect_of(place)
        opened = self.service.create_bout(system, name, dialect=notation)
        self.links.set_channel(place.channel, place.guild, spar=opened["id"])
        self.links.set_member(opened["id"], who.id, proctor=True, name=who.name)
        lines = [
            f"Spar {name!r} ({system.upper()}) is open; the proctor is {who.name}.",
            f"Commitment: {opened['commitment']} (published before any roll).",
            f"Join with ~spar:join {joined.upper() if joined else 'CHARACTER'}",
        ]
        if notation != DEFAULT_DIALECT.name:
            lines.append(f"Its dice are read as {notation}.")
        lines += self._links(opened["id"])
        return Reply(lines)

    def join(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:join [CS | CHARACTER]`: join the open spar as yourself or a saved character."""
        bout = self.bout_of(place)
        if who.proxy is not None:
            return self._join_persona(bout, who, args)
        me = self.links.member(bout, who.id)
        if me is not None and me.fighter:
            raise ConflictError(f"you already fight in this spar as {me.fighter}")
        system = self.service.state(bout).system
        entry, side = _on_side(args)
        name, stats, saved = self._entrant(who, system, entry)
        played = _played(saved)
        part = self._seed_part(bout)
        self.service.add_fighter(
            bout, ANONYMOUS, name, stats, side, joining=True, client_seed=part, character=played
        )
        self.links.set_member(bout, who.id, fighter=name, name=who.name)
        shown = f"CS {stats['cs']}" if "cs" in stats else "sheet saved with ~char"
        on = f" on the side {side}" if side else ""
        return Reply([f"{name} joins the spar{on} ({shown})."])

    def _join_persona(self, bout: str, who: Person, args: str) -> Reply:
        """`~spar:join CS` (or a saved character of the persona's name) posted through a proxy:
        the persona joins under the name the proxy posted, held by the member who wrote it."""
        assert who.proxy is not None
        entry, side = _on_side(args)
        name, stats, saved = self._entrant(who, self.service.state(bout).system, entry)
        if name.casefold() != who.name.casefold():
            raise NotationError(
                f"{who.name} joins under its own name: ~spar:join CS, or a character of yours "
                f"saved as {who.name}"
            )
        played = _played(saved)
        part = self._seed_part(bout)
        self.service.add_fighter(
            bout, ANONYMOUS, name, stats, side, joining=True, client_seed=part, character=played
        )
        self.personas.hold(bout, Persona(name, who.id, who.proxy))
        shown = f"CS {stats['cs']}" if "cs" in stats else "sheet saved with ~char"
        on = f" on the side {side}" if side else ""
        return Reply([f"{name} joins the spar{on} ({shown}), through {KINDS[who.proxy]}."])

    def _persona(self, bout: str, who: Person) -> str:
        """The fighter a message posted through a proxy acts for: the persona of the name it
        was posted under, when the member who wrote it holds that persona."""
        held = self.personas.named(bout, who.name)
        if held is None:
            raise ForbiddenError(
                f"{who.name} is not fighting in this spar (join through the proxy: ~spar:join CS)"
            )
        if held.user_id != who.id:
            raise ForbiddenError(f"{held.fighter} is not yours to play; nothing changed")
        return held.fighter

    def _persona_caller(self, bout: str, who: Person, command: k.ChatCommand) -> Caller:
        """Who a persona is to the service: its own fighter, for its own actions only, with
        the member and the proxy recorded in the action's event; nobody, for a reading."""
        if isinstance(command, READ_ONLY):
            return ANONYMOUS
        fighter = self._persona(bout, who)
        if not _own(command, fighter):
            raise ForbiddenError(
                "a persona acts only for itself; give the proctor's commands as yourself"
            )
        return Caller(Role.FIGHTER, fighter, via=Via(f"discord:{who.id}", str(who.proxy)))

    def _entrant(
        self, who: Person, system: str, args: str
    ) -> tuple[str, dict[str, Any], Character | None]:
        stat = find_system(system).join_stat
        if stat is not None and is_whole(args):
            return who.name, {stat: int(args)}, None
        saved = [ch for ch in characters(self.links.store, who.id) if ch.system == system]
        if args:
            chosen = [ch for ch in saved if ch.name.casefold() == args.casefold()]
            if not chosen:
                raise NotFoundError(
                    f"you have no {system.upper()} character called {args!r} (~char list)"
                )
            return chosen[0].name, dict(chosen[0].stats), chosen[0]
        if len(saved) == 1:
            return saved[0].name, dict(saved[0].stats), saved[0]
        hint = f"~spar:join 65 (your {stat.upper()})" if stat else "~spar:join CHARACTER"
        raise NotationError(f"say how you join: {hint}")

    def end(self, place: Place, who: Person, side: str | None = None) -> Reply:
        """The `~spar:end` button: end the spar (naming the winning side, if any, unless it
        has ended already), reveal its seed and attach the export."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "end")
        before = self.service.state(bout).next_seq
        if self.service.state(bout).status in LIVE:
            run_command(self.service, bout, REF, k.End(side))
        seed = self.service.close(bout, REF)["server_seed"]
        records = self.service.records(bout, before - 1)
        export = self.service.export(bout, REF)
        self.links.set_channel(place.channel, place.guild, spar=None)
        lines = lines_for(records, export["bout"]["system"], signer(self.service.key, bout))
        lines += [
            f"The spar is closed. Server seed: {seed}",
            head_line(export),
            "The export is attached: anyone can check it with referee verify.",
        ]
        return Reply(lines, file=(f"spar-{bout}.json", _json_bytes(export)))

    def link_page(self, place: Place, who: Person) -> tuple[str, str]:
        """Which web page `~spar:link` would give `who` (fighter or referee) and the spar's
        name; changes nothing (the bot first makes sure it can reach them by direct message)."""
        bout = self.bout_of(place)
        me = self.links.member(bout, who.id)
        if me is not None and me.proctor:
            return "referee", self.service.state(bout).name
        if me is not None and me.fighter:
            return "fighter", self.service.state(bout).name
        raise ForbiddenError("only the proctor and the fighters of this spar have links")

    def link(self, place: Place, who: Person) -> Reply:
        """`~spar:link`: a fresh web link by direct message; the old one stops working.

        A fighter gets the fighter page; the proctor the referee page (a new referee token).
        The token never appears in the channel.
        """
        bout = self.bout_of(place)
        page, name = self.link_page(place, who)
        me = self.links.member(bout, who.id)
        assert me is not None
        if page == "referee":
            token = self.service.hand_over(bout, REF)["referee_token"]
        else:
            assert me.fighter is not None
            token = self.service.reissue_token(bout, REF, me.fighter)["token"]
        base = self.public_url or "(your referee serve address)"
        url = f"{base}/static/{page}.html#bout={bout}&token={token}"
        return Reply(
            ["Sent you a fresh link by direct message; the old one stops working."],
            direct=[(who.id, f"Your {page} page for {name}: {url}")],
        )

    def fighter_of(self, place: Place, user: int) -> str:
        """The fighter a mentioned user plays in the channel's spar."""
        bout = self.bout_of(place)
        member: Member | None = self.links.member(bout, user)
        if member is None or not member.fighter:
            raise NotFoundError("that member is not fighting in this spar")
        return member.fighter

    def fighter_named(self, place: Place, text: str) -> str:
        """A fighter by its typed name (case-insensitive, longest match first)."""
        bout = self.bout_of(place)
        return match_name(text, [f.name for f in self.service.state(bout).fighters])

    def begin(self, place: Place, who: Person) -> Reply:
        """`~spar:begin` (the chat grammar's `init`): roll initiative (every reroll shown)."""
        return self.run(place, who, k.Init())

    def attack(
        self, place: Place, who: Person, target: str | None, attacker: str | None = None
    ) -> Reply:
        """`~spar:attack @user` (alias `~spar:roll`), an Attack button: the chat grammar's
        `attack TARGET`; without a target, the one set with `~spar:target` or the only foe."""
        if target is None:
            bout = self.bout_of(place)
            state = self.service.state(bout)
            me = None if who.proxy else self.links.member(bout, who.id)
            actor = attacker or self._actor(bout, who, state)
            target = (me.target if me and attacker is None else None) or _only_foe(state, actor)
        return self.run(place, who, k.Attack(target, attacker))

    def act(
        self, place: Place, who: Person, kind: str, target: str | None, options: dict[str, Any]
    ) -> Reply:
        """`~spar:act KIND @user key=value...`, an SRP button: the chat grammar's `act`."""
        if target is not None:
            options = {**options, "target": target}
        return self.run(place, who, k.Act(kind, tuple(options.items())))

    def typed(
        self, place: Place, who: Person, verb: str, text: str, user: int | None = None
    ) -> Reply:
        """A typed command in the chat grammar (`~spar:attack Tarl`, `~attack Tarl`,
        `~spar:add Bob the Bold 50`): the line is read by `referee.chat.parse_line` against
        the spar's roster, as the chat endpoint and the HUD read it, then run (`run`)."""
        bout = self.bout_of(place)
        what = PROCTOR_VERBS.get(verb)
        if what is not None:  # the proctor's words say so before anything is read
            self.require_proctor(bout, who, what)
        state = self.service.state(bout)
        if verb == "attack" and not text.strip():
            return self.attack(place, who, None)
        command = parse_line(f"{verb} {text}".strip(), chat_roster(state))
        if isinstance(command, k.Close):  # here it also attaches the export
            return self.end(place, who)
        return self.run(place, who, command, user=user)

    def run(
        self, place: Place, who: Person, command: k.ChatCommand, user: int | None = None
    ) -> Reply:
        """Run one chat command for a member, as the chat endpoint runs it
        (`referee.service.chat.run_command`, one unit of work): the proctor speaks as the
        referee (and for a non-player fighter on its turn), a fighter as itself. `user`: the
        member an `add` stands for. The answer shows the stored events (hidden stats to the
        proctor only), or the chat grammar's answer line when nothing was stored."""
        bout = self.bout_of(place)
        state = self.service.state(bout)
        command = self._for_npc(bout, who, state, command)
        caller = self._caller(bout, who, command)
        part = self._seed_part(bout) if isinstance(command, k.Add) else None
        ran = run_command(self.service, bout, caller, command, seed_part=part)
        if isinstance(command, k.Add):
            if user is not None:
                self.links.set_member(bout, user, fighter=command.name, name=command.name)
            return Reply(
                [f"{command.name} joins the spar (CS {command.cs}), added by the proctor."]
            )
        if isinstance(command, k.Quit | k.Remove):  # the member no longer plays it
            gone = command.name if isinstance(command, k.Remove) else caller.fighter
            for member in self.links.members(bout):
                if member.fighter is not None and member.fighter == gone:
                    self.links.set_member(bout, int(member.user_id), fighter=None)
        if not ran.records:
            return Reply([ran.line])
        # The events as stored (the service answers a fighter without hidden stats; the
        # proctor reads those here, by direct message, and the channel what the public may).
        first, last = ran.records[0]["seq"], ran.records[-1]["seq"]
        stored = [r for r in self.service.records(bout, first - 1) if r["seq"] <= last]
        return self.answer(bout, stored)

    def _caller(self, bout: str, who: Person, command: k.ChatCommand) -> Caller:
        """Who a member is to the service for `command`: the referee (the proctor, for the
        referee's commands and for another fighter), the fighter it plays, or nobody."""
        if who.proxy is not None:
            return self._persona_caller(bout, who, command)
        me = self.links.member(bout, who.id)
        mine = me.fighter if me is not None else None
        if isinstance(command, READ_ONLY):
            return ANONYMOUS
        if _own(command, mine):
            if mine is None:
                raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
            return Caller(Role.FIGHTER, mine)
        self.require_proctor(bout, who, _proctor_what(command))
        return REF

    def _for_npc(
        self, bout: str, who: Person, state: BoutState, command: k.ChatCommand
    ) -> k.ChatCommand:
        """The proctor's own `attack TARGET` / `act KIND` on a non-player fighter's turn: the
        same command with that fighter named as the one who acts."""
        npc = self._npc_to_act(bout, who, state)
        if npc is None:
            return command
        if isinstance(command, k.Attack) and command.attacker is None:
            return k.Attack(command.target, npc)
        if isinstance(command, k.Spirit) and command.actor is None:
            return k.Spirit(command.target, npc)
        if isinstance(command, k.Act) and "actor" not in dict(command.options):
            return k.Act(command.kind, (*command.options, ("actor", npc)))
        return command

    def _actor(self, bout: str, who: Person, state: BoutState) -> str:
        """The fighter a member's own action is for: its own, or the non-player fighter the
        proctor acts for on its turn."""
        if who.proxy is not None:
            return self._persona(bout, who)
        npc = self._npc_to_act(bout, who, state)
        if npc is not None:
            return npc
        me = self.links.member(bout, who.id)
        if me is None or not me.fighter:
            raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
        return me.fighter

    def _npc_to_act(self, bout: str, who: Person, state: BoutState) -> str | None:
        """The fighter to act when it is a non-player fighter (no member plays it) and `who`
        holds the proctor's powers without fighting: the proctor acts for it (as the referee
        does in the web console), by command or button. Never for a persona."""
        if who.proxy is not None:
            return None
        me = self.links.member(bout, who.id)
        if me is not None and me.fighter:
            return None
        if state.status is not Status.RUNNING or state.current is None:
            return None
        if any(m.fighter == state.current for m in self.links.members(bout)):
            return None
        proctor = self.links.proctor(bout)
        return state.current if who.admin or proctor == str(who.id) else None

    def set_target(self, place: Place, who: Person, target: str) -> Reply:
        """`~spar:target @user`: whom your roll attacks when you have several foes."""
        bout = self.bout_of(place)
        me = self.links.member(bout, who.id)
        if me is None or not me.fighter:
            raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
        foes = [f.name for f in self.service.state(bout).enemies_of(me.fighter)]
        if target not in foes:  # oneself, one's own side, a fighter down, or none at all
            self.service.state(bout).fighter(target)
            raise RuleError(
                f"{target} is no standing foe of {me.fighter} (foes: {', '.join(foes)})"
            )
        self.links.set_member(bout, who.id, target=target)
        return Reply([f"{me.fighter}'s rolls now attack {target}."])

    def scoreboard(self, place: Place) -> Reply:
        """`~spar:scoreboard`: wounds against thresholds, whose turn it is."""
        bout = self.bout_of(place)
        return Reply(self._score_lines(bout))

    def _score_lines(self, bout: str) -> list[str]:
        state = self.service.state(bout)
        lines = [f"Scoreboard of {state.name} ({state.status.value}, round {state.round}):"]
        for row in self.service.scoreboard(bout):
            down = " - defeated" if row["defeated"] else ""
            lines.append(f"  {row['name']}: {row['wounds']} of {row['threshold']}{down}")
        if state.current:
            lines.append(f"Next: {state.current}'s turn")
        return lines

    def quit(self, place: Place, who: Person) -> Reply:
        """`~spar:quit` (the chat grammar's `quit`): leave the spar."""
        return self.run(place, who, k.Quit())

    def answer(self, bout: str, records: Sequence[dict[str, Any]]) -> Reply:
        state = self.service.state(bout)
        sign = signer(self.service.key, bout)
        lines = [ln for ln in lines_for(records, state.system, sign) if not ln.startswith("Next:")]
        direct: list[tuple[int, str]] = []
        hidden = {} if state.closed else hidden_stats(self.service.records(bout))
        if hidden:
            # SRP-10 (and an MSV NPC's hidden CS): the channel reads what the service shows
            # the public (`redact_hidden`); what that leaves out goes to the proctor only.
            shown = redact_hidden(list(records), hidden, state.system)
            public = lines_for(shown, state.system, sign)
            secret = [ln for ln in lines if ln not in public]
            lines = [ln for ln in public if not ln.startswith("Next:")]
            proctor = self.links.proctor(bout)
            if secret and proctor is not None:
                direct.append((int(proctor), "\n".join([f"{state.name}, for the proctor:",
                                                        *secret])))  # fmt: skip
        if any(r["type"] in SCORE_CHANGES for r in records):
            lines += [ln for ln in self._score_lines(bout) if not ln.startswith("Next:")]
        if state.status is Status.RUNNING and state.current:
            free = " - a free attack" if state.free_attack else ""
            lines.append(f"Next: {state.current}'s turn (round {state.round}){free}")
        buttons = self._buttons(state)
        mark = turn_mark(bout, state, self.service.records(bout)) if buttons else None
        return Reply(lines, buttons=buttons, direct=direct, mark=mark)

    def _buttons(self, state: BoutState) -> list[Button]:
        """The buttons for the fighter to act: an Attack per foe, in SRP also Shoot per foe,
        what undoes its own conditions, Pass, and the special actions as one menu; each only
        if the rules allow it now (`referee.bout.engine.why_not`: the engine's checks and
        the rule system's own, run up to the first die, nothing thrown), asked of the fighters
        as anyone may know them, a stat still hidden at its rule system's default (SRP-10:
        the channel reads the buttons; `referee.service.glance.as_known`, as the glance asks)."""
        actor = state.current
        if state.status is not Status.RUNNING or actor is None:
            return []
        rules = rule_system(state)
        state = as_known(rules, state)
        foes = state.enemies_of(actor)

        def allowed(kind: str, foe: str = "") -> bool:
            options = {"target": foe} if foe else {}
            return why_not(state, actor, kind, options, rules) is None

        attacks = [Button(f"Attack {f.name}", "attack", f.name) for f in foes
                   if allowed("attack", f.name)]  # fmt: skip
        if set(rules.actions) == {"attack"}:  # a system of attacks only: nothing more to offer
            return attacks
        shots = [Button(f"Shoot {f.name}", "shoot", f.name) for f in foes
                 if allowed("shoot", f.name)]  # fmt: skip
        undo = {kind: label for _, label, kind in SRP_UNDO if allowed(kind)}
        own = [Button(label, kind, "") for kind, label in undo.items()]
        buttons = [*attacks, *shots][: MAX_BUTTONS - len(own) - 1] + own
        if allowed("pass"):
            buttons.append(Button("Pass", "pass", ""))
        # SRP-16 special actions against each foe, as one select menu (no free-form argument).
        specials = [
            Button(f"{label} {foe.name}", kind, foe.name, SPECIAL_MENU)
            for foe in foes
            for kind, label in SRP_SPECIALS
            if allowed(kind, foe.name)
        ]
        return buttons + specials[:MAX_CHOICES]


def _played(saved: Character | None) -> tuple[str, int] | None:
    """The saved character a member joins with, as (id, version) for its join; refused when it
    has hidden stats (an NPC's, which the proctor fields)."""
    if saved is not None and saved.hidden:
        raise RuleError(
            f"{saved.name} has hidden stats (an NPC's): the proctor fields it (~spar:npc)"
        )
    return None if saved is None or saved.id is None else (saved.id, saved.version)
