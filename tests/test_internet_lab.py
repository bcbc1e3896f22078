"""Friends in two homes behind NAT play an internet table (`lanlab.HomesLab`): the host in
one home with an AI seat on her machine, two friends in the other, each joining by a
seat code; the tests' own mailbox server and transit relay run on the "internet" between
the homes. No machine can connect to a machine of the other home, so those links go
through the relay; the whole hand ends with every screen showing "4 of 4 peers verified".
Needs root (network namespaces) and skips with the reason otherwise."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import lanlab
import pytest
from lanlab import Autopilot, HomesLab, Plain
from test_lan_lab import AI, FAST, in_lobby, play_to_verified, quit_all, timer  # noqa: F401
from wormhole_servers import WormholeServers

pytest.importorskip("wormhole")
pytest.importorskip("wormhole_mailbox_server")

# lab: every test here needs root and `ip netns` (tests/lanlab.py).
pytestmark = pytest.mark.lab

PROBE = ("import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), "
         "timeout=2); print('ok')")
LINK = re.compile(r"^· link with seat (\d) \(([^)]*)\): (directly|through the relay)$", re.M)


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[tuple[HomesLab, WormholeServers]]:
    try:
        lab = HomesLab(2, tmp_path)
    except lanlab.LabUnavailable as exc:
        pytest.skip(f"homes lab unavailable: {exc}")
    try:
        servers = WormholeServers(tmp_path / "servers", host=lanlab.SERVERS_IP,
                                  prefix=lab.servers.command([]))
        with servers:
            # Ready when a machine in a home reaches both through its router's NAT.
            end = time.time() + 30
            for port in (servers.mailbox_port, servers.relay_port):
                while "ok" not in lanlab.run_in(lab.hosts[0], sys.executable, "-c", PROBE,
                                                lanlab.SERVERS_IP, str(port)):
                    assert time.time() < end, servers.logs()
                    time.sleep(0.3)
            yield lab, servers
    finally:
        lab.close()


def links(program: Plain) -> dict[str, str]:
    """Name of the other seat -> how this peer's link with it went last."""
    return {name: how for _seat, name, how in LINK.findall(program.output())}


def seat_everyone(lab: HomesLab, servers: WormholeServers) -> list[Plain]:
    """Alice hosts in home 1 with an AI seat on her machine; Bob and Carol, in home 2,
    join by the seat codes she reads out; everybody is ready."""
    a1, _a2, b1, b2 = lab.hosts
    where = ["--mailbox", servers.mailbox, "--relay", servers.relay]
    alice = lab.person(a1, "alice").plain("host", "--internet", *where, "--name", "homes",
                                          "--ai", "1", "--plain", *FAST, "--player", "Alice",
                                          *AI)
    codes = alice.wait_for(r"seat codes \(one per free seat[^\n]*\): (\S+)  (\S+)\n", 60,
                           also=lab.report)
    in_lobby(alice)
    people = [alice]
    for host, name, code in ((b1, "Bob", codes.group(1)), (b2, "Carol", codes.group(2))):
        program = lab.person(host, name.lower()).plain("join", code, *where, "--plain", *FAST,
                                                      "--player", name)
        in_lobby(program)
        people.append(program)
    for program in people:
        program.send("ready")
    return people


def test_g_friends_in_two_homes_behind_nat_play_through_the_relay(homes, timer):  # noqa: F811
    """(g) two homes behind NAT: host --internet --ai 1, two friends join by seat codes"""
    lab, servers = homes
    people = seat_everyone(lab, servers)
    play_to_verified(lab, people)
    seen = {p.person.name: links(p) for p in people}
    print(f"{timer.name}: {timer.done():.1f} s; links: {seen}")
    # Across the homes no machine reaches another: the relay carries every such link.
    for home2 in ("bob", "carol"):
        assert seen["alice"].get(home2.capitalize()) == "through the relay", seen
        assert seen[home2].get("Alice") == "through the relay", seen
        assert seen[home2].get("AI 1") == "through the relay", seen  # on Alice's machine
    # Within a home, and on one machine, the pair reaches each other: directly.
    assert seen["bob"].get("Carol") == seen["carol"].get("Bob") == "directly", seen
    assert seen["alice"].get("AI 1") == "directly", seen
    assert len(seen["alice"]) == 3 and len(seen["bob"]) == 3 and len(seen["carol"]) == 3
    quit_all(lab, people)


def test_h_a_home_whose_connections_are_reset_mid_hand_goes_on(homes, timer):  # noqa: F811
    """(h) as (g), every connection of Bob's machine reset mid-hand"""
    lab, servers = homes
    people = seat_everyone(lab, servers)
    alice, bob, carol = people
    for program in people:
        program.autopilot = Autopilot()
        program.autopilot.step(program, program.output())
    bob.wait_for(r"· trick 3 to ", 300, also=lab.report)
    before = len(LINK.findall(bob.output()))
    lab.hosts[2].reset_connections()  # as a home router's restart would: the mailbox's
    # websocket and every relayed connection of Bob's machine are gone at once
    reset_at = time.monotonic()
    bob.wait_for(r"· trick 4 to ", 300, start=len(bob.output()) - 2000, also=lab.report)
    print(f"the next trick after the reset: {time.monotonic() - reset_at:.1f} s")
    play_to_verified(lab, people)
    print(f"{timer.name}: {timer.done():.1f} s; Bob's link lines: "
          f"{LINK.findall(bob.output())[before:]}")
    quit_all(lab, people)


def test_i_a_friend_whose_program_is_killed_resumes_and_the_hand_goes_on(homes, timer):  # noqa: F811
    """(i) as (g), Bob's program killed mid-hand, then `tractor resume`"""
    lab, servers = homes
    people = seat_everyone(lab, servers)
    alice, bob, carol = people
    for program in people:
        program.autopilot = Autopilot()
        program.autopilot.step(program, program.output())
    bob.wait_for(r"· trick 3 to ", 300, also=lab.report)
    bob.stop()  # killed: its process group, at once
    killed_at = time.monotonic()
    again = bob.person.plain("resume", "--plain", *FAST)
    again.wait_for(r"resumed game ", 120, also=lab.report)
    play_to_verified(lab, [alice, again, carol])
    print(f"{timer.name}: {timer.done():.1f} s; verified {time.monotonic() - killed_at:.1f} s "
          f"after the kill; links after it: {LINK.findall(again.output())}")
    quit_all(lab, [alice, again, carol])
