"""LAN scenarios end to end: people at several hosts of a switched LAN (network namespaces,
see `lanlab`) play one whole hand with the installed `tractor` command, using only what
README documents (`tractor host`, `tractor join`, `tractor ai-server`, `tractor watch`, the
lobby's `ready`, `fill lan`; `--plain`, `--passphrase`, `--ai`, `--strategy heuristic`).

Each scenario ends when every person's screen says "4 of 4 peers verified the hand: no
rule broken"; its duration is printed at the end of the run. They need root (network
namespaces) and skip with the reason otherwise.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lanlab
import pytest
from lanlab import VERIFIED, Autopilot, Lab, Plain, Screen

# lab: every test here needs root and `ip netns` (tests/lanlab.py).
pytestmark = pytest.mark.lab

#: The person's options a test that is not about them turns off: the deal's pace (10 s a
#: hand) and the hint's thinking (the quickest level).
FAST = ["--deal-pace", "0", "--hint-level", "easy"]

PASSPHRASE = "otter-violet-42"
HAND_SECONDS = 600.0  #: a whole hand, shuffle proofs included, on 2 shared cores
LOBBY_SECONDS = 60.0
#: No screen changing for this long means the table stands still (fail, showing why).
#: Below the 120 s grace period, so a seat nobody can reach is reported as that.
STALL_SECONDS = 90.0
VERIFIED_4 = re.escape(VERIFIED.format(n=4))
#: What no screen may show: a crash, a refused move, a halted table.
TROUBLE = ("Traceback", "Refused:", "The table stopped", "The table halted", "error:",
           "unexpected error")
AI = ("--strategy", "heuristic", "--level", "easy")  # fast AI players

DURATIONS: dict[str, float] = lanlab.DURATIONS


@pytest.fixture
def lab_of(tmp_path: Path) -> Iterator[Callable[[int], Lab]]:
    """``lab_of(n)``: a LAN of n hosts, removed (with all it ran) when the test ends."""
    labs: list[Lab] = []

    def make(count: int) -> Lab:
        try:
            lab = Lab(count, tmp_path)
        except lanlab.LabUnavailable as exc:
            pytest.skip(f"LAN lab unavailable: {exc}")
        labs.append(lab)
        return lab

    yield make
    for lab in labs:
        lab.close()


class Timer:
    """A scenario's wall-clock time, from the test's start (the lab's making included) to
    every screen verified."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.start = time.monotonic()
        self.finished = False

    def done(self) -> float:
        self.finished = True
        DURATIONS[self.name] = time.monotonic() - self.start
        return DURATIONS[self.name]


@pytest.fixture
def timer(request: pytest.FixtureRequest) -> Iterator[Timer]:
    """The test's `Timer`, named by its docstring; a scenario that fails is listed with the
    time until it failed."""
    doc = (request.function.__doc__ or request.node.name).strip().splitlines()[0]
    clock = Timer(doc)
    yield clock
    if not clock.finished:
        DURATIONS[f"{clock.name} [FAILED]"] = time.monotonic() - clock.start


# --- the lab itself -----------------------------------------------------------------------


MULTICAST_LISTENER = """
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 42099))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton("239.255.42.99") + socket.inet_aton("0.0.0.0"))
s.settimeout(10)
print("joined", flush=True)
data, (ip, _) = s.recvfrom(100)
print(data.decode(), "from", ip)
"""
MULTICAST_SENDER = """
import socket, time

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
for _ in range(5):
    s.sendto(b"hello", ("239.255.42.99", 42099))
    time.sleep(0.1)
"""


def test_lab_is_a_closed_lan_and_leaves_nothing(lab_of):
    lab = lab_of(2)
    for host in lab.hosts:
        routes = lanlab.run_in(host, "ip", "route").splitlines()
        assert sorted(r.split()[0] for r in routes) == [f"{lanlab.SUBNET}.0/24", "224.0.0.0/4"]
        assert f"inet {host.ip}/24" in lanlab.run_in(host, "ip", "addr")
    # Nothing of the lab in the root namespace: no address, no port of the switch.
    root = subprocess.run(["ip", "addr"], capture_output=True, text=True).stdout
    assert f"{lanlab.SUBNET}." not in root and lab.tag not in root
    # A multicast datagram with TTL 1 from one host reaches the other (as discovery does).
    a, b = lab.hosts
    listen = subprocess.Popen(b.command([sys.executable, "-c", MULTICAST_LISTENER]),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert listen.stdout.readline().strip() == "joined"  # type: ignore[union-attr]
        lanlab.run_in(a, sys.executable, "-c", MULTICAST_SENDER)
        heard = listen.communicate(timeout=15)[0]
    finally:
        listen.kill()
    assert f"hello from {a.ip}" in heard, heard
    tag = lab.tag
    lab.close()
    assert not [ns for ns in lanlab.namespaces() if ns.startswith(tag)]


def test_lab_removes_what_a_killed_run_left(tmp_path):
    try:
        lanlab.check_available()
    except lanlab.LabUnavailable as exc:
        pytest.skip(f"LAN lab unavailable: {exc}")
    code = ("import sys, time, pathlib, lanlab; "
            f"lab = lanlab.Lab(2, pathlib.Path({str(tmp_path)!r})); "
            "print(lab.tag, flush=True); time.sleep(120)")
    run = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).parent)
    try:
        tag = run.stdout.readline().strip()  # type: ignore[union-attr]
        assert tag.startswith(lanlab.PREFIX), tag
        assert len([ns for ns in lanlab.namespaces() if ns.startswith(tag)]) == 3
    finally:
        run.kill()  # no finalizer, no atexit: its namespaces stay
        run.wait()
    assert len([ns for ns in lanlab.namespaces() if ns.startswith(tag)]) == 3
    removed = lanlab.remove_stale()
    assert sorted(removed) == sorted(f"{tag}-{n}" for n in ("sw", "h1", "h2"))
    assert not [ns for ns in lanlab.namespaces() if ns.startswith(tag)]


