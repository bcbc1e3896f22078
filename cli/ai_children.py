"""The AI peers a command starts on this machine (a practice game's, a host's own AI
seats): waited for until the game begins, reported when one dies, brought back from its
journal when one dies during a practice game or when a game is resumed, stopped when the
table ends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from tractor.ai.hosting.children import AiChild
from tractor.ai.hosting.runner import spawn_ai_resume
from tractor.cli.errors import CliError
from tractor.cli.seat.goes_on import within
from tractor.cli.seat.netclient import NetClient
from tractor.net.lobby.seating import Seating

from .interrupts import ctrl_c_pressed
from .options import data_dir


class AiStopped(CliError, ChildProcessError):
    """An AI peer this command started died before the game could begin."""


def retire(children: list[AiChild]) -> None:
    """The AI players of a table that ended: stop them and forget them."""
    for child in children:
        child.terminate()
    children.clear()


def report_deaths(children: list[AiChild], report: Callable[[str], None],
                  game_over: Callable[[], bool] = lambda: False) -> None:
    """Say at once when a child this command did not stop dies (with its last line),
    unless Ctrl-C ends everything (it reaches the children too), or it left as it should
    once ``game_over`` (status 0: its game is won, it has nothing more to play; said,
    every AI seat's exit reprinted `--plain`'s prompt after the game-over line)."""
    for child in children:
        child.on_death = _news_of(child, report, game_over)


def _news_of(child: AiChild, report: Callable[[str], None],
             game_over: Callable[[], bool]) -> Callable[[str], None]:
    def news(text: str) -> None:
        if ctrl_c_pressed():
            return
        # Its own last words count too: it may finish the last hand's audit before
        # this seat does.
        ended = game_over() or "game over" in (child.last_line or "")
        if child.exit_code == 0 and child.signal is None and ended:
            return
        report(text)

    return news


async def until_started(reactor: Any, started: Deferred[Seating], children: list[AiChild],
                         seconds: float, home: Path) -> Seating:
    """The seating, or `AiStopped` the moment an AI child dies first, or `TimeoutError`."""
    outcome: Deferred[Seating] = Deferred()

    def won(seating: Seating) -> Seating:
        if not outcome.called:
            outcome.callback(seating)
        return seating

    def lost(failure: Failure) -> None:
        if not outcome.called:
            outcome.errback(failure)

    def died(child: AiChild) -> AiChild:
        if not child.stopping:
            lost(Failure(AiStopped(f"an AI peer stopped before the game began: "
                                   f"{child.how_it_ended()} (more in {home / 'ai.log'})")))
        return child

    started.addCallbacks(won, lost)
    for child in children:
        child.ended.addCallback(died)
    return await within(reactor, outcome, seconds,
                        f"the AI peers did not join in time (see {home / 'ai.log'})")


def revive_ai(reactor: Any, client: NetClient, seating: Seating, children: list[AiChild],
               home: Path) -> None:
    """A practice game's AI peer whose process died comes back from its journal (same
    identity, same port), as `tractor resume` would bring it back: the hand goes on."""
    node = client.node
    if node.halted is not None or node.session is None or node.session.over:
        return
    dead = [c for c in children if c.poll() is not None]
    if not dead:
        return
    now = node.clock.seconds()
    for seat, since in sorted(getattr(node, "down_since", {}).items()):
        journal = home / "ai" / f"ai-{seating.table.hex()[:12]}-{seat}.sqlite"
        if now - since < 3.0 or not journal.exists() or not dead:
            continue
        old = dead.pop()
        children.remove(old)
        fresh = spawn_ai_resume(reactor, str(journal), str(home / "ai.log"), name=old.name)
        children.append(fresh)
        client.returning.expect(seat, alive_check(fresh))  # quiet while it starts
        report_deaths(children, client.note, lambda: client.session.over)
        node.down_since[seat] = now  # give it time to come back before asking again


def respawn_ai(reactor: Any, game: str) -> dict[int, AiChild]:
    """This machine's AI seats of ``game``, started again from their journals (by seat)."""
    table = game.split("-")[0]
    children = {}
    for path in sorted((data_dir() / "ai").glob(f"ai-{table}-*.sqlite")):
        seat = path.stem.rsplit("-", 1)[-1]
        if seat.isdigit():
            children[int(seat)] = spawn_ai_resume(reactor, str(path),
                                                  str(data_dir() / "ai.log"),
                                                  name=f"AI (seat {seat})")
    return children


def alive_check(child: AiChild) -> Callable[[], bool]:
    """Whether ``child`` still runs, asked later (a returning seat is waited for quietly
    while its process runs)."""
    return lambda: child.alive
