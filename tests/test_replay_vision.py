"""A real recorded match played at the simulated table with the referee's real eyes.

The rendered camera frames (hands, rolling dice, light and camera conditions) are read
by vision (``BoardReader`` calibrated on the opening position), judged by the referee
and recorded: the product end to end, run as ``bgref replay --json``. The players make
mistakes on purpose; every one must be caught, no legal play or roll questioned, and
the recorded match must equal the source.
"""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from engine.records.mat import read_mat
from engine.records.validate import check_match

SHORT = "bglab/match8496707.txt"      # 8 turns, a double and a drop

pytestmark = pytest.mark.timeout(600)


def test_vision_replays_a_real_match_exactly_and_catches_every_mistake(shared_data, tmp_path, capsys):
    out = tmp_path / "out.mat"
    code = main(["replay", str(shared_data / "matches" / SHORT), "--out", str(out), "--seed", "1",
                 "--mistakes", "0.4", "--size", "1280x720", "--difficulty", "0.3", "--json"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert f"{out} records the same match" in printed.out
    summary = json.loads(printed.out.strip().splitlines()[-1])
    assert set(summary) == {"turns", "injected", "caught", "false_alarms", "seconds"}
    assert summary["injected"] >= 3 and summary["caught"] == summary["injected"]
    assert summary["false_alarms"] == 0
    written = check_match(read_mat(out.read_text(), "out.mat"))
    assert written.score == check_match(read_mat((shared_data / "matches" / SHORT).read_text(), SHORT)).score
