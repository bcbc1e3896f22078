"""The log a person's seat shows beside a peer-to-peer table (`TableClient.events`).

`SeatLog` turns what the replicated table did since the last look into plain lines:
declarations and plays as they happened (`cli.seat.hand_log`), chat where it was said,
the declarations the person may make, links that change, redeals, results and a halt.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.cards import format_cards
from tractor.cli.screen.friends_view import listed
from tractor.cli.screen.summary_view import must_defend_stop
from tractor.cli.screen.words import count
from tractor.cli.seat.hand_log import table_events, with_chat
from tractor.game import winners_of
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.hand import TableHand
from tractor.net.table.session import GameSession
from tractor.phases import Phase

_REDEAL = "nobody declared a trump: the cards are dealt again"


class SeatLog:
    """Writes the log of one table into ``lines`` (kept by the client: the log goes on
    when the game goes on at a new table); ``names`` are the seats' display names."""

    def __init__(self, lines: list[str], names: Sequence[str], players: int) -> None:
        self.lines = lines
        self.names = list(names)
        self.players = players
        self._seen: dict[str, int] = {}
        self._hand_seen: TableHand | None = None
        self._offered: set[tuple[int, ...]] = set()  #: declarations told of this hand
        self._offered_in: TableHand | None = None
        self._paths: dict[int, str | None] = {}  #: an internet table's links, as told
        self._redeal_told: TableHand | None = None
        self.halt_told = False

    def who(self, seat: int) -> str:
        """A seat where it is blamed or its link told: its number and its name."""
        return f"seat {seat} ({self.names[seat]})"

    def _name(self, seat: int) -> str:
        """A seat in the play log: its name alone (`display_names` makes every seat's
        differ), so a line fits the log pane beside the table."""
        return self.names[seat]

    def game_over(self, hand: TableHand) -> str:
        """The log line of a game won with ``hand`` (its last): a team's seats, or in
        find-a-friend the seats of the gaining side that went past the top."""
        res = hand.result
        assert res is not None
        if hand.rules.mode != "friends":
            return f"game over: team of {self.team(res.gaining_team)} wins"
        won = winners_of(hand.rules, list(hand.public.levels), res)
        return (f"game over: {listed([self.names[s] for s in won]) or 'nobody'} "
                f"win{'s' if len(won) == 1 else ''}")

    def team(self, team: int) -> str:
        """"ann, AI 2 and AI 4": the names of a team's seats."""
        names = [self.names[s] for s in range(self.players) if s % 2 == team]
        return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]

    def audit(self, hand: TableHand) -> str:
        """What the peers' audit of a finished hand found, in a sentence."""
        n = self.players
        violations = hand.violations or []
        if not violations:
            return f"{len(hand.deck.verdicts)} of {n} peers verified the hand: no rule broken"
        return f"{len(hand.deck.verdicts)} of {n} peers found: " + "; ".join(
            f"{self.who(v.seat)} in trick {v.trick}: {v.reason}" for v in violations)

    def over_line(self, number: int, hand: TableHand) -> str:
        res = hand.result
        assert res is not None
        if hand.rules.mode == "friends":  # no teams: the seats that go up
            side = listed([self.names[s] for s in res.side])
            up = listed([self.names[s] for s in res.gaining])
            change = (f"{up} gain {count(res.levels_gained, 'level')}" if res.levels_gained
                      else "no level gained")
            return (f"hand {number} over: the starter's side {side}; defenders took "
                    f"{res.defender_points} points; {change}; {self.audit(hand)}")
        team = self.team(res.gaining_team)
        change = (f"{team} gain {count(res.levels_gained, 'level')}" if res.levels_gained
                  else f"{team} take over, no level gained")
        stop = must_defend_stop(hand.rules, hand.public.levels[res.gaining_team], res)
        if stop is not None:
            change += f" (stopped at {stop}: a must-defend level)"
        return (f"hand {number} over: defenders took {res.defender_points} points; "
                f"{change}; {self.audit(hand)}")

    def played(self, session: GameSession) -> None:
        """The hands this session played before the screen saw it (a resumed seat): their
        logs, in order, as if they had been watched."""
        for number, hand in enumerate(session.played, 1):
            if hand.phase == Phase.REDEAL:
                self.lines.append(_REDEAL)
                self._redeal_told = hand
            elif hand.result is not None:
                self.hand(hand)
                self.lines.append(self.over_line(number, hand))

    def redeals(self, session: GameSession) -> None:
        """A line when the last hand ended in a redeal (once)."""
        played = session.played
        if played and played[-1].phase == Phase.REDEAL and played[-1] is not self._redeal_told:
            self._redeal_told = played[-1]
            self.lines.append(_REDEAL)

    def hand(self, hand: TableHand) -> None:
        """Turn what happened since the last look into log lines. At a ``hide_played``
        table the plays stay out of the log (they come after every other event of a hand,
        so the count of events seen still holds); the table shows the trick in play."""
        events = table_events(hand, self._name)
        if hand.rules.hide_played:
            events = [e for e in events if e.kind != "play"]
        if hand is not self._hand_seen:
            self._hand_seen = hand
            self._seen = {"events": 0, "chat": 0}
            number = hand.deck.config.hand
            if number:  # where the log of a new hand starts
                self.lines.append(f"── hand {number + 1} ──")
            if events or hand.chat:
                # First seen part way through (a resumed seat): the hand so far, with its
                # chat where it was said.
                self.lines.extend(with_chat(hand, events, self._chat_lines(hand.chat)))
                self._seen = {"events": len(events), "chat": len(hand.chat), "late": 0}
                self._late(hand)
                return
        seen = self._seen
        self.lines.extend(e.line for e in events[seen["events"]:])
        self.lines.extend(self._chat_lines(hand.chat[seen["chat"]:]))
        self._seen = {**seen, "events": len(events), "chat": len(hand.chat)}
        self._late(hand)

    def _late(self, hand: TableHand) -> None:
        """Take-backs that came too late (`Rules.takebacks`), as the table found them."""
        late = [(seat, faces) for seat, faces, stood in hand.playing.takebacks.events
                if not stood]
        self.lines.extend(f"{self._name(seat)}'s take-back of {format_cards(faces, True)} "
                          "came too late: the next seat had played"
                          for seat, faces in late[self._seen.get("late", 0):])
        self._seen["late"] = len(late)

    def _chat_lines(self, chat: list[tuple[int, str]]) -> list[str]:
        return [f"{self.names[seat]}: {text}" for seat, text in chat]

    def options(self, table: TableHand, offered: list[tuple[int, ...]] | None) -> None:
        """A log line when declarations become possible, once each per hand (``offered``:
        the declarations the person may make now; None: no declaration to make)."""
        if table is not self._offered_in:
            self._offered_in, self._offered = table, set()
        if offered is None:
            return
        fresh = [o for o in offered if o not in self._offered]
        if fresh:
            self._offered.update(fresh)
            shown = ", ".join(format_cards(o, symbols=True) for o in fresh)
            self.lines.append(f"you may declare {shown} now")

    def paths(self, node: PeerNode) -> None:
        """At an internet table: a log line when a link's path changes (directly, through
        the relay, or lost for now)."""
        mesh = getattr(node, "mesh", None)
        if mesh is None:
            return
        for seat, path in sorted(mesh.paths().items()):
            if path != self._paths.get(seat):
                self._paths[seat] = path
                how = {"direct": "directly", "relay": "through the relay"}.get(
                    path or "", "lost for now: reconnecting")
                self.lines.append(f"link with {self.who(seat)}: {how}")
