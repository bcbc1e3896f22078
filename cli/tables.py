"""A person's networked commands: `tractor play`, `host`, `join`, `resume` (the headless
`ai` and `ai-server` are `cli.ai_commands`).

Each runs on the asyncio reactor (prompt_toolkit and Twisted share one loop). A person's
game goes: listen for the mesh, sit in a lobby (hosting or joining), take the seat the
lobby gives (`tractor.net.table.seat.take_seat`), then the play screen on a `NetClient`.
The AI peers these commands start on this machine are looked after by `cli.ai_children`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred
from twisted.internet.error import CannotListenError
from twisted.internet.task import LoopingCall

from tractor.ai.hosting.children import AiChild, stop_all, terminate_on_shutdown
from tractor.ai.hosting.hints import HINT_LEVEL, observation_hinter
from tractor.ai.hosting.runner import be_patient
from tractor.cli.seat.goes_on import GoesOn
from tractor.cli.seat.human import HumanPlayer
from tractor.cli.seat.netclient import NetClient
from tractor.net.internet.lobby import SeatCodes, open_seat_code
from tractor.net.internet.rendezvous import internet_address, is_seat_code
from tractor.net.internet.seat_code_limits import code_problem
from tractor.net.journal.store import Journal
from tractor.net.lobby.addresses import is_loopback
from tractor.net.lobby.discovery import browse
from tractor.net.lobby.errors import LobbyError, PassphraseRequired, WrongPassphrase
from tractor.net.lobby.guest_protocol import join_table
from tractor.net.lobby.host_protocol import LobbyHost, host_table
from tractor.net.lobby.seating import Participant, Seating
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.seat import listen_node, resume_seat, take_seat
from tractor.net.table.unplayed import refuse_unplayed
from tractor.observation import Observation
from tractor.rules import Rules

from .ai_children import (
    alive_check,
    report_deaths,
    respawn_ai,
    retire,
    revive_ai,
    until_started,
)
from .ai_servers import AiServerChooser
from .checking import CheckingLine
from .going_on import GoingOn, LocalAi, resumed_goes_on
from .interrupts import game_kept
from .journal_open import journal_to_resume, ready_for_a_new_game
from .lobby_prompt import LeftTable, lobby_prompt
from .lobby_settings import table_line
from .options import (
    AddressError,
    data_dir,
    journal_path,
    listen_interface,
    lobby_endpoint,
    parse_rules,
)
from .passphrase import AI_SERVER_USE, HOSTING, JOINING, ask_passphrase
from .prompts import GaveUp, LineReader, say
from .watch_hosting import WatchHosting, host_again

PASSPHRASE_TRIES = 3  #: passphrases a joiner may type before join gives up


def _hinter(rules: Rules, seed: int, level: str = HINT_LEVEL) -> Callable[[Observation], Any]:
    """The person's hints: the search player of ``level`` (`--hint-level`), capped at
    about a second of thinking (`tractor.ai.hosting.hints`)."""
    return observation_hinter(rules, level, seed)


def _person(args: argparse.Namespace) -> HumanPlayer:
    """The person's seat, with the deal paced as they asked (`--deal-pace`)."""
    return HumanPlayer(deal_pace=getattr(args, "deal_pace", 0.0))


async def _screen(client: NetClient, plain: bool, practice: bool = False) -> int:
    """The play screen until the person quits or the game ends."""
    # Imported here, for start-up speed: a game needs only one of the two screens (the full
    # screen's modules take a tenth of a second and more).
    if plain or not sys.stdout.isatty():
        from tractor.cli.screen.plain import run_plain
        code = int(await _asyncio(run_plain(client)))
    else:
        from tractor.cli.screen.app import run_app
        await _asyncio(run_app(client))
        code = 0
    if client.node.halted is None and not client.session.over:
        say("saved: `tractor resume` continues this game (its AI seats come back with it)."
            if practice else
            f"saved: `tractor resume` continues this game (the others wait "
            f"{client.node.grace:.0f} s for a seat whose link is lost).")
    return code


