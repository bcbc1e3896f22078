"""The LAN lab: several "hosts" on one machine, each a Linux network namespace on one
switched LAN, and people at those hosts running the installed `tractor` command.

Layout of one lab (names carry the owner's pid, so parallel runs never collide and a
later run can tell a crashed run's leftovers from a live one's)::

    tractorlab-<pidns>-<pid>-<rand>-sw     the switch: bridge br0, ports p1..pN
    tractorlab-<pidns>-<pid>-<rand>-h1     host 1: lo, lan0 = 198.18.0.11/24
    ...                                    host N: lan0 = 198.18.0.(10+N)/24

Every veth pair is made directly between a host namespace and the switch namespace, so
nothing appears in (or gets an address in) the root namespace, and no namespace has a
default route: traffic can only reach the lab's own addresses. Each host has the route
``224.0.0.0/4 dev lan0``, so UDP multicast discovery (239.255.42.99:42099, TTL 1) crosses
the bridge (IGMP snooping is off: no querier runs here).

A person runs ``ip netns exec HOST <the installed tractor script> ...`` with their own
TRACTOR_HOME and HOME (temporary folders) and a neutral working directory, either through
pipes (`Plain`, ``--plain``, with `Autopilot` answering every decision as a script would:
``hint``, then an empty line) or in a pseudo-terminal read back by the pyte terminal
emulator (`Screen`). Every wait has a timeout and fails with what the program showed.
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PREFIX = "tractorlab"
SUBNET = "198.18.0"  #: RFC 2544 benchmarking range: never anybody's real network
FIRST_HOST = 11
MULTICAST = "224.0.0.0/4"
LINK = "lan0"  #: the host's side of its veth pair (the same name in every host namespace)
IP = shutil.which("ip") or "/usr/sbin/ip"

#: The summary every peer shows after an audited hand (cli/seat/netclient.py `_hand_ended`).
VERIFIED = "{n} of {n} peers verified the hand: no rule broken"

#: Scenario name -> seconds it took, printed at the end of the run (tests/conftest.py).
DURATIONS: dict[str, float] = {}


class LabUnavailable(Exception):
    """Namespaces cannot be made here (the reason says why): the lab tests skip."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([IP, *args], capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {proc.stderr.strip() or proc.returncode}")
    return proc


def _pid_namespace() -> str:
    """Our pid namespace's inode: a pid means something only inside its own namespace."""
    try:
        return os.readlink("/proc/self/ns/pid").split("[")[-1].rstrip("]")
    except OSError:
        return "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_available() -> None:
    """Raise `LabUnavailable` unless this process can make network namespaces."""
    if sys.platform != "linux":
        raise LabUnavailable("network namespaces need Linux")
    if os.geteuid() != 0:
        raise LabUnavailable("making network namespaces needs root")
    if shutil.which("ip") is None and not os.path.exists(IP):
        raise LabUnavailable("the `ip` command (iproute2) is not installed")
    probe = f"{PREFIX}-{_pid_namespace()}-{os.getpid()}-probe{secrets.token_hex(2)}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        raise LabUnavailable(f"cannot make a network namespace: {made.stderr.strip()}")
    _ip("netns", "delete", probe, check=False)


