"""`tractor stats` (issue 32): records from journals built with the real store API, in both
modes, with an abandoned game and one still going on; what journal layout 4 keeps (who
declared each hand, who won the game); what stats says of a game recorded before it; the
JSON document; the command through `main` in-process."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from tractor.cli.journal_open import read_journal
from tractor.cli.main import main
from tractor.cli.stats import Records, records
from tractor.cli.stats_view import DOCUMENT, stats_document, stats_lines
from tractor.game import after_hand
from tractor.net.journal.records import GameStart
from tractor.net.journal.store import Journal
from tractor.records import HandResult, friends_forfeit, friends_result, hand_result
from tractor.rules import Rules

FIXTURE = Path(__file__).parent / "fixtures" / "journal-layout2.sqlite"
HUMANS = ["Ann", "Bob", "Cy", "Dee", "Eve"]
PRACTICE = ["Ann", "AI 1", "AI 2", "AI 3"]
TEAMS_10 = Rules(start_level="10")
TEAMS_K = Rules(start_level="K")
FRIENDS_K = Rules(players=5, mode="friends", start_level="K")


def new_game(journal: Journal, game: str, rules: Rules, names: Sequence[str],
             kinds: Sequence[str] | None = None, seat: int = 0, **meta: object) -> None:
    """A game's start as `take_seat` keeps it (keys and seeds of no use here)."""
    journal.add_game(game, GameStart(seat, bytes(32), bytes(32), rules,
                                     game.encode().ljust(16, b"."),
                                     tuple(bytes([s]) * 32 for s in range(rules.players)), 0))
    journal.set_meta(game, {"names": list(names),
                            "kinds": list(kinds or ["human"] * rules.players), **meta})


def play_teams(journal: Journal, game: str, rules: Rules,
               hands: Sequence[tuple[int, int]], recorded: bool = True) -> tuple[int, ...]:
    """Hands of teams (declaring team, defenders' points) kept as `PeerNode` keeps them
    (every result so far, who declared, whether the game is over and who won), or, not
    ``recorded``, as a tractor before journal layout 4 kept them (the results alone).
    Returns the winners."""
    levels, results, sides, winners = [rules.start_level] * 2, [], [], ()
    for team, points in hands:
        starter = team  # seat 0 or 1 starts for its team
        res = hand_result(rules, points, 0, 1, False, team, starter)
        results.append(res)
        sides.append((team, team + 2))
        winners = after_hand(rules, levels, 0, res)[3]
        if recorded:
            journal.keep(game, [], [], [], results, bool(winners), sides, winners)
        else:
            journal.record_result(game, len(results) - 1, res, finished=bool(winners))
    return winners


def practice_and_host_games(journal: Journal) -> None:
    """Ann's games: a practice game against hard AI seats (lost), a table of people (won),
    a find-a-friend table (won), one abandoned, one going on."""
    new_game(journal, "practice-0", TEAMS_10, PRACTICE, ["human", "ai", "ai", "ai"],
             practice=True, level="hard", local_ai=True)
    assert play_teams(journal, "practice-0", TEAMS_10,
                      [(0, 0), (0, 130), (1, 0), (1, 20)]) == (1, 3)
    new_game(journal, "people-0", TEAMS_K, HUMANS[:4])
    assert play_teams(journal, "people-0", TEAMS_K, [(0, 0)]) == (0, 2)
    new_game(journal, "friends-0", FRIENDS_K, HUMANS)
    res = friends_result(FRIENDS_K, 0, 0, 1, False, 0, (0, 3))
    journal.keep("friends-0", [], [], [], [res], True, [(0, 3)], (0, 3))
    new_game(journal, "halted-0", TEAMS_K, HUMANS[:4])
    assert play_teams(journal, "halted-0", TEAMS_K, [(0, 100)]) == ()
    journal.mark_finished("halted-0")  # its table halted: it never goes on
    new_game(journal, "going-0", TEAMS_K, ["Ann", "AI 1", "Bob", "AI 2"],
             ["human", "ai", "human", "ai"])


@pytest.fixture
def ann(tmp_path: Path) -> Journal:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    practice_and_host_games(journal)
    return journal


def person(figures: Records, name: str, ai: bool = False) -> dict[str, object]:
    p = figures.people[(name, ai)]
    return {"games": p.games, "won": p.won, "unfinished": p.unfinished,
            "declaring": (p.declaring.won, p.declaring.lost),
            "defending": (p.defending.won, p.defending.lost),
            "unknown": (p.side_not_recorded.won, p.side_not_recorded.lost),
            "levels": p.levels_gained}