def _asyncio(coro: Any) -> Deferred[Any]:
    """Await an asyncio coroutine (prompt_toolkit) from Twisted code on the same loop."""
    return Deferred.fromFuture(asyncio.ensure_future(coro))


def _seat_person(node: PeerNode, seating: Seating, key: Ed25519PrivateKey,
                 args: argparse.Namespace, meta: dict[str, Any]) -> NetClient:
    journal = Journal(journal_path())
    take_seat(node, seating, key, _person(args), journal, meta=meta)
    game_kept()  # from here on, Ctrl-C leaves a game `tractor resume` continues
    # A halt shows as the screen's banner; `GoesOn` watches `node.done` for a seat gone.
    return NetClient(node, list(seating.names),
                     _hinter(seating.rules, args.seed or 0, _hint_level(args)))


def _hint_level(args: argparse.Namespace) -> str:
    return getattr(args, "hint_level", None) or HINT_LEVEL


# --- tractor play ----------------------------------------------------------------------------


async def play(reactor: Any, args: argparse.Namespace) -> int:
    """You against three AI peers on this machine, over the real protocol (loopback)."""
    # A practice table lets a person take back a play (--rules takebacks=false: not).
    rules = parse_rules(",".join(filter(None, ["takebacks=true", args.rules])))
    refuse_unplayed(rules)
    if not ready_for_a_new_game(journal_path(), say):
        return 1
    key = Ed25519PrivateKey.generate()
    node, port = await listen_node(reactor, "127.0.0.1", grace=args.grace)
    children: list[AiChild] = []
    terminate_on_shutdown(reactor, children)
    home = data_dir()
    ai = LocalAi(args.strategy, args.level, args.takeback_wait, "127.0.0.1", args.seed,
                 practice=True)
    fill_local = ai.filler(reactor, children, home, args.grace)
    host = None
    try:
        host = await host_table(reactor, "practice", rules,
                                Participant(args.player, raw_public(key), port),
                                listen="tcp:0:interface=127.0.0.1", fill_local=fill_local,
                                announce=False)
        host.ready(True)
        await host.request_fill()
        say(f"Starting: you and {rules.players - 1} {args.strategy} AI peers "
            f"({args.level}); shuffling with proofs...")
        seating = await until_started(reactor, host.started, children, 60.0, home)
        # (`tractor resume` goes on at a new table as this does: `cli.going_on`)
        marks = {"local_ai": True, "practice": True, "strategy": args.strategy,
                 "level": args.level, **GoingOn(host.local_address, "127.0.0.1", True,
                                                args.player, ai).kept(None)}
        client = _seat_person(node, seating, key, args, marks)
        be_patient(node)  # nobody to keep waiting: no deadline shown either
        report_deaths(children, client.note, lambda: client.session.over)
        goes = GoesOn(reactor, args, client, seating, host.local_address, "127.0.0.1", True,
                      fill_local=fill_local, before_fill=lambda: retire(children),
                      marks=marks)
        watch = LoopingCall(lambda: revive_ai(reactor, client, goes.seating, children, home))
        watch.clock = reactor
        watch.start(2.0, now=False)
        try:
            return await _screen(client, args.plain, practice=True)
        finally:
            watch.stop()
            goes.stop()
    finally:
        if host is not None:
            host.close()
        node.stop()
        await stop_all(reactor, children)


# --- tractor host / join --------------------------------------------------------------------