def namespaces() -> list[str]:
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def namespace_pids(ns: str) -> list[int]:
    out = _ip("netns", "pids", ns, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def _remove_namespace(ns: str) -> None:
    """Stop what still runs in ``ns`` (processes the lab started there), then delete it
    (which destroys its end of every veth pair, and so the pair)."""
    for _ in range(3):
        pids = namespace_pids(ns)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
    _ip("netns", "delete", ns, check=False)


def remove_stale() -> list[str]:
    """Delete the namespaces of earlier lab runs whose owner process is dead (a crashed or
    killed run could not clean up). Live runs, and runs of another pid namespace, are left
    alone. Returns what was removed."""
    mine = _pid_namespace()
    pattern = re.compile(rf"^{PREFIX}-(\d+)-(\d+)-")
    removed = []
    for ns in namespaces():
        match = pattern.match(ns)
        if match is None or match.group(1) != mine or _alive(int(match.group(2))):
            continue
        _remove_namespace(ns)
        removed.append(ns)
    return removed


def run_in(host: Host, *argv: str) -> str:
    """Run a short command in ``host``; its output."""
    proc = subprocess.run(host.command(argv), capture_output=True, text=True, timeout=30)
    return proc.stdout + proc.stderr


def tractor_script() -> str:
    """The `tractor` console script installed beside this Python (what a person types), or
    the one $TRACTOR_LAB_SCRIPT names (say, of a non-editable ``pip install .``)."""
    path = Path(os.environ.get("TRACTOR_LAB_SCRIPT") or Path(sys.executable).parent / "tractor")
    if not path.exists():
        raise RuntimeError(f"no `tractor` script beside {sys.executable}: pip install .")
    return str(path)


# --- the lab ----------------------------------------------------------------------------------


@dataclass
class Host:
    """One machine of the LAN: a network namespace with one link into the switch."""

    lab: Lab
    index: int  #: 1..N
    ns: str
    ip: str
    port: str  #: its port on the switch (in the switch namespace)

    def link_down(self) -> None:
        """Unplug the host: its link goes down (its routes with it)."""
        _ip("-n", self.ns, "link", "set", LINK, "down")

    def link_up(self) -> None:
        """Plug it back in: the link, and the multicast route that going down removed."""
        _ip("-n", self.ns, "link", "set", LINK, "up")
        _ip("-n", self.ns, "route", "replace", MULTICAST, "dev", LINK)

    def reset_connections(self) -> None:
        """Drop every TCP connection of this host (as a router restart would): its side
        is closed at once, the other side learns it when it next sends."""
        subprocess.run([IP, "netns", "exec", self.ns, "ss", "-K", "-t", "state",
                        "established"], check=True, capture_output=True, timeout=10)

    def pids(self) -> list[int]:
        """Every process running in this host."""
        return namespace_pids(self.ns)

    def command(self, argv: Sequence[str]) -> list[str]:
        return [IP, "netns", "exec", self.ns, *argv]


class Lab:
    """``count`` hosts on one bridge. Use as a context manager (or call `close`): every
    process started in a host is stopped and every namespace deleted, also when the test
    fails; an `atexit` hook covers an interrupted run, `remove_stale` a killed one."""

    def __init__(self, count: int, workdir: Path) -> None:
        check_available()
        remove_stale()
        self.workdir = workdir
        self.tag = f"{PREFIX}-{_pid_namespace()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.switch = f"{self.tag}-sw"
        self.hosts: list[Host] = []
        self.people: list[Person] = []
        self._closed = False
        _LIVE.add(self)
        _clean_up_on_sigterm()
        try:
            self._build(count)
        except Exception:
            self.close()
            raise

    def _build(self, count: int) -> None:
        sw = self.switch
        _ip("netns", "add", sw)
        _ip("-n", sw, "link", "set", "lo", "up")
        _ip("-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", sw, "link", "set", "br0", "up")
        for i in range(1, count + 1):
            ns, port = f"{self.tag}-h{i}", f"p{i}"
            ip = f"{SUBNET}.{FIRST_HOST - 1 + i}"
            _ip("netns", "add", ns)
            # Both ends are born in their namespaces: nothing touches the root namespace.
            _ip("link", "add", LINK, "netns", ns, "type", "veth", "peer", "name", port,
                "netns", sw)
            _ip("-n", sw, "link", "set", port, "master", "br0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{ip}/24", "dev", LINK)
            _ip("-n", ns, "link", "set", LINK, "up")
            _ip("-n", ns, "route", "add", MULTICAST, "dev", LINK)
            self.hosts.append(Host(self, i, ns, ip, port))

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def person(self, host: Host, name: str) -> Person:
        """A person at ``host``, with their own data folder, home and working directory."""
        person = Person(host, name, self.workdir / f"{name}-at-h{host.index}")
        self.people.append(person)
        return person

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for person in self.people:
            person.stop_all()
        for host in self.hosts:
            _remove_namespace(host.ns)
        _remove_namespace(self.switch)
        _LIVE.discard(self)

    def report(self) -> str:
        """What every program of the lab showed last: for a failing test's message."""
        return "\n\n".join(p.report() for p in self.people)


_LIVE: set[Lab] = set()  #: labs not closed yet


@atexit.register
def _close_live() -> None:
    """An interrupted run (Ctrl-C past the fixtures) still removes its labs."""
    for lab in list(_LIVE):
        lab.close()


def _clean_up_on_sigterm() -> None:
    """SIGTERM (a CI timeout) would end the run without `atexit`: close the labs first,
    then end as SIGTERM does. Only where nobody else handles SIGTERM."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def on_term(signum: int, frame: object) -> None:
        _close_live()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_term)


# --- people and their programs ----------------------------------------------------------------


class Person:
    """Somebody at one host: their TRACTOR_HOME, HOME and a neutral cwd (not the repo)."""

    def __init__(self, host: Host, name: str, home: Path) -> None:
        self.host = host
        self.name = name
        self.home = home
        self.cwd = home / "cwd"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.programs: list[Program] = []

    def env(self, term: str) -> dict[str, str]:
        # A person's environment, not the test runner's (no PYTHONPATH, no pytest state).
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                "TRACTOR_HOME": str(self.home / "tractor"), "LANG": "C.UTF-8",
                "LC_ALL": "C.UTF-8", "TERM": term, "NO_COLOR": "1", "USER": self.name}

    def plain(self, *args: str) -> Plain:
        """``tractor ARGS`` with standard input and output on pipes."""
        program = Plain(self, [tractor_script(), *args])
        self.programs.append(program)
        return program

    def screen(self, *args: str, cols: int = 100, rows: int = 30) -> Screen:
        """``tractor ARGS`` in a pseudo-terminal of ``cols`` x ``rows``."""
        program = Screen(self, [tractor_script(), *args], cols, rows)
        self.programs.append(program)
        return program

    def stop_all(self) -> None:
        for program in self.programs:
            program.stop()

    def report(self) -> str:
        logs = []
        for name in ("ai.log", "error.log"):  # what the AI players and crashes left
            path = self.home / "tractor" / name
            if path.exists():
                logs.append(f"---- {self.name}'s {name}:\n"
                            f"{path.read_text(errors='replace')[-2000:]}")
        return "\n".join([*(p.report() for p in self.programs), *logs])


class WaitFailed(AssertionError):
    pass


class Program:
    """A running program; subclasses keep its output."""

    name: str
    pid: int
    started: float

    def output(self) -> str:
        raise NotImplementedError

    def returncode(self) -> int | None:
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the program and everything it started (its process group), by pid."""
        if self.returncode() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGTERM)
            end = time.time() + 5
            while time.time() < end and self.returncode() is None:
                time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        end = time.time() + 5
        while time.time() < end and self.returncode() is None:
            time.sleep(0.05)

    def wait_exit(self, seconds: float) -> int | None:
        end = time.time() + seconds
        while time.time() < end:
            code = self.returncode()
            if code is not None:
                return code
            time.sleep(0.05)
        return self.returncode()

    def tail(self, chars: int = 4000) -> str:
        return self.output()[-chars:]

    def report(self) -> str:
        code = self.returncode()
        state = "running" if code is None else f"exit {code}"
        return f"==== {self.name} ({state}) last output:\n{self.tail()}"

    def wait_for(self, pattern: str, seconds: float, start: int = 0,
                 also: Callable[[], str] | None = None) -> re.Match[str]:
        """The first match of regex ``pattern`` in the output from ``start`` on, waiting up
        to ``seconds``; else `WaitFailed` with the last output (and ``also()``)."""
        regex = re.compile(pattern)
        end = time.time() + seconds
        while True:
            match = regex.search(self.output(), start)
            if match is not None:
                return match
            if time.time() > end or self.returncode() is not None:
                if self.returncode() is not None:  # the last words may still be arriving
                    time.sleep(0.3)
                    match = regex.search(self.output(), start)
                    if match is not None:
                        return match
                extra = f"\n{also()}" if also is not None else ""
                why = "ended" if self.returncode() is not None else f"after {seconds:.0f} s"
                raise WaitFailed(f"{self.name}: no {pattern!r} ({why})\n{self.report()}{extra}")
            time.sleep(0.1)


