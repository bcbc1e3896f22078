"""The names AI players sit under at a table.

Every AI process names itself: the host's own are "AI 1", "AI 2", ... in the order it
starts them, an AI server's are numbered by that server, a `tractor ai` by its ``--name``.
Two of them at one table could then share a name (the host's first AI and an AI server's
first player were both "AI 1", and the screens had to call one "AI 1 2"), or carry a
number that means nothing at this table (an AI server's 17th player). So the host's lobby
gives an AI its name when it seats it (`ai_seat_name`); a person's name is theirs to keep.
"""

from __future__ import annotations

import re
from collections.abc import Collection

AI_NAME = re.compile(r"AI (\d+)")  #: the names AI players are given by default


def ai_seat_name(asked: str, held: Collection[str], seats: int) -> str:
    """The name an AI that asks for ``asked`` sits under, when the other seats hold the
    names ``held`` at a table of ``seats``: its own, unless a seat holds it or it is a
    default name numbered past the table's seats; else "AI n", the lowest number no seat
    holds.

    >>> ai_seat_name("AI 2", ["ann", "AI 1"], 4), ai_seat_name("Robo", ["ann"], 4)
    ('AI 2', 'Robo')
    >>> ai_seat_name("AI 1", ["ann", "AI 1"], 4), ai_seat_name("AI 17", ["ann", "AI 1"], 4)
    ('AI 2', 'AI 2')
    >>> ai_seat_name("ann", ["ann", "AI 1", "AI 3"], 4)
    'AI 2'
    """
    default = AI_NAME.fullmatch(asked)
    if asked not in held and (default is None or 1 <= int(default.group(1)) <= seats):
        return asked
    number = 1
    while f"AI {number}" in held:
        number += 1
    return f"AI {number}"
