"""Kitty theft between peers attacked as a hostile peer would (`net.table.theft`,
`net.deck.kitty`, `net.deck.kitty_pass`): requests out of turn, replayed, or not on the
curve; answers that do not check out; a thief that never buries again, a burier that never
answers, requests kept from the burier or sent in two versions; and every order in which
one theft's frames reach the two seats that neither take nor give. Every peer must end the
same, and blame (or wait on) the hostile seat only, never an honest one.

At `ONE_THEFT` (tests/test_table_theft.py) seat 0 declares and buries, seat 1 takes the
kitty with a pair; seats 2 and 3 only watch the hand-over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import memnet
import pytest
from memnet import body_of, header, withhold
from test_deck_cheats import kind_of, resign, unpack
from test_table_theft import BURIER, ONE_THEFT, SETUP, THIEF, Thief, rewriting, thieves

from tractor import Rules
from tractor.net.deck.errors import BadMessage, CheatDetected, DeckError, Replay, TranscriptSplit
from tractor.net.deck.local import LocalDeal
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.phases import Phase

BYSTANDERS = (2, 3)
#: (src, dst, frame) -> whether the frame waits in flight for now (`hand`).
Hold = Callable[[int, int, bytes], bool]
Tamper = Callable[[int, int, bytes], "bytes | list[bytes] | None"]


def hand(tamper: Callable[[LocalDeal], Tamper] | None = None, hold: Hold | None = None,
         delivered: Callable[[int, int, bytes], None] | None = None,
         players: list[Thief] | None = None
         ) -> tuple[LocalDeal, list[TableHand], dict[int, Exception]]:
    """One hand at `ONE_THEFT` on the real deck: ``tamper(deal)`` rewrites what a seat
    sends; ``hold`` keeps a frame in flight while others pass it (never all of them);
    ``delivered`` hears every frame a peer took in. Each peer goes on alone until it
    refuses a frame (its refusal is kept); a frame received twice is ignored."""
    rules = SETUP.rules
    d = LocalDeal(seats=4, decks=rules.decks, hand_size=rules.hand_size, seed=ONE_THEFT,
                  first=SETUP.first)
    d.tamper = tamper(d) if tamper is not None else None
    players = players or thieves(ONE_THEFT)
    tables = [TableHand(SETUP, d.peers[s], players[s]) for s in range(4)]
    refused: dict[int, Exception] = {}

    def run(seat: int, move: Callable[[], list[bytes]]) -> None:
        try:
            d.broadcast(seat, move())
        except Replay:
            pass
        except (TableError, DeckError) as exc:
            refused[seat] = exc
            d.broadcast(seat, exc.outgoing)

    for seat, table in enumerate(tables):
        run(seat, table.start)
    while d.queue:
        at = next((i for i, (src, dst, frame) in enumerate(d.queue)
                   if hold is None or not hold(src, dst, frame)), None)
        assert at is not None, "every frame in flight is held: the order cannot happen"
        src, dst, frame = d.queue[at]
        del d.queue[at]
        if dst in refused:
            continue
        if delivered is not None:
            delivered(src, dst, frame)
        run(dst, lambda dst=dst, frame=frame: tables[dst].receive(frame))
    return d, tables, refused


def seq_of(frame: bytes) -> int:
    return int(unpack(frame)[0][4])


def step_of(frame: bytes) -> str | None:
    """The theft's step a frame is, if any: the thief's overcall ("steal"), its requests
    ("take"), the burier's answers ("give"), a burial ("bury")."""
    kind = kind_of(frame)
    if kind == "app":
        data = unpack(frame)[1]["data"]
        return "steal" if isinstance(data, dict) and data.get("steal") else None
    return kind if kind in ("take", "give", "bury") else None


def finished_alike(tables: list[TableHand]) -> None:
    first = tables[0]
    assert [t.phase for t in tables] == [Phase.DONE] * 4
    assert [seat for seat, _ in first.public.thefts] == [THIEF]
    for t in tables:
        assert t.violations == [] and t.result == first.result
        assert t.public.thefts == first.public.thefts
        assert [c.hashes[-1] for c in t.deck._chains] == \
            [c.hashes[-1] for c in first.deck._chains]