def wait_all(programs: Sequence[Program], pattern: str, seconds: float, stall: float,
             trouble: Sequence[str] = (), report: Callable[[], str] | None = None,
             what: str | None = None) -> float:
    """Wait until regex ``pattern`` is in every program's output. Fails at once when one
    shows a ``trouble`` word or ends, when ``seconds`` pass, or when no program's output
    has changed for ``stall`` seconds (a table that stands still says so early, with what
    each screen showed). Returns the seconds waited."""
    regex = re.compile(pattern)
    start = last_change = time.monotonic()
    sizes = [len(p.output()) for p in programs]

    def fail(why: str) -> WaitFailed:
        return WaitFailed(f"waiting for {what or repr(pattern)} on every screen: {why}\n"
                          + (report() if report is not None else
                             "\n\n".join(p.report() for p in programs)))

    while True:
        texts = [p.output() for p in programs]
        if all(regex.search(t) for t in texts):
            return time.monotonic() - start
        now = time.monotonic()
        for program, text in zip(programs, texts, strict=True):
            seen = [w for w in trouble if w in text]
            if seen:
                raise fail(f"{program.name} shows {seen[0]!r}")
            if program.returncode() is not None and not regex.search(text):
                raise fail(f"{program.name} ended (code {program.returncode()})")
        new_sizes = [len(t) for t in texts]
        if new_sizes != sizes:
            sizes, last_change = new_sizes, now
        elif now - last_change > stall:
            raise fail(f"nothing changed on any screen for {stall:.0f} s")
        if now - start > seconds:
            raise fail(f"not there after {seconds:.0f} s")
        time.sleep(0.2)