# --- steps a person takes -----------------------------------------------------------------


def open_table(program: Plain) -> str:
    """Wait for the host's "table open" line; the address it tells the others to join."""
    match = program.wait_for(r"others run `tractor join (tcp:[0-9.]+:\d+)`", LOBBY_SECONDS)
    address = match.group(1)
    assert address.startswith(f"tcp:{lanlab.SUBNET}."), address
    return address


def pick_table(program: Plain, table: str) -> None:
    """`tractor join` without an address: find ``table`` in the list and answer its number."""
    match = program.wait_for(rf"\n\s*(\d+)\. {re.escape(table)}: [^\n]*\(passphrase\)",
                             LOBBY_SECONDS)
    program.send(match.group(1))


def in_lobby(program: Plain) -> None:
    program.wait_for(r"lobby commands: ready", LOBBY_SECONDS)


def play_to_verified(lab: Lab, programs: list[Plain], peers: int = 4) -> None:
    """Every plain client answers its decisions until its summary says the hand was
    verified by all ``peers`` peers; no screen shows trouble."""
    for program in programs:
        if program.autopilot is None:
            program.autopilot = Autopilot()
            program.autopilot.step(program, program.output())  # a prompt already waiting
    lanlab.wait_all(programs, re.escape(VERIFIED.format(n=peers)), HAND_SECONDS,
                    STALL_SECONDS, TROUBLE, lab.report, what=f'"{VERIFIED.format(n=peers)}"')
    for program in programs:
        assert program.autopilot is not None and program.autopilot.accepted > 0, \
            program.report()
        assert_no_trouble(program, lab)


def assert_no_trouble(program: lanlab.Program, lab: Lab) -> None:
    text = program.output()
    for word in TROUBLE:
        assert word not in text, f"{program.name} shows {word!r}\n{lab.report()}"


def quit_all(lab: Lab, programs: list[Plain]) -> None:
    """At the summary, each person types ``quit``: the program says goodbye and ends."""
    for program in programs:
        program.wait_for("|".join(f"{re.escape(p)}$" for p in lanlab.SUMMARY_PROMPTS), 30,
                         also=lab.report)
        program.send("quit")
    for program in programs:
        code = program.wait_exit(15)
        assert code == 0, f"{program.name} did not end after quit (code {code})\n" \
            f"{lab.report()}"
        assert "Bye." in program.output()
    # Nothing stays behind on a person's host (the AI players a host started included).
    for host in {p.person.host.ns: p.person.host for p in programs}.values():
        end = time.time() + 10
        while host.pids() and time.time() < end:
            time.sleep(0.2)
        assert not host.pids(), f"processes left on {host.ns}: {host.pids()}\n{lab.report()}"