def honest_wait_on(tables: list[TableHand], refused: dict[int, Exception], bad: int,
                   owed: str) -> None:
    """No honest peer refused anything, and each waits on ``bad`` alone, for ``owed``."""
    assert not {s: e for s, e in refused.items() if s != bad}
    for t in tables:
        if t.me != bad:
            assert t.waiting_on() == {bad: owed}, (t.me, t.waiting_on())


def blamed_by(tamper: Callable[[LocalDeal], Tamper]
              ) -> tuple[list[TableHand], dict[int, Exception]]:
    _, tables, refused = hand(tamper)
    return tables, refused


# --- every order of one theft at the seats that watch it -------------------------------------

STEPS = ("steal", "take", "bury")


@pytest.mark.parametrize("place", range(4))
def test_every_order_of_one_theft_at_the_watching_seats_ends_the_same_everywhere(place):
    """The burier's answers reach seats 2 and 3 before the overcall (``place`` 0), between
    it and the requests (1), between the requests and the thief's new burial (2), or after
    it (3): the thief's steps are held back from them, or the answers are. The thief's
    requests come twice to every peer (a replay: taken once). (Every seat's
    own frames stay in its order, as its chain keeps them; the burier answers only once the
    requests reached it and the thief buries only once the answers reached it, so these are
    all the orders a watching seat can see. Each watching seat's order is independent of
    the other's: both see the same one in each run.)"""
    got: dict[int, list[str]] = {s: [] for s in BYSTANDERS}
    late = set(STEPS[place:])  # the thief's steps that wait for the answers
    blocked: dict[int, bool] = dict.fromkeys(BYSTANDERS, False)

    def hold(src: int, dst: int, frame: bytes) -> bool:
        if dst not in BYSTANDERS:
            return False
        step = step_of(frame)
        if src == BURIER and step == "give":
            return place > 0 and STEPS[place - 1] not in got[dst]
        if src == THIEF and "give" not in got[dst]:
            blocked[dst] = blocked[dst] or step in late  # the rest of its chain waits too
            return blocked[dst]
        return False

    def delivered(src: int, dst: int, frame: bytes) -> None:
        step = step_of(frame)
        if dst in BYSTANDERS and step not in got[dst] and (
                (src, step) == (BURIER, "give") or (src == THIEF and step in STEPS)):
            got[dst].append(step)

    def twice(d: LocalDeal) -> Tamper:
        return lambda src, dst, frame: [frame, frame] if src == THIEF and \
            kind_of(frame) == "take" else frame

    _, tables, refused = hand(twice, hold=hold, delivered=delivered)
    order = [*STEPS[:place], "give", *STEPS[place:]]
    assert got == dict.fromkeys(BYSTANDERS, order)
    assert not refused
    finished_alike(tables)


# --- the thief's requests ----------------------------------------------------------------------


def requests_before_the_overcall(d: LocalDeal) -> Tamper:
    """The thief sends its requests first, then its overcall (each signed at the other's
    place in its chain), to every peer."""
    kept: dict[int, bytes] = {}

    def tamper(src: int, dst: int, frame: bytes) -> bytes | list[bytes] | None:
        step = step_of(frame) if src == THIEF else None
        if step == "steal":
            kept[dst] = frame
            return None
        if step == "take":
            overcall = kept.pop(dst)
            key = d.signing_keys[THIEF]
            return [resign(frame, key, seq=seq_of(overcall)),
                    resign(overcall, key, seq=seq_of(frame))]
        return frame
    return tamper


def second_request_for_a_burial(d: LocalDeal) -> Tamper:
    """Where the thief's new burial belongs in its chain, its requests again."""
    take: list[bytes] = []

    def tamper(src: int, dst: int, frame: bytes) -> bytes | None:
        if src != THIEF or step_of(frame) not in ("take", "bury"):
            return frame
        if step_of(frame) == "take":
            take[:] = [frame]
            return frame
        return resign(take[0], d.signing_keys[THIEF], seq=seq_of(frame))
    return tamper


