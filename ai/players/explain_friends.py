"""Find-a-friend in the hints: who is known to be the starter's friend, whom the seat
believes is one and why, what a play does to the calls, and why a call was chosen.

Every claim is worked out from the seat's own observation: "known" is what the plays
showed (`Observation.friends`); "likely" is the seat's belief
(`tractor.ai.players.friend_belief`), given with its chance so it is never passed off as
a fact.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.ai.players.allies import Allies
from tractor.ai.players.calling import call_reason
from tractor.ai.players.friend_belief import FEED_CUE, FriendBelief
from tractor.ai.players.revealing import answering
from tractor.ai.players.tracker import Tracker
from tractor.ai.players.worlds import Knowledge
from tractor.cards import format_cards
from tractor.friends import FriendCall, ordinal
from tractor.observation import Observation
from tractor.rules import Rules, team_of
from tractor.trump import TRUMP, Ladder

#: A seat is named as the likely friend from this chance on.
LIKELY = 0.5
#: A chance this close to 1 is a certainty (the calls are all answered).
SURE = 0.999


class SideWords:
    """How a hint names the seats around the observing one: partners with fixed teams;
    in find-a-friend the starter, the friends known, and the seats believed to be ones."""

    def __init__(self, obs: Observation, rules: Rules) -> None:
        self.obs = obs
        self.seat = obs.seat
        self.allies: Allies | None = None
        if rules.mode == "friends" and obs.trump is not None and obs.calls:
            self.allies = Tracker(Knowledge.from_observation(rules, obs)).allies

    @property
    def belief(self) -> FriendBelief | None:
        return self.allies.belief if self.allies is not None else None

    def ally(self, seat: int) -> bool:
        """Played as the observing seat's partner (surely, or by belief)."""
        if self.allies is None:
            return team_of(seat) == team_of(self.seat)
        return self.allies.partner(seat)

    def partners(self) -> list[int]:
        if self.allies is None:
            return [s for s in range(self.obs.players)
                    if s != self.seat and team_of(s) == team_of(self.seat)]
        return self.allies.partners()

    def who(self, seat: int) -> str:
        """A partner's name in a hint: "partner", "the starter", "friend seat 3",
        "defender seat 3" (sure), "seat 3 (likely ally)" (by belief)."""
        belief = self.belief
        if belief is None or self.allies is None:
            return "partner"
        if seat == belief.starter:
            return "the starter"
        if seat in belief.known:
            return f"friend seat {seat}"
        if self.allies.chance[seat] >= SURE:
            return f"defender seat {seat}"
        return f"seat {seat} (likely ally)"


def reveal_text(words: SideWords, play: Sequence[int], wins: bool) -> str | None:
    """The reason of a play that makes the seat a friend (None: it does not)."""
    belief = words.belief
    if belief is None or not belief.friend_to_be or not answering(play, belief):
        return None
    face = next(belief.calls[i].call.face for i in belief.controls
                if play.count(belief.calls[i].call.face) >= belief.calls[i].need)
    card = format_cards([face], symbols=True)
    return f"plays the called {card}: you join the starter" + (", and win" if wins else "")


def lead_to_friend_text(words: SideWords, play: Sequence[int], ladder: Ladder) -> str | None:
    """The reason of a lead by the starter's side into a called suit whose called card it
    does not hold (None: not such a lead)."""
    belief = words.belief
    if belief is None or belief.seat not in belief.known or len(play) != 1:
        return None
    suit = ladder.esuit[play[0]]
    for state in belief.calls:
        face = state.call.face
        if state.waiting and not state.mine and state.unseen and suit != TRUMP \
                and ladder.esuit[face] == suit and face != play[0]:
            return f"leads to the called {format_cards([face], symbols=True)}: " \
                   "its holder is your friend"
    return None


def friends_note(words: SideWords) -> str:
    """A short line on the sides for the end of a hint ("" when nothing to say)."""
    belief = words.belief
    if belief is None:
        return ""
    if belief.friend_to_be:
        face = belief.calls[belief.controls[0]].call.face
        return f"you hold the called {format_cards([face], symbols=True)}"
    likely = belief.likely_friends(LIKELY)
    if likely:
        s = likely[0]
        return f"seat {s} likely a friend ({round(100 * belief.at_end[s])}%)"
    friends = [s for s in belief.known if s != belief.starter]
    if friends:
        return ("friend: " if len(friends) == 1 else "friends: ") + ", ".join(
            f"seat {s}" for s in friends)
    return ""


def friends_summary(obs: Observation, rules: Rules) -> str:
    """Who is known to be the starter's friend and whom the seat believes is one, with
    why, in full sentences (for a screen with room; "" outside find-a-friend)."""
    words = SideWords(obs, rules)
    belief = words.belief
    if belief is None:
        return ""
    out = []
    friends = [s for s in belief.known if s != belief.starter]
    for state in belief.calls:
        if state.friend is not None:
            who = "the starter itself" if state.friend == belief.starter \
                else f"seat {state.friend}"
            text = str(state.call)
            out.append(f"{text[0].upper()}{text[1:]} fell to {who}.")
    if not friends:
        out.append(f"No friend of seat {belief.starter} (the starter) is known yet.")
    for s in belief.likely_friends(LIKELY):
        out.append(f"Seat {s} is likely the starter's friend "
                   f"({round(100 * belief.at_end[s])}%): {_why_likely(belief, s, obs)}.")
    if belief.friend_to_be:
        face = belief.calls[belief.controls[0]].call.face
        out.append(f"You hold the called {format_cards([face], symbols=True)}: playing it "
                   "makes you the starter's friend.")
    return " ".join(out)


def _why_likely(belief: FriendBelief, seat: int, obs: Observation) -> str:
    reasons = []
    if belief.cues[seat] >= FEED_CUE:
        reasons.append("it gave points to the starter's tricks")
    waiting = [c for c in belief.calls if c.waiting]
    if waiting and obs.trump is not None:
        holders = [s for s in range(obs.players) if s not in (belief.seat, seat)
                   and belief.at_end[s] == 0.0 and s not in belief.known]
        if holders:
            reasons.append("seat" + ("s " if len(holders) > 1 else " ")
                           + ", ".join(str(s) for s in holders) + " cannot hold the called card")
    if not reasons:
        reasons.append("the called card is likelier in its hand than elsewhere")
    return " and ".join(reasons)


def call_text(obs: Observation, calls: Sequence[FriendCall], ladder: Ladder, rules: Rules,
              room: int) -> str:
    """Why the starter makes ``calls``, in at most ``room`` characters when it can: the
    calls' reasons, or only their names."""
    text = call_reason(calls, obs.hand, obs.buried or (), ladder, rules.decks)
    if len(text) <= room:
        return text
    names = ", ".join(f"{ordinal(c.nth)} {format_cards([c.face], symbols=True)}" for c in calls)
    return f"calls {names}"