class Plain(Program):
    """``tractor ... --plain`` (or any command) through pipes: output kept as text, input
    sent line by line. Its reader thread also answers prompts when an `Autopilot` is on."""

    def __init__(self, person: Person, argv: list[str]) -> None:
        self.person = person
        self.name = f"{person.name}@h{person.host.index}: tractor {' '.join(argv[1:])}"
        self.started = time.time()
        self._text = ""
        self._lock = threading.Lock()
        self.autopilot: Autopilot | None = None
        self.stderr_path = person.home / f"stderr-{len(person.programs)}.txt"
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            person.host.command(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, env=person.env("dumb"), cwd=person.cwd,
            start_new_session=True)  # its own process group: stopped with its children
        self.pid = self.proc.pid
        self._reader = threading.Thread(target=self._read, daemon=True, name=self.name)
        self._reader.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            with self._lock:
                self._text += decoder.decode(data, final=not data)
                text = self._text
            if not data:
                return
            if self.autopilot is not None:
                self.autopilot.step(self, text)

    def output(self) -> str:
        with self._lock:
            return self._text

    def returncode(self) -> int | None:
        return self.proc.poll()

    def send(self, line: str) -> None:
        """Type one line (Enter included)."""
        try:
            self.proc.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError, OSError):
            pass  # the program is gone: the waits report it

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def report(self) -> str:
        return super().report() + f"\n---- stderr:\n{self.stderr()[-2000:]}"

    def stop(self) -> None:
        super().stop()
        with contextlib.suppress(Exception):
            self.proc.stdin.close()  # type: ignore[union-attr]
        self._stderr.close()