def from_a_watching_seat(kind: str) -> Callable[[LocalDeal], Tamper]:
    """Seat 2 sends the thief's requests (or the burier's answers) as its own, signed at
    the place of its pass in the window after the thief buries."""
    def tamper(d: LocalDeal) -> Tamper:
        copied: list[dict[str, Any]] = []

        def rewrite(src: int, dst: int, frame: bytes) -> bytes:
            if src == (THIEF if kind == "take" else BURIER) and kind_of(frame) == kind:
                copied[:] = [unpack(frame)[1]]
            if src == 2 and copied and kind_of(frame) == "app" and \
                    unpack(frame)[1]["data"] == {"steal": []}:
                return resign(frame, d.signing_keys[2], body=copied[0], kind=kind)
            return frame
        return rewrite
    return tamper


@pytest.mark.parametrize("tamper, bad, owed", [
    (requests_before_the_overcall, THIEF, "declaration window"),
    (second_request_for_a_burial, THIEF, "burial"),
    (from_a_watching_seat("take"), 2, "declaration window"),
    (from_a_watching_seat("give"), 2, "declaration window"),
], ids=["requests-first", "requests-again", "requests-of-a-third", "answers-of-a-third"])
def test_a_request_or_answer_out_of_turn_waits_and_only_its_sender_is_waited_on(
        tamper, bad, owed):
    """A request or an answer no theft under way is due from waits in its sender's chain
    (the network may bring an answer before its request), and so does everything the
    sender signed after it: its sender owes the move it held back, and only it."""
    _, tables, refused = hand(tamper)
    honest_wait_on(tables, refused, bad, owed)




#: A 32-byte string that is no point of the group (libsodium refuses it).
OFF_CURVE = bytes([2]) + bytes(31)


def body_change(change: Callable[[dict[str, Any]], dict[str, Any]]
                ) -> Callable[[LocalDeal, int, dict[str, Any]], dict[str, Any]]:
    return lambda d, seat, body: change(body)


