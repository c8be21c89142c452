"""A real recorded match played at the simulated table with the referee's real eyes.

The rendered camera frames (hands, rolling dice, light and camera conditions) are read
by vision (``BoardReader`` calibrated on the opening position), judged by the referee
and recorded: the product end to end, as ``bgref replay`` runs it. The players make
mistakes on purpose; every one must be caught, no legal play or roll questioned, and
the recorded match must equal the source.
"""

from __future__ import annotations

import pytest

from controller.replay import replay
from engine.records.mat import read_mat
from engine.records.validate import check_match

SHORT = "bglab/match8496707.txt"      # 8 turns, a double and a drop

pytestmark = pytest.mark.timeout(600)


def test_vision_replays_a_real_match_exactly_and_catches_every_mistake(shared_data, tmp_path):
    result = replay(shared_data / "matches" / SHORT, tmp_path / "out.mat", seed=1, mistakes=0.4,
                    size=(1280, 720), difficulty=0.3)
    assert result.same_match, result.differences
    assert result.tally.injected >= 3 and result.tally.caught == result.tally.injected
    assert result.tally.false_alarms == 0
    written = check_match(read_mat((tmp_path / "out.mat").read_text(), "out.mat"))
    assert written.score == check_match(read_mat((shared_data / "matches" / SHORT).read_text(), SHORT)).score
