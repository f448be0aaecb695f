"""`~help` and `~help COMMAND`: short, with examples."""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "roll": "~roll EXPR (alias ~r) [NOTE]: any dice notation, e.g. ~roll 2d20+1d6, ~roll "
    "1d20+5 to hit (the note is shown with the roll); a bare ~roll rolls 2d6 as OnlineHost's "
    "bare //roll; ~roll //roll -sides100 -dice1 (or the line //roll -sides100 -dice1 itself) "
    "answers as OnlineHost. Every roll is verifiable: outside a spar it goes to the channel's "
    "table ledger (~fair). In an MSV spar, your 1d100 on your turn is your attack; while the "
    "spar is paused it is refused.",
    "odds": "~odds EXPR: the exact odds of a roll (mean, P(=) and P(>=) per total), nothing "
    "rolled. e.g. ~odds 2d6, ~odds 4d6kh3",
    "dialect": "~dialect: how dice are read in this channel. ~dialect roll20|onlinehost|d20 "
    "(the channel's proctor or Manage Server) sets it for ~roll, ~odds and spars opened here: "
    "4d6k3 keeps the highest 3 in roll20 and onlinehost, the dice showing 3 in d20.",
    "spar:npc": "~spar:npc CHARACTER [on SIDE] [hidden] or ~spar:npc NAME cs=70 [on SIDE] "
    "[hidden] (proctor): a non-player fighter; hidden keeps its CS (MSV) or skills, defense and "
    "armor (SRP) to the proctor, who reads them by direct message.",
    "spar:reveal": "~spar:reveal NAME [KEY...] (proctor): show an NPC's hidden stats to everyone.",
    "fair": "~fair: the table ledger's commitment. ~fair reveal: reveal its server seed, attach "
    "the export (check it with referee verify) and start a new ledger.",
    "spar:open": "~spar:open [msv|srp] [NAME]: open a spar here; you become its proctor. "
    "e.g. ~spar:open msv Friday duel",
    "spar:join": "~spar:join CS (MSV) or ~spar:join CHARACTER (a saved ~char). e.g. ~spar:join 65",
    "spar:begin": "~spar:begin (proctor): roll initiative, every roll and reroll shown, and start.",
    "spar:attack": "~spar:attack @user (alias ~spar:roll @user): attack on your turn. The "
    "proctor: ~spar:attack @attacker @target.",
    "spar:act": "~spar:act KIND @user key=value (SRP): e.g. ~spar:act shoot @Orc, "
    "~spar:act disarm @Bran, ~spar:act pass",
    "spar:target": "~spar:target @user: whom your ~roll 1d100 attacks when you have several foes.",
    "spar:scoreboard": "~spar:scoreboard: wounds against thresholds and whose turn it is.",
    "spar:quit": "~spar:quit: leave the spar.",
    "spar:end": "~spar:end [SIDE] (proctor): asks first; pressing End the spar ends it (the "
    "winning side, if named). ~spar:close then reveals the seed and attaches the export.",
    "proctor": "Proctor powers (the proctor or Manage Server): ~spar:pause, resume, skip, void, "
    "cancel, end [SIDE] (with a confirmation button), add @user CS [SIDE] (or add NAME CS), "
    "remove @user, update @user wounds=3 cs=70, override [SEQ] NAME=WOUNDS, assign @user, "
    "close (reveals the seed and attaches the export).",
    "char": "~char set NAME cs=65 (or SRP: skill=13 defense=11 hits=10 weapon=mace "
    "armor=leather), ~char list, ~char show NAME, ~char delete NAME.",
}

HELP = (
    "referee: verifiable dice and MSV/SRP spars.\n"
    "~roll 2d20+1d6 | ~roll //roll -sides100 -dice1 | ~odds 2d6 | ~dialect | ~fair [reveal]\n"
    "~spar:open msv NAME | ~spar:join 65 | ~spar:begin | ~spar:attack @user | "
    "~spar:scoreboard | ~spar:quit\n"
    "proctor: ~spar:pause resume skip void cancel end add npc remove update override reveal "
    "assign close\n"
    "~char set NAME cs=65 | ~char list | ~help COMMAND"
)


def command_help(name: str) -> str:
    """Help for one command.

    >>> command_help("~r").startswith("~roll EXPR")
    True
    """
    key = name.strip().lower().lstrip("~").lstrip("/")
    key = {"r": "roll", "spar:roll": "spar:attack", "spar:score": "spar:scoreboard"}.get(key, key)
    if key.startswith("spar:") and key not in COMMANDS:
        key = "proctor"
    return COMMANDS.get(key, f"no command {name.strip()!r}; ~help lists them")
