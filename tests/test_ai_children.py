"""AI peers in child processes (`tractor.ai.hosting.children`): they run whatever folder the person
typed the command in, a child that dies is reported at once with its last line, and they
leave with the process that started them, however it ends."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import ai_processes

from tractor.ai.hosting.children import python_command


def _shadowing_clone(tmp_path: Path) -> Path:
    """A folder like a clone's root: its own `tractor/` package without the subpackages
    (`net/`, `ai/`, `cli/` live beside it and are mapped only by the installer)."""
    root = tmp_path / "clone"
    (root / "tractor").mkdir(parents=True)
    (root / "tractor" / "__init__.py").write_text('"""The rules core, as in a clone."""\n')
    return root


@pytest.mark.e2e
def test_a_child_command_ignores_the_folder_it_is_started_in(tmp_path):
    root = _shadowing_clone(tmp_path)
    naive = subprocess.run([sys.executable, "-m", "tractor.cli.main", "rules"], cwd=root,
                           capture_output=True, text=True, timeout=60)
    assert naive.returncode != 0, naive.stdout  # the trap is real: the clone shadows tractor
    ours = subprocess.run(python_command("rules"), cwd=root, capture_output=True, text=True,
                          timeout=60)
    assert ours.returncode == 0, ours.stderr
    assert "TRACTOR (Sheng Ji" in ours.stdout


REPORT = r"""
import sys
from pathlib import Path
from tractor.cli.main import install_reactor
install_reactor()
from twisted.internet import defer, task
from tractor.ai.hosting.children import spawn, stop_all
from tractor.ai.hosting.runner import spawn_ai_process
from tractor.cli.ai_children import AiStopped, until_started as _until_started

home = Path(sys.argv[1])

async def main(reactor):
    # Nobody listens on the discard port: the AI's lobby connection is refused at once.
    child = spawn_ai_process(reactor, "tcp:127.0.0.1:9", [b"t" * 32], "random",
                             log_file=str(home / "ai.log"), journal_dir=str(home / "ai"),
                             name="AI 7", cwd=sys.argv[2])
    child.on_death = lambda text: print(f"NEWS {text}")
    started = defer.Deferred()
    t0 = reactor.seconds()
    try:
        await _until_started(reactor, started, [child], 60.0, home)
    except AiStopped as exc:
        print(f"STOPPED after {reactor.seconds() - t0:.1f}s: {exc}")
    await stop_all(reactor, [child])

