"""Find-a-friend (`Rules.mode` "friends") on the screens: the starter's calls, who is known
to be on its side and who is not known yet, each player's own level, and the call the
starter makes, in words.

There are no teams in find-a-friend: the starter calls its friends by card after burying
("the 1st ♥A played"), and a seat joins the starter's side when it plays a called card,
in front of everyone. Until then nobody but that seat can know it, so the screens show
only what the plays revealed: the starter, the friends revealed so far (and in which
trick), and how many calls are still open. Everything here is a pure function of a
seat's observation (`tractor.observation.Observation`: its ``calls``, ``friends`` and
``declaring``), so the full screen, ``--plain``, the demo and the replays say the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tractor.cli.screen.card_text import rules_of
from tractor.cli.screen.words import count
from tractor.friends import FriendCall, Sides
from tractor.observation import Observation
from tractor.phases import Phase
from tractor.records import Trick
from tractor.rules import Rules
from tractor.scoring import advance_levels

#: What each `Rules.friend_cards` policy lets the starter call, in words.
POLICY_WORDS = {
    "no_trump": "any card but a trump",
    "trump_too": "any card, trumps too",
    "no_highest": "no trump, and no card that is the highest of its suit (an ace; a king "
                  "when aces are trump)",
    "no_points": "no trump, and no point card (5, 10, K; a king is allowed when your "
                 "level is A)",
}

#: What `Rules.friend_join` does with a called card the starter's side plays itself.
JOIN_WORDS = {
    "unrestricted": "a called card played by you or a friend already known is spent on "
                    "that seat (you may end up playing alone)",
    "no_double": "a called card played by you or a friend already known does not count: "
                 "the call waits for a seat not on your side yet",
}


def is_friends(obs: Observation) -> bool:
    """Whether the observation is of a find-a-friend table (one level per player)."""
    rules = rules_of(obs)
    if rules is not None:
        return rules.mode == "friends"
    return len(obs.levels) != 2 or bool(obs.calls)


def seat_level(obs: Observation, seat: int) -> str:
    """``seat``'s level: its own in find-a-friend, its team's with fixed teams."""
    return obs.levels[seat] if is_friends(obs) else obs.levels[seat % 2]


def _rules(obs: Observation) -> Rules:
    """The table's rules, or find-a-friend's defaults for the observation's table."""
    return rules_of(obs) or Rules(players=obs.players, mode="friends")


def friend_calls(obs: Observation) -> int:
    """How many friends the starter calls at this table."""
    return _rules(obs).friend_calls


def defends(obs: Observation, seat: int) -> bool:
    """Whether ``seat`` is a defender as far as the table knows: with fixed teams, not of
    the declaring team (once there is one); in find-a-friend, not known to be on the
    starter's side (every seat not on it, at the end of the hand)."""
    if is_friends(obs):
        return obs.starter is not None and seat not in obs.declaring
    return obs.declarers is not None and seat % 2 != obs.declarers


# --- who is known to be on which side ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reveal:
    """Call ``call`` (its index) fell to ``seat`` when it played the called card in trick
    ``trick`` (counted from 1)."""

    call: int
    seat: int
    trick: int


def reveals_in(rules: Rules, starter: int, calls: tuple[FriendCall, ...],
               tricks: Sequence[Trick], current: Sequence[Sequence[int]] = (),
               leader: int = 0) -> list[Reveal]:
    """When each call fell, replaying the plays (public) through the rules core's `Sides`:
    the finished ``tricks``, then the trick being played (``current``, led by ``leader``)."""
    sides = Sides(rules, starter, calls)
    out: list[Reveal] = []
    plays = [(t.leader, t.plays, number) for number, t in enumerate(tricks, 1)]
    if current:
        plays.append((leader, tuple(tuple(p) for p in current), len(tricks) + 1))
    for lead, cards, number in plays:
        for k, faces in enumerate(cards):
            seat = (lead + k) % rules.players
            out += [Reveal(i, seat, number) for i in sides.answered(seat, faces)]
    return out


def reveals(obs: Observation) -> list[Reveal]:
    """When each call the observation shows fell, in the order they fell."""
    if not obs.calls or obs.starter is None:
        return []
    return reveals_in(_rules(obs), obs.starter, obs.calls, obs.tricks, obs.current,
                      obs.leader)