async def host(reactor: Any, args: argparse.Namespace) -> int:
    seats = [] if args.seats is None else [f"players={args.seats}"]  # else --rules players
    rules = parse_rules(",".join(filter(None, [args.rules, *seats])))
    refuse_unplayed(rules)
    if not ready_for_a_new_game(journal_path(), say):
        return 1
    if args.ai > rules.players - 1:
        say(f"tractor: a table of {rules.players} seats has room for {rules.players - 1} AI "
            f"players besides you, not {args.ai}")
        return 2
    ai_server = None
    if args.ai_server is not None:
        try:
            ai_server = lobby_endpoint(args.ai_server)
        except AddressError as exc:
            say(f"tractor host: --ai-server: {exc}")
            return 2
    internet = internet_address(args.mailbox, args.relay) if args.internet else None
    # An internet table's seats meet through wormholes: nothing listens beyond this
    # machine (its AI seats join the lobby on loopback). A LAN table's game ports and AI
    # seats listen where its lobby does (`--listen`): on loopback, this machine only.
    interface = "127.0.0.1" if internet else listen_interface(args.listen)
    here_only = not internet and is_loopback(interface)
    announce = not args.no_announce and not internet and not here_only
    key = Ed25519PrivateKey.generate()
    node, port = await listen_node(reactor, interface, grace=args.grace)
    children: list[AiChild] = []
    terminate_on_shutdown(reactor, children)
    home = data_dir()
    #: Where news of an AI child goes: the terminal, above the lobby prompt, the log.
    reporter: list[Callable[[str], None]] = [say]
    seated: list[NetClient] = []  #: the person's seat once the game starts
    # Listening where this host's own node does (every interface unless `--listen` names
    # one): the lobby tells the other seats this machine's LAN address for a seat that
    # joined from here.
    ai = LocalAi(args.strategy, args.level, args.takeback_wait, interface)
    fill_local = ai.filler(reactor, children, home, args.grace, after=lambda: report_deaths(
        children, lambda text: reporter[0](text),
        lambda: bool(seated) and seated[0].session.over))

    lobby: LobbyHost | None = None
    codes: SeatCodes | None = None
    hosting: list[WatchHosting] = []
    try:
        passphrase = await ask_passphrase(args.passphrase, False, HOSTING)
        ai_passphrase = await ask_passphrase(args.ai_server_passphrase, False, AI_SERVER_USE)
        lobby = await host_table(reactor, args.name, rules,
                                 Participant(args.player, raw_public(key), port),
                                 passphrase=passphrase,
                                 listen="tcp:0:interface=127.0.0.1" if internet else args.listen,
                                 fill_local=fill_local, announce=announce,
                                 internet=internet)
        # At a table with a passphrase the seats refuse watchers (a guest or an AI may not
        # know it): the host's seat checks it (`WatchHosting`; README, "Watching a game").
        lobby.state.watchers = not getattr(args, "no_watchers", False) and passphrase is None
        if args.ai:
            await lobby.request_fill(count=args.ai)
        if internet:
            # "Open" only once the mailbox has given out the codes (it may be out of reach).
            say(f"table {args.name!r}: asking the mailbox {args.mailbox} for seat codes")
            codes = SeatCodes(reactor, lobby, args.mailbox, args.relay,
                              on_codes=lambda now: reporter[0](_codes_line(now)),
                              on_warning=lambda text: reporter[0](text),
                              on_open=lambda: reporter[0](
                                  f"table {args.name!r} open on the internet (mailbox "
                                  f"{args.mailbox}): each friend runs `tractor join CODE` "
                                  "with a seat code of their own"))
            codes.start()
        else:
            say(_open_line(args.name, lobby.address, here_only, args.no_announce))
        pins = Journal(journal_path())
        host_lobby = lobby
        # An internet table's AI seats are this machine's: a LAN AI server's players
        # would not follow its start to the mailbox (they came over the LAN).
        seating = await _asyncio(lobby_prompt(
            lobby, True, reporter,
            None if internet else
            lambda tell: AiServerChooser(host_lobby, pins, tell, ai_server, ai_passphrase),
            codes=None if codes is None else _codes_command(codes)))
        if codes is not None:
            codes.close()  # the game's links are wormholes of their own
        watching = WatchHosting(node.watchers, seating, getattr(args, "no_watchers", False),
                                passphrase, lobby.limiter, announce=announce)
        hosting.append(watching)
        # After a crash, `tractor resume` brings back this machine's AI seats too (they
        # leave with their parent), from their journals in the data folder, and opens
        # for watchers what this seat opened (`watching.kept()`: LAN or internet).
        # (`tractor resume` goes on at a new table as this does: `cli.going_on`)
        going = GoingOn(lobby.address, interface, True, args.player, ai)
        client = _seat_person(node, seating, key, args, {
            "local_ai": True, **watching.kept(),
            **({} if internet else going.kept(passphrase))})
        reporter[0] = client.note
        seated.append(client)
        if internet:  # a seat gone for good stops the table (no new table: see README)
            # Its game ports listen on loopback only: watchers come with watch codes.
            watching.open_codes(reactor, node, args.mailbox, args.relay, client.note)
            return await _screen(client, args.plain)
        watching.open_on_lan(reactor, (interface, port), lobby.instance, client.note,
                             lobby.discovery_port)
        # At a new table (a seat gone for good) the same watch hosting opens there.
        goes = GoesOn(reactor, args, client, seating, lobby.address,
                      interface, True, passphrase=passphrase,
                      fill_local=fill_local, before_fill=lambda: retire(children),
                      marks=going.kept(passphrase), hosting=watching)
        try:
            return await _screen(client, args.plain)
        finally:
            goes.stop()
    except (LobbyError, GaveUp) as exc:
        say(f"tractor: {exc}")
        return 1
    finally:
        for watching in hosting:
            watching.stop()
        if codes is not None:
            codes.close()
        if lobby is not None:
            lobby.close()
        node.stop()
        await stop_all(reactor, children)


