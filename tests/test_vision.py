"""Calibration, the observation contract and the board reader, on rendered frames."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main
from engine.position import WHITE, Position
from hardware.sim.render_optics import CameraPose, Lighting, Sensor
from hardware.sim.render_sequence import TableCamera, bearoff_position, random_position
from hardware.sim.renderer import Conditions, Cube, Die, Hand, Scene, render
from hardware.sim.scene import BOARD_BUILDS
from vision.board_fit import Lens
from vision.board_model import ROW
from vision.calibration import Calibration, CalibrationError, calibrate, layout_masks, layout_score
from vision import checkers
from vision.checkers import CLASSES, CheckerCounter, Counts, count_class, position_classes
from vision.observation import DieRead, Observation, PointRead
from vision.occlusion import FINGERS, Coverage, morphology_where_set
from vision.reader import BoardReader
from vision.strips import BAR, CHANNELS, REGIONS, SIDE, STRIP_LENGTH, STRIP_WIDTH, regions_at

CLEAN = Conditions.clean()
MIDGAME = Position.from_points({1: 2, 6: 4, 8: 3, 13: 4, 3: 2, 12: -5, 17: -3, 19: -5, 24: -2})
# a camera a little tilted and turned, its lens bending lines, on a tournament build
HARD = Conditions(pose=CameraPose(tilt=14, azimuth=60, rotation=97, fill=0.8, offset=(0.3, -0.2), distortion=0.1),
                  messiness=0.6, board=BOARD_BUILDS["tournament"])


@pytest.fixture(scope="module")
def tournament():
    frame, truth = render(Position.initial(), dice=(), seed=1, style="tournament", conditions=CLEAN)
    return frame, truth, calibrate(frame)


@pytest.fixture(scope="module")
def felt_hard():
    """Red checkers on red points, seen through a bent lens from a tilted camera."""
    frame, truth = render(Position.initial(), dice=(), seed=4, style="felt", conditions=HARD, home="top-left")
    return frame, truth, calibrate(frame)


def point_bases(cal: Calibration) -> np.ndarray:
    return cal.to_frame(np.array([cal.model.point_base(n)[:2] for n in range(1, 25)]))


def truth_bases(truth) -> np.ndarray:
    return np.array([truth.point_polygons[n][:2].mean(axis=0) for n in range(1, 25)])


def canonical_corners(truth) -> np.ndarray:
    """The case's corners in the frame in the canonical order (White's home bottom-right)."""
    flip_x, flip_y = truth.home.endswith("left"), truth.home.startswith("top")
    canvas = {(0, 0): 0, (1, 0): 1, (1, 1): 2, (0, 1): 3}
    return np.array([truth.corners[canvas[(x ^ flip_x, y ^ flip_y)]] for x, y in ((0, 0), (1, 0), (1, 1), (0, 1))])


def test_calibration_places_every_point(tournament, felt_hard):
    for _, truth, cal in (tournament, felt_hard):
        assert np.abs(point_bases(cal) - truth_bases(truth)).max() < 1.5
        tips = cal.to_frame(np.array([cal.model.slot(n, cal.model.point_length) for n in range(1, 25)]))
        truth_tips = np.array([truth.point_polygons[n][2] for n in range(1, 25)])
        assert np.linalg.norm(tips - truth_tips, axis=1).max() < 0.4 * truth.ppd
    assert cal.white.lab[0] > 150 and abs(cal.black.lab[1] - 128) > 20      # White light, Black red


def test_calibration_measures_the_board_and_the_lens(felt_hard):
    _, truth, cal = felt_hard
    build = BOARD_BUILDS["tournament"]
    m = cal.model
    assert m.point_width == pytest.approx(build.point_width, rel=0.06)
    assert m.bar_width == pytest.approx(build.bar_width, rel=0.1)
    assert m.field_height == pytest.approx(build.field_height, rel=0.03)
    assert cal.lens.k == pytest.approx(truth.distortion, abs=0.04)
    assert np.abs(cal.case_corners - canonical_corners(truth)).max() < 0.15 * truth.ppd


def test_a_strongly_tilted_board_lit_from_one_side_calibrates():
    """A camera 19 degrees off the vertical over a board darker on one side than the
    other: the light is not taken for checkers out of place."""
    lighting = Lighting(gains=(0.87, 1.0, 1.13), gradient=(0.11, -0.32), vignette=0.22,
                        shadows=(((0.37, -0.1), (0.87, -0.1), (0.77, 1.1), (0.27, 1.1)),), shadow_depth=0.33,
                        glare=((0.54, 0.23, 31, 102), (0.28, 0.37, 118, 79)), direction=(-0.6, 0.8))
    tilted = Conditions(pose=CameraPose(tilt=19, azimuth=101, rotation=-5, fill=0.68, offset=(-0.63, 0.82),
                                        distortion=0.06), lighting=lighting, sensor=Sensor(noise=3.8), messiness=0.37)
    frame, truth = render(Position.initial(), dice=(), seed=135, style="redblack", conditions=tilted,
                          home="top-right")
    cal = calibrate(frame)
    assert np.abs(point_bases(cal) - truth_bases(truth)).max() < 2.0
    assert BoardReader(cal).read(frame).to_position() == Position.initial()


def test_layout_score_sees_through_the_light():
    """Slots showing the opening under light falling off across the board score near 1;
    the same slots taken for the opening mirrored across the bar score low."""
    white, black = layout_masks(Position.initial())
    rng = np.random.default_rng(0)
    slots = np.stack(np.meshgrid(np.arange(24.0), np.arange(ROW), indexing="ij"), axis=-1)
    looks = np.where(white[..., None], (200.0, 128, 128, 30), np.where(black[..., None], (60.0, 150, 140, 30),
                                                                          (120.0, 135, 150, 5)))
    light = 0.45 + 0.045 * slots[..., :1]
    features = looks * np.concatenate([light, np.ones((24, ROW, 3))], axis=-1) + rng.normal(0, 2, looks.shape)
    assert layout_score(features, slots, white, black) > 0.95
    across = np.r_[11:-1:-1, 23:11:-1]
    assert layout_score(features, slots, white[across], black[across]) < 0.6


def test_calibration_round_trips_through_a_file(tournament, tmp_path):
    frame, _, cal = tournament
    path = tmp_path / "cal.json"
    cal.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.corners, cal.corners) and again.lens == cal.lens and again.model == cal.model
    assert again.white.lab == cal.white.lab and again.empty.shape == cal.empty.shape
    assert np.array_equal(again.view(frame), cal.view(frame))


def test_a_damaged_calibration_file_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    for text in ('{"format": 2}', "not json", "[1, 2]", '{"format": 1}'):
        bad.write_text(text)
        with pytest.raises(CalibrationError):
            Calibration.load(bad)


def test_a_calibration_file_with_a_dice_size_no_reader_uses_is_refused(tournament, tmp_path):
    _, _, cal = tournament
    data = cal.to_json()
    assert data["dice_size"] is None
    bad = tmp_path / "cal.json"
    for size in (0.7, "0.36", [0.36]):
        bad.write_text(json.dumps({**data, "dice_size": size}))
        with pytest.raises(CalibrationError, match="dice_size"):
            Calibration.load(bad)
    bad.write_text(json.dumps({**data, "dice_size": 0.36}))
    assert Calibration.load(bad).dice_size == 0.36


def test_no_board_no_calibration():
    with pytest.raises(CalibrationError):
        calibrate(np.full((360, 640, 3), 120, np.uint8))
    with pytest.raises(CalibrationError):
        calibrate(np.zeros((360, 640, 3), np.uint8))
    with pytest.raises(CalibrationError):
        calibrate(np.zeros((40, 40, 3), np.uint8))


def test_lens_round_trip():
    lens = Lens(0.11, (1280, 720))
    pts = np.array([(0.0, 0.0), (640.0, 360.0), (1279.0, 719.0), (100.0, 600.0)])
    assert np.allclose(lens.undistort(lens.distort(pts)), pts, atol=1e-6)


def test_reads_the_opening_position(tournament, felt_hard):
    for frame, _, cal in (tournament, felt_hard):
        obs = BoardReader(cal).read(frame, timestamp=1.0)
        assert obs.settled and obs.board_visible and obs.timestamp == 1.0
        assert obs.to_position() == Position.initial()


def test_reads_a_middle_game_position(tournament, felt_hard):
    for (_, _, cal), style, conditions, home in ((tournament, "tournament", CLEAN, "bottom-right"),
                                                 (felt_hard, "felt", HARD, "top-left")):
        frame, truth = render(MIDGAME, dice=(3, 5), seed=2, style=style, conditions=conditions, home=home)
        obs = BoardReader(cal).read(frame)
        assert [p.signed for p in obs.points] == list(truth.points)
        assert obs.to_position() == MIDGAME


def test_piles_borne_off_checkers_and_the_bar(felt_hard):
    _, _, cal = felt_hard
    position = Position.from_points({1: 7, 2: 3, 3: 2, 24: -8, 23: -2, 20: -1, 12: -1}, bar=(0, 2))
    assert position.off(WHITE) == 3
    reader = BoardReader(cal)
    for seed in (5, 6, 7):
        frame, truth = render(position, dice=(), seed=seed, style="felt", conditions=HARD, home="top-left")
        obs = reader.read(frame)
        assert obs.to_position() == position, seed
        assert obs.bar["black"] == (2, 2) and obs.off["white"] == (3, 3)
        reader = BoardReader(cal)


def test_a_hand_over_the_board_is_never_settled(tournament, felt_hard):
    for (_, _, cal), style, conditions, home in ((tournament, "tournament", CLEAN, "bottom-right"),
                                                 (felt_hard, "felt", HARD, "top-left")):
        for target, side in ((6, "white"), (13, "black"), (20, "white"), ("bar", "black")):
            frame, truth = render(MIDGAME, dice=(), seed=3, style=style, conditions=conditions, home=home,
                                  hand=Hand(target=target, side=side))
            assert truth.hand
            obs = BoardReader(cal).read(frame)
            assert not obs.settled and obs.to_position() is None
            for n in truth.occluded_points:
                p = obs.point(n)
                assert not p.certain or p.signed == truth.points[n - 1]


def test_fingers_the_colour_of_the_rim_reaching_a_checker_are_a_hand():
    opening, _ = render(Position.initial(), dice=(), seed=1, style="brown", conditions=CLEAN)
    cal = calibrate(opening)
    rim = (35, 65, 105)     # the brown case's wood: the fingers hardly change it
    frame, truth = render(Position.initial(), dice=(), seed=2, style="brown", conditions=CLEAN,
                          hand=Hand(target=24, reach=0.3, skin=rim))
    assert truth.occluded_points == (1,)
    obs = BoardReader(cal).read(frame)
    assert obs.occlusion.hand and not obs.settled
    assert not obs.point(1).certain


@pytest.mark.parametrize("over, hand", [(lambda board: board * 0.6, False),          # a shadow
                                         (lambda board: board * 0.25, True),         # too dark for one
                                         (lambda board: board * 0 + (128, 128, 128), True),   # a grey sleeve
                                         (lambda board: board * 0 + (120, 160, 210), True)])  # skin
def test_a_shadow_on_the_field_is_no_hand(tournament, over, hand):
    """The empty board darkened, its colour kept, is a shadow (a hand's beside it, a cup's
    on the rim); the same place covered by something of another colour, or darkened past
    any shadow, is a hand."""
    _, _, cal = tournament
    coverage = Coverage(cal)
    s = cal.model.ppd
    fx0, fy0, _, _ = (int(round(v)) for v in cal.model.field)
    board = cal.empty.copy()
    place = (slice(fy0 + int(0.5 * s), fy0 + int(4.5 * s)), slice(fx0 + int(1 * s), fx0 + int(4 * s)))
    board[place] = np.clip(over(board[place].astype(np.float32)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(board, cv2.COLOR_BGR2LAB).astype(np.float32)
    covered = coverage.find(lab, np.zeros(lab.shape[:2], np.uint8))
    assert covered.hand == hand
    assert covered.regions.any() == hand


def test_only_an_outline_running_on_from_an_arm_is_its_fingers(tournament):
    """Beside a change outside the case (an arm, or a cup): new edges on the rim joined to
    it are fingers; as many apart from it (a checker's shadow by a tray) are not."""
    _, _, cal = tournament
    coverage = Coverage(cal)
    m, s = cal.model, cal.model.ppd
    (x0, _), (_, y1) = np.round(m.corners()[[0, 2]]).astype(int)
    h, w = coverage.rim.shape
    x = x0 + int(3 * s)
    arm = np.zeros((h, w), bool)
    arm[y1 + 1:, x:x + int(s)] = True                        # changed table below the case
    joined = np.zeros((h, w), bool)                          # three fingers over the rim from it
    apart = np.zeros((h, w), bool)                           # as long, a little aside
    for row in (y1 - 3, y1 - 5, y1 - 7):
        joined[row, x:x + int(s)] = True
        apart[row, x + int(s) + 6:x + int(2.4 * s)] = True
    assert (joined <= coverage.rim).all() and (apart <= coverage.rim).all()
    assert np.count_nonzero(coverage._fingers(arm, joined)) / s > FINGERS
    assert not coverage._fingers(arm, apart).any()


def test_motion_between_frames_is_not_settled(tournament):
    frame, _, cal = tournament
    reader = BoardReader(cal)
    assert reader.read(frame).settled
    moved, _ = render(MIDGAME, dice=(), seed=2, style="tournament", conditions=CLEAN)
    assert not reader.read(moved).settled
    assert reader.read(moved).settled


def test_black_overexposed_and_moved_frames_show_no_board(tournament):
    frame, _, cal = tournament
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
    frame, _, _ = tournament
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


def test_piles_of_six_to_nine_are_counted(tournament):
    _, _, cal = tournament
    for pile, seed in ((6, 11), (7, 12), (8, 13), (9, 11)):
        position = Position.from_points({6: pile, 8: 3, 13: 11 - pile, 3: 1, 19: -9, 24: -2, 12: -4})
        frame, truth = render(position, dice=(), seed=seed, style="tournament", conditions=CLEAN)
        obs = BoardReader(cal).read(frame)
        assert obs.point(6).count_range == (pile, pile) and obs.to_position() == position, pile


def test_a_hand_over_a_pile_leaves_an_honest_range(tournament):
    _, _, cal = tournament
    position = Position.from_points({6: 8, 8: 3, 13: 3, 3: 1, 19: -9, 24: -2, 12: -4})
    frame, truth = render(position, dice=(), seed=12, style="tournament", conditions=CLEAN,
                          hand=Hand(target=6, side="white"))
    obs = BoardReader(cal).read(frame)
    assert not obs.settled and obs.to_position() is None and 6 in truth.occluded_points
    assert obs.admits(position) and not obs.point(6).certain


def drawn_table(seed: int, style: str, home: str, hand: bool = False, bearoff: bool = False,
                dice_size: float | None = None):
    """A scene drawn as the vision bench draws one: the opening frame, then a frame of a
    position reached by random play (in the bear-off if ``bearoff``) with two dice thrown
    (``dice_size`` checker diameters wide if given), with a hand reaching for a point if
    ``hand``; (opening, frame, truth, dice)."""
    rng = np.random.default_rng(seed)
    conditions = Conditions.random(rng, 1.0)
    opening, _ = render(Position.initial(), dice=(), seed=seed, style=style, conditions=conditions, home=home)
    position = bearoff_position(rng) if bearoff else random_position(rng, int(rng.integers(0, 80)))
    reaching = Hand(target=int(rng.integers(1, 25))) if hand else None
    dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    thrown = dice if dice_size is None else tuple(Die(value, size=dice_size) for value in dice)
    frame, truth = render(position, dice=thrown, seed=seed + 7_000_000, style=style, conditions=conditions, home=home,
                          hand=reaching)
    return opening, frame, truth, dice


@pytest.mark.parametrize("seed, style, home", [(31000055, "redblack", "top-left"), (31000151, "classic", "bottom-left"),
                                              (31000557, "classic", "top-left"), (31000546, "brown", "bottom-left"),
                                              (40122, "blue", "top-left")])
def test_dice_side_by_side_and_cups_against_the_case_are_no_hand(seed, style, home):
    """Two dice touching on the field (55), dice cups set against the case (151; 40122's,
    seen from aside, stands over the rim: 0.8 square diameters there, 0.1 on the field) and
    cups whose shadows fall over the rim onto the field's edge (557, 546), in drawn light and
    camera: what the dice and cube read, the table and the shadows explain hides nothing."""
    opening, frame, truth, dice = drawn_table(seed, style, home)
    assert truth.settled and not truth.hand
    obs = BoardReader(calibrate(opening)).read(frame)
    assert obs.settled and obs.to_position() == truth.position
    assert sorted(d.value for d in obs.dice) == sorted(dice)


@pytest.mark.parametrize("seed, style, home", [(60011, "classic", "bottom-left"), (60023, "blue", "top-right"),
                                              (60045, "inlaid", "bottom-left")])
def test_one_lone_small_die_teaches_a_new_reader_its_size(seed, style, home):
    """A table's first throw of precision dice 0.36 of a checker wide where only one die is
    read lone, flat and half sure (the other one wrong): read at the 0.45 a new reader looks
    for, the lone one reads far surer at a smaller size, so the reader takes that size and
    reads the frame again, and both dice are read right."""
    opening, frame, truth, dice = drawn_table(seed, style, home, dice_size=0.36)
    assert truth.settled
    reader = BoardReader(calibrate(opening))
    assert sorted(d.value for d in reader.read(frame).dice) == sorted(dice)
    assert reader.calibration.dice_size in (0.32, 0.36, 0.40)


def test_a_row_of_checkers_off_its_points_centre_line_is_no_hand():
    """Checkers lying off their point's line onto the rim leave a sliver of change beside
    their places, on rim and field alike: it is theirs, not a hand's."""
    opening, frame, truth, _ = drawn_table(31000598, "inlaid", "bottom-right")
    assert truth.settled and not truth.hand
    obs = BoardReader(calibrate(opening)).read(frame)
    assert obs.settled and not obs.occlusion.hand and obs.admits(truth.position)


@pytest.mark.parametrize("seed, style, home, covered", [
    (31000240, "blue", "bottom-left", {3, 4, 5, 19, 20, 21, 22}),
    (700248, "brown", "top-left", {7, 8, 16, 17, 18}),
    (700460, "blue", "bottom-left", {10, 11, 12, 13, 14, 15}),
    (700568, "felt", "bottom-left", {3, 4, 5}),
    (700260, "felt", "bottom-left", {10, 11, 12}),
    (700732, "tournament", "bottom-right", {9, 10, 11, 13, 14, 15, 16})])
def test_beside_a_hand_the_points_it_leaves_clear_are_read(seed, style, home, covered):
    """The margin round a hand found stands for its fingers' edges that the change from
    the empty board missed: a point only the margin reaches, where the checker network
    sees no hand (31000240: 6 and 23; 700248: 9, the network's hand 0.36 there; 700460:
    16, 0.46), is read, and so is a point whose own width the hand does not reach though
    it comes up to its edge (700568: point 2's five checkers). Where the network sees a
    hand beside a point yet is sure of its count, the count is read (700260: point 9, the
    hand 0.90; 700732: point 12 between two of the hand's fingers, 0.83)."""
    opening, frame, truth, _ = drawn_table(seed, style, home, hand=True)
    assert truth.hand and set(truth.occluded_points) == covered
    obs = BoardReader(calibrate(opening)).read(frame)
    assert not obs.settled
    for p in obs.points:
        if p.point not in truth.occluded_points:
            assert p.certain and p.signed == truth.points[p.point - 1], p


def test_a_board_whose_outline_ranks_low_is_still_found_and_reads_its_opening():
    """A small board far from the camera (tuning seed 31000039): none of the three best
    supported fields shows the opening, so more are fitted; the one taken reads its own
    frame as the opening, checker by checker."""
    opening, _, _, _ = drawn_table(31000039, "classic", "bottom-left")
    cal = calibrate(opening)
    assert CheckerCounter(cal).misread(opening, Position.initial()) == []


def test_a_field_that_misreads_the_opening_is_no_calibration():
    """A classic board turned, its trays along the top (tuning seed 31000158): the best of
    the fields that show the opening's layout reads point 11 or point 12 or both otherwise;
    rather than a calibration that misreads frame after frame, the error says where."""
    opening, _, _, _ = drawn_table(31000158, "classic", "top-right")
    with pytest.raises(CalibrationError, match="checkers read otherwise on point") as raised:
        calibrate(opening)
    named = re.search(r"on (point .*) of the board found: set the position up", str(raised.value)).group(1)
    assert named in ("point 11", "point 12", "point 11 and point 12")


def test_calibrate_without_a_position_on_a_frame_of_the_middle_game(tournament, tmp_path, capsys):
    """Not the opening, no --position: the position read in the frame calibrates the board."""
    frame, _ = render(MIDGAME, dice=(3, 5), seed=2, style="tournament", conditions=CLEAN, home="top-left")
    image = tmp_path / "midgame.png"
    cv2.imwrite(str(image), frame)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(image), "--out", str(cal)]) == 0
    assert MIDGAME.position_id(WHITE) in capsys.readouterr().out
    assert main(["read", str(image), "--calibration", str(cal), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settled"] and data["position_id"] == MIDGAME.position_id(WHITE)
    opening, _ = render(Position.initial(), dice=(), seed=5, style="tournament", conditions=CLEAN, home="top-left")
    assert BoardReader(Calibration.load(cal)).read(opening).to_position() == Position.initial()


def test_a_die_or_the_cube_explains_a_hand_the_network_is_unsure_of_there(tournament):
    """A die or the cube read in a region explains a hand the network is unsure of there,
    but not in the margin of a hand the change from the empty board found: the fingers
    beside it may reach there."""
    _, _, cal = tournament
    reader = BoardReader(cal)
    model = cal.model
    x, y, d = model.point_base(3)
    die = (x, y + d * 2.0 * model.ppd)                      # on point 3, two diameters from its base
    bx0, by0, bx1, by1 = model.bar
    cube = ((bx0 + bx1) / 2, (by0 + by1) / 2)                # centred on the bar
    assert list(np.flatnonzero(regions_at(model, die)[:24]) + 1) == [2, 3, 4]   # a strip shows its neighbours' edges
    assert regions_at(model, cube)[BAR["white"]] and regions_at(model, cube)[BAR["black"]]
    hands = np.zeros(len(REGIONS))
    hands[[2, 9, BAR["white"]]] = 0.6                         # unsure: point 3, point 10, White's bar half
    hands[3] = 0.95                                           # sure: point 4
    clear = np.zeros(len(REGIONS), bool)
    seen = reader._hands_seen(hands, [die, cube], clear)
    assert list(np.flatnonzero(seen)) == [3, 9]               # the die and the cube explain theirs
    assert list(np.flatnonzero(reader._hands_seen(hands, [], clear))) == [2, 3, 9, BAR["white"]]
    margin = clear.copy()
    margin[[1, 2]] = True                                     # points 2 and 3 beside a hand the change found
    assert list(np.flatnonzero(reader._hands_seen(hands, [die, cube], margin))) == [2, 3, 9]


@pytest.mark.parametrize("seed, style, home, off", [(900017, "inlaid", "bottom-left", {"white": 11, "black": 3}),
                                                   (900086, "blue", "top-left", {"white": 13, "black": 0})])
def test_checkers_standing_in_a_tray_may_show_over_its_sides_and_end(seed, style, home, off):
    """Bear-off tuning seeds: White's checkers stand in their tray, a diameter high, and
    the camera, tilted, sees their tops a third of a diameter over the tray's side (900017)
    or its outer end (900086, where their outline beside a cup below the case looked like
    fingers) on the rim. They are the tray's checkers, not a hand: the frame settles."""
    opening, frame, truth, _ = drawn_table(seed, style, home, bearoff=True)
    assert truth.settled and truth.off == off
    obs = BoardReader(calibrate(opening)).read(frame)
    assert obs.settled and obs.to_position() == truth.position


def test_a_hand_only_the_network_sees_keeps_the_frame_unsettled():
    """Tuning seed 701464: a hand reaching for point 12 that the change from the empty
    board misses; the network sees it (0.69). The frame is not settled, every other point
    is read right, and point 12's one checker is admitted (read through the hand only when
    the network is sure of it beyond SURE_COUNT: 0.99986 here, so not)."""
    opening, frame, truth, _ = drawn_table(701464, "felt", "bottom-left", hand=True)
    assert truth.occluded_points == (12,)
    obs = BoardReader(calibrate(opening)).read(frame)
    assert not obs.settled and obs.occlusion.hand and obs.occlusion.covered == 0.0
    assert all(p.certain and p.signed == truth.points[p.point - 1] for p in obs.points if p.point != 12)
    assert obs.point(12).color == "black" and obs.point(12).count_range[0] <= 1 <= obs.point(12).count_range[1]


def test_a_count_the_network_is_sure_of_stands_beside_a_hand_it_is_not_certain_of():
    """A region is read through the hand the network sees there only while its count is
    beyond doubt (above SURE_COUNT) and the hand short of CERTAIN_HAND."""
    probabilities = np.full((4, CLASSES), 0.000001)
    probabilities[:, 3] = 1.0 - 0.000001 * (CLASSES - 1)    # three of White's, sure
    probabilities[3, [3, 4]] = [0.9995, 0.000471]           # three or four: sure enough for POSSIBLE only
    hands = np.array([0.6, 0.9, 0.99, 0.9])
    counts = Counts(probabilities, hands, probabilities)
    assert list(counts.sure_beside_hand()) == [True, True, False, False]


def test_a_hand_one_look_sees_goes_when_the_region_is_read_four_ways(monkeypatch):
    """Tuning seed 600775, no hand over the board: read once, the network sees a hand over
    point 8 (0.69; its four checkers are read through it, sure) and the frame never
    settles; read again mirrored and with the sides' colours exchanged, the four readings
    average 0.24 and the frame settles on the right position."""
    opening, frame, truth, _ = drawn_table(600775, "classic", "bottom-left")
    assert truth.settled and not truth.hand
    cal = calibrate(opening)
    obs = BoardReader(cal).read(frame)
    assert obs.settled and obs.to_position() == truth.position
    monkeypatch.setattr(checkers, "DOUBTFUL_HAND", 1.0)
    monkeypatch.setattr(checkers, "DOUBTFUL_COUNT", 1.0)
    once = BoardReader(cal).read(frame)
    assert not once.settled and once.occlusion.hand and once.occlusion.covered == 0.0


class _Looks:
    """A stand-in checker network that answers each of a region's four looks its own way:
    plainly and mirrored, White's three (0.55) or Black's (0.45) and a hand (0.6); with
    the sides exchanged, Black's three (0.9: White's, exchanged back) and no hand (0.1)."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def __call__(self, batch: np.ndarray) -> dict:
        self.batches.append(len(batch))
        exchanged = batch[:, SIDE, 0, 0] < 0
        counts = np.full((len(batch), CLASSES), 1e-9)
        counts[:, count_class(3)] = np.where(exchanged, 0.1, 0.55)
        counts[:, count_class(-3)] = np.where(exchanged, 0.9, 0.45)
        counts[:, 0] = 1e-4                                   # empty, for the sure regions below
        sure = batch[:, 0, 0, 0] > 0
        counts[sure] = 1e-9
        counts[sure, 0] = 1.0
        return {"counts": counts / counts.sum(axis=1, keepdims=True),
                "covered": np.where(sure, 0.001, np.where(exchanged, 0.1, 0.6))}


def test_a_doubtful_region_is_read_four_ways_with_the_sides_exchanged_back(tournament, monkeypatch):
    """Only the regions the network doubts are read again (three more looks each); a look
    with the sides' colours exchanged reads the other side's checkers, so its counts are
    exchanged back before the four are averaged (geometric mean of the probabilities, mean
    log-odds of the hand)."""
    _, _, cal = tournament
    network = _Looks()
    counter = CheckerCounter(cal, network=network)
    strips = np.ones((len(REGIONS), CHANNELS, STRIP_LENGTH, STRIP_WIDTH), np.float32)
    strips[[2, 9], 0] = -1.0                # every region sure of itself but points 3 and 10
    strips[:, SIDE] = 1.0
    monkeypatch.setattr(counter.cutter, "cut", lambda frame: frame)
    monkeypatch.setattr(counter.cutter, "features", lambda cut: strips)
    counts = counter.read(np.zeros((1, 1, 3), np.uint8))
    assert network.batches == [len(REGIONS), 3 * 2]
    white = (0.55 * 0.55 * 0.9 * 0.9) ** 0.25
    black = (0.45 * 0.45 * 0.1 * 0.1) ** 0.25
    assert counts.probabilities[2, count_class(3)] == pytest.approx(white / (white + black), rel=1e-3)
    odds = (2 * np.log(0.6 / 0.4) + 2 * np.log(0.1 / 0.9)) / 4
    assert counts.hands[2] == pytest.approx(1 / (1 + np.exp(-odds)))
    assert counts.hands[2] < 0.5 and counts.hands[0] == pytest.approx(0.001)
    assert counts.probabilities[0, 0] == pytest.approx(1.0)


def test_a_region_whose_hand_a_die_explains_is_counted(tournament):
    """The network is unsure of a hand over point 3 (0.6), where a die lies: once the die
    explains it, the point is counted from what the network reads there, not as a point a
    hand may hide anything under (the opening, but for a little doubt that two of White's
    six-point checkers are on point 3)."""
    _, _, cal = tournament
    counter = CheckerCounter(cal)
    probabilities = np.full((len(REGIONS), CLASSES), 1e-6)
    probabilities[np.arange(len(REGIONS)), position_classes(Position.initial())] = 1.0
    probabilities[5, count_class(3)] = 0.02
    probabilities[2, count_class(2)] = 0.02
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    hands = np.zeros(len(REGIONS))
    hands[2] = 0.6
    unsure = counter.weigh(probabilities, hands)
    assert unsure.marginals[2, count_class(2)] > 0.002      # a hand may hide two there: a range
    explained = counter.weigh(probabilities, hands, np.zeros(len(REGIONS), bool))
    assert explained.marginals[2].argmax() == 0 and explained.marginals[2, count_class(2)] < 0.002


def test_a_card_against_the_case_over_the_rim_hides_nothing(tournament):
    """A score card set down against the case, over the outer part of the rim: nothing
    read lies under it or within its margin, so it is no hand (a referee would otherwise
    wait for ever); the same card pushed onto the field is one."""
    _, _, cal = tournament
    coverage = Coverage(cal)
    m, s = cal.model, cal.model.ppd
    empty = cv2.cvtColor(cal.empty, cv2.COLOR_BGR2LAB).astype(np.float32)
    explained = np.zeros(empty.shape[:2], np.uint8)
    x0, y1 = int(m.field[0] + 3 * s), int(round(m.corners()[2][1]))
    for top, hand in ((y1 - 0.22 * s, False), (m.field[3] - 0.3 * s, True)):
        frame = empty.copy()
        frame[int(top):y1 + int(s), x0:x0 + int(4 * s)] = (95.0, 0.0, 0.0)      # a white card
        covered = coverage.find(frame, explained)
        assert covered.hand == hand
        assert covered.regions.any() == hand


def test_a_flat_one_seen_from_the_side_at_the_frame_edge_is_flat():
    """A flat one near the top edge of a tilted camera's frame shows two of its sides; a
    patch cut at its pip reads it leaning, one cut at its middle reads it flat. The die's
    middle (its footprint's remains) is read first, so it is flat: a cocked die would
    have the referee call "roll again" on a legal roll (a table at the referee bench,
    1 min 33 s into its first match)."""
    camera = TableCamera(style="classic", seed=7, fps=15.0, size=(1280, 720), difficulty=0.5)

    def frame_of(scene: Scene) -> np.ndarray:
        return camera.renderer.render_scene(scene, camera.conditions, camera.layout_seed, noise_seed=1,
                                            clutter_seed=camera.clutter_seed)[0]

    position = Position(white=(0, 1, 3, 2, 0, 2, 2, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0),
                        black=(0, 1, 0, 0, 0, 2, 3, 2, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0))
    dice = (Die(4, "black", at=(3.865, 5.549), yaw=1.406), Die(1, "black", at=(4.470, 2.932), yaw=0.955))
    reader = BoardReader(calibrate(frame_of(Scene(Position.initial())), Position.initial()))
    obs = reader.read(frame_of(Scene(position, dice, Cube(4, "black"))))
    assert sorted((d.value, d.flat) for d in obs.dice) == [(1, True), (4, True)]


def test_a_die_where_a_rows_checkers_meet_among_many_spots_is_read():
    """A six lying among checkers, where the gaps between a row's checkers look like pips:
    spots there count less, and more than sixteen candidates on the checkers' rims rank
    above the die's. The candidates ranked next are read as well, a die there only if sure."""
    rng = np.random.default_rng(160241)
    conditions = Conditions.random(rng, 1.0)
    position = Position.from_points([1, -2, 4, 3, -1, -2, 1, 1, 0, -2, 0, 0, 0, 3, 0, -3, -2, 0, 0, 2, 0, 0, -2, -1])
    opening, _ = render(Position.initial(), dice=(), seed=160241, style="tournament", conditions=conditions,
                        home="top-left")
    frame, truth = render(position, dice=(4, 6), seed=7_160_241, style="tournament", conditions=conditions,
                          home="top-left")
    obs = BoardReader(calibrate(opening)).read(frame)
    assert truth.settled and obs.settled
    assert sorted(d.value for d in obs.dice) == [4, 6]


def test_the_rim_beside_the_openings_rows_is_kept_as_it_shows():
    """The empty board is rebuilt where the opening's checkers may hide it, a little onto
    the rim beside their rows; the rim there, lit greyer than the black case's colour
    elsewhere, shows no checker's colour, so it is kept as the opening shows it. Rebuilt
    black, a later frame changed there as much as a hand does, and was never settled."""
    rng = np.random.default_rng(160129)
    conditions = Conditions.random(rng, 1.0)
    position = Position.from_points([2, 3, 0, -1, 0, -2, 0, 2, 1, -1, 0, 0, 2, 0, 0, 0, -2, 0, 0, -2, -2, 0, 5, -5])
    opening, _ = render(Position.initial(), dice=(), seed=160129, style="tournament", conditions=conditions,
                        home="top-left")
    frame, truth = render(position, dice=(4, 2), seed=7_160_129, style="tournament", conditions=conditions,
                          home="top-left")
    obs = BoardReader(calibrate(opening)).read(frame)
    assert truth.settled and obs.settled and not obs.occlusion.hand
    assert obs.to_position() == position


def test_a_die_explains_no_hand_the_network_sees_beside_an_arm_on_the_table():
    """Fingertips the colour of the case over the checkers at its edge, the arm on the
    table beside it: nothing on the board changed enough to show, and the network's hand
    over point 3 (0.59) is doubtful, where a die lies. A die explains such a hand only away
    from an arm: beside one, the frame is not settled."""
    rng = np.random.default_rng(170404)
    conditions = Conditions.random(rng, 1.0)
    position = Position.from_points([3, 6, -3, 3, 1, -1, 1, 0, 0, -2, 0, 0, 0, 1, 0, 0, -1, 0, -3, 0, -2, -1, 0, -1],
                                    bar=(0, 1))
    opening, _ = render(Position.initial(), dice=(), seed=170404, style="brown", conditions=conditions,
                        home="top-left")
    frame, truth = render(position, dice=(2, 3), seed=7_170_404, style="brown", conditions=conditions,
                          home="top-left", hand=Hand(target=3))
    assert truth.occluded_points == (2, 3, 4)
    obs = BoardReader(calibrate(opening)).read(frame)
    assert not obs.settled and obs.occlusion.hand


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.sampled_from([cv2.MORPH_DILATE, cv2.MORPH_CLOSE]),
       st.integers(1, 40), st.integers(0, 12))
def test_morphology_round_what_is_set_is_the_whole_images(seed, operation, kernel, blobs):
    """Dilating or closing only round what is set gives what the whole image's does, at its
    edges too (the hand finder's kernels are a checker wide and more, its change mostly none)."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((int(rng.integers(20, 160)), int(rng.integers(20, 160))), np.uint8)
    for _ in range(blobs):
        x, y = int(rng.integers(0, mask.shape[1])), int(rng.integers(0, mask.shape[0]))
        cv2.circle(mask, (x, y), int(rng.integers(0, 6)), 1, -1)
    element = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel | 1, kernel | 1))
    assert np.array_equal(morphology_where_set(mask, operation, element), cv2.morphologyEx(mask, operation, element))


def test_dice_teach_the_reader_their_size_only_once_still():
    """A rolling die is blurred: dice seen while the frame moves teach no size; the same
    dice at rest do (precision dice 0.36 of a checker wide, the reader first looking for 0.45)."""
    dice = (Die(1, "white", yaw=1.08, size=0.36), Die(5, "black", yaw=2.11, size=0.36))
    opening, _ = render(Position.initial(), dice=(), seed=14, style="felt", conditions=CLEAN)
    frame, _ = render(Position.initial(), dice=dice, seed=14, style="felt", conditions=CLEAN)
    reader = BoardReader(calibrate(opening))
    reader.read(opening)
    moving = reader.read(frame)
    assert moving.occlusion.motion and reader._dice_reader.size == 0.45
    still = reader.read(frame)
    assert not still.occlusion.motion and reader._dice_reader.size in (0.32, 0.36, 0.40)
    assert sorted((d.value, d.half) for d in still.dice) == [(1, "white"), (5, "black")]


def test_a_learned_dice_size_is_kept_in_the_calibration_file(tmp_path):
    """A reader started again from its calibration file reads the table's dice at the size
    it learned (precision dice 0.36 of a checker wide): two of them resting against each
    other, which teach no size, read 3-5 from the first frame, where a reader looking for
    usual dice reads a 6."""
    def frame(*dice):
        return render(Position.initial(), dice=dice, seed=32, style="tournament", conditions=CLEAN)[0]

    calibration = calibrate(frame())
    reader = BoardReader(calibration)
    reader.read(frame(Die(5, "white", yaw=0.2, size=0.36), Die(2, "black", yaw=0.9, size=0.36)))
    assert calibration.dice_size is None and reader.calibration.dice_size == 0.36
    reader.calibration.save(tmp_path / "cal.json")
    touching = frame(Die(3, "white", yaw=9.6, size=0.36), Die(5, "white", touching=True, size=0.36))
    assert sorted(d.value for d in BoardReader(Calibration.load(tmp_path / "cal.json")).read(touching).dice) == [3, 5]
    assert sorted(d.value for d in BoardReader(calibration).read(touching).dice) == [6]


@pytest.mark.parametrize("blur", [2.5, 5.0])
def test_a_frame_blurred_by_a_shaking_camera_is_not_settled(blur):
    """A camera shaking in place blurs its frame without moving it: the frame's detail,
    against the previous frame's, tells it; the next still frame settles again, and still
    frames whose sensor noise differs stay settled."""
    def frame(sensor: Sensor):
        return render(MIDGAME, dice=(3, 5), seed=9, style="inlaid", conditions=replace(CLEAN, sensor=sensor))[0]

    opening, _ = render(Position.initial(), dice=(), seed=9, style="inlaid", conditions=CLEAN)
    reader = BoardReader(calibrate(opening))
    still = frame(Sensor(noise=2.0))
    reader.read(still)
    assert reader.read(frame(Sensor(noise=2.0, jpeg_quality=80))).settled
    shaken = reader.read(frame(Sensor(noise=2.0, blur=blur, blur_angle=30.0)))
    assert shaken.occlusion.motion and not shaken.settled
    assert reader.read(still).settled
