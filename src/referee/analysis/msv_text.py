"""The figures the MSV text prints in its three comparison tables, kept as printed (MSV-10).

Source: seeds/msv-dice-guidelines.txt, "Comparisons of the 2d20+ system and the 1d100 system
of combat". Strings, so the printed precision (".98", "0.70", "51%") is kept too.

>>> PRINTED["old"]["damage"][1]
'0.84'
"""

from __future__ import annotations

#: Old dice 2d20..2d25, the first table's columns.
OLD_SIDES: tuple[int, ...] = (20, 21, 22, 23, 24, 25)
#: CS 50..75, the second table's columns ("s50" .. "s75").
NEW_SKILLS: tuple[int, ...] = (50, 55, 60, 65, 70, 75)
#: The reach of the text's "Average Rounds to 15 Damage".
TEXT_THRESHOLD = 15

#: table -> stat -> six printed cells, left to right.
PRINTED: dict[str, dict[str, tuple[str, ...]]] = {
    # "Stats from the old 2d20+ system"
    "old": {
        "hit": ("51%", "56%", "59%", "63%", "66%", "69%"),
        "damage": ("0.70", "0.84", "0.96", "1.09", "1.20", "1.47"),
        "rounds": ("22", "18", "15", "14", "13", "10"),
    },
    # "Stats from the 1d100 system"
    "new": {
        "hit": ("50%", "55%", "60%", "65%", "70%", "75%"),
        "damage": ("1.1", "1.3", "1.5", "1.7", "1.9", "2.1"),
        "rounds": ("14", "12", "10", "9", "8", "7"),
    },
    # "Stats comparing the systems"
    "ratio": {
        "hit": (".98", ".98", "1.02", "1.03", "1.06", "1.08"),
        "damage": ("1.57", "1.55", "1.56", "1.56", "1.58", "1.43"),
    },
}

#: The text's row titles.
STAT_TITLES: dict[str, str] = {
    "hit": "% to Hit",
    "damage": "Average Damage per Round",
    "rounds": "Average Rounds to 15 Damage",
}
#: The text's row titles in the third table.
RATIO_TITLES: dict[str, str] = {"hit": "% to Hit ratio", "damage": "Average Damage Ratio"}
