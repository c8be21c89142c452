"""The journal: durable appends, a torn last write recovered, damage reported with file and line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from controller.clock import ClockRules, remaining
from controller.journal import Journal, JournalError


def test_events_survive_reopening(tmp_path):
    path = tmp_path / "m.journal"
    with Journal(path) as j:
        for n in range(5):
            assert j.append({"type": "roll", "n": n}) == n + 1
    assert [e["n"] for e in Journal(path).events] == list(range(5))


@pytest.mark.parametrize("cut", [1, 7, 20])
def test_a_torn_last_write_is_cut_away(tmp_path, cut):
    path = tmp_path / "m.journal"
    with Journal(path) as j:
        j.append({"type": "game"})
        j.append({"type": "roll", "dice": [3, 1]})
    data = path.read_bytes()
    path.write_bytes(data[:-cut])
    j = Journal(path)
    assert j.events == [{"type": "game"}] and j.recovered_bytes > 0
    j.append({"type": "roll", "dice": [6, 5]})
    j.close()
    assert [e["type"] for e in Journal(path).events] == ["game", "roll"]


def test_damage_in_the_middle_names_file_and_line_and_keeps_the_file(tmp_path):
    path = tmp_path / "m.journal"
    with Journal(path) as j:
        for n in range(3):
            j.append({"type": "roll", "n": n})
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"n":1', b'"n":7')
    damaged = b"\n".join(lines)
    path.write_bytes(damaged)
    with pytest.raises(JournalError, match=r"m\.journal:2: damaged journal line"):
        Journal(path)
    assert path.read_bytes() == damaged


def test_killed_writer_loses_nothing_it_reported(tmp_path):
    path = tmp_path / "m.journal"
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(os.getcwd())!r})
        from controller.journal import Journal
        j = Journal({str(path)!r})
        for n in range(100000):
            j.append({{"type": "roll", "n": n}})
            print(n, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    reported = -1
    for line in proc.stdout:
        reported = int(line)
        if reported >= 200:
            break
    proc.kill()
    proc.wait()
    events = Journal(path).events
    assert len(events) >= reported + 1 and [e["n"] for e in events] == list(range(len(events)))


def test_clock_runs_for_the_player_on_turn_with_a_delay():
    events = [{"type": "match"}, {"type": "game", "t": 0}, {"type": "opening", "white": 3, "black": 1, "t": 10},
              {"type": "play", "side": "white", "t": 40}, {"type": "roll", "side": "black", "t": 45},
              {"type": "play", "side": "black", "t": 50}]
    white, black, running = remaining(events, ClockRules(reserve=600, delay=12), now=60)
    assert white == 600 - (30 - 12) and black == 600 and running == "white"
    assert remaining(events, ClockRules(reserve=600, delay=0), now=60) == (600 - 30 - 10, 600 - 10, "white")
