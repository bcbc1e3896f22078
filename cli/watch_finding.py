"""`tractor watch` without an address: the games under way on the LAN (announced by their
hosts' seats, `cli.watch_hosting`), one picked by number. A game whose host refused
watchers is listed, saying so, and cannot be picked; nor can one that has all the
watchers it takes. The list is what was heard in two seconds (`discovery.browse`): bounded
by the browser's own limits, and every entry as hostile as its datagram.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from tractor.net.lobby.discovery import Announcement

from .lobby_settings import listing_entry

#: Reads one line typed by the person, after a prompt (None: the input ended).
Read = Callable[[str], Awaitable[str | None]]


def game_line(ann: Announcement) -> str:
    """One game as the list shows it: "ann's table: game under way  2 decks  1 of 8
    watchers  (passphrase)  tcp:192.0.2.5:40124" (fitted by `listing_entry`)."""
    lock = "  (passphrase)" if ann.passphrase else ""
    watchers = ("takes no watchers" if ann.seats == 0
                else f"{ann.taken} of {ann.seats} watchers")
    return listing_entry(ann.name, "game under way", ann.rules,
                         f"{watchers}{lock}  {ann.address}")


def why_not(ann: Announcement) -> str | None:
    """Why the game cannot be watched now, or None."""
    if ann.seats == 0:
        return "its host refused watchers"
    if ann.taken >= ann.seats:
        return f"it has {ann.seats} watchers already; try again later"
    return None


async def choose_game(found: Sequence[Announcement], read: Read,
                      say: Callable[[str], None]) -> Announcement | None:
    """List ``found`` and read the number of the one to watch (asked again until it is
    one that can be watched); None if the person gives up (an empty answer, the end of
    input) or none can be watched."""
    for i, ann in enumerate(found, 1):
        say(f"  {i}. {game_line(ann)}")
    if all(why_not(ann) is not None for ann in found):
        say("tractor watch: none of these games can be watched now")
        return None
    while True:
        choice = (await read("watch which game? (number, Enter to give up) ") or "").strip()
        if not choice:
            say("tractor watch: no game chosen")
            return None
        if not (choice.isdigit() and 1 <= int(choice) <= len(found)):
            say(f"there is no game {choice!r:.20} in the list: type 1 to {len(found)}")
            continue
        ann = found[int(choice) - 1]
        refused = why_not(ann)
        if refused is None:
            return ann
        say(f"{ann.name} cannot be watched: {refused}")
