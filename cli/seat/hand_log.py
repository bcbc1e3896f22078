"""The log lines of one hand at a peer table, in the order things happened.

`table_events` reads the replicated table (`TableHand`): declarations, then every play,
each trick's winner right after its last play (when this seat's play ended the trick and
may still be taken back, once it stands). That list only grows at its end while the
hand goes on, so the screen's log takes the new lines from it after every change, and
chat lines as they arrive.

A hand first seen part way through (a seat resumed from its journal: the whole hand is
replayed before the screen starts) has no arrival order for its chat. `with_chat` puts
each chat line after the events its writer had seen: every signed frame carries its
sender's view of every seat's message chain, so a chat message tells which plays (and
declarations) had reached its writer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tractor.cards import SUIT_SYMBOLS, format_cards
from tractor.cli.screen.friends_view import call_words, reveal_words
from tractor.cli.screen.theft_words import theft_words
from tractor.friends import Sides
from tractor.net.deck.envelope import FrameError, open_frame
from tractor.net.table.hand import TableHand


@dataclass(frozen=True, slots=True)
class Event:
    """One log line, and the table message that made it happen: seat ``seat``'s
    declaration of ``key`` (sorted faces), its burial, or its play number ``key`` in this
    hand."""

    line: str
    seat: int
    #: "declare", "auction", "bury", "theft", "call", "play" (a reveal: its play's) or
    #: "takeback" (`Rules.takebacks`)
    kind: str
    key: Any


def table_events(hand: TableHand, who: Callable[[int], str]) -> list[Event]:
    """Declarations, the burial, plays and trick winners of ``hand`` so far, in the order
    of the game (leads, throws and follows each with their own verb)."""
    out = []
    thefts = hand.public.thefts  # kitty theft: overcalls after a burial, the last ones
    for k, (seat, faces) in enumerate(hand.declarations[:len(hand.declarations) - len(thefts)]):
        # The same seat again on its own declaration (a pair after a single): reinforced.
        again = k and hand.declarations[k - 1][0] == seat
        verb = "reinforces with" if again else "declares"
        out.append(Event(f"{who(seat)} {verb} {format_cards(faces, True)}", seat, "declare",
                         tuple(sorted(faces))))
    public = hand.public
    for seat, points in public.auction_log:  # the auction variant, in turn
        out.append(Event(f"{who(seat)} bids {points}" if points else f"{who(seat)} passes",
                         seat, "auction", None))
    for seat, face in public.shown:
        out.append(Event(f"{who(seat)} shows {format_cards([face], True)}", seat, "auction",
                         None))
    starter = hand.starter
    if hand.rules.declaration == "auction" and public.trump is not None \
            and starter is not None:
        suit = public.trump.suit
        named = f"{SUIT_SYMBOLS[suit]} trumps" if suit else "no trump suit"
        out.append(Event(f"{who(starter)} starts (the declarers' highest card shown) and "
                         f"names {named}", starter, "auction", None))
    burials = hand.deck.burials
    for k in range(len(thefts) + 1 if burials and starter is not None else 0):
        # The starter buries; with kitty theft each thief takes the kitty and buries anew.
        assert starter is not None
        seat = starter if k == 0 else thefts[k - 1][0]
        if k:
            out.append(Event(theft_words(who(seat), thefts[k - 1][1]), seat, "theft", None))
        if k < len(burials):
            out.append(_burial(hand, who, seat, burials[k]))
    sides = public.sides
    if sides is not None and starter is not None:  # find-a-friend: the call, then reveals
        out.append(Event(call_words(who(starter), sides.calls), starter, "call", None))
        sides = Sides(hand.rules, starter, sides.calls)  # replayed along the plays below
    plays: Counter[int] = Counter()
    tricks = hand.tricks + ([hand.trick] if hand.trick is not None else [])
    for number, t in enumerate(tricks, 1):
        places = max([len(t.plays), *(place + 1 for place, _, _ in t.taken)])
        for k in range(places):
            seat = (t.leader + k) % hand.n
            for place, faces, finished in t.taken:  # before the play made again there
                if place == k:
                    told = finished if seat != hand.me else None  # this seat's: held back
                    out += _taken_back(who, seat, k, faces, number, told, plays[seat])
                    plays[seat] += 1
            if k >= len(t.plays):
                continue
            faces = t.plays[k]
            cards = format_cards(faces, True)
            if k:
                line = f"{who(seat)} plays {cards}"
            elif t.attempted and t.forced and t.forced != t.attempted:
                # The claims that stopped it are public: the seats showed those cards.
                shown = ", ".join(f"{who(s)} shows {format_cards(faces, True)}"
                                  for s, _ in t.answers
                                  for _, faces in (t.claims or {}).get(s, ()))
                line = (f"{who(seat)} throws {format_cards(t.attempted, True)}: the throw "
                        f"fails{f' ({shown})' if shown else ''}, {cards} is led "
                        f"(penalty {t.penalty})")
            elif t.attempted:
                line = f"{who(seat)} throws {cards}"
            else:
                line = f"{who(seat)} leads {cards}"
            out.append(Event(line, seat, "play", plays[seat]))
            if sides is not None and starter is not None:
                out += _reveals(sides, seat, faces, starter, who, plays[seat])
            plays[seat] += 1
        if number <= len(hand.tricks) and t.plays and not _may_be_taken_back(hand, number):
            last = out[-1]
            out.append(Event(trick_line(number, who(t.winner), t.points), last.seat,
                             "play", last.key))
    return out


def trick_line(number: int, winner: str, points: int) -> str:
    """The log's line of trick ``number`` (from 1) won by ``winner`` (a name)."""
    return f"trick {number} to {winner}, {points} points"