#: Prompts of ``--plain`` that ask for a decision, and those after a hand.
DECISION_PROMPTS = ("declare> ", "bury> ", "play> ", "bid> ", "show> ", "trump> ",
                    "call> ")
SUMMARY_PROMPTS = ("next hand (Enter)> ", "game over (Enter to leave)> ")


class Autopilot:
    """Answers a ``--plain`` game's decisions as README says a script does: ``hint``, then
    an empty line accepts the hint. The summary prompt is left for the test to answer.
    Runs in the program's reader thread, on every piece of output."""

    def __init__(self) -> None:
        self.answered_at = 0  #: output length when the last answer went out
        self.answers = 0
        self.hints = 0
        self.accepted = 0
        self._lock = threading.Lock()  # the reader thread and the test may both look

    def step(self, program: Plain, text: str) -> None:
        with self._lock:
            self._step(program, text)

    def _step(self, program: Plain, text: str) -> None:
        if len(text) <= self.answered_at:
            return
        if not any(text.endswith(p) for p in DECISION_PROMPTS):
            return  # not waiting for a decision (the program reads only at a prompt)
        since = text[self.answered_at:]
        self.answered_at = len(text)
        self.answers += 1
        if "Enter alone accepts it" in since:
            self.accepted += 1
            program.send("")
        else:
            self.hints += 1
            program.send("hint")


class Screen(Program):
    """A program in a pseudo-terminal (`pty_terminal.Terminal`, run in the person's host),
    its screen kept by pyte; a thread reads it. ``output()`` is the screen's text; ``raw()``
    everything written."""

    def __init__(self, person: Person, argv: list[str], cols: int, rows: int) -> None:
        from pty_terminal import Terminal

        self.person = person
        self.name = f"{person.name}@h{person.host.index}: tractor {' '.join(argv[1:])} (pty)"
        self._lock = threading.Lock()
        self._code: int | None = None
        self.started = time.time()
        # A session leader on its own terminal, in the person's host and folder.
        self.term = Terminal(person.host.command(argv), person.env("xterm-256color"), cols,
                             rows, cwd=str(person.cwd))
        self.pid, self.fd = self.term.pid, self.term.fd
        self._reader = threading.Thread(target=self._read, daemon=True, name=self.name)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the terminal's last process closed it
                data = b""
            if not data:
                return
            with self._lock:
                self.term.feed(data)

    def output(self) -> str:
        with self._lock:
            return "\n".join(line.rstrip() for line in self.term.screen.display)

    def lines(self) -> list[str]:
        return self.output().splitlines()

    def raw(self) -> str:
        with self._lock:
            return self.term.written()

    def returncode(self) -> int | None:
        if self._code is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return self._code if self._code is not None else -1
            if pid:
                self._code = os.waitstatus_to_exitcode(status)
        return self._code

    def send(self, keys: str | bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, keys.encode() if isinstance(keys, str) else keys)

    def tail(self, chars: int = 4000) -> str:
        return f"[screen]\n{self.output()}"

    def stop(self) -> None:
        super().stop()
        with contextlib.suppress(OSError):
            os.close(self.fd)


# --- two homes behind NAT, and the internet between them ------------------------------------

#: The internet of the homes lab: the servers and the homes' routers (198.18.0.0/24).
OUTSIDE = "198.18.0"
SERVERS_IP = f"{OUTSIDE}.1"
#: Home h's LAN: 198.19.h.0/24, its router at .1, its machines from .11 (198.18.0.0/15).
HOME = "198.19.{home}"
NAT_SCRIPT = Path(__file__).with_name("nat.py")


