"""What the screens show, as pure functions of a seat's observation.

Everything here reads a seat's typed observation (`tractor.observation.Observation`, with
the game's record: the rules, the hand's number) plus the seat names, and returns text or
prompt_toolkit formatted text (lists of
``(style, text)``), so the full-screen app and the plain mode show the same facts and the
tests check them without a terminal. Styles are class names (``class:card.red``...) that
the app's style sheet colours; with ``NO_COLOR`` set no colour class is emitted, and the
cursor and selection use reverse video and markers, which need no colour.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cards import SUIT_SYMBOLS, SUITS
from tractor.cli.screen import friends_view, hidden_play, tracker_view
from tractor.cli.screen.card_text import (
    card_label,
    card_style,
    cards_fragments,
    cards_label,
    ladder_of,
    rules_of,
)
from tractor.cli.screen.cards_input import follow_candidates
from tractor.cli.screen.summary_view import PANEL_HEIGHT, summary_lines
from tractor.cli.screen.theft_words import theft_prompt
from tractor.cli.screen.words import count
from tractor.cli.screen.wrapping import fit_line, wrap_words
from tractor.dealing import declared_trump
from tractor.observation import Observation
from tractor.phases import Decision, Phase
from tractor.trump import TRUMP, Trump

PHASE_TEXT = {
    Phase.DEAL: "dealing", Phase.DECLARE: "last chance to declare", Phase.BID: "auction",
    Phase.SHOW: "card-play for the starter", Phase.NAME: "naming trumps",
    Phase.TALON: "talon exchange", Phase.CALL: "calling friends", Phase.PLAY: "playing",
    Phase.DONE: "hand over", Phase.REDEAL: "dealing again", Phase.THEFT: "kitty theft window",
}



def to_text(fragments: StyleAndTextTuples) -> str:
    """The plain text of formatted text (for plain mode, captures and tests)."""
    return "".join(text for _style, text, *_ in fragments)


def hand_number(obs: Observation) -> int:
    """Hands completed before this one (0 without the game's record)."""
    return obs.game.hand_no if obs.game is not None else 0


def seat_count(obs: Observation) -> int:
    return obs.players


def team_of(seat: int) -> int:
    return seat % 2


#: Columns of the seats list's name column: a 6-letter name still reads whole with "(you)".
NAME_WIDTH = 13


def follow_allowed(obs: Observation, following: bool, hand: Sequence[int],
                   typed: list[int]) -> set[int] | None:
    """When following (``following``: the person is asked to play to a trick already led):
    the cards of ``hand`` that can still go with ``typed`` into a legal follow (the rules
    core decides); None (every card held) when leading, burying or declaring."""
    if not following or not obs.current:
        return None
    rules = rules_of(obs)
    return follow_candidates(hand, list(obs.current[0]), typed, ladder_of(obs),
                             rules is not None and rules.must_play_tractor)


def trump_label(obs: Observation) -> str:
    """Trump rank and suit, always shown: ``♣ 2`` style, or what is known before it is set."""
    trump = obs.trump
    if trump is None and obs.declarations:
        # Declared but not settled yet (an overcall may come): the declaration's trump, so
        # the line does not say "not declared" beside "declared ♠A ♠A by AI 3".
        _seat, faces = obs.declarations[-1]
        return f"{_trump_words(declared_trump(faces, obs.trump_rank))} so far"
    if trump is None:
        return f"rank {obs.trump_rank}, suit not declared yet"
    return _trump_words(trump)


def _trump_words(trump: Trump) -> str:
    rank, suit = trump.rank, trump.suit
    if rank is None:
        return "jokers only (no rank, no suit)"
    if suit is None:
        return f"rank {rank}, no suit"
    return f"rank {rank}, suit {SUIT_SYMBOLS[suit]}"


# --- the hand ---------------------------------------------------------------------------------


def hand_order(obs: Observation) -> list[int]:
    """The seat's cards as the hand pane shows them: trumps first (jokers, trump-suit rank
    card, other rank cards, trump suit), then ♠ ♥ ♦ ♣, high to low."""
    return ladder_of(obs).sort_faces(list(obs.hand))


def hand_groups(obs: Observation) -> list[tuple[str, list[int]]]:
    """The hand in rows by effective suit: ``[("trumps", faces), ("♠", faces), ...]``;
    the rows joined are `hand_order`."""
    ladder = ladder_of(obs)
    rows: dict[int, list[int]] = {}
    for f in hand_order(obs):
        rows.setdefault(ladder.esuit[f], []).append(f)
    label_trump = "trumps" if obs.trump is not None else "trumps?"
    out = []
    for e in (TRUMP, 0, 1, 2, 3):
        if e in rows:
            out.append((label_trump if e == TRUMP else SUIT_SYMBOLS[SUITS[e]], rows[e]))
    return out


def taken_to_bury(obs: Observation) -> tuple[int, ...]:
    """The cards this seat took into its hand to bury now: the starter's talon, or with
    kitty theft the kitty it took by its overcall (empty when it does not bury now)."""
    if obs.phase != Phase.TALON or obs.exchanger != obs.seat:
        return ()
    return obs.kitty or (obs.talon if not obs.thefts else None) or ()


def taken_word(obs: Observation) -> str:
    """What the cards this seat buries from came from: "kitty" (a thief's) or "talon"."""
    return "kitty" if obs.thefts else "talon"


def talon_positions(obs: Observation) -> set[int]:
    """Positions in `hand_order` of the cards that came from the talon (or the kitty a
    thief took), while this seat has them in hand to bury (a face held twice, once from
    the talon: its first copy)."""
    taken = taken_to_bury(obs)
    if not taken:
        return set()
    left = Counter(taken)
    marked: set[int] = set()
    for pos, f in enumerate(hand_order(obs)):
        if left[f]:
            left[f] -= 1
            marked.add(pos)
    return marked


def hand_fragments(obs: Observation, cursor: int | None = None,
                   selected: Collection[int] = (), color: bool | None = None,
                   width: int = 80) -> StyleAndTextTuples:
    """The hand pane: one row per suit. ``cursor`` and ``selected`` are positions in
    `hand_order`; the cursor card has a ``>`` before it, selected cards are in reverse
    video (marked ``*`` after, for terminals without it). While the starter buries, the
    cards that came from the talon are marked ``+`` after (`talon_positions`)."""
    out: StyleAndTextTuples = []
    pos = 0
    from_talon = talon_positions(obs)
    groups = hand_groups(obs)
    if not groups:
        return [("class:dim", "(no cards)")]
    for label, faces in groups:
        out.append(("class:label", f"{label:<8}"))
        col = 8
        for f in faces:
            text = card_label(f)
            if col + len(text) + 2 > width:
                out.append(("", "\n" + " " * 8))
                col = 8
            mark = ">" if pos == cursor else " "
            style = card_style(f, color)
            if pos in selected:
                style += " class:selected"
            if pos == cursor:
                style += " class:cursor"
            out.append(("class:cursor-mark" if pos == cursor else "", mark))
            out.append((style, text))
            if pos in selected:
                out.append(("class:selected-mark", "*"))
            else:
                out.append(("class:talon", "+") if pos in from_talon else ("", " "))
            col += len(text) + 2
            pos += 1
        out.append(("", "\n"))
    if out and out[-1] == ("", "\n"):
        out.pop()
    return out


# --- the table --------------------------------------------------------------------------------


def _side(obs: Observation, seat: int) -> str:
    if friends_view.is_friends(obs):
        return friends_view.side_tag(obs, seat)
    if obs.declarers is None:
        return f"team {team_of(seat)}"
    return "decl" if team_of(seat) == obs.declarers else "def"


def _team_members(obs: Observation, names: Sequence[str], team: int) -> str:
    return ", ".join(names[s] for s in range(seat_count(obs)) if team_of(s) == team)


def talon_size(obs: Observation) -> int:
    """Cards to bury: from the table's rules, else the talon shown."""
    rules = rules_of(obs)
    if rules is not None:
        return rules.talon_size
    return len(obs.talon or ()) or 8


def trick_number(obs: Observation) -> int:
    """The number of the trick being played (1 before the first lead)."""
    return len(obs.tricks) + 1


def table_fragments(obs: Observation, names: Sequence[str],
                    color: bool | None = None) -> StyleAndTextTuples:
    """The table: trump, teams and levels, defender points, then one row per seat with its
    name, side, level, cards left and its cards in the trick (the last trick when a new one
    has not started); ``▶`` marks who is to play, ``*`` the starter, ``(you)`` this
    seat's own row."""
    out: StyleAndTextTuples = []
    n = seat_count(obs)
    friends = friends_view.is_friends(obs)
    out += [("class:label", "Trump  "), ("class:trump", trump_label(obs)), ("", "\n")]
    decl = obs.declarers
    if friends:
        out += _friends_header(obs, names)
    elif decl is None:
        for team in (0, 1):
            out.append(("", f"Team {team} ({_team_members(obs, names, team)}): "
                            f"level {obs.levels[team]}\n"))
    else:
        out.append(("", f"Declarers: team {decl} ({_team_members(obs, names, decl)}), "
                        f"level {obs.levels[decl]}\n"))
        out.append(("", f"Defenders: team {1 - decl} ({_team_members(obs, names, 1 - decl)}), "
                        f"level {obs.levels[1 - decl]}\n"))
        out += _points_fragments(obs, "Defender points: ")
    phase = obs.phase
    if phase in (Phase.DEAL, Phase.DECLARE):
        dealt = obs.cards_dealt
        total = sum(obs.hand_sizes) if phase == Phase.DECLARE else None
        line = f"Dealing: {count(dealt, 'card')} drawn" if total is None else "All cards dealt"
        decls = obs.declarations
        if decls:
            seat, faces = decls[-1]
            line += f" · declared {cards_label(faces)} by {names[seat]}"
        out.append(("", line + "\n"))
    if phase in (Phase.BID, Phase.SHOW, Phase.NAME):
        out.append(("", auction_line(obs, names) + "\n"))
    tricks = obs.tricks
    current = obs.current
    showing_last = not current and bool(tricks) and phase == Phase.PLAY
    if phase in (Phase.PLAY, Phase.DONE):
        title = (f"trick {len(tricks)} (done)" if showing_last or phase == Phase.DONE
                 else f"trick {trick_number(obs)}")
    else:
        title = ""
    side_width = 7 if friends else 6  # "friend" and "start*" keep a space before the level
    out.append(("class:header", f"  {'name':<{NAME_WIDTH}}{'side':<{side_width}}{'lv':>2} "
                                 f"{'cards':>5}  {title}\n"))
    plays: dict[int, tuple[tuple[int, ...], str]] = {}
    if current:
        leader = obs.leader
        for k, cards in enumerate(current):
            plays[(leader + k) % n] = (cards, "led" if k == 0 else "")
    elif tricks and (showing_last or phase == Phase.DONE):
        last = tricks[-1]
        for k, cards in enumerate(last.plays):
            seat = (last.leader + k) % n
            tag = "won" if seat == last.winner else ("led" if k == 0 else "")
            plays[seat] = (cards, tag)
    to_act = obs.to_act
    starter = obs.starter
    for s in range(n):
        mark = "▶" if s == to_act and phase not in (Phase.DEAL, Phase.DONE) else " "
        side = _side(obs, s) + ("*" if s == starter else "")
        me = s == obs.seat
        label = (f"{names[s][:NAME_WIDTH - 7]} (you)" if me else names[s][:NAME_WIDTH - 1])
        out.append(("class:turn", mark + " "))
        out.append(("class:me" if me else "", f"{label:<{NAME_WIDTH}}"))
        out.append(("", f"{side:<{side_width}}{friends_view.seat_level(obs, s):>2} "
                        f"{obs.hand_sizes[s]:>5}  "))
        if s in plays:
            cards, tag = plays[s]
            out += cards_fragments(cards, color)
            if tag:
                out.append(("class:dim", f"  {tag}"))
        out.append(("", "\n"))
    if obs.current_attempt:
        out.append(("class:warn", f"failed throw: {cards_label(obs.current_attempt)}\n"))
    if tricks and not showing_last and phase == Phase.PLAY:
        last = tricks[-1]
        out.append(("class:dim", f"Last: trick {len(tricks)} to {names[last.winner]}, "
                                 f"{last.points} points\n"))
    if taken_to_bury(obs):
        out.append(("class:label", f"{taken_word(obs).capitalize()}: "))
        out += cards_fragments(taken_to_bury(obs), color)
        out.append(("", "\n"))
    elif obs.buried and phase == Phase.PLAY:
        out.append(("class:dim", f"Buried: {cards_label(obs.buried)}\n"))
    if out and out[-1][1].endswith("\n"):
        style, text, *_ = out[-1]
        out[-1] = (style, text[:-1])
    return out


def _points_fragments(obs: Observation, label: str) -> StyleAndTextTuples:
    """The defenders' points line; after a failed throw, what its penalty did to them."""
    out: StyleAndTextTuples = [("", label), ("class:points", f"{obs.defender_points}")]
    if obs.penalties:  # below 0 for a while after a defender's failed throw
        won = obs.defender_points - obs.penalties
        out.append(("", f" ({won} in tricks, penalty {obs.penalties:+d})"))
    out.append(("", "\n"))
    return out


def _friends_header(obs: Observation, names: Sequence[str]) -> StyleAndTextTuples:
    """Find-a-friend: the calls and what became of them, the sides as far as they are
    known, and the points of the seats not known to be on the starter's side."""
    out: StyleAndTextTuples = []
    if obs.calls:
        out.append(("", friends_view.calls_line(obs, names) + "\n"))
    out.append(("", friends_view.side_sentence(obs, names) + "\n"))
    if obs.calls:
        label = ("Defender points: " if friends_view.sides_known(obs) else
                 "Defender points (the seats not known to be on the starter's side): ")
        out += _points_fragments(obs, label)
    return out


def auction_line(obs: Observation, names: Sequence[str]) -> str:
    """The auction variant so far: every bid and pass in order, then the cards shown.

    >>> from dataclasses import replace
    >>> from tractor import Game, Rules
    >>> obs = Game(Rules(declaration="auction")).observe(0)
    >>> auction_line(replace(obs, bids=((1, 10), (2, 15)), passed_auction=(3,)),
    ...              ["Ann", "Bo", "Cy", "Di"])
    'Auction: Bo 10, Cy 15 · out: Di'
    """
    bids = ", ".join(f"{names[s]} {p}" for s, p in obs.bids) or "no bid yet"
    line = f"Auction: {bids}"
    if obs.passed_auction:
        line += " · out: " + ", ".join(names[s] for s in obs.passed_auction)
    if obs.shown:
        line += " · shown: " + ", ".join(f"{names[s]} {card_label(f)}" for s, f in obs.shown)
    return line


def table_text(obs: Observation, names: Sequence[str]) -> str:
    """The table as plain text (plain mode, captures)."""
    text = to_text(table_fragments(obs, names, color=False))
    return "\n".join(line.rstrip() for line in text.splitlines())


def trump_short(obs: Observation) -> str:
    """The trump in a few characters for the status line: ``♥2``, ``2 no suit``,
    ``jokers only``, ``2?`` while it is not declared."""
    trump = obs.trump
    if trump is None:
        return f"{obs.trump_rank}?"
    rank, suit = trump.rank, trump.suit
    if rank is None:
        return "jokers only"
    return f"{rank} no suit" if suit is None else f"{SUIT_SYMBOLS[suit]}{rank}"


#: The status line for the auction variant's decisions.
AUCTION_TURNS = {Decision.BID: "your turn: bid or pass",
                 Decision.SHOW: "your turn: show a card",
                 Decision.NAME: "your turn: name the trump suit"}


def status_text(obs: Observation, names: Sequence[str], decision: Decision | None,
                summary: dict[str, Any] | None = None, width: int | None = None) -> str:
    """One line: which hand, the trump (always in view, even under a panel), and whose
    move it is; in ``width`` columns when given (`fit_line`)."""
    return fit_line(_status(obs, names, decision, summary), width, "Tractor · ")


def _status(obs: Observation, names: Sequence[str], decision: Decision | None,
            summary: dict[str, Any] | None) -> str:
    hand_no = hand_number(obs) + 1
    phase = obs.phase
    winner = obs.game.winner if obs.game is not None else None
    if summary is not None:
        what = "hand over: read the summary"
    elif decision == Decision.DECLARE and phase == Phase.THEFT:
        what = "your turn: overcall to take the kitty, or pass"
    elif decision == Decision.DECLARE:
        what = "you may declare trumps"
    elif decision == Decision.BURY:
        what = f"your turn: bury cards from the {taken_word(obs)}"
    elif decision == Decision.CALL:
        what = "your turn: call your friends"
    elif decision == Decision.PLAY:
        what = "your turn: lead" if not obs.current else "your turn: follow"
    elif decision in AUCTION_TURNS:
        what = AUCTION_TURNS[decision]
    elif winner is not None:
        what = (f"game over: {names[winner]} wins" if friends_view.is_friends(obs)
                else f"game over: team {winner} wins")
    else:
        to_act = obs.to_act
        what = PHASE_TEXT.get(phase, phase)
        if to_act is not None and phase != Phase.DEAL:
            what += f": waiting for {names[to_act]}"
    trick = f" · trick {trick_number(obs)}" if phase == Phase.PLAY else ""
    return f"Tractor · hand {hand_no}{trick} · trump {trump_short(obs)} · {what}"


def decision_prompt(decision: Decision | None, obs: Observation, names: Sequence[str],
                    options: Sequence[Sequence[int]] = ()) -> str:
    """What the person is asked to do now, in words (shown above the input line)."""
    if decision == Decision.DECLARE and obs.phase == Phase.THEFT:
        return theft_prompt(obs, names, options)
    if decision == Decision.DECLARE:
        if not options:
            return "You may declare trumps now, or pass."
        opts = "; ".join(f"{i}) {cards_label(o)}" for i, o in enumerate(options, 1))
        return f"Declare trumps? {opts}; or pass."
    if decision == Decision.BURY:
        return f"Choose {talon_size(obs)} cards to bury, then Enter."
    if decision == Decision.CALL:
        return friends_view.call_prompt(obs)
    if decision == Decision.PLAY:
        if not obs.current:
            return "Your lead: choose cards of one suit, then Enter."
        n = seat_count(obs)
        lead = obs.current[0]
        return (f"{names[obs.leader % n]} led {cards_label(lead)}: follow with "
                f"{count(len(lead), 'card')}, then Enter.")
    if decision == Decision.BID:
        bids = obs.bids
        high = max((p for _, p in bids), default=0)
        standing = f"high bid {high}, {names[bids[-1][0]]}" if bids else "no bid yet"
        rules = rules_of(obs)
        most = f" to {rules.total_points}" if rules is not None else " up"
        # The rules (seeds/README.md): the highest bid only picks the declaring team; the
        # hand scores as every hand does, so a bid is no target to reach.
        return (f"Auction ({standing}): the highest bidder's team declares, with no points "
                f"to reach. Bid {high + 5}{most} in steps of 5, or type pass (final), then Enter.")
    if decision == Decision.SHOW:
        return ("Show one card, then Enter: the declarers' highest card makes its player "
                "the starter (jokers highest, then A down to 2).")
    if decision == Decision.NAME:
        return "You are the starter: name the trump suit (S, H, D or C), or none."
    return ""


# --- on demand: last trick, tracker, summary, log -------------------------------------------


def last_trick_text(obs: Observation, names: Sequence[str]) -> str:
    """The last finished trick, seat by seat, with its winner and points."""
    if not hidden_play.last_trick_shown(obs):
        return hidden_play.LAST_TRICK_HIDDEN
    tricks = obs.tricks
    if not tricks:
        return "No trick has been played yet in this hand."
    t = tricks[-1]
    n = seat_count(obs)
    lines = [f"Trick {len(tricks)}, led by {names[t.leader]}:"]
    if t.attempted:
        lines.append(f"  (failed throw {cards_label(t.attempted)}, "
                     f"penalty {t.penalty} points)")
    for k, cards in enumerate(t.plays):
        seat = (t.leader + k) % n
        mark = "  won" if seat == t.winner else ""
        lines.append(f"  {names[seat]:<11}{cards_label(cards)}{mark}")
    lines.append(f"{names[t.winner]} took it: {t.points} points.")
    return "\n".join(lines)


def tracker_text(obs: Observation, names: Sequence[str] | None = None,
                 width: int | None = None) -> str:
    """Every card still out, per suit, with what each seat is known to hold or lack
    (`cli.screen.tracker_view`); ``width`` None: unwrapped. A ``hide_played``
    table's hand in play has no tracker: a sentence says so."""
    if hidden_play.hides_played(obs):
        return hidden_play.TRACKER_OFF
    return tracker_view.tracker_text(obs, names, width)


def summary_text(summary: dict[str, Any], obs: Observation, names: Sequence[str],
                 width: int | None = None, height: int | None = None) -> str:
    """The end of a hand (`cli.screen.summary_view`): defender points and the tricks they came
    from, the talon and its bonus, level changes, the next starter, the game so far and
    the audit verdict; ``width`` None: a line per sentence; ``height``: the lines it
    should fit in (the game strip folds its older hands to fit)."""
    return "\n".join(summary_lines(summary, obs, names, width,
                                   PANEL_HEIGHT if height is None else height))


def log_lines(events: Sequence[str], width: int, keep: Sequence[str] = ()) -> list[str]:
    """Every event wrapped to ``width``, oldest first (continuation lines indented; the
    names ``keep`` whole)."""
    return [line for e in events for line in wrap_words(e, width, "  ", keep)]


def events_text(events: Sequence[str], width: int = 30, height: int = 12,
                keep: Sequence[str] = ()) -> str:
    """The latest events that fit in ``height`` lines of ``width`` (wrapped between words,
    the names ``keep`` whole, whole events only, oldest first)."""
    blocks: list[list[str]] = []
    used = 0
    for e in reversed(events):
        block = wrap_words(e, width, "  ", keep)
        if used + len(block) > height:
            if not blocks:  # one event longer than the pane: keep its end
                blocks.append(block[-height:])
            break
        blocks.append(block)
        used += len(block)
    return "\n".join(line for block in reversed(blocks) for line in block)


def help_text(keys: Sequence[tuple[str, str]], columns: int = 1) -> str:
    """The key list (``keys``: (key, what it does)) in one or two columns."""
    rows = [f"{k:<10} {what}" for k, what in keys]
    if columns == 1:
        return "\n".join(rows)
    half = (len(rows) + 1) // 2
    left, right = rows[:half], rows[half:]
    w = max(len(r) for r in left) + 2
    return "\n".join(f"{a:<{w}}{b}" for a, b in zip(left, right + [""], strict=False))