def _may_be_taken_back(hand: TableHand, number: int) -> bool:
    """Whether trick ``number`` (from 1) was ended by this seat's play, which the rules core
    still lets it take back (`tractor.takeback`): its winner is not logged yet, so a
    take-back does not make the log tell one result, the take-back, then another; it is
    logged once the play stands (the table shows the finished trick meanwhile)."""
    last = hand.public.takebacks.last
    return (last is not None and last.seat == hand.me and last.turn[0] == number - 1
            and hand.public.takeback_refusal(hand.me) is None)


def _taken_back(who: Callable[[int], str], seat: int, place: int, faces: tuple[int, ...],
                number: int, finished: tuple[int, int] | None, key: int) -> list[Event]:
    """A play taken back (`Rules.takebacks`): the play as it was logged, its trick's end
    if it finished one and that was logged (``finished``: another seat's play, logged
    before its take-back came), then the take-back ("South took back ♠A")."""
    cards = format_cards(faces, True)
    out = [Event(f"{who(seat)} {'plays' if place else 'leads'} {cards}", seat, "play", key)]
    if finished is not None:
        out.append(Event(f"trick {number} to {who(finished[0])}, {finished[1]} points", seat,
                         "play", key))
    out.append(Event(f"{who(seat)} took back {cards}", seat, "takeback", key))
    return out


def _burial(hand: TableHand, who: Callable[[int], str], seat: int,
            positions: Sequence[int]) -> Event:
    """``seat`` buried ``positions``: the seat sees what it buried; the others only that it
    did (and when)."""
    cards = hand.deck.cards
    buried = [cards[p] % 54 for p in positions if p in cards] if seat == hand.me else []
    what = format_cards(buried, True) if buried else f"{len(positions)} cards"
    return Event(f"{who(seat)} buries {what}", seat, "bury", None)


def _reveals(sides: Sides, seat: int, faces: tuple[int, ...], starter: int,
             who: Callable[[int], str], key: int) -> list[Event]:
    """The calls ``seat``'s play of ``faces`` made fall (``sides`` follows the plays), as
    log lines placed by that play's message."""
    return [Event(reveal_words(who(seat), who(starter), sides.calls[i], seat == starter), seat,
                  "play", key)
            for i in sides.answered(seat, faces)]