def partners(figures: Records, mode: str) -> dict[tuple[str, str], tuple[int, int]]:
    return {p.pair: (p.together, p.won) for p in figures.partners.values() if p.mode == mode}


def test_figures_per_person_and_per_ai_level(ann):
    figures = records(ann)
    assert (figures.finished, figures.in_progress, figures.ended_unwon) == (3, 1, 1)
    assert figures.here_as == ["Ann"]
    # Ann: lost the practice game (declared hands 1 and 2, won the first; defended 3, 4),
    # won the people's table in one hand and the find-a-friend hand with Dee.
    assert person(figures, "Ann") == {"games": 3, "won": 2, "unfinished": 2,
                                      "declaring": (3, 1), "defending": (0, 2),
                                      "unknown": (0, 0), "levels": 3 + 3 + 3}
    # The three hard AI seats of the practice game, one row: AI 2 (Ann's partner) lost
    # with her, AI 1 and AI 3 won (gaining 1 + 3 + 2 levels each). The AI seats of the
    # game going on are of a level the journal does not say.
    assert person(figures, "AI (hard)", ai=True) == {
        "games": 3, "won": 2, "unfinished": 0, "declaring": (2 + 2 + 1, 1),
        "defending": (2, 2 + 2), "unknown": (0, 0), "levels": 6 + 6 + 3}
    assert person(figures, "AI (level unknown)", ai=True)["unfinished"] == 2
    assert person(figures, "Bob") == {"games": 2, "won": 0, "unfinished": 2,
                                      "declaring": (0, 0), "defending": (0, 2),
                                      "unknown": (0, 0), "levels": 0}
    assert person(figures, "Dee")["won"] == 1 and person(figures, "Eve")["games"] == 1


def test_partners_by_game_with_teams_and_by_hand_in_find_a_friend(ann):
    figures = records(ann)
    assert partners(figures, "teams") == {
        ("AI (hard)", "Ann"): (1, 0), ("AI (hard)", "AI (hard)"): (1, 1),
        ("Ann", "Cy"): (1, 1), ("Bob", "Dee"): (1, 0)}
    # The starter's side (Ann and the friend Dee) and the defenders' pairs, one hand.
    assert partners(figures, "friends") == {
        ("Ann", "Dee"): (1, 1), ("Bob", "Cy"): (1, 0), ("Bob", "Eve"): (1, 0),
        ("Cy", "Eve"): (1, 0)}