def plays_seen(program: Plain) -> list[str]:
    """The hand's plays in the order this peer's log shows them."""
    return re.findall(r"^· (\S.*? (?:plays|leads|throws) .+)$", program.output(),
                      re.M)


def tricks_seen(program: Plain) -> list[str]:
    """The numbers of the tricks this peer's log says are won, in order."""
    return re.findall(r"^· trick (\d+) to ", program.output(), re.M)


# --- (a) discovery and a passphrase: a host with one AI, two people join ------------------


def _alice_hosts_with_an_ai_and_a_passphrase(lab: Lab, table: str) -> Plain:
    """Alice on host A: `tractor host --ai 1 --passphrase ...`, at her lobby prompt."""
    alice = lab.person(lab.hosts[0], "alice").plain(
        "host", "--name", table, "--ai", "1", "--passphrase", PASSPHRASE, "--plain", *FAST,
        "--player", "Alice", *AI)
    open_table(alice)
    in_lobby(alice)
    return alice


def test_a_two_people_join_by_discovery_with_a_passphrase(lab_of, timer):
    """(a) discovery + passphrase, host --ai 1, 2 joiners"""
    lab = lab_of(3)
    a, b, c = lab.hosts
    alice = _alice_hosts_with_an_ai_and_a_passphrase(lab, "lab-a")
    joiners = []
    for host, name in ((b, "Bob"), (c, "Carol")):
        person = lab.person(host, name.lower())
        typed = name == "Carol"  # Bob gives it on the command line, Carol types it when asked
        program = person.plain("join", "--plain", *FAST, "--player", name,
                               *([] if typed else ["--passphrase", PASSPHRASE]))
        pick_table(program, "lab-a")
        if typed:  # a getpass here used to race the pipe reader for the line: join hung
            program.wait_for(r"table passphrase: ", LOBBY_SECONDS)
            program.send(PASSPHRASE)
        in_lobby(program)
        joiners.append(program)
    people = [alice, *joiners]
    for program in people:
        program.send("ready")
    alice.wait_for(r"seat \d: AI[^\n]*\(ai,", LOBBY_SECONDS, also=lab.report)
    play_to_verified(lab, people)
    print(f"{timer.name}: {timer.done():.1f} s")
    quit_all(lab, people)


# --- (b) join by address, `fill lan` from an AI server on a third host --------------------


def test_b_join_by_address_and_fill_from_a_lan_ai_server(lab_of, timer):
    """(b) join by address, fill lan from ai-server, a watcher on a fourth host"""
    lab = lab_of(4)
    alice, bob = _alice_bob_and_lan_ai(lab, "lab-b")
    # Dan watches from host D: the address Alice's log gives once the game started.
    where = alice.wait_for(r"tractor watch ([0-9.]+:\d+)`", LOBBY_SECONDS, also=lab.report)
    dan = lab.person(lab.hosts[3], "dan").plain("watch", where.group(1))
    dan.wait_for(r"watching: you see what every seat sees", LOBBY_SECONDS, also=lab.report)
    play_to_verified(lab, [alice, bob])
    dan.wait_for(re.escape(VERIFIED.format(n=4)), STALL_SECONDS, also=lab.report)
    assert "you may declare" not in dan.output()  # a watcher holds no hand
    assert_no_trouble(dan, lab)
    print(f"{timer.name}: {timer.done():.1f} s")
    quit_all(lab, [alice, bob])
    assert dan.wait_exit(15) == 0, dan.report()  # the seat it watched through left