def _open_line(name: str, address: str, here_only: bool, unannounced: bool) -> str:
    """What `tractor host` says once its LAN table is open: the address to join, and who
    can find it (a table on loopback is this machine's only: it is never announced)."""
    if here_only:
        return (f"table {name!r} open on this machine only (it listens on loopback, so "
                f"the LAN cannot reach it): others here run `tractor join {address}`")
    where = ("(it is not announced: `tractor join` alone does not list it)"
             if unannounced else "(or `tractor join` to find it on the LAN)")
    return f"table {name!r} open: others run `tractor join {address}` {where}"


def _codes_line(codes: list[str]) -> str:
    if not codes:
        return "seat codes: none open (every seat is taken or asked of an AI)"
    return "seat codes (one per free seat, `tractor join CODE`): " + "  ".join(codes)


def _codes_command(codes: SeatCodes) -> Callable[[], str]:
    """`codes` at an internet host's lobby: new codes if wrong guesses paused them, else
    the codes as they are."""
    return lambda: codes.ask() or _codes_line(codes.codes())


def passphrase_reason(exc: LobbyError) -> str:
    """Why `tractor join` asks for the passphrase (again), said as the question's reason:
    "table 'nutable' needs a passphrase" (it read "tractor: refused: table 'nutable' needs
    a passphrase (tcp:...)", a fatal error's words, just before the question)."""
    why = exc.why.removeprefix("refused: ")
    return f"{why}: type it again" if isinstance(exc, WrongPassphrase) else why


async def _choose_table(reactor: Any) -> tuple[str, bool] | None:
    """The tables heard on the LAN, one picked by number (asked again until it is one of
    them): its address and whether it needs a passphrase; None if there is none or the
    person gives up (an empty answer, the end of input)."""
    say("looking for tables on the LAN...")
    found = await browse(reactor, 2.0, kind="table")
    if not found:
        say("tractor: no table found on the LAN; give its address: tractor join ADDRESS")
        return None
    for i, ann in enumerate(found, 1):
        say(f"  {i}. {table_line(ann)}")
    read = LineReader()
    while True:
        choice = (await _asyncio(read("join which table? (number, Enter to give up) "))
                  or "").strip()
        if not choice:
            say("tractor: no table chosen")
            return None
        if choice.isdigit() and 1 <= int(choice) <= len(found):
            ann = found[int(choice) - 1]
            return ann.address, ann.passphrase
        say(f"there is no table {choice!r:.20} in the list: type 1 to {len(found)}")


