"""Calibration, the observation contract and the board reader, on rendered frames."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controller.cli import main
from engine.position import WHITE, Position
from hardware.sim.renderer import Conditions, Hand, render
from vision.calibration import Calibration, CalibrationError, calibrate
from vision.observation import DieRead, Observation, PointRead
from vision.reader import BoardReader

CLEAN = Conditions.clean()
MIDGAME = Position.from_points({1: 2, 6: 4, 8: 3, 13: 4, 3: 2, 12: -5, 17: -3, 19: -5, 24: -2})


@pytest.fixture(scope="module")
def tournament():
    frame, _ = render(Position.initial(), seed=1, style="tournament", conditions=CLEAN)
    return frame, calibrate(frame)


def test_calibration_finds_the_board_corners(tournament):
    frame, cal = tournament
    _, truth = render(Position.initial(), seed=1, style="tournament", conditions=CLEAN)
    assert np.abs(cal.corners - truth.corners).max() < 8
    assert cal.white[0] > cal.black[0]          # White is the lighter colour


def test_calibration_round_trips_through_a_file(tournament, tmp_path):
    _, cal = tournament
    path = tmp_path / "cal.json"
    cal.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.homography, cal.homography)
    assert again.white == cal.white and again.empty.shape == cal.empty.shape


def test_a_damaged_calibration_file_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 1}')
    with pytest.raises(CalibrationError):
        Calibration.load(bad)
    bad.write_text("not json")
    with pytest.raises(CalibrationError):
        Calibration.load(bad)


def test_no_board_no_calibration():
    with pytest.raises(CalibrationError):
        calibrate(np.full((360, 640, 3), 120, np.uint8))
    with pytest.raises(CalibrationError):
        calibrate(np.zeros((360, 640, 3), np.uint8))


def test_reads_the_opening_position(tournament):
    frame, cal = tournament
    obs = BoardReader(cal).read(frame, timestamp=1.0)
    assert obs.settled and obs.board_visible and obs.timestamp == 1.0
    assert obs.to_position() == Position.initial()


def test_reads_a_middle_game_position(tournament):
    _, cal = tournament
    frame, truth = render(MIDGAME, seed=2, style="tournament", conditions=CLEAN)
    obs = BoardReader(cal).read(frame)
    assert [p.signed for p in obs.points] == list(truth.points)
    assert obs.to_position() == MIDGAME


def test_a_hand_over_the_board_is_never_settled(tournament):
    _, cal = tournament
    for target in (6, 13, 20):
        frame, truth = render(MIDGAME, seed=3, style="tournament", conditions=CLEAN, hand=Hand(target=target))
        assert not truth.settled
        obs = BoardReader(cal).read(frame)
        assert not obs.settled and obs.to_position() is None


def test_motion_between_frames_is_not_settled(tournament):
    frame, cal = tournament
    reader = BoardReader(cal)
    assert reader.read(frame).settled
    moved, _ = render(MIDGAME, seed=2, style="tournament", conditions=CLEAN)
    assert not reader.read(moved).settled
    assert reader.read(moved).settled


def test_black_overexposed_and_moved_frames_show_no_board(tournament):
    frame, cal = tournament
    reader = BoardReader(cal)
    assert not reader.read(np.zeros_like(frame)).board_visible
    assert not reader.read(np.full_like(frame, 255)).board_visible
    shifted = np.roll(frame, 90, axis=1)
    obs = reader.read(shifted)
    assert not obs.board_visible and obs.camera_moved and obs.to_position() is None
    with pytest.raises(ValueError):
        reader.read(frame[:100])


def test_observation_json_contract():
    points = tuple(PointRead(n, None, 0, (0, 0), 1.0) for n in range(1, 25))
    pts = list(points)
    pts[5] = PointRead(6, "white", 15, (15, 15), 0.9)
    pts[18] = PointRead(19, "black", 15, (15, 15), 0.9)
    obs = Observation(True, True, tuple(pts), dice=(DieRead(3, "white", True, False, (1, 2, 3, 4), 0.9),))
    data = obs.to_json()
    assert set(data) == {"settled", "points", "bar", "off", "dice", "cube", "position_id"}
    assert data["points"][5] == {"point": 6, "color": "white", "count": 15, "confidence": 0.9}
    assert data["dice"] == [{"value": 3, "half": "white", "flat": True, "box": [1, 2, 3, 4]}]
    assert data["position_id"] == obs.to_position().position_id(WHITE)
    pts[5] = PointRead(6, "white", 5, (5, 15), 0.9)
    unsure = Observation(True, True, tuple(pts))
    assert unsure.to_position() is None and unsure.to_json()["points"][5]["count"] == [5, 15]
    assert Observation.not_visible().to_position() is None


def test_commands_calibrate_and_read(tournament, tmp_path, capsys):
    import cv2

    frame, _ = tournament
    image = tmp_path / "opening.png"
    cv2.imwrite(str(image), frame)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(image), "--out", str(cal)]) == 0
    capsys.readouterr()
    annotated = tmp_path / "annotated.png"
    assert main(["read", str(image), "--calibration", str(cal), "--json", "--annotate", str(annotated)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settled"] and data["position_id"] == Position.initial().position_id(WHITE)
    assert cv2.imread(str(annotated)).shape == frame.shape
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros_like(frame))
    assert main(["read", str(black), "--calibration", str(cal), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settled"] is False
    assert main(["calibrate", str(black), "--out", str(tmp_path / "x.json")]) == 2
    assert "black" in capsys.readouterr().err