def test_f_the_auction_variant_between_hosts(lab_of, timer):
    """(f) auction variant: host --ai 2 --rules declaration=auction, a joiner by address"""
    lab = lab_of(2)
    a, b = lab.hosts
    alice = lab.person(a, "alice").plain(
        "host", "--name", "lab-f", "--ai", "2", "--rules", "declaration=auction", "--plain",
        *FAST,
        "--player", "Alice", *AI)
    address = open_table(alice)
    in_lobby(alice)
    bob = lab.person(b, "bob").plain("join", address, "--plain", *FAST, "--player", "Bob")
    in_lobby(bob)
    for program in (alice, bob):
        program.send("ready")
    play_to_verified(lab, [alice, bob])
    for program in (alice, bob):  # the bids, the card-play and the trump went between hosts
        text = program.output()
        assert "Auction:" in text and "bid> " in text and "show> " in text, program.report()
        assert "the auction picks the declarers" in text, program.report()
    print(f"{timer.name}: {timer.done():.1f} s")
    quit_all(lab, [alice, bob])


def test_g_find_a_friend_at_five_seats_on_three_hosts(lab_of, timer):
    """(g) find-a-friend, 5 seats on 3 hosts: host --ai 1 --rules players=5,mode=friends"""
    lab = lab_of(3)
    a, b, c = lab.hosts
    alice = lab.person(a, "alice").plain(
        "host", "--name", "lab-g", "--seats", "5", "--ai", "1", "--rules",
        "players=5,mode=friends", "--plain", *FAST, "--player", "Alice", *AI)
    address = open_table(alice)
    in_lobby(alice)
    people = [alice]
    for host, name in ((b, "Bob"), (c, "Carol"), (b, "Dave")):
        program = lab.person(host, name.lower()).plain("join", address, "--plain", *FAST,
                                                      "--player", name)
        in_lobby(program)
        people.append(program)
    for program in people:
        program.send("ready")
    play_to_verified(lab, people, peers=5)
    for program in people:  # the starter's call went between hosts, and the hand's sides
        text = program.output()
        assert re.search(r"calls? the 1st|calls? the 2nd", text), program.report()
        assert "levels" in text.lower(), program.report()
    starter_prompted = [p for p in people if "call> " in p.output()]
    assert len(starter_prompted) <= 1  # only the starter is asked, and only if a person
    print(f"{timer.name}: {timer.done():.1f} s")
    quit_all(lab, people)


def _alice_bob_and_lan_ai(lab: Lab, table: str) -> tuple[Plain, Plain]:
    """Alice hosts on host A, Bob joins by the address she printed from B, and her `fill
    lan` seats two AI players from `tractor ai-server` on C; both are ready."""
    a, b, c = lab.hosts[:3]  # (a fourth host, if any, is not theirs)
    server = lab.person(c, "aiserver").plain("ai-server", *AI)
    key = server.wait_for(r"AI server ready at \S+, key ([0-9a-f]{16})", LOBBY_SECONDS)[1]
    alice = lab.person(a, "alice").plain("host", "--name", table, "--plain", *FAST,
                                         "--player", "Alice", *AI)
    address = open_table(alice)
    in_lobby(alice)
    bob = lab.person(b, "bob").plain("join", address, "--plain", *FAST, "--player", "Bob")
    in_lobby(bob)
    alice.wait_for(r"seat 1: Bob", LOBBY_SECONDS)
    # As a person does: list the servers heard, check the key the server printed, pick it.
    alice.send("fill lan")
    listed = alice.wait_for(rf"(\d+)\. AI server at tcp:{re.escape(c.ip)}:\d+, key {key} \(new",
                            LOBBY_SECONDS, also=server.report)
    alice.send(f"fill lan {listed[1]}")
    alice.wait_for(rf"remembered the key {key} of 'AI server'", LOBBY_SECONDS,
                   also=server.report)
    alice.wait_for(r"asked 'AI server' for 2 AI player\(s\)", LOBBY_SECONDS,
                   also=server.report)
    for program in (alice, bob):
        program.send("ready")
    return alice, bob


# --- (c) as (a), the person on B in the full-screen client --------------------------------

CARD = re.compile(r"(?<![\w♠♥♦♣])(?:[♠♥♦♣](?:10|[2-9JQKA])|BJ|RJ)(?![\w])")


