"""Whether this seat's answer to a decision is a move the rules allow: the rules core's check.

The table judges this peer's own decisions (a person's, an AI's) on the seat's view alone,
with the rules core: a `tractor.hand.Hand` rebuilt from the seat's observation, holding
the seat's cards (the others' do not matter to its own move), applies the action, and
its `IllegalAction` is the refusal. Only the declaration window is the table's own: every
seat answers it at once (`net.table.hand`), so a declaration is checked against the
declarations the rules core opens to the seat (`Hand.legal_declarations`), and a pass is
always one.
"""

from __future__ import annotations

from collections import Counter

from tractor.actions import Action, Bury, Pass, Play
from tractor.cards import format_cards
from tractor.hand import Hand
from tractor.net.table.player import SeatView
from tractor.phases import ANSWERS, Decision, IllegalAction
from tractor.public import PublicHand
from tractor.rules import Rules


def misfit(rules: Rules, seat: int, decision: Decision, action: Action) -> str | None:
    """Why ``action`` is no answer at all to ``seat``'s ``decision`` (another seat's, or
    another kind of move); None: it is one."""
    if action.seat != seat:
        return "that is another seat's move"
    if isinstance(action, ANSWERS[decision]):
        return None
    return {Decision.DECLARE: "declare one of the declarations shown, or pass",
            Decision.BURY: f"choose {rules.talon_size} cards to bury",
            Decision.PLAY: "play cards from your hand",
            Decision.BID: "bid points (a multiple of 5 above the high bid) or pass",
            Decision.SHOW: "show one card of your hand",
            Decision.NAME: "name the trump suit (S, H, D or C) or none",
            Decision.CALL: f"call {rules.friend_calls} friend(s) by card, like AH for the "
                           "first ♥A played or 2:AH for the second"}[decision]


def refusal(rules: Rules, view: SeatView, decision: Decision, action: Action) -> str | None:
    """Why the seat may not answer ``decision`` with ``action`` now (None: it may)."""
    reason = misfit(rules, view.seat, decision, action)
    if reason is not None:
        return reason
    if isinstance(action, Bury | Play):
        # Cards the seat does not have are named first (the rules core judges the size of
        # a play or a burial before the cards in it), as a person is told at a table.
        missing = Counter(action.faces) - Counter(view.hand)
        if missing:
            return f"you do not hold {format_cards(action.faces, symbols=True)}"
    world = Hand.from_public(PublicHand.from_observation(rules, view.observation),
                             [list(view.hand) if s == view.seat else []
                              for s in range(rules.players)], (), ())
    if decision is Decision.DECLARE:
        if isinstance(action, Pass) or action in world.legal_declarations(view.seat):
            return None
        return "that declaration is not open to you now"
    try:
        world.apply(action)
    except IllegalAction as exc:
        return str(exc)
    return None
