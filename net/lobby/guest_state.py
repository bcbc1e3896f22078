"""A guest's view of the host's lobby as a plain state machine: the rosters the host
sends, and the start message, checked completely before this peer dials anyone.

No sockets and no Twisted here (`net/lobby/guest_protocol.py` moves the bytes): `GuestLobby`
is fed decoded messages and returns the new `Roster` or, once, the verified `Seating`.
A lying host is the threat: a start must seat our key with our port, name and kind, hash
to the table id it names, and name only game addresses this guest may dial
(`addresses.out_of_scope`); a refusal raises the error type the host named.
"""

from __future__ import annotations

from typing import Any

from tractor.net.internet.rendezvous import (
    RendezvousError,
    is_internet_address,
    read_internet_address,
)
from tractor.net.lobby.addresses import is_loopback, out_of_scope, parse_endpoint
from tractor.net.lobby.errors import BadLobbyMessage, BadStart, LobbyError, error_for, printable
from tractor.net.lobby.messages import (
    FINGERPRINT_SIZE,
    KEY_SIZE,
    KINDS,
    MAX_NAME,
    MAX_TABLE_NAME,
    NONCE_SIZE,
    FieldReader,
    ai_level,
)
from tractor.net.lobby.seating import (
    Participant,
    Roster,
    SeatInfo,
    Seating,
    Settings,
    fingerprint,
    read_carry,
    seating_id,
)
from tractor.net.table.unplayed import unplayed_reason
from tractor.rules import Rules, RulesError

_ROSTER_FIELDS = ("t", "name", "rules", "seats", "reserved", "you")
_START_FIELDS = ("t", "name", "rules", "keys", "addresses", "names", "kinds", "nonce", "table",
                 "carry", "watchers", "ai_levels")


def _read_rules(value: Any, who: str, exc: type[LobbyError] = BadLobbyMessage) -> Rules:
    try:
        rules = Rules.from_data(value)
    except (RulesError, TypeError) as e:
        raise exc(f"bad rules: {e}", who) from e
    reason = unplayed_reason(rules)
    if reason is not None:
        raise exc(f"the host's rules cannot be played here: {reason}", who)
    return rules


def _levels(value: Any, kinds: list[str]) -> tuple[str | None, ...]:
    """The AI seats' levels a start says (not part of the table id: a label): one per seat,
    each an AI's level (`ai_level`) or None; anything else says none."""
    if type(value) is not list or len(value) != len(kinds):
        return ()
    levels = tuple(ai_level(v) if k == "ai" else None for v, k in zip(value, kinds,
                                                                        strict=True))
    return levels if any(levels) else ()