def hand_pane(screen: Screen) -> list[str]:
    """The rows of the hand under the full-width rule of the play screen."""
    lines = screen.lines()
    rule = next((i for i, line in enumerate(lines) if line.startswith("─" * 40)), None)
    if rule is None:
        return []
    rows = []
    for line in lines[rule + 1:]:
        if not re.match(r"^(trumps|[♠♥♦♣])\s", line):
            break
        rows.append(line)
    return rows


def press_hint(screen: Screen) -> None:
    """``i`` preselects the search player's move (it thinks up to a second, off the
    screen's thread); once it is shown, Enter makes it."""
    from pty_terminal import hint_shown

    screen.send("i")
    end = time.time() + 15
    while time.time() < end and not hint_shown(screen.output()):
        time.sleep(0.1)
    screen.send("\r")
    time.sleep(0.5)


def header_trick(screen: Screen) -> int | None:
    """The trick being played, from the status line: ``hand 1 · trick N · ...``."""
    match = re.search(r"· trick (\d+) ·", screen.output().split("\n", 1)[0])
    return int(match.group(1)) if match else None


def test_c_full_screen_joiner_plays_with_hints(lab_of, timer):
    """(c) as (a), Bob full screen in a pty"""
    pytest.importorskip("pyte")
    lab = lab_of(3)
    a, b, c = lab.hosts
    alice = _alice_hosts_with_an_ai_and_a_passphrase(lab, "lab-c")
    carol = lab.person(c, "carol").plain("join", "--plain", *FAST, "--player", "Carol",
                                         "--passphrase", PASSPHRASE)
    pick_table(carol, "lab-c")
    in_lobby(carol)
    bob = lab.person(b, "bob").screen("join", *FAST, "--player", "Bob", cols=120, rows=36)
    listed = bob.wait_for(r"(\d+)\. lab-c: [^\n]*\(passphrase\)", LOBBY_SECONDS)
    bob.wait_for(r"join which table\?", 10)
    bob.send(listed.group(1) + "\r")
    bob.wait_for(r"(?m)table passphrase: *$", LOBBY_SECONDS)
    bob.send(PASSPHRASE + "\r")
    assert PASSPHRASE not in bob.output(), "the passphrase was echoed"
    bob.wait_for(r"lobby commands: ready", LOBBY_SECONDS)
    bob.send("ready\r")
    for program in (alice, carol):
        program.send("ready")
        program.autopilot = Autopilot()
    bob.wait_for(r"Tractor · hand 1", LOBBY_SECONDS, also=lab.report)

    # Bob plays every decision from the keyboard: `p` passes a declaration, `i` then Enter
    # plays (or buries) the hint. The hand's cards are on screen after the deal, and the
    # trick number goes up as the tricks are played.
    deadline = time.time() + HAND_SECONDS
    full_hand, tricks = None, []  # tricks: the header's trick number at each of Bob's turns
    last_change, seen = time.time(), ""
    while not re.search(VERIFIED_4, bob.output()):
        screen = bob.output()
        status = screen.splitlines()[0] if screen else ""
        if "your turn: lead" in status or "your turn: follow" in status:
            trick = header_trick(bob)
            if not tricks or tricks[-1] != trick:  # a turn not yet taken is looked at again
                tricks.append(trick)
            if full_hand is None:
                full_hand = sum(len(CARD.findall(row)) for row in hand_pane(bob))
            press_hint(bob)
        elif "your turn: bury" in status:
            press_hint(bob)
        elif "you may declare trumps" in status:
            bob.send("p")
            time.sleep(0.5)
        else:
            time.sleep(0.2)
        now_seen = screen + alice.output() + carol.output()
        if now_seen != seen:
            seen, last_change = now_seen, time.time()
        assert time.time() - last_change < STALL_SECONDS, \
            f"nothing moved for {STALL_SECONDS:.0f} s\n{lab.report()}"
        assert time.time() < deadline, f"no verified hand in time\n{lab.report()}"
        assert bob.returncode() is None, bob.report()
        for program in (alice, carol):
            assert_no_trouble(program, lab)
    screen = bob.output()
    assert re.search(VERIFIED_4, screen), f"{bob.report()}\n{lab.report()}"
    assert "Hand 1 is over." in screen, screen
    assert full_hand == 25, f"{full_hand} cards in the hand pane at the first play\n{screen}"
    # Bob plays once in every trick: at his n-th turn the header says trick n, for every
    # trick of the hand (as many as Alice's log counts; big leads make fewer than 25).
    assert tricks == list(range(1, len(tricks_seen(alice)) + 1)), (tricks, tricks_seen(alice))
    assert "Traceback" not in bob.raw()
    for program in (alice, carol):
        program.wait_for(VERIFIED_4, HAND_SECONDS, also=lab.report)
        assert_no_trouble(program, lab)
    print(f"{timer.name}: {timer.done():.1f} s")

    # Ctrl-Q leaves within 2 s, and nothing of Bob's stays behind on host B.
    bob.send("\x11")  # the first asks
    bob.wait_for(r"Quit\?", 10, also=lab.report)
    quit_at = time.time()
    bob.send("\x11")
    code = bob.wait_exit(2.0)
    left = b.pids()
    assert code is not None, f"still running {time.time() - quit_at:.1f} s after Ctrl-Q\n" \
        f"{bob.report()}"
    assert not left, f"processes left on host B after Ctrl-Q: {left}"
    assert code == 0, bob.report()