class HomesLab(Lab):
    """Two homes, each a LAN of ``per_home`` machines behind a masquerading router, and the
    outside: a network with the servers' machine (the mailbox and the relay, at
    `SERVERS_IP`) and the routers' outside addresses. A home's machines reach the outside
    through their router's NAT (they are seen from there at its address); nothing outside
    can open a connection into a home, and no route leads from one home to the other: two
    machines in different homes cannot connect to each other, only to the servers.

    ``hosts`` are the homes' machines in order (home 1's, then home 2's); ``servers`` is
    the servers' machine; names as in `Lab` (``-h1``..; ``-net``, ``-srv``, ``-r1``,
    ``-r2``, ``-s1``, ``-s2`` for the rest)."""

    def __init__(self, per_home: int, workdir: Path) -> None:
        self.per_home = per_home
        self.extra: list[str] = []
        super().__init__(2 * per_home, workdir)

    def _build(self, count: int) -> None:
        tag = self.tag
        net = self.switch  # the outside's switch
        self._switch(net)
        self.servers = self._machine(f"{tag}-srv", net, "srv0", "wan0", f"{SERVERS_IP}/24",
                                     index=0)
        for home in (1, 2):
            lan = HOME.format(home=home)
            switch = f"{tag}-s{home}"
            self._switch(switch)
            router = f"{tag}-r{home}"
            self.extra.append(router)
            _ip("netns", "add", router)
            _ip("-n", router, "link", "set", "lo", "up")
            for name, peer, switch_ns, address in (
                    ("wan0", f"r{home}w", net, f"{OUTSIDE}.{1 + home}/24"),
                    ("lan0", f"r{home}l", switch, f"{lan}.1/24")):
                _ip("link", "add", name, "netns", router, "type", "veth", "peer", "name",
                    peer, "netns", switch_ns)
                _ip("-n", switch_ns, "link", "set", peer, "master", "br0", "up")
                _ip("-n", router, "addr", "add", address, "dev", name)
                _ip("-n", router, "link", "set", name, "up")
            subprocess.run([IP, "netns", "exec", router, "sh", "-c",
                            "echo 1 > /proc/sys/net/ipv4/ip_forward"], check=True, timeout=10)
            nat = subprocess.run([IP, "netns", "exec", router, sys.executable, str(NAT_SCRIPT)],
                                 capture_output=True, text=True, timeout=30)
            if nat.returncode != 0:
                raise LabUnavailable(f"no NAT on the lab's routers: {nat.stderr.strip()}")
            for k in range(1, self.per_home + 1):
                index = (home - 1) * self.per_home + k
                host = self._machine(f"{tag}-h{index}", switch, f"p{index}", LINK,
                                     f"{lan}.{10 + k}/24", index=index)
                _ip("-n", host.ns, "route", "add", "default", "via", f"{lan}.1")
                _ip("-n", host.ns, "route", "add", MULTICAST, "dev", LINK)
                self.hosts.append(host)

    def _switch(self, ns: str) -> None:
        if ns != self.switch:
            self.extra.append(ns)
        _ip("netns", "add", ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", ns, "link", "set", "br0", "up")

    def _machine(self, ns: str, switch: str, port: str, link: str, address: str,
                 index: int) -> Host:
        if index == 0:
            self.extra.append(ns)
        _ip("netns", "add", ns)
        _ip("link", "add", link, "netns", ns, "type", "veth", "peer", "name", port,
            "netns", switch)
        _ip("-n", switch, "link", "set", port, "master", "br0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "addr", "add", address, "dev", link)
        _ip("-n", ns, "link", "set", link, "up")
        return Host(self, index, ns, address.split("/")[0], port)

    def home_of(self, host: Host) -> int:
        return 1 + (host.index - 1) // self.per_home

    def close(self) -> None:
        if self._closed:
            return
        super().close()
        for ns in self.extra:
            _remove_namespace(ns)