def first_point(value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda body: {**body, "points": [value, *body["points"][1:]]}


@pytest.mark.parametrize("change, error", [
    (first_point(OFF_CURVE), CheatDetected),
    (first_point(bytes(32)), CheatDetected),  # the identity: no point to blind
    (lambda body: {**body, "points": b"x" * 32}, BadMessage),
], ids=["off-curve", "identity", "not-a-list"])
def test_requests_that_are_no_points_are_the_thiefs_cheat(change, error):
    _, refused = blamed_by(rewriting("take", THIEF, body_change(change)))
    assert set(refused) == {0, 2, 3}
    for exc in refused.values():
        assert isinstance(exc, error) and exc.seat == THIEF, exc


def test_requests_for_the_wrong_cards_cost_the_thief_not_the_burier():
    """Requests that are points, but not for the positions named (two swapped): the burier
    answers them with its proof, which checks; what the thief gets opens to no card. The
    thief's own peer finds the answers made on other requests than its own and stops; the
    others wait on the thief's burial, and nobody refuses the burier."""
    swapped = body_change(lambda body: {
        **body, "points": [body["points"][1], body["points"][0], *body["points"][2:]]})
    tables, refused = blamed_by(rewriting("take", THIEF, swapped))
    assert set(refused) == {THIEF} and isinstance(refused[THIEF], TranscriptSplit)
    honest_wait_on(tables, refused, THIEF, "burial")


# --- the burier's answers ----------------------------------------------------------------------


def first_proof(part: int, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(body: dict[str, Any]) -> dict[str, Any]:
        proofs = [list(q) for q in body["proofs"]]
        proofs[0][part] = value
        return {**body, "proofs": proofs}
    return change


@pytest.mark.parametrize("change, error", [
    (first_point(OFF_CURVE), CheatDetected),
    (first_proof(2, b"\xff" * 32), CheatDetected),  # no scalar: above the group order
    (lambda body: {**body, "proofs": [q[:2] for q in body["proofs"]]}, BadMessage),
    (lambda body: {**body, "input": bytes(32)}, TranscriptSplit),
], ids=["answer-off-curve", "response-too-big", "proof-short", "other-requests"])
def test_answers_that_do_not_check_out_are_the_buriers(change, error):
    """Every other peer refuses them, naming the burier (answers said to be made on other
    requests than the thief sent are a split transcript: with no second version of the
    requests to show, the signed answers themselves are the evidence, `net.mesh.intake`)."""
    _, refused = blamed_by(rewriting("give", BURIER, body_change(change)))
    assert set(refused) == {1, 2, 3}
    for exc in refused.values():
        assert isinstance(exc, error) and exc.seat == BURIER, exc


def test_a_thief_that_never_buries_again_is_the_only_seat_waited_on():
    def tamper(d: LocalDeal) -> Tamper:
        return lambda src, dst, frame: None if src == THIEF and kind_of(frame) == "bury" \
            else frame
    _, tables, refused = hand(tamper)
    assert all(t.deck.kitty.thefts and t.deck.kitty.thefts[0].answered for t in tables)
    honest_wait_on(tables, refused, THIEF, "burial")


# --- between real peers: the relay, the referee ------------------------------------------------

#: A `MemNet` seed where, with `Thief` players, seat 2 takes the kitty that seat 1 buried.
MEMNET_SEED, MEMNET_THIEF, MEMNET_BURIER = 3, 2, 1


def memnet_outcomes(tamper: Callable[[memnet.MemNet], None], monkeypatch: Any
                    ) -> dict[int, tuple[str, int | None]]:
    """One hand of real `PeerNode`s (tests/memnet.py) with `Thief` players, after
    ``tamper(net)``: each peer's end (finished, or the error it halted on and its seat)."""
    monkeypatch.setattr(memnet, "RandomPlayer", Thief)  # every seat a thief
    net = memnet.MemNet(seed=MEMNET_SEED, rules=Rules(kitty_theft=True))
    tamper(net)
    net.run(limit=3000)
    hand = net.sessions[0].played[0] if net.sessions[0].played else net.sessions[0].current
    assert [(t.thief, t.burier) for t in hand.deck.kitty.thefts] == [
        (MEMNET_THIEF, MEMNET_BURIER)]
    out: dict[int, tuple[str, int | None]] = {}
    for s, node in enumerate(net.nodes):
        halted = node.halted
        out[s] = ("finished", None) if halted is None and net.completed() else (
            type(halted).__name__, getattr(halted, "seat", None))
    return out


def kept_from_the_burier(net: memnet.MemNet) -> None:
    net.tamper[(MEMNET_THIEF, MEMNET_BURIER)] = withhold("take")


def two_versions_of_the_requests(net: memnet.MemNet) -> None:
    """The thief's requests to seat 3 have two of them swapped (signed: a second version)."""
    def tamper(frame: bytes) -> list[bytes]:
        if (header(frame) or [""] * 6)[5] != "take":
            return [frame]
        body = body_of(frame)
        points = body["points"]
        return [memnet.resign(frame, net.keys[MEMNET_THIEF],
                              {**body, "points": [points[1], points[0], *points[2:]]})]
    net.tamper[(MEMNET_THIEF, 3)] = tamper


@pytest.mark.slow  # real peers, as the referee's attacks (tests/test_attack_referee2.py)
@pytest.mark.parametrize("tamper, outcome", [
    (kept_from_the_burier, ("finished", None)),
    (two_versions_of_the_requests, ("Equivocation", MEMNET_THIEF)),
], ids=["requests-kept-from-the-burier", "two-versions-of-the-requests"])
def test_the_burier_is_never_blamed_for_what_the_thief_did(tamper, outcome, monkeypatch):
    """Requests kept from the burier reach it through the other peers (the relay) and the
    hand ends; requests in two versions (the burier's answers split the table: `seat 3`
    finds them made on other requests than its own) end on the thief's equivocation, shown
    by the two signed versions, on every peer."""
    assert memnet_outcomes(tamper, monkeypatch) == dict.fromkeys(range(4), outcome)