# --- (d) a person's host loses its link for 10 s mid-hand ---------------------------------


def test_d_a_link_down_for_ten_seconds_mid_hand(lab_of, timer):
    """(d) Bob's link down 10 s mid-hand"""
    _link_down_mid_hand(lab_of, timer, reset=False)


def test_e_a_link_down_with_its_connections_reset_mid_hand(lab_of, timer):
    """(e) Bob's link down 10 s mid-hand, his connections reset meanwhile"""
    # A 10 s outage alone leaves TCP to retransmit; a router or Wi-Fi reset also drops
    # the connections, so the peers must dial again and resend what was missed.
    _link_down_mid_hand(lab_of, timer, reset=True)


def _link_down_mid_hand(lab_of: Any, timer: Any, reset: bool) -> None:
    lab = lab_of(3)
    b = lab.hosts[1]
    alice, bob = _alice_bob_and_lan_ai(lab, "lab-d")
    for program in (alice, bob):
        program.autopilot = Autopilot()
    # Mid-hand: after the third trick, Bob's host is unplugged for 10 s.
    bob.wait_for(r"· trick 3 to ", HAND_SECONDS, also=lab.report)
    b.link_down()
    if reset:
        b.reset_connections()
    # Plays and keys Bob sent just before the cut may still finish a trick or two (the AI
    # and the autopilot answer at once), and Alice's output is read back with a lag: count
    # after the table has settled, then check it stands still for the rest of the outage.
    time.sleep(2.0)
    down_at = len(tricks_seen(alice))
    time.sleep(8.0)
    up_at = len(tricks_seen(alice))
    b.link_up()
    assert not re.search(VERIFIED_4, alice.output()), "the hand ended before the link was up"
    # The outage was real: without Bob's cards and keys the table stood still.
    assert up_at == down_at, f"tricks {down_at} -> {up_at} while Bob's link was down"
    back = time.monotonic()
    alice.wait_for(rf"· trick {up_at + 1} to ", HAND_SECONDS, also=lab.report)
    recovered = time.monotonic() - back
    DURATIONS[f"({'e' if reset else 'd'}) from the link up to the next trick"] = recovered
    # Within seconds, not the minutes a dead connection used to stay "up" (heartbeats).
    assert recovered < 30, f"{recovered:.0f} s from the link up to the next trick"
    play_to_verified(lab, [alice, bob])
    # Nothing lost: both peers logged the same plays, all 25 tricks of them.
    assert plays_seen(alice) == plays_seen(bob), f"{alice.report()}\n{bob.report()}"
    tricks = tricks_seen(alice)
    # Every trick of the hand, in order, the same on both screens, and on past the outage.
    assert tricks == [str(n) for n in range(1, len(tricks) + 1)] == tricks_seen(bob), tricks
    assert len(tricks) > up_at, (tricks, up_at)
    print(f"{timer.name}: {timer.done():.1f} s")
    quit_all(lab, [alice, bob])
