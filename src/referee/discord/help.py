"""`~help` and `~help COMMAND`: short, with examples."""

from __future__ import annotations

from collections.abc import Mapping

COMMANDS: dict[str, str] = {
    "roll": "~roll EXPR (alias ~r) [NOTE]: any dice notation, e.g. ~roll 2d20+1d6, ~roll "
    "1d20+5 to hit (the note is shown with the roll); a bare ~roll rolls 2d6 as OnlineHost's "
    "bare //roll; ~roll //roll -sides100 -dice1 (or the line //roll -sides100 -dice1 itself) "
    "answers as OnlineHost. Every roll is verifiable: outside a spar it goes to your own "
    "table ledger in the channel, from a dice stream of your own (~fair). In an MSV spar, "
    "your 1d100 on your turn is your attack; while the spar is paused it is refused. Dice of "
    "20 to 100 sides are also scored the Rhy'Din way, as on OnlineHost: each die "
    "max(0, (face - 10) // 5), e.g. 2d22 14 17: 0 + 1 = 1.",
    "choose": "~choose item 1, item 2, ...: one of the items by a verifiable 1dN (N items) in "
    "your table ledger, as OnlineHost chooses. e.g. ~choose the tavern, the docks, the gate. "
    "~choose TABLE [+N|-N]: a roll on one of this server's roll tables (~table).",
    "table": "~table list | info NAME: this server's roll tables. Manage Server: ~table new NAME "
    "[description], ~table add NAME item 1, item 2 (one side each) or [1,3]item (sides 1 to 3), "
    "~table rewrite NAME SIDE text, ~table remove NAME SIDE, ~table delete NAME.",
    "alias": "~alias add NAME EXPR: your own name for a dice expression, in every server, e.g. "
    "~alias add hit 1d20+5; then ~hit (or ~roll hit) rolls it as ~roll 1d20+5 does, verifiable "
    "like any roll (a note after it is the roll's note: ~hit the orc). ~alias list, "
    "~alias remove NAME. A name of the bot's own commands cannot be taken.",
    "odds": "~odds EXPR: the exact odds of a roll (mean, P(=) and P(>=) per total), nothing "
    "rolled. e.g. ~odds 2d6, ~odds 4d6kh3",
    "dialect": "~dialect: how dice are read in this channel. ~dialect roll20|onlinehost|d20 "
    "(the channel's proctor or Manage Server) sets it for ~roll, ~odds and spars opened here: "
    "4d6k3 keeps the highest 3 in roll20 and onlinehost, the dice showing 3 in d20.",
    "spar:npc": "~spar:npc CHARACTER [on SIDE] [hidden] or ~spar:npc NAME cs=70 [on SIDE] "
    "[hidden] (proctor): a non-player fighter; hidden keeps its CS (MSV) or skills, defense and "
    "armor (SRP) to the proctor, who reads them by direct message.",
    "spar:reveal": "~spar:reveal NAME [KEY...] (proctor): show an NPC's hidden stats to everyone.",
    "fair": "~fair: your own table ledger in this channel: its commitment, client seed and "
    "rolls so far. ~fair part TEXT: your own part of its client seed, given after you have seen "
    "the commitment and before your first roll (else the bot draws one at it). ~fair reveal: "
    "reveal its server seed, say its head hash, attach the export (check it with referee "
    "verify) and start a new ledger. ~fair reveal all (Manage Server): every table ledger of "
    "the channel at once.",
    "spar:open": "~spar:open [msv|srp] [NAME]: open a spar here; you become its proctor. "
    "e.g. ~spar:open msv Friday duel",
    "spar:join": "~spar:join CS (MSV) or ~spar:join CHARACTER (a saved ~char). e.g. ~spar:join 65",
    "spar:begin": "~spar:begin (also ~init; proctor): roll initiative, every roll and reroll "
    "shown, and start.",
    "spar:attack": "~spar:attack TARGET (also ~attack, ~spar:roll; @user or the name): attack "
    "on your turn. The proctor: ~spar:attack ATTACKER TARGET. The chat grammar's line, as in "
    "the web chat and the HUD: ~attack pa kur.",
    "spar:act": "~spar:act KIND [TARGET] key=value (also ~act; SRP): e.g. ~spar:act shoot "
    "@Orc, ~act disarm Orc Chief, ~act pass. The proctor names who acts with actor=NAME.",
    "spar:spirit": "~spar:spirit TARGET (also ~spirit; SRP): one round of spirit combat. The "
    "proctor: ~spar:spirit FIGHTER TARGET.",
    "spar:status": "~spar:status (also ~status): the spar's state, whose turn it is, the score, "
    "in one line.",
    "spar:score": "~spar:score (also ~score): wounds against thresholds, in one line.",
    "spar:target": "~spar:target @user: whom your ~roll 1d100 attacks when you have several foes.",
    "spar:scoreboard": "~spar:scoreboard: wounds against thresholds and whose turn it is.",
    "spar:quit": "~spar:quit: leave the spar.",
    "spar:end": "~spar:end [SIDE] (proctor): asks first; pressing End the spar ends it (the "
    "winning side, if named), reveals its server seed, says its head hash (keep it: referee "
    "verify --expect-hash checks any export against it) and attaches the export.",
    "proctor": "Proctor powers (the proctor or Manage Server): ~spar:pause, resume, skip, void, "
    "cancel bout, close (no more joiners), end [SIDE] (with a confirmation button; reveals "
    "the seed and attaches the export), add @user CS [SIDE] (or add NAME CS), remove @user, "
    "update @user wounds=3 cs=70, override [SEQ] NAME=WOUNDS, assign @user. Each also "
    "without spar: (~pause, ~add Bob the Bold 50).",
    "luck": "~luck: your record (bouts fought, won, lost) and luck against the exact odds, from "
    "verified exports of every closed spar and table ledger you fought in here; ~luck @member, "
    "~luck NAME: theirs; ~luck [NAME] BOUT_ID ...: the closed bouts named (docs/luck.md).",
    "char": "~char set NAME cs=65 (or SRP: skill=13 defense=11 hits=10 weapon=mace "
    "armor=leather), ~char list, ~char show NAME, ~char delete NAME.",
}

