"""Position IDs, Match IDs and XGIDs on known values, and clear refusals of bad ones."""

from __future__ import annotations

import pytest

from engine.ids import IdError, MatchId, Xgid
from engine.position import BLACK, WHITE, Position, PositionError


def test_known_position_ids():
    assert Position.initial().position_id(WHITE) == "4HPwATDgc/ABMA"
    assert Position.initial("hyper").position_id(WHITE) == "AACgAgAAKgAAAA"
    assert Position.initial("nackgammon").pip_count(WHITE) == 2 * 24 + 2 * 23 + 4 * 13 + 3 * 8 + 4 * 6


def test_position_id_names_its_side_on_roll():
    after = Position.from_position_id("4HPwATCwZ/ABMA", WHITE)
    assert after.side(WHITE)[5] == 2 and after.side(WHITE)[6] == 4 and after.side(WHITE)[8] == 2
    flipped = Position.from_position_id("4HPwATCwZ/ABMA", BLACK)
    assert flipped == after.swapped()


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"])
def test_bad_position_ids_are_refused(bad):
    with pytest.raises(PositionError):
        Position.from_position_id(bad)


def test_sixteen_checkers_are_refused():
    with pytest.raises(PositionError, match="16 checkers"):
        Position.from_points({6: 16, 19: -15})
    with pytest.raises(PositionError, match="both sides"):
        Position((0, 15) + (0,) * 24, (0,) * 24 + (15, 0))


def test_xgid_of_the_opening():
    x = Xgid.decode("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    assert x.position == Position.initial() and x.dice == (5, 2) and x.on_roll == WHITE
    assert x.encode() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"


@pytest.mark.parametrize("bad", ["XGID=", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52", "XGID=-b----E-C---eE---c-e----B-:0:0:7:52:0:0:3:0:10",
                                 "XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10",
                                 "XGID=-b----E-C---eE---c-e----B-:0:0:1:79:0:0:3:0:10"])
def test_bad_xgids_are_refused(bad):
    with pytest.raises(IdError):
        Xgid.decode(bad)


def test_bad_match_ids_are_refused():
    with pytest.raises(IdError):
        MatchId.decode("cAkbAAAAAAA")
    with pytest.raises(IdError):
        MatchId(cube_value=3)