def test_a_hand_forfeited_in_find_a_friend_is_lost_by_the_offender_alone(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    new_game(journal, "f", FRIENDS_K, HUMANS)
    res = friends_forfeit(FRIENDS_K, 1, 0, (0,))  # Bob stalled; Ann had no friend yet
    journal.keep("f", [], [], [], [res], True, [(0,)], (0, 2, 3, 4))
    figures = records(journal)
    assert person(figures, "Bob")["defending"] == (0, 1)
    assert person(figures, "Cy")["defending"] == (1, 0)
    assert partners(figures, "friends") == {
        ("Bob", "Cy"): (1, 0), ("Bob", "Dee"): (1, 0), ("Bob", "Eve"): (1, 0),
        ("Cy", "Dee"): (1, 1), ("Cy", "Eve"): (1, 1), ("Dee", "Eve"): (1, 1)}


def test_a_game_this_version_cannot_read_is_left_out_whole(ann):
    with ann.db:  # a damaged row: the result of the people's table's only hand
        ann.db.execute("UPDATE results SET result = '{}' WHERE game = 'people-0'")
    figures = records(ann)
    assert (figures.finished, figures.unreadable) == (2, 1)
    assert person(figures, "Cy") == {"games": 1, "won": 0, "unfinished": 1,
                                     "declaring": (0, 0), "defending": (0, 1),
                                     "unknown": (0, 0), "levels": 0}
    assert ("Ann", "Cy") not in partners(figures, "teams")
    assert "1 game this version cannot read: left out." in " ".join(stats_lines(figures))


def test_the_table_fits_80_columns_and_says_whose_records_they_are(ann):
    lines = stats_lines(records(ann), 80)
    assert lines[0] == f"Records from the journal {ann.path}"  # a path is not cut
    assert all(len(line) <= 80 for line in lines[1:]), [ln for ln in lines if len(ln) > 80]
    text = " ".join(lines)
    assert "The games played on this machine as Ann," in text
    assert "3 finished games counted" in text and "2 unfinished games" in text
    row = next(line for line in lines if line.startswith("Ann "))
    assert row.split() == ["Ann", "3", "2", "66%", "3-1", "0-2", "9", "2"]
    assert any(line.split()[:5] == ["AI", "(hard)", "+", "AI", "(hard)"] for line in lines)
    assert "By partner, find-a-friend (hands on the same side):" in lines


def test_one_game_counts_once_when_several_seats_share_the_journal(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    for seat in (0, 1):  # two seats of one table on this machine
        new_game(journal, f"table-{seat}", TEAMS_K, HUMANS[:4], seat=seat)
        journal.db.execute("UPDATE games SET table_id = ? WHERE id = ?",
                           (b"one table.......", f"table-{seat}"))
        play_teams(journal, f"table-{seat}", TEAMS_K, [(1, 0)])
    figures = records(journal)
    assert figures.finished == 1 and figures.here_as == ["Ann", "Bob"]
    assert person(figures, "Bob")["won"] == 1 and person(figures, "Ann")["games"] == 1


def test_a_game_recorded_before_layout_4_says_what_it_cannot_know(tmp_path):
    """The winners are worked out by the game's own rule from the results; the first
    hand's declaring team was never kept: counted apart, not guessed. Later hands: the
    team the previous result named."""
    journal = Journal(str(tmp_path / "old.sqlite"))
    new_game(journal, "old-0", TEAMS_10, HUMANS[:4])
    play_teams(journal, "old-0", TEAMS_10, [(0, 0), (0, 130), (1, 0), (1, 20)],
               recorded=False)
    assert [h.declaring for h in journal.hands("old-0")] == [None] * 4
    assert journal.games()[0].winners is None
    figures = records(journal)
    assert figures.finished == 1
    assert person(figures, "Bob") == {"games": 1, "won": 1, "unfinished": 0,
                                      "declaring": (2, 0), "defending": (1, 0),
                                      "unknown": (0, 1), "levels": 6}
    text = " ".join(stats_lines(figures, 80))
    assert "did not record (games kept by an older tractor): 4 seat-hands" in text


def test_the_committed_old_journal_reads_as_one_game_going_on(tmp_path):
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURE, path)
    figures = records(read_journal(str(path)))
    assert (figures.finished, figures.in_progress, figures.ended_unwon) == (0, 1, 0)
    text = " ".join(stats_lines(figures, 80))
    assert "No finished game yet (a side won none): no figures to show. 1 unfinished " \
        "game (1 going on): not counted." in text
    assert "column" not in text  # no table is shown: none of its columns is named


def test_layout_4_keeps_who_declared_and_who_won(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    new_game(journal, "g", TEAMS_K, HUMANS[:4])
    assert play_teams(journal, "g", TEAMS_K, [(1, 30)]) == (1, 3)
    (game,) = journal.games()
    assert game.finished and game.winners == (1, 3)
    assert [h.declaring for h in journal.hands("g")] == [(1, 3)]


def test_a_result_replaced_by_a_forfeit_is_kept_replaced(tmp_path):
    """A forfeit voted after this peer finished the hand replaces its result (and may
    take the game's win away): the journal keeps the new result, not the first."""
    journal = Journal(str(tmp_path / "j.sqlite"))
    new_game(journal, "g", TEAMS_K, HUMANS[:4])
    won = hand_result(TEAMS_K, 0, 0, 1, False, 0, 0)
    journal.keep("g", [], [], [], [won], True, [(0, 2)], (0, 2))
    forfeited = hand_result(TEAMS_K, 200, 0, 1, False, 0, 0)  # seat 0 forfeits it
    journal.keep("g", [], [], [], [forfeited], False, [(0, 2)], ())
    assert journal.results("g") == [forfeited.to_data()]
    assert journal.games()[0].winners is None


def test_ai_seats_at_a_host_table_are_known_by_the_level_their_start_said(tmp_path):
    """The AI seats of `tractor host` and `join` tables were all "AI (level unknown)": the
    start says each AI's level now (`ai_levels`), kept with the names and kinds. A level
    the AI players do not have, or none said (an older `tractor ai`), is not known."""
    journal = Journal(str(tmp_path / "j.sqlite"))
    new_game(journal, "lan-0", TEAMS_K, ["Ann", "AI 1", "Bob", "AI 2"],
             ["human", "ai", "human", "ai"], ai_levels=[None, "hard", None, "easy"])
    new_game(journal, "lan-1", TEAMS_K, ["Ann", "AI 1", "Bob", "AI 2"],
             ["human", "ai", "human", "ai"], ai_levels=[None, "legendary", None])
    new_game(journal, "lan-2", TEAMS_K, ["Ann", "AI 1", "Bob", "AI 2"],
             ["human", "ai", "human", "ai"], ai_levels="hard")
    figures = records(journal)
    assert sorted(name for name, ai in figures.people if ai) == [
        "AI (easy)", "AI (hard)", "AI (level unknown)"]
    assert person(figures, "AI (level unknown)", ai=True)["unfinished"] == 4
    assert figures.people[("AI (hard)", True)].level == "hard"


def test_the_levels_a_start_said_are_kept_where_stats_reads_them(tmp_path):
    """`take_seat` keeps each seat's AI level with the names and kinds (a real seat on an
    in-memory reactor)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from twisted.internet.testing import MemoryReactorClock

    from tractor.net.lobby.seating import Seating
    from tractor.net.mesh.wire import PeerNode
    from tractor.net.table.player import RandomPlayer
    from tractor.net.table.seat import game_id, kept_grace, take_seat

    keys = [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(4)]
    seating = Seating(b"t" * 32, "Friday", Rules(), 0,
                      tuple(k.public_key().public_bytes_raw() for k in keys),
                      {s: f"tcp:127.0.0.1:{41000 + s}" for s in range(4)},
                      ("Ann", "AI 1", "Bob", "AI 2"), ("human", "ai", "human", "ai"),
                      levels=(None, "hard", None, "easy"))
    journal = Journal(str(tmp_path / "j.sqlite"))
    node = PeerNode(MemoryReactorClock(), grace=15.0)
    take_seat(node, seating, keys[0], RandomPlayer(0), journal=journal)
    node.stop()
    assert journal.meta(game_id(seating))["ai_levels"] == [None, "hard", None, "easy"]
    # (and the grace period, which a resumed seat and its AI seats wait as the first run did)
    assert kept_grace(journal.meta(game_id(seating))) == 15.0
    assert sorted(name for name, ai in records(journal).people if ai) == [
        "AI (easy)", "AI (hard)"]


def test_the_json_document(ann):
    doc = json.loads(json.dumps(stats_document(records(ann))))
    assert doc["version"] == DOCUMENT and doc["played_here_as"] == ["Ann"]
    assert doc["games"] == {"finished": 3, "in_progress": 1, "ended_without_winner": 1,
                            "unreadable": 0}
    assert [p["name"] for p in doc["people"]][0] == "Ann"
    hard = next(p for p in doc["people"] if p["name"] == "AI (hard)")
    assert hard == {"name": "AI (hard)", "ai": True, "level": "hard", "games": 3, "won": 2,
                    "unfinished": 0,
                    "hands": {"declaring": {"won": 5, "lost": 1},
                              "defending": {"won": 2, "lost": 4},
                              "side_not_recorded": {"won": 0, "lost": 0}},
                    "levels_gained": 15}
    assert {"mode": "friends", "people": ["Ann", "Dee"], "hands": 1, "won": 1} \
        in doc["partners"]
    assert {"mode": "teams", "people": ["Ann", "Cy"], "games": 1, "won": 1} in doc["partners"]


def test_the_command_in_process(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TRACTOR_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["stats"]) == 0
    assert capsys.readouterr().out == "no games yet: `tractor play` starts one\n"
    assert main(["stats", "--json"]) == 0  # a script gets its document all the same
    empty = json.loads(capsys.readouterr().out)
    assert empty["people"] == [] and empty["games"]["finished"] == 0
    journal = Journal(str(tmp_path / "journal.sqlite"))
    practice_and_host_games(journal)
    journal.close()
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Records from the journal {tmp_path}") and "\nAnn " in out
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"]["finished"] == 3


def test_a_journal_that_cannot_be_read_gets_the_words_history_gets(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setenv("TRACTOR_HOME", str(tmp_path))
    (tmp_path / "journal.sqlite").write_bytes(b"not a database at all" * 100)
    assert main(["history"]) == 1
    said = capsys.readouterr()
    assert main(["stats", "--json"]) == 1
    assert capsys.readouterr() == said
    assert "is not a readable journal" in said.out + said.err


def test_results_are_plain_hand_results(ann):
    """The store gives back what `HandResult.to_data` wrote (stats reads it so)."""
    for g in ann.games():
        for hand in ann.hands(g.id):
            assert HandResult.from_data(hand.result).to_data() == hand.result