#: Help for the commands that are not in the table above, one entry per command.
COMMANDS.update({
    "help": "~help: every command; ~help COMMAND: one of them, with examples (~help roll, "
    "~help spar:clock).",
    "prefix": "~prefix X (Manage Server): this server's own prefix instead of ~, e.g. ~prefix !",
    "proxy": "~proxy: the proxy bots (PluralKit, Tupperbox) whose messages act for the "
    "characters they post as; ~proxy trust pluralkit|tupperbox [APPLICATION_ID], ~proxy "
    "distrust pluralkit|tupperbox|APPLICATION_ID, ~proxy default (Manage Server). Through a "
    "trusted proxy, ~spar:join 65 joins the character, ~attack acts for it.",
    "spar:pause": "~spar:pause (proctor): stop the spar; nothing can act until ~spar:resume. "
    "The turn clock stands still.",
    "spar:resume": "~spar:resume (proctor): go on after ~spar:pause; the turn clock starts again.",
    "spar:skip": "~spar:skip (proctor): the fighter to act loses the turn (a skipped event).",
    "spar:void": "~spar:void (proctor): undo the last action (it stays in the ledger, voided).",
    "spar:cancel": "~spar:cancel bout (proctor): call the spar off, with no winner.",
    "spar:add": "~spar:add @user CS [SIDE] or ~spar:add NAME CS [SIDE] (proctor): add a member, "
    "or a non-player fighter by name. e.g. ~spar:add @Tarl 65 red",
    "spar:remove": "~spar:remove @user or ~spar:remove NAME (proctor): take a fighter out.",
    "spar:update": "~spar:update @user key=value (proctor): change a fighter's stats or wounds, "
    "e.g. ~spar:update @Tarl wounds=3 cs=70",
    "spar:override": "~spar:override [SEQ] NAME=WOUNDS (proctor): replace the wounds of an "
    "outcome (the last one unless SEQ is given), e.g. ~spar:override Tarl=0",
    "spar:assign": "~spar:assign @user (proctor): hand the proctor's powers over.",
    "spar:close": "~spar:close (proctor; the chat grammar's close joining): no more fighters "
    "may join (OnlineHost's close); the proctor may still add one. ~spar:close bout ends the "
    "spar, reveals its server seed and attaches the export (as ~spar:end's button).",
    "spar:clock": "~spar:clock 2m [skip] (proctor): a post time; when it runs out the fighter "
    "to act is nudged (or, with skip, loses the turn). ~spar:clock off stops it.",
    "spar:link": "~spar:link (a fighter or the proctor): a fresh link to your page of the web "
    "console, by direct message; the old one stops working.",
})  # fmt: skip

#: Topics that are not commands: `~help proctor`.
TOPICS = ("proctor",)


def overview(prefix: str = "~") -> str:
    """`~help`: every command of the table, so none can be left out.

    >>> "~spar:clock" in overview() and "~prefix" in overview()
    True
    """
    names = [name for name in COMMANDS if name not in TOPICS]
    plain = sorted(n for n in names if not n.startswith("spar:"))
    spar = sorted(n for n in names if n.startswith("spar:"))
    return "\n".join([
        "referee: verifiable dice and MSV/SRP spars. ~help COMMAND for one of them.",
        " | ".join(f"{prefix}{n}" for n in plain),
        " | ".join(f"{prefix}{n}" for n in spar),
        "proctor powers: ~help proctor",
    ])  # fmt: skip


HELP = overview()


def command_help(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """Help for one command (`aliases`: each alias's command, from the bot's table).

    >>> command_help("~r", {"r": "roll"}).startswith("~roll EXPR")
    True
    >>> command_help("spar:clock").startswith("~spar:clock 2m")
    True
    """
    key = name.strip().lower().lstrip("~").lstrip("/")
    key = (aliases or {}).get(key, key)
    return COMMANDS.get(key, f"no command {name.strip()!r}; ~help lists them")