def sides_known(obs: Observation) -> bool:
    """Every seat's side is public: every call fell, or the hand is over (a call whose
    card was buried never falls)."""
    if obs.phase == Phase.DONE or obs.result is not None:
        return True
    return bool(obs.calls) and all(f is not None for f in obs.friends)


def side_tag(obs: Observation, seat: int) -> str:
    """A seat's side in a word: "start" (the starter), "friend" (revealed), "def" (a
    defender, once the sides are known), "?" (not known yet)."""
    if seat == obs.starter:
        return "start"
    if seat in obs.declaring:
        return "friend"
    return "def" if sides_known(obs) else "?"


def open_calls(obs: Observation) -> int:
    """Calls whose card has not fallen to anyone yet."""
    return sum(1 for f in obs.friends if f is None)


def call_phrases(obs: Observation, names: Sequence[str]) -> list[str]:
    """Each call and what became of it: "the 1st ♥A, played by AI 3 in trick 4", "the 1st
    ♥A, played by AI 1 itself (the starter) in trick 2", "the 2nd ♣K, not played yet"."""
    when = {r.call: r.trick for r in reveals(obs)}
    out = []
    for i, call in enumerate(obs.calls):
        seat = obs.friends[i] if i < len(obs.friends) else None
        if seat is None:  # at the end of the hand: its card buried, or a no_double call
            out.append(f"{call}, never answered" if sides_known(obs) else
                       f"{call}, not played yet")
            continue
        who = f"{names[seat]} itself (the starter)" if seat == obs.starter else names[seat]
        trick = f" in trick {when[i]}" if i in when else ""
        out.append(f"{call}, played by {who}{trick}")
    return out


def call_marks(obs: Observation, names: Sequence[str]) -> list[str]:
    """Each call in a few words for the table's header: "call 1st ♥A → AI 3", "call 2nd
    ♣K → ?" (not played yet)."""
    out = []
    for i, call in enumerate(obs.calls):
        seat = obs.friends[i] if i < len(obs.friends) else None
        card = str(call).removeprefix("the ")
        out.append(f"call {card} → {names[seat] if seat is not None else '?'}")
    return out


def side_sentence(obs: Observation, names: Sequence[str]) -> str:
    """Where the sides stand, in a sentence: before the calls, who will call; after, the
    side known so far and what is not known yet."""
    starter = obs.starter
    if starter is None:
        return "The starter calls its friends by card after burying."
    who = names[starter]
    n = _rules(obs).friend_calls
    if not obs.calls:
        return f"{who} starts and calls {count(n, 'friend')} by card after burying."
    side = [names[s] for s in obs.declaring]
    others = [names[s] for s in range(obs.players) if s not in obs.declaring]
    if sides_known(obs):
        if len(side) == 1:
            return f"Sides known: {who} plays alone against {listed(others)}."
        return f"Sides known: {listed(side)} against {listed(others)}."
    left = open_calls(obs)
    known = f"{who}'s side so far: {listed(side)}" if len(side) > 1 else \
        f"No friend of {who} is known yet"
    return (f"{known}; {count(left, 'call')} not played yet, so the other seats' sides "
            "are unknown.")


