"""The `tractor` command: ``tractor`` (= ``tractor play``) starts a game against three AI
peers on this machine; ``host``/``join`` play with friends on the LAN; ``ai`` and
``ai-server`` seat AI peers; ``resume``, ``history``, ``replay`` and ``stats`` use this
peer's journal; ``rules`` prints the rules; ``demo`` prints one random hand of the rules core.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# Nothing slow before `main` takes Ctrl-C: importing this module runs before it does, so
# anything slow (the rules core, Twisted, prompt_toolkit, the network and the journal:
# most of a second in all) is imported in the function that uses it, each saying so.
from tractor.ai.hosting.takeback_wait import MAX_TAKEBACK_WAIT, TAKEBACK_GRACE
from tractor.cli.interrupts import INTERRUPTED, CtrlC, Interrupted
from tractor.cli.rules_text import RULES_SUMMARY

if TYPE_CHECKING:
    from tractor import Rules


def demo(seed: int, rules: Rules) -> None:
    """Play and print one hand of random legal moves (`cli.demo`)."""
    from .demo import demo as print_demo  # imported here: slow (the rules core), as above

    print_demo(seed, rules)


COMMANDS = ("play", "host", "join", "watch", "ai", "ai-server", "resume", "history", "replay",
            "stats", "rules", "demo")


def _count(text: str) -> int:
    """A whole number, 0 or more (argparse type)."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"a whole number, 0 or more, not {text!r:.20}")
    return int(text)


#: The deal's pace for a person (seconds per card they receive): 25 cards in 10 s.
DEAL_PACE = 0.4
MAX_DEAL_PACE = 10.0


def _seconds(text: str) -> float:
    """A number of seconds above 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {text!r:.20}")
    return value


def _seconds_up_to(limit: float, unit: str = "seconds") -> Callable[[str], float]:
    """An argparse type: a number of ``unit`` from 0 to ``limit``."""
    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0 <= value <= limit:
            raise argparse.ArgumentTypeError(f"{unit} from 0 to {limit:g}, not {text!r:.20}")
        return value
    return seconds


#: Seconds from 0 to `MAX_TAKEBACK_WAIT` (`--takeback-wait`).
_takeback_wait = _seconds_up_to(MAX_TAKEBACK_WAIT)


def takeback_wait_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--takeback-wait", type=_takeback_wait, default=TAKEBACK_GRACE,
                   metavar="SECONDS",
                   help="at a table with take-backs, how long an AI seat of this machine "
                   "waits after a person's play before its own, so the play can be taken "
                   "back (0: no wait; default: %(default)s)")


#: Seconds per card of the deal, 0 (as fast as the peers go) up to 10 (`--deal-pace`).
_pace = _seconds_up_to(MAX_DEAL_PACE, "seconds per card")


def _table_name(text: str) -> str:
    """A table's name on the LAN, as the lobby takes it (argparse type)."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.lobby.messages import MAX_TABLE_NAME

    if not 1 <= len(text) <= MAX_TABLE_NAME or not text.isprintable() or text != text.strip():
        raise argparse.ArgumentTypeError(
            f"a table name is 1 to {MAX_TABLE_NAME} printable characters, not {text!r:.40}")
    return text


def _player_name(text: str) -> str:
    """A person's name at the table (argparse type)."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.lobby.messages import MAX_NAME

    if not 1 <= len(text) <= MAX_NAME or not text.isprintable() or text != text.strip():
        raise argparse.ArgumentTypeError(
            f"a name is 1 to {MAX_NAME} printable characters, not {text!r:.40}")
    return text


def _listen(text: str) -> str:
    """A Twisted server endpoint for the lobby (argparse type): ``tcp:PORT`` with options."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from twisted.internet import endpoints

    port = text.split(":")[1] if text.startswith("tcp:") and ":" in text else ""
    try:
        endpoints.serverFromString(None, text)
        ok = not port or (port.isdigit() and int(port) <= 65535)
    except (ValueError, TypeError, KeyError):
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(
            f"a lobby endpoint like tcp:40123 or tcp:0:interface=192.168.1.20, not {text!r:.40}")
    return text


