"""Real recorded matches replayed at the simulated table: players, referee and recorder end to end.

The referee's eyes here are the renderer's own truth (``training.truth.TruthReader``), so these
tests measure the procedure, the players and the recorder; vision is measured
by its own tests and benchmarks, and ``bgref replay`` puts them together.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import replace

import pytest

from controller.replay import replay
from engine.records.mat import read_mat
from engine.records.validate import check_match
from training.truth import TruthReader

SHORT = "bglab/match8496707.txt"      # 8 turns, a double and a drop
RESIGNED = "bglab/match926877.txt"    # one play, then a backgammon resigned


def eyes():
    reader = TruthReader()

    def look(frame):
        reader.truth = frame.truth
        return reader.read(frame.image, frame.timestamp)
    return look


def run(shared_data, name, tmp_path, **kw):
    return replay(shared_data / "matches" / name, tmp_path / "out.mat", size=(320, 180), eyes=eyes(), **kw)


@pytest.mark.parametrize("name", [SHORT, RESIGNED])
def test_a_replayed_match_is_recorded_exactly(shared_data, tmp_path, name, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    result = run(shared_data, name, tmp_path, seed=3)
    assert result.same_match, result.differences
    assert not any(scratch.iterdir()), "the temporary journal is removed when the replay ends"
    assert result.tally.false_alarms == 0
    written = check_match(read_mat((tmp_path / "out.mat").read_text(), "out.mat"))
    source = check_match(read_mat((shared_data / "matches" / name).read_text(), name))
    assert written.results == source.results and written.score == source.score
    assert (tmp_path / "out.sgf").read_text().startswith("(;FF[4]GM[6]")


def test_injected_mistakes_are_all_caught_and_corrected(shared_data, tmp_path):
    result = run(shared_data, SHORT, tmp_path, seed=7, mistakes=0.6, journal_dir=tmp_path)
    assert result.tally.injected >= 2
    assert result.tally.caught == result.tally.injected and result.tally.missed == 0
    assert result.tally.false_alarms == 0 and result.same_match, result.differences
    # illegal plays the opponent accepted, then both took back with UNDO, are in the journal
    # but not in the recorded match
    events = (tmp_path / "replay.journal").read_text()
    assert result.tally.accepted >= 1
    assert events.count('"accepted"') == events.count('"undo"') == result.tally.accepted


def eyes_that(change):
    """Perfect eyes whose every observation goes through ``change`` (a camera's weakness)."""
    look = eyes()
    return lambda frame: change(look(frame))


def counting_no_point_exactly(obs):
    """One checker more or fewer on any point, even an empty one."""
    return replace(obs, points=tuple(replace(p, count_range=(max(p.count - 1, 0), p.count + 1)) for p in obs.points))


def missing_odd_rolls(obs):
    """A roll whose two dice add up to an odd number is never seen (the opening's dice are)."""
    dice = obs.dice
    if len(dice) == 2 and dice[0].half == dice[1].half and (dice[0].value + dice[1].value) % 2:
        return replace(obs, dice=())
    return obs


def misreading_twos(obs):
    """A die showing 2 reads as 1 whenever both dice lie in one half (the opening's do not)."""
    dice = obs.dice
    if len(dice) == 2 and dice[0].half == dice[1].half:
        return replace(obs, dice=tuple(replace(die, value=1) if die.value == 2 else die for die in dice))
    return obs


def calling_sixes_cocked(obs):
    """A die showing 6 reads as cocked whenever both dice lie in one half (the opening's do not)."""
    dice = obs.dice
    if len(dice) == 2 and dice[0].half == dice[1].half:
        return replace(obs, dice=tuple(replace(die, flat=False) if die.value == 6 else die for die in dice))
    return obs


def blind_to_the_cube(obs):
    """The cube is never seen."""
    return replace(obs, cube=None)


def replay_with(shared_data, tmp_path, change):
    return replay(shared_data / "matches" / SHORT, tmp_path / "out.mat", seed=3, size=(320, 180),
                  eyes=eyes_that(change), journal_dir=tmp_path)


def test_plays_the_camera_cannot_settle_are_picked_by_the_players_on_menu(shared_data, tmp_path):
    result = replay_with(shared_data, tmp_path, counting_no_point_exactly)
    assert result.same_match, result.differences
    assert result.tally.picked >= 1 and result.tally.false_alarms == 0
    assert (tmp_path / "replay.journal").read_text().count('"chosen"') == result.tally.picked


def test_rolls_the_camera_never_saw_are_picked_with_their_plays_on_menu(shared_data, tmp_path):
    result = replay_with(shared_data, tmp_path, missing_odd_rolls)
    assert result.same_match, result.differences
    assert result.tally.picked >= 2 and result.tally.false_alarms == 0
    events = [line for line in (tmp_path / "replay.journal").read_text().splitlines() if '"chosen"' in line]
    assert sum('"roll"' in line for line in events) == result.tally.picked


def test_misread_rolls_are_put_right_with_their_plays_on_menu(shared_data, tmp_path):
    result = replay_with(shared_data, tmp_path, misreading_twos)
    assert result.same_match, result.differences
    events = (tmp_path / "replay.journal").read_text()
    # the misread roll is an alarm at the table, put right by the players with the roll and its play
    assert events.count('"type":"dice"') >= 1
    assert result.tally.false_alarms == events.count('"type":"dice"') == len(result.tally.alarms)
    assert all("Illegal" in what for _, what in result.tally.alarms), result.tally.alarms


def test_a_roll_wrongly_called_cocked_stands_when_the_players_accept_it(shared_data, tmp_path):
    result = replay_with(shared_data, tmp_path, calling_sixes_cocked)
    assert result.same_match, result.differences
    stood = [line for line in (tmp_path / "replay.journal").read_text().splitlines()
             if '"roll"' in line and '"chosen"' in line]
    assert len(stood) >= 1 and result.tally.false_alarms == len(stood)
    assert all("Roll again" in what for _, what in result.tally.alarms), result.tally.alarms


def test_cube_actions_the_camera_misses_are_chosen_on_menu(shared_data, tmp_path):
    result = replay_with(shared_data, tmp_path, blind_to_the_cube)
    assert result.same_match, result.differences
    assert result.tally.picked >= 1 and result.tally.false_alarms == 0


SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{repo!r}, {tests!r}]
    from controller.replay import replay
    from test_replay import eyes
    result = replay({match!r}, {out!r}, seed=2, journal_dir={journal!r}, size=(320, 180), eyes=eyes(),
                    progress=lambda n, log: print(n, flush=True))
    print("same" if result.same_match else result.differences, flush=True)
""")


def test_a_replay_killed_at_any_moment_resumes_to_the_identical_file(shared_data, tmp_path):
    match = str(shared_data / "matches" / SHORT)
    whole = tmp_path / "whole.mat"
    replay(match, whole, seed=2, journal_dir=tmp_path / "j0", size=(320, 180), eyes=eyes())
    out, journal = tmp_path / "resumed.mat", tmp_path / "j1"
    script = SCRIPT.format(repo=os.getcwd(), tests=os.path.dirname(__file__), match=match, out=str(out),
                           journal=str(journal))
    for stop_after in (40, 95, 150):
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            if line.strip().isdigit() and int(line) >= stop_after:
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait()
    final = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr[-2000:]
    assert final.stdout.strip().splitlines()[-1] == "same"
    assert out.read_text() == whole.read_text()
