"""Issue 28, item 9: no line of any screen breaks inside a word, a card or a name, at 80
columns and at 100. The play screen (with every panel) and plain mode are drawn for real
game states (the deal, the auction, the burial, the play, the summary; four and six seats)
and read back as text:

- plain mode, a single column, is printed twice, fitted to the terminal and unwrapped:
  the words must be the same in the same order, and a line break the fitting added never
  parts a name ("AI / 3"), a word from its number ("bury 8 / cards") or a card;
- the play screen is a grid (places side by side, the log beside them): every word on it
  must be a word of the same screen drawn without wrapping (a word cut or broken, "unfin",
  "♣1", is not), and no line may end with the first part of a name or of such a pair while
  the line under it, in the same columns, goes on with the rest.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from local_client import LocalClient
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tractor import Game, Hand, Rules
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.cli.screen import render, table_view
from tractor.cli.screen.app import build_app, capture, view_of
from tractor.cli.screen.plain import PlainSession
from tractor.observation import Observation
from tractor.phases import Decision

#: A game (players, seed) in which the person is offered a declaration while the cards
#: come and becomes the starter who buries (found once; asserted below).
GAMES = {4: 3, 6: 2}
NAMES = {4: ["Tess", "AI 1", "AI 2", "AI 3"],
         6: ["Tess", "AI 1", "Ann Lee", "AI 3", "AI 4", "AI 5"]}
SIZES = [(80, 24), (100, 32)]
PANELS = ["help", "tracker", "last", "log"]
#: Words the screen shows only when it is narrow or a panel is taller than its window.
NARROW_ONLY = "── latest (g: whole log) ── PgUp/PgDn ↑↓ scroll · Home/End oldest/newest ·"


def rules_for(players: int, **options: Any) -> Rules:
    return Rules(players=players, decks=players // 2, **options)


# --- what must stay together --------------------------------------------------------------

WORD_NUMBER = re.compile(r"\(?[A-Za-z]+ [+−-]?\d+[,.:;)]*")
NUMBER_UNIT = re.compile(r"\(?[+−-]?\d+ (?:cards?|points?|levels?|pts)[,.:;)]*")


def parted(left: str, right: str, names: Sequence[str]) -> str | None:
    """What a line break between the words ``left`` and ``right`` would part, if it parts
    something that belongs together: a name, a word and its number, a number and its unit."""
    pair = f"{left} {right}"
    if WORD_NUMBER.fullmatch(pair) or NUMBER_UNIT.fullmatch(pair):
        return pair
    for name in names:
        words = name.split()
        for i in range(len(words) - 1):
            if left.endswith(words[i]) and right.startswith(words[i + 1]) \
                    and (left == words[i] or not left[-len(words[i]) - 1].isalnum()):
                return name
    return None


def broken_words(wrapped: str, whole: str, names: Sequence[str]) -> list[str]:
    """For one column of text: the words must be the same (so none was broken), and each
    line break the wrapping added must part nothing that belongs together."""
    def breaks(text: str) -> tuple[list[str], list[bool]]:
        words, before = [], []
        for line in text.split("\n"):
            for k, word in enumerate(line.split()):
                words.append(word)
                before.append(k == 0)
        return words, before

    wrapped_words, wrapped_breaks = breaks(wrapped)
    whole_words, whole_breaks = breaks(whole)
    if wrapped_words != whole_words:
        missing = [w for w in wrapped_words if w not in whole_words]
        return [f"words differ: {missing or 'order'}"]
    problems = []
    for i in range(1, len(wrapped_words)):
        if wrapped_breaks[i] and not whole_breaks[i]:
            what = parted(wrapped_words[i - 1], wrapped_words[i], names)
            if what:
                problems.append(f"{what!r} parted at a line break")
    return problems


@dataclass(frozen=True)
class Segment:
    """A run of text on a screen line, between gaps of two spaces or more (or │)."""

    start: int
    end: int
    words: list[str]


def segments(line: str) -> list[Segment]:
    out = []
    for m in re.finditer(r"\S+(?: \S+)*", line.replace("│", "  ")):
        out.append(Segment(m.start(), m.end(), m.group().split()))
    return out


def screen_problems(screen: str, vocabulary: set[str], whole: str,
                    names: Sequence[str]) -> list[str]:
    """For a drawn screen: words that are not words of the unwrapped screen (cut or broken
    ones), and a line ending with the first part of a pair or name that the next line
    continues in the same columns (the pair must be one the unwrapped screen has)."""
    problems = []
    lines = screen.split("\n")
    for number, line in enumerate(lines):
        if line.startswith(("── lines ", "Event log (latest last) · lines ")):
            continue  # which lines of a tall panel are shown
        for word in line.replace("│", " ").split():
            if word.strip("─") and word.rstrip("…") not in vocabulary:
                problems.append(f"line {number}: {word!r} is no word of the screen")
    for number in range(len(lines) - 1):
        for top in segments(lines[number]):
            for under in segments(lines[number + 1]):
                if under.end <= top.start or under.start >= top.end:
                    continue
                left, right = top.words[-1], under.words[0]
                what = parted(left, right, names)
                if what and re.search(rf"(?<!\S){re.escape(left)} {re.escape(right)}", whole):
                    problems.append(f"line {number}: {what!r} parted")
    return problems


# --- the states -------------------------------------------------------------------------------


@dataclass
class FrozenClient:
    """A seat that stays at one observation (the auction: the person's bids are automatic
    at an in-process table, so its moments are taken from the rules core)."""

    obs: Observation
    names: list[str]
    wanted: str | None
    seat: int = 0
    on_change: Callable[[], None] | None = None
    log: list[str] = field(default_factory=list)

    @property
    def rules(self) -> Rules:
        assert self.obs.game is not None
        return self.obs.game.rules

    def observation(self) -> Observation:
        return self.obs

    def decision(self) -> str | None:
        return self.wanted

    def declaration_options(self) -> list[tuple[int, ...]]:
        return []

    def submit(self, action: Any) -> str | None:
        return "this table stays where it is"

    def hint(self) -> None:
        return None

    def advice(self) -> None:
        return None

    def advisor(self) -> None:
        return None

    def chat(self, text: str) -> None:
        pass

    def events(self) -> list[str]:
        return self.log

    def banner(self) -> None:
        return None

    def summary(self) -> None:
        return None

    def next_hand(self) -> None:
        pass

    def takeback_refusal(self) -> str:
        return "this table stays where it is"


def game_moments(players: int) -> Iterator[tuple[str, LocalClient]]:
    """A whole hand at a table of ``players``, stopping (the client as it is) at the
    moments the screens differ most: a declaration offered while the cards come, the
    burial, the first lead or follow, a trick in the middle, the last trick, the summary."""
    seed = GAMES[players]
    ai = HeuristicStrategy(seed=seed)
    client = LocalClient(rules_for(players), seed=seed, others=ai.act, names=NAMES[players])
    seen: set[str] = set()
    while client.summary() is None:
        decision = client.decision()
        assert decision is not None
        obs = client.observation()
        moment = {Decision.DECLARE: "deal" if obs.phase == "deal" and client.declaration_options()
                  else None, Decision.BURY: "bury",
                  Decision.PLAY: "first trick" if not obs.tricks else
                  "middle" if len(obs.tricks) == 5 else
                  "last trick" if sum(obs.hand_sizes) <= players else None}[decision]
        if moment and moment not in seen:
            seen.add(moment)
            yield moment, client
        action = client.hint() if decision == Decision.DECLARE else ai.act(client.game.hand,
                                                                  client.seat)
        assert client.submit(action) is None
    yield "summary", client
    assert seen == {"deal", "bury", "first trick", "middle", "last trick"}, seen


def auction_moments(players: int) -> list[tuple[str, FrozenClient]]:
    """The person's turns in an auction-style hand: a bid, the card-play, naming trumps
    (the same seat at every turn; the person bids last, after the others' bids)."""
    rules = rules_for(players, declaration="auction")
    record = Game(rules, 5).record()
    taken: list[tuple[str, Observation]] = []

    def person(hand: Hand, seat: int) -> Any:
        if hand.phase in ("bid", "show", "name") and hand.phase not in dict(taken):
            taken.append((hand.phase, replace(hand.observe(seat), game=record)))
        return HeuristicStrategy(seed=5).act(hand, seat)

    for seat in range(players):  # a seat that bids after another one, shows and names
        taken.clear()
        LocalClient(rules, seat=seat, seed=5, hinter=person, names=NAMES[players],
                    others=HeuristicStrategy(seed=5).act)
        if {p for p, _ in taken} == {"bid", "show", "name"} and taken[0][1].bids:
            names = NAMES[players][-seat:] + NAMES[players][:-seat]  # Tess is the person
            return [(f"auction {phase}", FrozenClient(obs, names, phase, seat))
                    for phase, obs in taken]
    raise AssertionError("no seat bids after another, shows and names at seed 5")


# --- the checks -------------------------------------------------------------------------------


def screens_problems(client: Any, names: Sequence[str]) -> list[str]:
    """Every screen of the play app at both sizes, the main one and each panel."""
    problems = []
    with create_pipe_input() as pipe:
        app = build_app(client, input=pipe, output=DummyOutput())
        view = view_of(app)
        view.sync()
        summary = view.panel == "summary"
        for panel in ["summary"] if summary else [None, *PANELS]:
            view.panel = panel
            whole = capture(app, 400, 200)
            vocabulary = set(whole.replace("│", " ").split()) | set(NARROW_ONLY.split())
            vocabulary |= {w for e in client.events() for w in e.split()}
            for width, height in SIZES:
                screen = capture(app, width, height)
                problems += [f"{panel or 'table'} at {width}x{height}: {p}"
                             for p in screen_problems(screen, vocabulary, whole, names)]
                asked = render.decision_prompt(client.decision(), client.observation(),
                                               names, client.declaration_options())
                if panel is None and " ".join(asked.split()) not in " ".join(screen.split()):
                    problems.append(f"table at {width}x{height}: {asked!r} not all shown")
    return problems


def plain_problems(client: Any, names: Sequence[str]) -> list[str]:
    """Plain mode's question (the table, the hand, what is asked) and its commands, fitted
    to 80 columns against the same unwrapped."""
    problems = []
    outputs: dict[int | None, str] = {}
    for columns in (80, None):
        out: list[str] = []
        session = PlainSession(client, out.append,
                               None if columns is None else (lambda c=columns: c))
        session.prompt()
        for command in ("tracker", "last", "log", "help", "table"):
            session.handle(command)
        outputs[columns] = "".join(out)
    fitted, whole = outputs[80], outputs[None]
    too_long = [line for line in fitted.split("\n") if len(line) > 80]
    problems += [f"plain: a line of {len(line)} columns: {line!r}" for line in too_long]
    if client.summary() is None:  # the summary is laid out for the width, not wrapped
        problems += [f"plain: {p}" for p in broken_words(fitted, whole, names)]
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("players", [4, 6])
def test_no_screen_breaks_a_word_a_card_or_a_name(players: int) -> None:
    problems: list[str] = []
    labels = []
    # The game's client moves on after each moment: checked there, as it is then.
    for label, client in itertools.chain(game_moments(players), auction_moments(players)):
        labels.append(label)
        names = client.names
        problems += [f"{players} seats, {label}: {p}" for p in screens_problems(client, names)]
        problems += [f"{players} seats, {label}: {p}" for p in plain_problems(client, names)]
    assert len(labels) == 9, labels
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_broken_word_a_cut_card_and_a_parted_name() -> None:
    names = ["Tess", "AI 3", "Ann Lee"]
    whole = "Auction: AI 3 35 · out: Ann Lee · you take the talon: bury 8 cards ♣10"
    assert broken_words(whole.replace("AI 3", "AI\n3"), whole, names)
    assert broken_words(whole.replace("8 cards", "8\ncards"), whole, names)
    assert broken_words(whole.replace("Ann Lee", "Ann\nLee"), whole, names)
    assert broken_words(whole.replace("♣10", "♣1\n0"), whole, names)
    assert not broken_words(whole.replace("· out", "\n· out"), whole, names)
    vocabulary = set(whole.split())
    assert screen_problems("Auction: AI\n  3 35", vocabulary, whole, names)
    assert screen_problems("unfin\nished ♣1", vocabulary, whole, names)
    assert not screen_problems("Auction: AI 3 35\n· out: Ann Lee", vocabulary, whole, names)


@pytest.mark.parametrize("width", [100, 102, 129])
def test_four_seats_beside_the_log_take_the_long_side_line(width: int) -> None:
    # The log takes 31 columns from 100: three equal columns of 23 left the sides too
    # narrow for "decl · lv 2 · 16 cards", and every place had the short form. The top
    # and the bottom take their whole row, the sides what the long form needs.
    moment = next(client for label, client in game_moments(4) if label == "middle")
    obs = moment.observation()
    text = render.to_text(table_view.table_pane(obs, moment.names, moment.events(), width, 32))
    assert len(re.findall(r"\b(?:decl|def) · lv \d+ · \d+ cards?\b", text)) == 4, text
    assert all(len(line) <= width for line in text.split("\n")), text


def test_the_status_bar_never_cuts_a_long_name_in_two() -> None:
    # One line that cannot wrap: " Tractor · hand 1 · trick 6 · trump ♦2 · playing: waiting
    # for Bartholomew Longname" is 85 columns, and the terminal cut the name.
    moment = next(client for label, client in game_moments(4) if label == "middle")
    obs = moment.observation()
    names = ["Tess", "Bartholomew Longname", "Maximilianus Peregrinus", "Christopherson Q"]
    waiting = FrozenClient(replace(obs, to_act=1), names, None)
    with create_pipe_input() as pipe:
        app = build_app(waiting, input=pipe, output=DummyOutput())
        bars = {width: capture(app, width, 24).split("\n")[0] for width in (100, 80, 72, 60)}
    whole = render.status_text(waiting.obs, names, None).split()
    assert bars[100].split() == whole, bars
    for width, bar in bars.items():
        words = bar.split()
        assert len(bar) <= width and words[-1] in ("Longname", "…"), bars
        assert all(word in whole for word in words[:-1]), bars  # none cut in two
    assert bars[60].endswith(" …"), bars