def listed(names: Sequence[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def levels_line(obs: Observation, names: Sequence[str]) -> str:
    """Every player's level: "Levels: You 2 · AI 1 3 · ..."."""
    return "Levels: " + " · ".join(f"{names[s]} {obs.levels[s]}" for s in range(obs.players))


# --- the call --------------------------------------------------------------------------------


def call_rules_text(rules: Rules) -> str:
    """What the starter may call, in words: how many calls, which cards, which copies."""
    n = rules.friend_calls
    copies = (f"2:AH = the 2nd ♥A played (copies 1 to {rules.decks})" if rules.decks > 1
              else "one deck: only the 1st copy")
    return (f"Call {count(n, 'friend')} by card: AH = whoever plays the 1st ♥A; {copies}. "
            f"Allowed: {POLICY_WORDS.get(rules.friend_cards, rules.friend_cards)} "
            f"(friend_cards={rules.friend_cards}).")


#: `POLICY_WORDS` in a few words, for the message line.
POLICY_SHORT = {"no_trump": "any card but a trump", "trump_too": "any card",
                "no_highest": "no trump, no highest card of a suit",
                "no_points": "no trump, no point card"}


def call_prompt(obs: Observation) -> str:
    """The starter's question at the call, short enough for the message line (two lines
    of 80 columns); `call_help` says it in full."""
    rules = _rules(obs)
    n = rules.friend_calls
    what = "a card" if n == 1 else f"{n} cards"
    copies = "; 2:AH: the 2nd" if rules.decks > 1 else ""
    return (f"Call {count(n, 'friend')}: type {what} and Enter (AH: whoever plays the 1st "
            f"♥A{copies}). Allowed: {POLICY_SHORT.get(rules.friend_cards, rules.friend_cards)}.")


def allowed_words(obs: Observation) -> str:
    """"allowed: any card but a trump" (the table's `Rules.friend_cards`)."""
    policy = _rules(obs).friend_cards
    return f"allowed: {POLICY_SHORT.get(policy, policy)}"


def call_help(rules: Rules) -> str:
    """The call in full, for ``help`` in ``--plain`` and the help panel."""
    return (f"{call_rules_text(rules)} A seat joins your side when it plays a called card; "
            f"{JOIN_WORDS.get(rules.friend_join, rules.friend_join)}. Several calls are "
            "separated by spaces: AH 2:KC.")


def calls_line(obs: Observation, names: Sequence[str]) -> str:
    """"AI 1 called the 1st ♥A, played by AI 3 in trick 4; the 2nd ♣K, not played yet."."""
    starter = names[obs.starter] if obs.starter is not None else "The starter"
    return f"{starter} called " + "; ".join(call_phrases(obs, names)) + "."


# --- the end of a hand -----------------------------------------------------------------------


def result_lines(rules: Rules, levels_before: Sequence[str], side: Sequence[int],
                 gaining: Sequence[int], gained: int, next_starter: int,
                 who: Callable[[int], str]) -> list[str]:
    """A finished hand of find-a-friend, for a person: the sides, which one won, the seats
    that go up and by how much, every player's level before and after, the next starter."""
    players = rules.players
    defenders = [s for s in range(players) if s not in side]
    alone = " (alone)" if len(side) == 1 else ""
    lines = [f"Starter's side: {listed([who(s) for s in side])}{alone}; defenders: "
             f"{listed([who(s) for s in defenders])}."]
    up = f"{listed([who(s) for s in gaining])} go{'es' if len(gaining) == 1 else ''} up " \
         f"{count(gained, 'level')}"
    if set(gaining) <= set(side):
        bonus = ""
        if rules.smaller_side_bonus and len(side) < 1 + rules.friend_calls and gained:
            bonus = " (one more: the side was smaller than called)"
        lines.append(f"The starter's side wins: {up}{bonus}." if gained else
                     "The starter's side wins, with no level gained.")
    elif set(gaining) <= set(defenders):
        lines.append(f"The defenders win: {up}." if gained else
                     "The defenders win and start next, with no level gained.")
    else:  # a forfeit: the offender loses alone (`tractor.records.friends_forfeit`)
        left = [who(s) for s in range(players) if s not in gaining]
        lines.append(f"The hand ended early against {listed(left)}: every other seat "
                     f"goes up {count(gained, 'level')}.")
    after = list(levels_before)
    for s in gaining:  # a must-defend level stops a seat that did not declare (`Rules`)
        past = advance_levels(after, s, gained, "past_ace", rules.must_defend_levels, s in side)
        if past and levels_before[s] == "A":  # a level past A stays A: say it was passed
            after[s] = "past A"
    lines.append("Levels: " + ", ".join(
        f"{who(s)} {levels_before[s]}" + (f" → {after[s]}" if after[s] != levels_before[s]
                                           else "") for s in range(players)))
    lines.append(f"Next starter: {who(next_starter)}.")
    return lines


def call_words(seat_name: str, calls: Sequence[FriendCall]) -> str:
    """"AI 2 calls the 1st ♥A and the 2nd ♠K"."""
    return f"{seat_name} calls {listed([str(c) for c in calls])}"


def reveal_words(seat_name: str, starter_name: str, call: FriendCall, itself: bool) -> str:
    """A call falling to a seat, as the log says it."""
    if itself:
        return f"{call} falls to {starter_name}, the starter itself"
    return f"{seat_name} is {starter_name}'s friend ({call})"