task.react(lambda r: defer.ensureDeferred(main(r)))
"""


@pytest.mark.e2e
def test_a_child_that_dies_is_reported_at_once_with_its_last_line(tmp_path):
    # Before: the person read "the AI peers did not join in time" 60 s later, the reason
    # only in ai.log.
    root = _shadowing_clone(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run([sys.executable, "-P", "-c", REPORT, str(home), str(root)],
                          capture_output=True, text=True, timeout=90, cwd=root.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    match = re.search(r"STOPPED after ([\d.]+)s: (.*)", proc.stdout)
    assert match, proc.stdout + proc.stderr[-2000:]
    assert float(match.group(1)) < 15
    assert re.search("AI 7 exited with status 1: .*cannot reach the lobby", match.group(2))
    # The screen's news line (the log, or above the lobby prompt), once.
    assert proc.stdout.count("NEWS AI 7 exited with status 1:") == 1, proc.stdout
    log = (home / "ai.log").read_text()
    assert re.search(r"\[AI 7\] .*cannot reach the lobby", log), log
    assert (home / "ai.log").stat().st_mode & 0o777 == 0o600


def _host_with_an_ai(home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TRACTOR_HOME": str(home), "NO_COLOR": "1"}
    host = subprocess.Popen(
        python_command("host", "--ai", "1", "--plain", "--no-announce", "--strategy",
                       "random", "--listen", "tcp:0:interface=127.0.0.1"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env, cwd=home)
    deadline = time.time() + 60
    while time.time() < deadline and not ai_processes(home):
        time.sleep(0.2)
    assert ai_processes(home), "the host started no AI child"
    time.sleep(1.0)  # the child is up and waiting in the lobby
    return host


def _gone_within(home: Path, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not ai_processes(home):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.e2e
def test_a_hosts_ai_children_leave_when_it_is_terminated(tmp_path):
    # Before: `kill HOST` (SIGTERM) left the AI children waiting in a lobby for ever.
    host = _host_with_an_ai(tmp_path)
    try:
        host.send_signal(signal.SIGTERM)
        host.wait(timeout=30)
        assert _gone_within(tmp_path, 3.0), ai_processes(tmp_path)
    finally:
        host.kill()
        for pid in ai_processes(tmp_path):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.e2e
def test_a_hosts_ai_children_leave_when_it_is_killed(tmp_path):
    host = _host_with_an_ai(tmp_path)
    try:
        host.kill()
        host.wait(timeout=30)
        assert _gone_within(tmp_path, 3.0), ai_processes(tmp_path)
    finally:
        for pid in ai_processes(tmp_path):
            os.kill(pid, signal.SIGKILL)


def _interruptible() -> None:
    # As at a terminal. A suite started in the background of a non-interactive shell
    # ignores SIGINT, and an ignored signal is inherited: the server then never heard it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.e2e
def test_stopping_an_ai_server_with_a_signal_is_an_orderly_stop(tmp_path):
    # Before: Ctrl-C printed "unexpected error: coroutine ignored GeneratorExit" (the clean-up
    # awaited inside a coroutine the shutdown was throwing away) with a traceback in
    # error.log.
    env = {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}
    server = subprocess.Popen(python_command("ai-server", "--no-announce", "--listen",
                                             "tcp:0:interface=127.0.0.1"),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=env, cwd=tmp_path, preexec_fn=_interruptible)
    assert "AI server ready" in server.stdout.readline()
    server.send_signal(signal.SIGINT)
    out, _ = server.communicate(timeout=30)
    assert "AI server stopping" in out, out
    assert "unexpected error" not in out and not (tmp_path / "error.log").exists()


def test_news_of_a_child_shows_its_own_words_not_a_log_lines_time_and_source():
    # "AI 3 exited with status 1: 2026-12-02T18:14:41+0000 [tractor.net.mesh.wire.PeerNode#info]
    # seat 0 disconnected" went to the game's log pane.
    from tractor.ai.hosting.children import AiChild

    child = AiChild("AI 3", None)
    child.childDataReceived(2, b"2026-12-02T18:14:41+0000 [tractor.net.mesh.wire.PeerNode#info] "
                               b"seat 0 disconnected\n")
    assert child.last_line == "seat 0 disconnected"
    child.childDataReceived(1, b"an AI seat stopped: the table stopped\n")
    child.childDataReceived(2, b"2026-12-02T18:14:42+0000 [-] Main loop terminated.\n")
    assert child.last_line == "an AI seat stopped: the table stopped"


def test_an_ai_that_exits_0_once_the_game_is_over_is_no_news():
    # After a game's last hand, `--plain` printed "AI 1 exited with status 0 ... (see
    # ai.log)" for each AI seat, each time reprinting the prompt.
    from twisted.internet.error import ProcessDone, ProcessTerminated
    from twisted.python.failure import Failure

    from tractor.ai.hosting.children import AiChild
    from tractor.cli.ai_children import report_deaths

    for over, reason, told in ((True, ProcessDone(0), False),
                               (False, ProcessDone(0), True),  # during the game: news
                               (True, ProcessTerminated(1), True)):
        news: list[str] = []
        child = AiChild("AI 1", None)
        report_deaths([child], news.append, lambda over=over: over)
        child.processEnded(Failure(reason))
        assert bool(news) == told, (over, reason)
    assert news[0].startswith("AI 1 exited with status 1")
    # It may finish the last hand before this seat has: its own words say the game is over.
    child, news = AiChild("AI 2", None), []
    report_deaths([child], news.append, lambda: False)
    child.childDataReceived(1, b"seat 2: game over after 3 hand(s)\n")
    child.processEnded(Failure(ProcessDone(0)))
    assert news == []
