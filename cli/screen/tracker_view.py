"""The tracker panel: per suit, every card still out, and what each seat is known to hold
or to lack.

A card player counts what is out and remembers what the table has shown: who showed out
of a suit, who could not pair, whose throw stood, which declared cards are still in a
hand. The counting is this module's; the deductions are `tractor.ai.players.worlds`'
(`Knowledge.public_facts`), the one place they are made, so the panel never claims more
(or less) than the AI's own sampling assumes, and never more than this seat may know.

Lines are wrapped between cards and between facts, never cut: at 100 columns and more the
whole list shows; a narrower panel gets more lines. Only facts that rule something out
are shown (a void in a suit with nothing left out tells nothing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tractor.ai.players.deductions import SeatFacts
from tractor.ai.players.explain import unseen_counts
from tractor.ai.players.worlds import Knowledge
from tractor.cards import FACE_POINTS, RANKS, SUIT_SYMBOLS, SUITS, format_cards
from tractor.cli.screen import friends_view
from tractor.cli.screen.card_text import cards_label, ladder_of
from tractor.cli.screen.wrapping import pack, wrap_or_whole
from tractor.observation import Observation
from tractor.phases import Phase
from tractor.rules import Rules
from tractor.trump import TRUMP, Ladder

#: Indent of the lines that continue a row of cards, and of the facts under a row.
CARD_INDENT = "    "
FACT_INDENT = "  "


def tracker_lines(obs: Observation, names: Sequence[str] | None = None,
                  width: int | None = 80) -> list[str]:
    """The tracker as lines of at most ``width`` (None: no wrapping): a header saying where
    the unseen cards may be, the trumps (jokers and rank cards, then the trump suit; before
    the trump is known, the jokers and the rank cards), then ♠ ♥ ♦ ♣, each followed by the
    facts about the other seats in that suit, and the points still out last."""
    names = list(names) if names is not None else []
    out = out_counts(obs)
    ladder = ladder_of(obs)
    facts = _facts(obs)
    lines = wrap_or_whole(_header(obs), width, CARD_INDENT)
    rank = obs.trump_rank
    known = obs.trump is not None
    rank_i = (RANKS.index(rank) if rank in RANKS and (obs.trump is None or obs.trump.rank)
              else None)
    jokers = [f for f in (53, 52) if out[f]]
    row = "Jokers:  " + (_counted(jokers, out) or "none")
    rank_faces: list[int] = []
    if rank_i is not None:
        rank_faces = [f for f in ladder.faces_of[TRUMP] if f < 52 and f % 13 == rank_i]
        rank_out = [f for f in rank_faces if out[f]]
        row += f" · Rank {rank}:  " + (_counted(rank_out, out) or "none")
    lines += wrap_or_whole(row, width, CARD_INDENT)
    trumps = [f for f in ladder.faces_of[TRUMP] if out[f]]
    if known:
        suited = [f for f in trumps if f < 52 and f not in rank_faces]
        total = sum(out[f] for f in trumps)
        # The count is of every trump (the jokers and rank cards above too); the cards
        # listed here are the trump suit's other ones.
        listed = f" · {_counted(suited, out)}" if suited else ""
        lines += wrap_or_whole(f"Trumps:  {total} out in all{listed}", width, CARD_INDENT)
    lines += _fact_lines(obs, names, facts, TRUMP, ladder, out, width)
    for e in range(4):
        if not ladder.faces_of[e]:
            continue
        faces = [f for f in ladder.faces_of[e] if out[f]]
        label = SUIT_SYMBOLS[SUITS[e]]
        if faces:
            total = sum(out[f] for f in faces)
            lines += wrap_or_whole(f"{label}:  {total} out · {_counted(faces, out)}", width,
                                   CARD_INDENT)
        else:
            lines.append(f"{label}:  none out")
        lines += _fact_lines(obs, names, facts, e, ladder, out, width)
    points = sum(FACE_POINTS[f] * c for f, c in out.items())
    lines.append(f"Points still out: {points}")
    if obs.buried and obs.phase in (Phase.PLAY, Phase.DONE):  # the starter's own burial
        lines += wrap_or_whole(f"You buried: {cards_label(obs.buried)} "
                               f"({points_word(obs.buried)})", width, CARD_INDENT)
    if obs.calls:
        lines += _calls_lines(obs, names, out, width)
    return lines


def _calls_lines(obs: Observation, names: Sequence[str], out: Counter[int],
                 width: int | None) -> list[str]:
    """Find-a-friend: each call, and for one not played yet where its card's copies are
    (out, or in this seat's hand); then the sides as far as the plays showed them."""
    names = list(names) or [f"seat {s}" for s in range(obs.players)]
    phrases = friends_view.call_phrases(obs, names)
    parts = []
    for i, call in enumerate(obs.calls):
        said = phrases[i]
        if obs.friends[i] is None and obs.phase != Phase.DONE:
            mine = "" if _watching(obs) else f", {obs.hand.count(call.face)} in your hand"
            said += f" ({_label(call.face)}: {out[call.face]} out{mine})"
        parts.append(said)
    lines = pack(parts, width, "Calls: ", FACT_INDENT, " · ")
    return lines + wrap_or_whole(friends_view.side_sentence(obs, names), width, FACT_INDENT)


def points_word(faces: Sequence[int]) -> str:
    """The points among ``faces``, in words."""
    points = sum(FACE_POINTS[f] for f in faces)
    return f"{points} points" if points else "no points"


def tracker_text(obs: Observation, names: Sequence[str] | None = None,
                 width: int | None = 80) -> str:
    """`tracker_lines` joined into one text."""
    return "\n".join(tracker_lines(obs, names, width))


# --- counting ---------------------------------------------------------------------------------


def out_counts(obs: Observation) -> Counter[int]:
    """Copies of each face still out: not played, not in this seat's hand, not buried by
    it (so in another hand, the talon, the burial or the undealt stock); counted by
    `tractor.ai.players.explain.unseen_counts`, as the hints count them."""
    rules = obs.game.rules if obs.game is not None else Rules()
    unseen = unseen_counts(obs, rules)
    return Counter({f: k for f, k in enumerate(unseen) if k > 0})


def _header(obs: Observation) -> str:
    """Where the cards out may be, beyond the other hands."""
    rules = obs.game.rules if obs.game is not None else None
    talon = rules.talon_size if rules is not None else 8
    phase = obs.phase
    where = ""
    if phase == Phase.DEAL and rules is not None:
        where = f"; {rules.total_cards - obs.cards_dealt} not dealt yet"
    elif phase in (Phase.DECLARE, Phase.BID, Phase.SHOW, Phase.NAME, Phase.REDEAL):
        where = f"; {talon} of them in the talon"
    elif phase in (Phase.PLAY, Phase.DONE) and obs.buried is None:
        where = f"; {talon} of them buried"
    held = "" if _watching(obs) else ", not in your hand"
    return f"Still out (not played{held}{where}):"


def _watching(obs: Observation) -> bool:
    """A watcher's observation: no seat, no hand (`cli.seat.watcher_client`)."""
    return not 0 <= obs.seat < obs.players


def _counted(faces: Sequence[int], out: Counter[int]) -> str:
    return " ".join(_label(f) + (f"×{out[f]}" if out[f] > 1 else "") for f in faces)


def _label(face: int) -> str:
    return format_cards([face], symbols=True)


# --- what the seats are known to hold or lack ---------------------------------------------------


def _facts(obs: Observation) -> tuple[SeatFacts, ...]:
    """The seats' public facts (`Knowledge.public_facts`); none without the game's rules
    or for an observation the model cannot read (a screen must not fail on it)."""
    if obs.game is None:
        return ()
    try:
        return Knowledge.from_observation(obs.game.rules, obs).public_facts()
    except (ValueError, AssertionError):
        return ()


def _fact_lines(obs: Observation, names: Sequence[str], facts: Sequence[SeatFacts],
                esuit: int, ladder: Ladder, out: Counter[int], width: int | None) -> list[str]:
    parts = []
    for s, seat_facts in enumerate(facts):
        if s == obs.seat or not obs.hand_sizes[s]:
            continue
        said = _seat_facts(obs, s, seat_facts, esuit, ladder, out)
        if said:
            name = names[s] if s < len(names) else f"seat {s}"
            parts.append(f"{name} " + ", ".join(said))
    return pack(parts, width, FACT_INDENT, FACT_INDENT, " · ")


def _seat_facts(obs: Observation, seat: int, facts: SeatFacts, esuit: int, ladder: Ladder,
                out: Counter[int]) -> list[str]:
    """What is known of ``seat`` in ``esuit``, the facts that rule something out only."""
    es, order = ladder.esuit, ladder.order
    suit_out = [f for f in ladder.faces_of[esuit] if out[f]]
    said = []
    held = [f for f in ladder.sort_faces(list(facts.held)) if es[f] == esuit]
    if held:
        said.append(f"holds {format_cards(held, symbols=True)} "
                    f"({_source(obs, seat, held, facts)}"
                    f"{'; or buried' if facts.held_or_buried else ''})")
    if esuit in facts.voids:
        if suit_out:
            said.append(f"void since trick {facts.voids[esuit]}")
        return said
    if esuit in facts.no_pair:
        top = facts.no_pair[esuit]
        pairs_out = [f for f in suit_out if out[f] >= 2
                     and (top is None or order[f] > order[top])]
        if pairs_out:
            said.append("no pair" if top is None else f"no pair above {_label(top)}")
    if esuit in facts.nothing_above:
        top = facts.nothing_above[esuit]
        if any(order[f] > order[top] for f in suit_out):
            said.append(f"nothing above {_label(top)}")
    return said


def _source(obs: Observation, seat: int, held: Sequence[int], facts: SeatFacts) -> str:
    """How the table knows ``seat`` holds these cards: declared, shown, the talon, or a
    failed throw."""
    declared = {f for s, faces in obs.declarations if s == seat for f in faces}
    shown = {f for s, f in obs.shown if s == seat}
    kinds = []
    for f in held:
        kind = ("declared" if f in declared else "shown" if f in shown
                else "back from a failed throw" if f in facts.taken_back else "from the talon")
        if kind not in kinds:
            kinds.append(kind)
    return ", ".join(kinds)