async def join(reactor: Any, args: argparse.Namespace) -> int:
    if not ready_for_a_new_game(journal_path(), say):
        return 1
    if args.address is not None and is_seat_code(args.address):
        return await _join_by_code(reactor, args)
    needs_passphrase = False
    if args.address is None:
        chosen = await _choose_table(reactor)
        if chosen is None:
            return 1
        address, needs_passphrase = chosen
    else:
        try:
            address = lobby_endpoint(args.address)
        except AddressError as exc:
            say(f"tractor: {exc}")
            return 2
    key = Ed25519PrivateKey.generate()
    node, port = await listen_node(reactor, "0.0.0.0", grace=args.grace)
    try:
        passphrase = await ask_passphrase(args.passphrase, needs_passphrase, JOINING)
        for attempt in range(PASSPHRASE_TRIES):
            try:
                guest = await join_table(reactor, address,
                                         Participant(args.player, raw_public(key), port),
                                         passphrase=passphrase)
                break
            except (PassphraseRequired, WrongPassphrase) as exc:
                # Asked again, as a person at a door would be (the host allows a few
                # wrong guesses a minute from one address).
                if attempt + 1 == PASSPHRASE_TRIES or args.passphrase not in (None, "-"):
                    raise
                say(passphrase_reason(exc))
                passphrase = await ask_passphrase("-", True, JOINING)
        seating = await _asyncio(lobby_prompt(guest, False))
        # (`tractor resume` rejoins the host's lobby as this does: `cli.going_on`)
        going = GoingOn(address, "0.0.0.0", False, args.player).kept(passphrase)
        client = _seat_person(node, seating, key, args, going)
        goes = GoesOn(reactor, args, client, seating, address, "0.0.0.0", False,
                      passphrase=passphrase, marks=going)
        try:
            return await _screen(client, args.plain)
        finally:
            goes.stop()
    except LeftTable as exc:  # as the guest chose: no failure
        say(str(exc))
        return 0
    except (LobbyError, GaveUp) as exc:
        say(f"tractor: {exc}")
        return 1
    finally:
        node.stop()


async def _join_by_code(reactor: Any, args: argparse.Namespace) -> int:
    """Join an internet table by its seat code: the lobby through the code's wormhole, the
    game through a wormhole per pair of seats."""
    problem = code_problem(args.address.strip().lower())
    if problem is not None:  # (a watch code, a word missing: said before anything opens)
        say(f"tractor: {problem}")
        return 1
    key = Ed25519PrivateKey.generate()
    node, port = await listen_node(reactor, "127.0.0.1", grace=args.grace)
    lobby_wormhole: Any = None
    try:
        passphrase = await ask_passphrase(args.passphrase, False, JOINING)
        say(f"looking for the table at {args.address.strip().lower()} (mailbox "
            f"{args.mailbox})...")
        me = Participant(args.player, raw_public(key), port)
        lobby_wormhole, endpoint = await open_seat_code(reactor, args.address, args.mailbox,
                                                        args.relay)
        where = f"code {args.address.strip().split('-')[0]}"
        for attempt in range(PASSPHRASE_TRIES):
            try:
                guest = await join_table(reactor, where, me, passphrase, endpoint=endpoint,
                                         mailbox=args.mailbox)
                break
            except (PassphraseRequired, WrongPassphrase) as exc:
                # Asked again on the same wormhole (the host's lobby counts the guesses).
                if attempt + 1 == PASSPHRASE_TRIES or args.passphrase not in (None, "-"):
                    raise
                say(passphrase_reason(exc))
                passphrase = await ask_passphrase("-", True, JOINING)
        seating = await _asyncio(lobby_prompt(guest, False))
        lobby_wormhole.close().addErrback(lambda _f: None)
        lobby_wormhole = None
        client = _seat_person(node, seating, key, args, {})
        return await _screen(client, args.plain)
    except LeftTable as exc:  # as the guest chose: no failure
        say(str(exc))
        return 0
    except (LobbyError, GaveUp) as exc:
        say(f"tractor: {exc}")
        return 1
    finally:
        if lobby_wormhole is not None:
            lobby_wormhole.close().addErrback(lambda _f: None)
        node.stop()