class GuestLobby:
    """A participant's view of the host's lobby. ``receive`` returns the new `Roster` or,
    once, the verified `Seating`; anything the host sends that does not check out raises
    (refusals raise the error type the host named)."""

    def __init__(self, me: Participant, who: str = "host",
                 expect_carry: tuple[Any, ...] | None = None) -> None:
        self.me = me
        self.who = who
        #: Rejoining a game at a new table: the start must carry exactly this.
        self.expect_carry = expect_carry
        self.roster: Roster | None = None
        self.seating: Seating | None = None
        #: The IP this guest reached the lobby at (the start's addresses are checked
        #: against its scope); None: not known (a test's in-memory lobby).
        self.lobby_ip: str | None = None
        #: The mailbox this guest reached the lobby through (a seat code), if it did: an
        #: internet table's start must name that mailbox.
        self.mailbox: str | None = None
        #: The settings this guest last said ready to (None: not ready), and whether they
        #: still stand: shown again since the host last changed the settings.
        self.ready_for: Settings | None = None
        self.agreed = False

    def join_message(self) -> dict[str, Any]:
        me = self.me
        msg: dict[str, Any] = {"t": "join", "name": me.name, "key": me.public_key,
                               "port": me.game_port, "kind": me.kind, "seat": me.wanted_seat}
        if me.level is not None:  # (an AI's; a person's join is as it was)
            msg["level"] = me.level
        return msg

    def ready_message(self, ready: bool) -> dict[str, Any]:
        """Say ready (or not) to the settings of the roster this guest has seen last: the
        host takes no ``ready`` for settings it changed since, and a person's seat starts
        no other game than the one it said ready to (`receive`)."""
        msg: dict[str, Any] = {"t": "ready", "ready": bool(ready)}
        self.ready_for, self.agreed = None, False
        # An AI plays any settings: its ready names none (as an older host reads it).
        if ready and self.roster is not None and self.me.kind != "ai":
            msg["for"] = self.roster.digest()
            self.ready_for, self.agreed = self.roster.settings(), True
        return msg

    @staticmethod
    def sit_message(seat: int) -> dict[str, Any]:
        """Ask the host for a free seat (it moves us, or the next roster shows why not)."""
        return {"t": "sit", "seat": seat}

    @staticmethod
    def leave_message() -> dict[str, Any]:
        return {"t": "leave"}

    def receive(self, msg: Any) -> Roster | Seating:
        who = self.who
        if self.seating is not None:
            raise BadLobbyMessage("message after the start", who)
        if not isinstance(msg, dict) or type(msg.get("t")) is not str:
            raise BadLobbyMessage("a message is a map with a type", who)
        kind = msg["t"]
        if kind == "refused":
            r = FieldReader(msg, who, ("t", "code", "why"))
            raise error_for(r.get("code", str), r.get("why", str), who)
        if kind == "roster":
            roster = self._read_roster(msg)
            if self.roster is not None and roster.moved(self.roster):
                self.agreed = False  # the host changed the settings: ready again
            if self.ready_for is not None and roster.settings() == self.ready_for:
                self.agreed = True  # (changed back to them: the host takes the ready)
            self.roster = roster
            return roster
        if kind == "start":
            seating = self.verify_start(msg)
            self._said_ready_to(seating)
            self.seating = seating
            return seating
        raise BadLobbyMessage(f"unknown message type {printable(kind)[:20]!r}", who)

    def _said_ready_to(self, seating: Seating) -> None:
        """A person's seat starts only the game the last roster showed, with settings it
        said ready to since the host last changed them (`BadStart` otherwise: a start the
        host made up, or raced with a change). An AI plays any rules and seat."""
        if self.me.kind == "ai":
            return
        roster = self.roster
        if roster is None or not self.agreed:
            raise BadStart("a start we did not say ready to", self.who)
        if (seating.rules, tuple(fingerprint(k) for k in seating.keys)) != roster.settings():
            raise BadStart("a start with other rules or seats than we saw", self.who)

    def _read_roster(self, msg: Any) -> Roster:
        who = self.who
        r = FieldReader(msg, who, _ROSTER_FIELDS)
        name = r.text("name", MAX_TABLE_NAME)
        rules = _read_rules(r.get("rules", dict), who)
        raw_seats = r.get("seats", list)
        if len(raw_seats) != rules.players:
            raise BadLobbyMessage("roster size is not the number of players", who)
        seats: list[SeatInfo | None] = []
        for entry in raw_seats:
            if entry is None:
                seats.append(None)
                continue
            if type(entry) is not list or len(entry) != 4:
                raise BadLobbyMessage("a roster seat is [name, kind, fingerprint, ready]", who)
            s_name, s_kind, fp, ready = entry
            if type(s_name) is not str or not 1 <= len(s_name) <= MAX_NAME \
                    or not s_name.isprintable() or s_kind not in KINDS \
                    or type(fp) is not bytes or len(fp) != FINGERPRINT_SIZE \
                    or type(ready) is not bool:
                raise BadLobbyMessage("bad roster seat", who)
            seats.append(SeatInfo(s_name, s_kind, fp.hex(), ready))
        reserved = r.get("reserved", list)
        if any(type(s) is not int or not 0 <= s < rules.players for s in reserved) \
                or len(set(reserved)) != len(reserved):
            raise BadLobbyMessage("bad reserved seats", who)
        you = r.integer("you", 0, rules.players - 1)
        mine = seats[you] if you is not None else None
        if mine is None or mine.fingerprint != fingerprint(self.me.public_key):
            raise BadLobbyMessage("the roster does not show us at our seat", who)
        return Roster(name, rules, tuple(seats), tuple(sorted(reserved)), you)

    def verify_start(self, msg: Any) -> Seating:
        """Check a start message completely; raises `BadStart` naming the host."""
        who = self.who
        r = FieldReader(msg, who, _START_FIELDS, BadStart)
        name = r.text("name", MAX_TABLE_NAME)
        rules = _read_rules(r.get("rules", dict), who, BadStart)
        n = rules.players
        keys, addrs, names, kinds = (r.get(k, list) for k in ("keys", "addresses", "names",
                                                               "kinds"))
        if not len(keys) == len(addrs) == len(names) == len(kinds) == n:
            raise BadStart(f"a start lists {n} seats of everything", who)
        if any(type(k) is not bytes or len(k) != KEY_SIZE for k in keys):
            raise BadStart("keys are 32 bytes", who)
        if len(set(keys)) != n:
            raise BadStart("the same key holds two seats", who)
        if any(type(s) is not str or not 1 <= len(s) <= MAX_NAME or not s.isprintable()
               for s in names):
            raise BadStart("bad name", who)
        if any(k not in KINDS for k in kinds):
            raise BadStart("bad kind", who)
        internet = self._internet_addresses(addrs)
        if internet:
            ports = [self.me.game_port] * n  # no ports: every link is a wormhole
        else:
            try:
                endpoints = [parse_endpoint(a, who) for a in addrs]
            except BadLobbyMessage as exc:
                raise BadStart(exc.why, who) from exc
            ports = [port for _, port in endpoints]
            for ip, _ in endpoints:
                why = out_of_scope(ip, self.lobby_ip)
                if why:
                    raise BadStart(f"the start names {ip}, {why}", who)
        nonce = r.blob("nonce", NONCE_SIZE)
        table = r.blob("table", 32)
        if self.me.public_key not in keys:
            raise BadStart("our key is not seated", who)
        seat = keys.index(self.me.public_key)
        # An AI sits under the name the host gave it (`ai_seat_name`); a person's is theirs.
        if ports[seat] != self.me.game_port or kinds[seat] != self.me.kind \
                or (names[seat] != self.me.name and self.me.kind != "ai"):
            raise BadStart("our seat does not carry our port, name and kind", who)
        if self.roster is not None and self.roster.you != seat:
            raise BadStart(f"we sat at seat {self.roster.you}, the start says {seat}", who)
        addresses = dict(enumerate(addrs))
        raw_carry = msg.get("carry")
        carry = None if raw_carry is None else read_carry(raw_carry, rules, who, BadStart)
        if self.expect_carry is not None and carry != self.expect_carry:
            raise BadStart("the game would go on from another place than ours", who)
        if "watchers" in msg and msg["watchers"] is not False:
            raise BadStart("a start says watchers only to refuse them", who)
        watchers = "watchers" not in msg
        if seating_id(name, rules, keys, addresses, names, kinds, nonce, carry,
                      watchers) != table:
            raise BadStart("the table id is not the hash of this roster", who)
        levels = _levels(msg.get("ai_levels"), kinds)
        return Seating(table, name, rules, seat, tuple(keys), addresses, tuple(names),
                       tuple(kinds), carry, watchers, nonce, levels)

    def _internet_addresses(self, addrs: list[Any]) -> bool:
        """Whether the start is an internet table's (every seat the same internet address,
        which this guest may follow), else False; `BadStart` for a mix, or for a mailbox
        this guest did not come through. A guest on this machine (an AI peer the host
        started) follows the host's; a LAN guest is never sent to a server outside."""
        who = self.who
        if not any(is_internet_address(a) for a in addrs):
            return False
        if any(type(a) is not str for a in addrs) or len(set(addrs)) != 1:
            raise BadStart("an internet table gives every seat the same address", who)
        try:
            mailbox, _relay = read_internet_address(addrs[0])
        except RendezvousError as exc:
            raise BadStart(str(exc), who) from exc
        if self.mailbox is not None:
            if mailbox != self.mailbox:
                raise BadStart(f"the start names the mailbox {mailbox}, not the one we came "
                               f"through ({self.mailbox})", who)
        elif self.lobby_ip is None or not is_loopback(self.lobby_ip):
            raise BadStart("an internet table's start, for a guest that came over the LAN",
                           who)
        return True