def with_chat(hand: TableHand, events: Sequence[Event], chat: Sequence[str]) -> list[str]:
    """``events`` and the hand's chat lines (``chat[i]`` is the text shown for
    ``hand.chat[i]``) in the order they happened: each chat line after the longest run of
    events from the start that its writer had seen when writing it."""
    sent = _table_messages(hand)
    behind = _causes(hand, events, sent)
    views = _chat_views(hand, sent)
    placed: list[tuple[int, int]] = []  # (events before it, its place in hand.chat)
    for i, view in enumerate(views):
        before = 0
        if view is not None:
            while before < len(events) and _seen(behind[before], view):
                before += 1
        else:
            before = len(events)
        placed.append((before, i))
    placed.sort()
    out: list[str] = []
    k = 0
    for before, i in placed:
        out += [e.line for e in events[k:before]]
        k = max(k, before)
        out.append(chat[i])
    out += [e.line for e in events[k:]]
    return out


# A table message as the log needs it: (its number in the sender's chain, its data, the
# sender's count of messages seen in each seat's chain when it sent it).
_Message = tuple[int, dict[str, Any], tuple[int, ...]]


def _table_messages(hand: TableHand) -> dict[int, list[_Message]]:
    """Every table message of the hand this peer holds, per seat in chain order."""
    config = hand.deck.config
    keys = list(config.public_keys)
    out: dict[int, list[_Message]] = {s: [] for s in range(hand.n)}
    for frame in hand.deck.frames():
        try:
            env = open_frame(frame, config.table, config.hand, keys)
        except FrameError:
            continue  # the deck checked its frames: cannot happen, and only a log line
        data = env.body.get("data")
        if env.header.kind == "app" and isinstance(data, dict):
            out[env.seat].append((env.header.seq, data,
                                  tuple(count for count, _digest in env.header.views)))
    for messages in out.values():
        messages.sort(key=lambda m: m[0])
    return out


def _causes(hand: TableHand, events: Sequence[Event],
            sent: dict[int, list[_Message]]) -> list[tuple[int, int] | None]:
    """For each event, (seat, message number) of the table message behind it."""
    plays = {s: [seq for seq, data, _ in msgs if "play" in data] for s, msgs in sent.items()}
    windows: dict[int, list[tuple[int, tuple[int, ...] | None]]] = {}
    for s, msgs in sent.items():
        windows[s] = [(seq, _faces(hand, data["d"])) for seq, data, _ in msgs
                      if "w" in data and data.get("d")]
    out: list[tuple[int, int] | None] = []
    for e in events:
        if e.kind == "play":
            seqs = plays.get(e.seat, [])
            out.append((e.seat, seqs[e.key]) if e.key < len(seqs) else None)
            continue
        if e.kind != "declare":
            out.append(None)  # a burial: no table message of its own to place it by
            continue
        match = next((w for w in windows.get(e.seat, []) if w[1] == e.key), None)
        if match is not None:
            windows[e.seat].remove(match)
        out.append(None if match is None else (e.seat, match[0]))
    return out


def _faces(hand: TableHand, positions: Any) -> tuple[int, ...] | None:
    cards = getattr(hand.deck, "cards", {})
    try:
        return tuple(sorted(cards[p] % 54 for p in positions))
    except (KeyError, TypeError):
        return None


def _chat_views(hand: TableHand,
                sent: dict[int, list[_Message]]) -> list[tuple[int, ...] | None]:
    """The sender's view for each line of ``hand.chat`` (the n-th chat line of a seat is
    its n-th chat message)."""
    said = {s: [views for _seq, data, views in msgs if "chat" in data]
            for s, msgs in sent.items()}
    taken: Counter[int] = Counter()
    out: list[tuple[int, ...] | None] = []
    for seat, _text in hand.chat:
        mine = said.get(seat, [])
        out.append(mine[taken[seat]] if taken[seat] < len(mine) else None)
        taken[seat] += 1
    return out


def _seen(cause: tuple[int, int] | None, view: tuple[int, ...]) -> bool:
    """Whether a message's writer had the event's message (an event of unknown cause
    counts as seen: the chat line then goes later rather than too early)."""
    if cause is None:
        return True
    seat, seq = cause
    return seat < len(view) and seq < view[seat]