# --- tractor resume ---------------------------------------------------------------------------


async def resume(reactor: Any, args: argparse.Namespace) -> int:
    """Continue this peer's unfinished game after a crash (the newest, or ``args.game``)."""
    journal = journal_to_resume(journal_path(), say)
    if journal is None:  # told why: a damaged journal is left for the person
        return 1
    every = journal.games()
    games = [g for g in every if not g.finished and (not args.game or g.id == args.game)]
    if not games:
        if args.game and not any(g.id == args.game for g in every):
            say(f"tractor: no game {args.game!r} in your journal (see `tractor history`)")
        elif args.game:
            say(f"tractor: game {args.game} is over: nothing to resume (`tractor replay "
                f"{args.game}` shows it)")
        else:
            say("tractor: no unfinished game to resume (see `tractor history`)")
        return 1
    game = games[-1].id
    game_kept()
    meta = journal.meta(game)
    # Said at once: replaying the journal checks every signed frame again and takes a
    # moment, and a blank terminal meanwhile looks like a hang; the count goes up as it works.
    say(f"resuming game {game} from its journal: checking every move again...")
    children: list[AiChild] = []
    terminate_on_shutdown(reactor, children)
    node = None
    hosting: WatchHosting | None = None
    goes: GoesOn | None = None
    revive: LoopingCall | None = None
    checking = CheckingLine(sys.stdout, sys.stdout.isatty())
    try:
        try:
            node, session = await resume_seat(reactor, journal, game, _person(args),
                                              args.grace, progress=checking)
        except CannotListenError:
            say(f"tractor: cannot listen on {meta.get('listen')} again: is the game "
                "still running? (try again in a few seconds)")
            return 1
        args.grace = node.grace  # (without --grace: the game's own, from its journal)
        # A practice game's AI peers (a LAN host's own AI seats) ended with this process:
        # they come back too, each from its journal. Started once the person's seat is
        # back and listening: on a machine of two cores, four processes replaying at once
        # kept the person's screen waiting longest (their links wait a moment more).
        ai_seats = respawn_ai(reactor, game) if meta.get("local_ai") else {}
        children += ai_seats.values()
        if meta.get("practice"):
            be_patient(node)
        say(f"resumed game {game} at hand {session.hand_no + 1}: reconnecting to the "
            "other seats")
        client = NetClient(node, meta.get("names") or [f"seat {s}" for s in range(
            session.rules.players)], _hinter(session.rules, 0, _hint_level(args)))
        report_deaths(children, client.note, lambda: client.session.over)
        # A host's seat opens for watchers what it opened before the crash: on a LAN its
        # announcement and line, at an internet table new watch codes.
        hosting = host_again(reactor, node, session, meta, client.note)
        # A seat gone for good moves the game to a new table as in the first run (its
        # journal kept how: `cli.going_on`); else the verdict stays on the screen.
        goes = resumed_goes_on(reactor, args, client, session, meta, children, data_dir(),
                               hosting)
        if goes is None:
            node.done.addErrback(lambda f: None)
        elif meta.get("practice"):  # an AI peer that dies comes back, as in `play`
            moving = goes
            revive = LoopingCall(lambda: revive_ai(reactor, client, moving.seating, children,
                                                   data_dir()))
            revive.clock = reactor
            revive.start(2.0, now=False)
        for seat, child in ai_seats.items():  # waited for quietly while they start
            client.returning.expect(seat, alive_check(child))
            if not child.alive:  # it died before the screen could tell it
                client.note(f"{child.how_it_ended()} (see ai.log)")
        return await _screen(client, args.plain, practice=bool(meta.get("practice")))
    finally:
        if revive is not None:
            revive.stop()
        if goes is not None:
            goes.stop()  # (the watch hosting too, moved or not)
        if hosting is not None:
            hosting.stop()
        checking.close()
        if node is not None:
            node.stop()
        await stop_all(reactor, children)