def _mailbox(text: str) -> str:
    """A magic-wormhole mailbox URL (argparse type)."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.internet.rendezvous import RendezvousError, check_mailbox

    try:
        return check_mailbox(text)
    except RendezvousError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _relay(text: str) -> str:
    """A transit relay, ``tcp:HOST:PORT`` (argparse type)."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.internet.rendezvous import RendezvousError, check_relay

    try:
        return check_relay(text)
    except RendezvousError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.ai.hosting.hints import HINT_LEVEL
    from tractor.ai.players.strategies import LEVELS, STRATEGIES
    from tractor.net.internet.rendezvous import DEFAULT_MAILBOX, DEFAULT_RELAY
    from tractor.net.mesh.wire import GRACE

    parser = argparse.ArgumentParser(
        prog="tractor", description="Tractor (Sheng Ji) played peer to peer. "
        "Without a command: `tractor play`.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def game_options(p: argparse.ArgumentParser, resuming: bool = False) -> None:
        p.add_argument("--plain", action="store_true",
                       help="a scrolling prompt instead of the full screen (small "
                       "terminals, screen readers, scripts)")
        p.add_argument("--player", "--you", dest="player", default=None, metavar="NAME",
                       type=_player_name,
                       help="your name at the table (default: your login name)")
        p.add_argument("--grace", type=_seconds, default=None if resuming else GRACE,
                       metavar="SECONDS",
                       help="how long to wait for a seat whose connection is lost before "
                       "the hand ends without it (default: " + (
                           "as the game began" if resuming else "%(default)s") + ")")
        p.add_argument("--hint-level", choices=LEVELS, default=HINT_LEVEL,
                       help="how hard the hint (i) thinks; at most about a second "
                       "(default: %(default)s)")
        p.add_argument("--deal-pace", type=_pace, default=DEAL_PACE, metavar="SECONDS",
                       help="seconds per card you are dealt, so the deal can be followed "
                       "(0: as fast as possible, asking only at the last chance to "
                       "declare; default: %(default)s)")

    def internet_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--mailbox", default=DEFAULT_MAILBOX, type=_mailbox, metavar="URL",
                       help="internet tables: the magic-wormhole mailbox server where seats "
                       "meet (default: %(default)s)")
        p.add_argument("--relay", default=DEFAULT_RELAY, type=_relay, metavar="tcp:HOST:PORT",
                       help="internet tables: the transit relay for seats that cannot reach "
                       "each other (default: %(default)s)")

    def ai_options(p: argparse.ArgumentParser, default: str = "search") -> None:
        p.add_argument("--strategy", choices=STRATEGIES, default=default,
                       help="AI player (default: %(default)s)")
        p.add_argument("--level", choices=LEVELS, default="normal",
                       help="AI strength against thinking time (default: %(default)s)")

    p_play = sub.add_parser("play", help="you against three AI peers on this machine")
    game_options(p_play)
    ai_options(p_play)
    p_play.add_argument("--seed", type=int, default=None,
                        help="seed the AI players' choices (the deal stays fresh: every "
                        "peer's secrets are bound to the table)")
    takeback_wait_option(p_play)
    p_play.add_argument("--rules", default=None,
                        help="rules options, e.g. players=6,decks=3 (see `tractor rules`); "
                        "take-backs are on here (takebacks=false turns them off)")

    p_host = sub.add_parser("host", help="open a table on the LAN")
    game_options(p_host)
    ai_options(p_host)
    p_host.add_argument("--name", default="tractor", type=_table_name,
                        help="the table's name on the LAN")
    p_host.add_argument("--seats", type=_count, default=None,
                        help="players (default: the --rules players, else 4)")
    p_host.add_argument("--ai", type=_count, default=0, metavar="K",
                        help="seat K AI peers at once (more with `fill` in the lobby)")
    p_host.add_argument("--passphrase", default=None,
                        help="only peers who know it can sit ('-' to type it hidden)")
    p_host.add_argument("--listen", default="tcp:0:interface=0.0.0.0", type=_listen,
                        help="lobby endpoint, its interface the game's too (default: a "
                             "free port on every interface; on 127.0.0.1: this machine only)")
    p_host.add_argument("--rules", default=None, help="rules options, e.g. decks=3")
    takeback_wait_option(p_host)
    p_host.add_argument("--no-announce", action="store_true",
                        help="do not announce the table on the LAN")
    p_host.add_argument("--ai-server", default=None, metavar="HOST:PORT",
                        help="the AI server `fill lan` asks (its key is remembered on "
                             "first use)")
    p_host.add_argument("--ai-server-passphrase", default=None, metavar="PASSPHRASE",
                        help="the passphrase of an AI server that has one ('-' to type it "
                             "hidden)")
    p_host.add_argument("--internet", action="store_true",
                        help="a table for friends in other homes: prints a code per free "
                        "seat for `tractor join CODE` (no game server: see the README)")
    internet_options(p_host)
    p_host.add_argument("--no-watchers", action="store_true",
                        help="refuse watchers (`tractor watch`): every seat refuses them")
    p_host.set_defaults(seed=None)

    p_join = sub.add_parser("join", help="join a table (without ADDRESS: find one on the LAN)")
    game_options(p_join)
    p_join.add_argument("address", nargs="?", metavar="ADDRESS|CODE",
                        help="the lobby address the host printed, or the seat code of an "
                        "internet table (like 7-guitarist-revenge-bodyguard)")
    p_join.add_argument("--passphrase", default=None,
                        help="the table's passphrase ('-' to type it hidden)")
    internet_options(p_join)
    p_join.set_defaults(seed=None)

    p_watch = sub.add_parser("watch", help="watch a table's game: what every seat sees, no hand")
    p_watch.add_argument("address", nargs="?", metavar="ADDRESS|CODE",
                         help="a seat's game address, HOST:PORT, or an internet table's "
                         "watch code (the host shows it); without it, the games under way "
                         "on the LAN are listed")
    p_watch.add_argument("--plain", action="store_true",
                         help="plain lines instead of the full screen")
    p_watch.add_argument("--passphrase", default=None,
                         help="the table's passphrase ('-' to type it hidden)")
    internet_options(p_watch)

    p_ai = sub.add_parser("ai", help="join a table as AI peers")
    ai_options(p_ai)
    p_ai.add_argument("--join", metavar="ADDRESS", help="the table's lobby address")
    p_ai.add_argument("--seats", type=_count, default=1, help="how many AI seats (default 1)")
    p_ai.add_argument("--name", default="AI", help="the name shown at the table "
                      "(numbered when several seats)")
    p_ai.add_argument("--seed", type=int, default=None, help="seed the AI choices")
    p_ai.add_argument("--passphrase", default=None,
                      help="the table's passphrase ('-' to type it hidden)")
    p_ai.add_argument("--journal-dir", default=None, help="keep each seat's journal here")
    p_ai.add_argument("--resume", metavar="JOURNAL", help="resume an AI seat from its journal")
    p_ai.add_argument("--grace", type=_seconds, default=GRACE, metavar="SECONDS",
                      help="how long to wait for a seat whose connection is lost "
                      "(default: %(default)s)")
    p_ai.add_argument("--interface", default="0.0.0.0", metavar="IP",
                      help="where the AI seats listen for the other seats (default: every "
                      "interface; 127.0.0.1 when the whole table is on this machine)")
    p_ai.add_argument("--exit-with-parent", action="store_true", help=argparse.SUPPRESS)
    p_ai.add_argument("--patient", action="store_true", help=argparse.SUPPRESS)
    takeback_wait_option(p_ai)

    p_srv = sub.add_parser("ai-server", help="fill empty seats of LAN tables with AI peers")
    ai_options(p_srv)
    p_srv.add_argument("--listen", default="tcp:0:interface=0.0.0.0", type=_listen,
                       help="fill endpoint (default: a free port on every interface)")
    p_srv.add_argument("--no-announce", action="store_true",
                       help="do not announce the server on the LAN")
    p_srv.add_argument("--passphrase", default=None,
                       help="only hosts who know it get AI players ('-' to type it hidden)")

    p_resume = sub.add_parser("resume", help="continue your game after a crash")
    game_options(p_resume, resuming=True)
    p_resume.add_argument("game", nargs="?", help="game id (default: the newest unfinished)")
    p_resume.set_defaults(seed=None)

    sub.add_parser("history", help="list the games in your journal")
    p_replay = sub.add_parser("replay", help="step through a finished game, all hands shown")
    p_replay.add_argument("game", help="game id from `tractor history`")
    p_replay.add_argument("--hand", type=int, default=None, help="only this hand (from 1)")
    p_replay.add_argument("--all", action="store_true", help="print everything, no pauses")

    p_stats = sub.add_parser("stats", help="win and loss records from your journal")
    p_stats.add_argument("--json", action="store_true", help="one JSON document, for scripts")

    sub.add_parser("rules", help="print the rules summary")
    p_demo = sub.add_parser("demo", help="play one hand of random moves on the rules core")
    p_demo.add_argument("--seed", type=int, default=0, help="shuffle and play seed")
    p_demo.add_argument("--players", type=int, default=None, help="players (default 4)")
    p_demo.add_argument("--decks", type=int, default=None, help="decks (default 2)")
    p_demo.add_argument("--auction", action="store_true",
                        help="seed 001 style: points auction, then a card-play for the starter")
    p_demo.add_argument("--rules", default=None,
                        help="rules options, e.g. players=5,mode=friends (see `tractor "
                        "rules`); they win over --players and --decks")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The `tractor` command (``argv``: its arguments; None: this process's own)."""
    # Before anything slow: Ctrl-C during the imports ends as plainly as during a game.
    ctrl_c = CtrlC()
    ctrl_c.install()
    unwound = False
    try:
        code = _command(list(sys.argv[1:] if argv is None else argv), ctrl_c)
        sys.stdout.flush()  # here, where a reader gone is caught, not at the exit
    except KeyboardInterrupt:  # still starting: nothing opened yet, nothing to close
        ctrl_c.pressed = unwound = True
        code = INTERRUPTED
    except BrokenPipeError:
        # The reader of our output left (`tractor stats --json | head`): nothing more to
        # say to it. Python would print a traceback at exit flushing stdout: point stdout
        # at nothing first.
        _stdout_gone()
        code = 1
    try:
        if ctrl_c.pressed:
            _tell(ctrl_c.farewell())
            if unwound and argv is None:
                # Python would end this process by SIGINT instead of the status: it counts
                # a KeyboardInterrupt that went through an exec() (dataclasses, namedtuple)
                # as unhandled, caught or not. Nothing is open yet: end here.
                sys.stdout.flush()
                os._exit(INTERRUPTED)
            return INTERRUPTED
        return code
    finally:
        ctrl_c.uninstall(exiting=argv is None)


def _stdout_gone() -> None:
    """Stdout's reader has closed its end: send what is still buffered nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's StringIO): nothing to do
        pass


def _command(argv: list[str], ctrl_c: CtrlC) -> int:
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        _tell(f"tractor: unknown command {argv[0]!r:.40} (commands: {', '.join(COMMANDS)}; "
              "`tractor --help` says more)")
        return 2
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["play", *argv]  # `tractor` alone, or `tractor --plain`: play
    args = _parser().parse_args(argv)
    command = args.command
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.mesh.gate import raise_descriptor_limit

    raise_descriptor_limit()  # many systems start at 1024 open files: far below their limit
    from tractor import RulesError  # imported here: slow, as above

    if command == "rules":
        print(RULES_SUMMARY)
        return 0
    if command == "demo":
        from .options import parse_rules  # imported here: slow, as above

        options = [f"players={args.players}" if args.players is not None else "",
                   f"decks={args.decks}" if args.decks is not None else "",
                   "declaration=auction" if args.auction else "", args.rules or ""]
        try:
            rules = parse_rules(",".join(o for o in options if o))
        except RulesError as exc:
            _tell(f"tractor: {exc}")
            return 2
        demo(args.seed, rules)
        return 0
    from .options import data_dir  # imported here: slow, as above

    try:
        data_dir()
    except OSError as exc:  # TRACTOR_HOME names a file, a folder we may not write, ...
        _tell(f"tractor: cannot use the data folder {exc.filename or ''}: "
              f"{exc.strerror or exc} (set TRACTOR_HOME to a folder of yours)")
        return 1
    if command in ("history", "replay", "stats"):
        return _journal_command(command, args)
    if getattr(args, "player", "") is None:
        from .options import login_name  # imported here: slow, as above

        args.player = login_name()
    return _networked(command, args, ctrl_c)


def _journal_command(command: str, args: argparse.Namespace) -> int:
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from tractor.net.journal.sqlite_file import JournalError

    from .history import history_lines, replay, terminal_pause, terminal_width
    from .journal_open import read_journal, refusal
    from .options import journal_path

    try:
        journal = read_journal(journal_path())
    except JournalError as exc:  # damaged, newer, not ours: named, and left as it is
        _tell(refusal(exc))
        return 1
    if command == "history":
        for line in history_lines(journal, terminal_width()):
            print(line)
        return 0
    if command == "stats":
        from .stats_view import print_stats  # imported here: slow, as above

        return print_stats(journal, args.json, terminal_width())
    interactive = not args.all and sys.stdin.isatty() and sys.stdout.isatty()
    try:
        return replay(journal, args.game, sys.stdout, args.hand,
                      terminal_pause(sys.stdin) if interactive else None, terminal_width())
    except Exception as exc:
        # A command's top level: a journal this version cannot replay is said plainly
        # (the details in error.log), never with a traceback.
        return _report_bug(exc)


def _networked(command: str, args: argparse.Namespace, ctrl_c: CtrlC) -> int:
    """Run one of the networked commands on the asyncio reactor."""
    install_reactor()
    # Imported here: slow, as above; and the reactor must be installed first (these
    # modules import Twisted's reactor).
    import asyncio

    from twisted.internet import defer, reactor, task

    from . import ai_commands, tables, watch

    if command in ("ai", "ai-server"):
        _log_to_stderr()
    flow = {"play": tables.play, "host": tables.host, "join": tables.join,
            "resume": tables.resume, "watch": watch.watch, "ai": ai_commands.ai,
            "ai-server": ai_commands.ai_server}[command]
    code = [0]

    async def run(reactor: Any) -> None:
        # `task.react` calls this before the reactor runs, and so before it handles
        # Ctrl-C: a flow that printed "ready" at once could be interrupted in between
        # (a traceback, or a hang). Start it from the running reactor instead.
        await task.deferLater(reactor, 0, lambda: None)
        flowing = defer.ensureDeferred(flow(reactor, args))
        settled: defer.Deferred[None] = defer.Deferred()

        def interrupted() -> Any:
            # SIGINT/SIGTERM stop the reactor: end the command first, while the reactor
            # still runs, so its clean-up (AI children stopped, tables closed) happens;
            # the reactor waits for it.
            if settled.called:
                return None
            flowing.cancel()
            return settled

        trigger = reactor.addSystemEventTrigger("before", "shutdown", interrupted)
        try:
            code[0] = await flowing
        except (defer.CancelledError, asyncio.CancelledError):
            # Stopped (Ctrl-C, SIGTERM) while awaiting Twisted, or an asyncio prompt.
            code[0] = INTERRUPTED
        except Interrupted:  # Ctrl-C typed at a prompt
            ctrl_c.pressed = True
            code[0] = INTERRUPTED
        except Exception as exc:
            # A command's top level: one line, never a traceback (`_failed`).
            # After Ctrl-C, what the command ended with is the stop's doing (an AI child
            # that heard the same Ctrl-C, a lobby closed): the farewell says it all.
            code[0] = INTERRUPTED if ctrl_c.pressed else _failed(exc)
        finally:
            settled.callback(None)
            if reactor.running:
                reactor.removeSystemEventTrigger(trigger)

    ctrl_c.hand_to(reactor)
    try:
        task.react(lambda r: defer.ensureDeferred(run(r)))
    except SystemExit as exc:
        if exc.code not in (0, None):
            return int(exc.code) if isinstance(exc.code, int) else 1
    return code[0]


def _tell(text: str) -> None:
    """A line for the person on standard error, folded between words on a terminal."""
    from .prompts import say  # imported here: slow (prompt_toolkit), as above

    say(text, sys.stderr)


def _failed(exc: Exception) -> int:
    """One line for a command that failed, and its exit status."""
    from tractor import RulesError  # imported here: slow, as above

    if isinstance(exc, RulesError):
        _tell(f"tractor: {exc}")
        return 2
    if isinstance(exc, (TimeoutError, ConnectionError, OSError)):
        _tell(f"tractor: {exc}")
        return 1
    return _report_bug(exc)  # a bug: one clear line here, the details in a file


def _log_to_stderr() -> None:
    """Headless peers: this program's own log lines (info and up) and everything else's
    warnings on stderr (the ai-server sends its players' to ai.log)."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    from twisted.logger import (
        FilteringLogObserver,
        LogLevel,
        LogLevelFilterPredicate,
        globalLogBeginner,
        textFileLogObserver,
    )

    predicate = LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)
    predicate.setLogLevelForNamespace("tractor", LogLevel.info)
    globalLogBeginner.beginLoggingTo(
        [FilteringLogObserver(textFileLogObserver(sys.stderr), [predicate])],
        redirectStandardIO=False)


def _report_bug(exc: Exception) -> int:
    """A bug: the traceback in error.log, one plain line for the person."""
    # Imported here: nothing slow before `main` takes Ctrl-C (see the imports above).
    import traceback

    from tractor.net.journal.store import open_private_log

    from .options import data_dir

    path = data_dir() / "error.log"
    with open_private_log(path) as f:
        f.write("".join(traceback.format_exception(exc)).encode())
    _tell(f"tractor: unexpected error: {exc} (details in {path})")
    return 1


def install_reactor() -> None:
    """prompt_toolkit and Twisted on one asyncio loop (must run before the reactor is
    imported anywhere)."""
    import asyncio  # imported here: slow, as above

    if "twisted.internet.reactor" in sys.modules:
        return
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    from twisted.internet import asyncioreactor  # slow, and only once the loop is set

    asyncioreactor.install(loop)


if __name__ == "__main__":
    sys.exit(main())
