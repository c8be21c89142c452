"""The simulated overhead camera: reproducible frames whose ground truth matches what is drawn."""

import cv2
import numpy as np
import pytest

from engine.position import Position
from hardware.sim.render_optics import CameraPose
from hardware.sim.render_styles import STYLES
from hardware.sim.render_spec import Scene
from hardware.sim.scene import BOARD_BUILDS, DIE_SIZE
from hardware.sim.renderer import (CUBE_FACES, Clutter, Conditions, Cube, Die, Hand, board_renderer, render)

SMALL = (480, 270)


def inside(box, size):
    x, y, w, h = box
    return x >= 0 and y >= 0 and w > 0 and h > 0 and x + w <= size[0] and y + h <= size[1]


def test_same_seed_gives_the_same_frame_and_another_seed_does_not():
    pos = Position.initial()
    a, ta = render(pos, dice=(4, 2), seed=11, size=SMALL, hand=True)
    b, tb = render(pos, dice=(4, 2), seed=11, size=SMALL, hand=True)
    c, _ = render(pos, dice=(4, 2), seed=12, size=SMALL, hand=True)
    assert np.array_equal(a, b)
    assert ta.to_json() == tb.to_json()
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_renders_a_full_frame(style):
    image, truth = render(Position.initial(), dice=(6, 1), seed=3, style=style, size=SMALL)
    assert image.shape == (SMALL[1], SMALL[0], 3) and image.dtype == np.uint8
    assert truth.style == style
    assert image.std() > 10          # not a blank frame


def test_at_least_five_styles_including_the_tournament_look():
    assert len(STYLES) >= 5
    t = STYLES["tournament"]
    assert t.white.silver and t.black.silver


def test_truth_counts_match_the_position_and_the_checkers_drawn():
    pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 1, 1: -2, 12: -5, 17: -3, 19: -4}, bar=(1, 1))
    image, truth = render(pos, seed=5, size=SMALL)
    assert truth.points == tuple(pos.points())
    assert truth.bar == {"white": 1, "black": 1}
    counted = {}
    for c in truth.checkers:
        counted[(c.owner, c.location)] = counted.get((c.owner, c.location), 0) + 1
        assert inside(c.box, SMALL)
    assert counted[("white", 6)] == 5 and counted[("black", 19)] == 4
    assert counted[("white", "bar")] == 1 and counted[("black", "bar")] == 1
    assert sum(counted.values()) == 30


def test_borne_off_checkers_stand_in_their_own_tray():
    white = [0] * 26
    black = [0] * 26
    white[0], white[3] = 12, 3
    black[0], black[5] = 7, 8
    pos = Position(tuple(white), tuple(black))
    _, truth = render(pos, seed=2, size=SMALL, conditions=Conditions.clean())
    assert truth.off == {"white": 12, "black": 7}
    off = [c for c in truth.checkers if c.location == "off"]
    assert len(off) == 19
    ys = {owner: np.mean([c.centre[1] for c in off if c.owner == owner]) for owner in ("white", "black")}
    assert ys["white"] > ys["black"]       # White sits at the bottom of the clean canonical view


def test_fifteen_on_one_point_are_piled_in_layers():
    pos = Position.from_points({6: 15, 19: -15})
    _, truth = render(pos, seed=1, size=SMALL)
    assert truth.layers[6] >= 2 and truth.layers[19] >= 2
    on_six = [c for c in truth.checkers if c.location == 6]
    assert len(on_six) == 15
    assert any(c.layer > 0 for c in on_six)


@pytest.mark.parametrize("value", CUBE_FACES)
@pytest.mark.parametrize("side", ["white", "black"])
def test_owned_cube_shows_its_value_on_the_owners_side(value, side):
    _, truth = render(Position.initial(), cube=Cube(value, side), seed=value, size=SMALL,
                      conditions=Conditions.clean())
    assert (truth.cube.value, truth.cube.face, truth.cube.side) == (value, value, side)
    assert inside(truth.cube.box, SMALL)
    below_middle = truth.cube.centre[1] > SMALL[1] / 2
    assert below_middle == (side == "white")


def test_centred_cube_shows_64_on_the_bar():
    _, truth = render(Position.initial(), cube=Cube(), seed=4, size=SMALL, conditions=Conditions.clean())
    assert (truth.cube.value, truth.cube.face, truth.cube.side) == (1, 64, "centre")
    cx, cy = truth.cube.centre
    assert abs(cx - SMALL[0] / 2) < SMALL[0] * 0.1 and abs(cy - SMALL[1] / 2) < SMALL[1] * 0.1


def test_a_cube_at_one_cannot_be_owned():
    with pytest.raises(ValueError, match="centred"):
        Cube(1, "white")
    with pytest.raises(ValueError, match="cube value"):
        Cube(3, "white")


@pytest.mark.parametrize("seed", range(6))
def test_dice_land_in_the_named_half_inside_the_frame(seed):
    half = ("white", "black")[seed % 2]
    _, truth = render(Position.initial(), dice=(Die(5, half), Die(2, half)), seed=seed, size=SMALL)
    assert [d.value for d in truth.dice] == [5, 2]
    for d in truth.dice:
        assert d.half == half and d.flat and not d.cocked
        assert inside(d.box, SMALL)


def test_cocked_and_on_checker_dice_are_flagged_not_flat():
    dice = (Die(3, "white", rest="cocked"), Die(6, "white", rest="on_checker"))
    _, truth = render(Position.initial(), dice=dice, seed=8, size=SMALL)
    cocked, on_checker = truth.dice
    assert cocked.cocked and not cocked.flat
    assert on_checker.on_checker and not on_checker.flat and not on_checker.cocked


def test_a_hand_over_the_board_is_flagged_and_unsettles_the_frame():
    hand = Hand(target=6, side="white", reach=1.0, holding=True)
    _, truth = render(Position.initial(), seed=3, size=SMALL, hand=hand, conditions=Conditions.clean())
    assert truth.hand and not truth.settled
    assert 6 in truth.occluded_points
    _, clear = render(Position.initial(), seed=3, size=SMALL, conditions=Conditions.clean())
    assert not clear.hand and clear.settled and clear.occluded_points == ()


def test_a_hand_that_has_not_reached_the_board_hides_nothing():
    hand = Hand(target=6, side="white", reach=0.0)
    _, truth = render(Position.initial(), seed=3, size=SMALL, hand=hand, conditions=Conditions.clean())
    assert not truth.hand and truth.occluded_points == ()


def test_board_corners_are_in_the_frame_for_random_poses():
    for seed in range(8):
        _, truth = render(Position.initial(), seed=seed, size=SMALL)
        assert truth.corners.shape == (4, 2)
        assert (truth.corners >= -0.5).all()
        assert (truth.corners[:, 0] <= SMALL[0]).all() and (truth.corners[:, 1] <= SMALL[1]).all()


def test_homography_maps_the_canvas_corners_onto_the_frame_corners_without_lens():
    conditions = Conditions(pose=CameraPose(tilt=15, azimuth=40, rotation=30, fill=0.8))
    _, truth = render(Position.initial(), seed=1, size=SMALL, conditions=conditions)
    w, h = truth.canvas_size
    pts = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float) @ truth.homography.T
    assert np.allclose(pts[:, :2] / pts[:, 2:], truth.corners, atol=0.5)


def test_white_home_corner_moves_with_the_home_option():
    for home in ("bottom-right", "bottom-left", "top-right", "top-left"):
        _, truth = render(Position.initial(), seed=1, size=SMALL, home=home, conditions=Conditions.clean())
        ace = truth.point_polygons[1].mean(axis=0)
        right = ace[0] > SMALL[0] / 2
        bottom = ace[1] > SMALL[1] / 2
        assert (right, bottom) == (home.endswith("right"), home.startswith("bottom")), home


def test_clutter_draws_around_the_board_without_touching_its_truth():
    pos = Position.initial()
    conditions = Conditions(pose=CameraPose(fill=0.6), clutter=Clutter(overlay=True))
    plain, t1 = render(pos, seed=9, size=SMALL, conditions=Conditions(pose=CameraPose(fill=0.6)))
    busy, t2 = render(pos, seed=9, size=SMALL, conditions=conditions)
    assert not np.array_equal(plain, busy)
    assert t1.points == t2.points and np.allclose(t1.corners, t2.corners)


def test_unknown_style_and_bad_values_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown board style"):
        render(Position.initial(), style="plastic", size=SMALL)
    with pytest.raises(ValueError, match="die shows"):
        Die(7)
    with pytest.raises(ValueError, match="home corner"):
        board_renderer("classic", SMALL, "middle")


@pytest.mark.parametrize("build", sorted(BOARD_BUILDS))
def test_every_board_build_keeps_its_points_inside_the_case(build):
    proportions = BOARD_BUILDS[build]
    conditions = Conditions(pose=CameraPose(tilt=10, azimuth=200, rotation=95, fill=0.9), board=proportions)
    _, truth = render(Position.initial(), seed=1, size=SMALL, conditions=conditions)
    w, h = truth.canvas_size
    assert w / h == pytest.approx(proportions.board_width / proportions.board_height, rel=0.02)
    case = truth.corners.astype(np.float32)
    for polygon in truth.point_polygons.values():
        for x, y in polygon:
            assert cv2.pointPolygonTest(case, (float(x), float(y)), False) >= 0


def test_random_conditions_vary_the_board_build():
    rng = np.random.default_rng(0)
    builds = {Conditions.random(rng, 1.0).board for _ in range(40)}
    assert len(builds) >= 3
    assert Conditions.clean().board == BOARD_BUILDS["standard"]


def test_aruco_markers_sit_on_the_case_corners_and_are_detectable():
    conditions = Conditions(pose=CameraPose(tilt=8, rotation=20, fill=0.8), markers=True)
    image, truth = render(Position.initial(), seed=2, size=(960, 540), conditions=conditions)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(image)
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    assert sorted(found) == [0, 1, 2, 3]
    for i in range(4):
        assert np.abs(found[i].mean(axis=0) - truth.markers[i].mean(axis=0)).max() < 2
        assert np.abs(truth.markers[i].mean(axis=0) - truth.corners[i]).max() < 1
    _, plain = render(Position.initial(), seed=2, size=SMALL, conditions=Conditions.clean())
    assert plain.markers == {}


def test_dice_can_have_any_colour():
    red = ((40, 40, 190), (240, 240, 240))
    image, truth = render(Position.initial(), dice=(6, 6), seed=4, size=(640, 360), conditions=Conditions.clean(),
                          dice_colour=red)
    x, y, w, h = truth.dice[0].box
    patch = image[y:y + h, x:x + w].reshape(-1, 3).astype(int)
    assert ((patch[:, 2] > 150) & (patch[:, 0] < 90)).mean() > 0.2        # mostly red body


def test_a_spectators_arm_can_reach_in_from_the_side():
    hand = Hand(target=18, side="black", edge="left")
    _, truth = render(Position.initial(), seed=5, size=SMALL, hand=hand, conditions=Conditions.clean())
    assert truth.hand and {13, 18} <= set(truth.occluded_points) | {13, 18}
    assert 13 in truth.occluded_points or 12 in truth.occluded_points     # the arm crosses the left edge
    with pytest.raises(ValueError, match="hand edge"):
        Hand(edge="under")


def test_the_broadcast_overlay_never_covers_the_board():
    pos = Position.initial()
    for fill, offset, drawn in ((0.6, (0.0, -1.0), True), (0.97, (0.0, 0.0), False)):
        pose = CameraPose(fill=fill, offset=offset)
        with_overlay, truth = render(pos, seed=1, size=SMALL,
                                     conditions=Conditions(pose=pose, clutter=Clutter(False, False, False, True)))
        without, _ = render(pos, seed=1, size=SMALL, conditions=Conditions(pose=pose))
        changed = np.any(with_overlay != without, axis=2)
        assert changed.any() == drawn
        if drawn:
            rows = np.nonzero(changed.any(axis=1))[0]
            assert rows.min() > truth.corners[:, 1].max()


def test_cocked_dice_lean_inside_the_playing_area():
    for seed in range(10):
        _, truth = render(Position.initial(), dice=(Die(2, "white", rest="cocked"),), seed=seed, size=SMALL,
                          conditions=Conditions.clean())
        field = truth.point_polygons[1][:2].mean(axis=0), truth.point_polygons[24][:2].mean(axis=0)
        cx, cy = truth.dice[0].centre
        assert min(f[1] for f in field) - 2 <= cy <= max(f[1] for f in field) + 2


def test_a_die_thrown_touching_rests_face_to_face_against_the_die_before_it():
    renderer = board_renderer("classic", SMALL, "bottom-right")
    for seed in range(20):
        scene = Scene(Position.initial(), (Die(3, "black"), Die(3, "black", touching=True)))
        first, second = renderer.place_dice(scene, Conditions.clean(), seed, np.random.default_rng(seed))
        offset = np.subtract(second.at, first.at)
        axes = (np.cos(first.yaw), np.sin(first.yaw)), (-np.sin(first.yaw), np.cos(first.yaw))
        along = [abs(offset @ axis) for axis in axes]
        assert DIE_SIZE <= max(along) <= 1.08 * DIE_SIZE and min(along) <= 0.4 * DIE_SIZE
        turn = (second.yaw - first.yaw) % (np.pi / 2)        # a die looks the same a quarter turn on
        assert min(turn, np.pi / 2 - turn) < 0.2


def test_some_thrown_dice_come_to_rest_touching():
    """A share of thrown pairs lies face to face, as real throws often do."""
    renderer = board_renderer("classic", SMALL, "bottom-right")
    gaps = []
    for seed in range(200):
        first, second = renderer.place_dice(Scene(Position.initial(), (Die(1), Die(2))), Conditions.clean(), seed,
                                            np.random.default_rng(seed))
        gaps.append(np.hypot(*np.subtract(second.at, first.at)) / DIE_SIZE)
    touching = sum(g < 1.2 for g in gaps)
    assert 10 <= touching <= 45 and min(gaps) >= 1.0


def test_some_thrown_dice_come_to_rest_flat_against_a_checker():
    """Real dice often stop against a checker without leaning on it: a share of flat dice
    lies with a face against one, clear of every other checker."""
    renderer = board_renderer("classic", SMALL, "bottom-right")
    checkers = [np.array(p.centre) / renderer.ppd for p in renderer._placements(Position.initial(), 1, 0.5)
                if p.location != "off"]
    beside = 0
    for seed in range(200):
        die, = renderer.place_dice(Scene(Position.initial(), (Die(4),)), Conditions.clean(), 1,
                                   np.random.default_rng(seed))
        nearest = min(np.hypot(*(np.array(die.at) - c)) for c in checkers)
        beside += 0.5 + 0.5 * DIE_SIZE - 1e-9 <= nearest <= 0.5 + 0.6 * DIE_SIZE + 1e-9
    assert 15 <= beside <= 50


def test_a_die_cannot_lie_on_a_checker_in_an_empty_half():
    white, black = [0] * 26, [0] * 26
    white[3], black[3] = 15, 15          # White's 3 point and Black's 3 point (White's 22)
    pos = Position(tuple(white), tuple(black))
    with pytest.raises(ValueError, match="no checker"):
        render(pos, dice=(Die(2, "black", rest="on_checker"),), seed=1, size=SMALL, conditions=Conditions.clean())


def test_frames_are_the_same_in_another_process():
    import subprocess
    import sys
    code = ("import hashlib; from engine.position import Position; from hardware.sim.renderer import render; "
            "img, _ = render(Position.initial(), dice=(3, 5), cube=(4, 'black'), seed=21, size=(320, 180), hand=True); "
            "print(hashlib.sha1(img.tobytes()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(n), "PATH": ""}).stdout for n in (1, 2)}
    assert len(digests) == 1


def test_a_moving_hand_is_smeared_and_still_hides_the_points_under_it():
    still = Hand(target=8, side="white")
    moving = Hand(target=8, side="white", speed=1.5)
    a, ta = render(Position.initial(), seed=6, size=SMALL, hand=still, conditions=Conditions.clean())
    b, tb = render(Position.initial(), seed=6, size=SMALL, hand=moving, conditions=Conditions.clean())
    assert not np.array_equal(a, b)
    assert tb.hand and not tb.settled and 8 in tb.occluded_points


def test_checkers_under_a_pile_are_partly_hidden_and_rows_of_five_are_not():
    pos = Position.from_points({6: 15, 19: -5})
    _, truth = render(pos, seed=1, size=SMALL, conditions=Conditions.clean())
    pile = [c for c in truth.checkers if c.location == 6]
    row = [c for c in truth.checkers if c.location == 19]
    assert min(c.visible for c in pile if c.layer == 0) < 0.9
    assert all(c.visible == 1.0 for c in pile if c.layer == max(p.layer for p in pile))
    assert all(c.visible > 0.95 for c in row)


@pytest.mark.parametrize("azimuth", [0, 90, 200])
def test_a_die_nearer_the_lens_hides_the_side_of_the_one_behind_it_in_either_order_thrown(azimuth):
    """Dice resting face to face under a tilted camera: the die nearer the point under the
    lens hides the facing side of the one behind it; the one behind never covers its top."""
    conditions = Conditions(messiness=0.0, pose=CameraPose(tilt=20, azimuth=azimuth, fill=0.9))
    renderer = board_renderer("felt", SMALL, "bottom-right")
    nadir = (np.array(renderer.camera(conditions.pose)[0].lift.nadir) - renderer.margin) / renderer.ppd
    near_at = np.array([3.0, 3.0])
    away = (near_at - nadir) / np.hypot(*(near_at - nadir))
    near = Die(2, "white", at=tuple(near_at), yaw=float(np.arctan2(away[1], away[0]) % (np.pi / 2)))
    far = Die(5, "white", at=tuple(near_at + away * DIE_SIZE * 1.02), yaw=near.yaw, colour=(30, 30, 200),
              pips=(255, 255, 255))
    empty, _ = renderer.render_scene(Scene(Position.initial(), (), None), conditions, 1, 1)
    alone, _ = renderer.render_scene(Scene(Position.initial(), (near,), None), conditions, 1, 1)
    drawn = np.abs(alone.astype(int) - empty).max(axis=2) > 40
    body = drawn & (alone.min(axis=2) > 170) & (np.ptp(alone.astype(int), axis=2) < 40)   # the near die's faces
    assert body.sum() > 40
    for dice in ((near, far), (far, near)):
        both, _ = renderer.render_scene(Scene(Position.initial(), dice, None), conditions, 1, 1)
        red = (both[..., 2].astype(int) - both[..., :2].max(axis=2)) > 60
        assert (red & body).sum() <= 2


def test_a_die_is_drawn_as_large_as_its_size_says():
    """Dice sets differ: a 16 mm precision die beside a tournament board's 44 mm checker is
    0.36 of its diameter, a 17 mm one beside a 38 mm checker 0.45; the die is drawn and
    boxed at its own size, and one thrown against it lies face to face at either size."""
    wide = {}
    for size in (0.36, 0.45, 0.55):
        _, truth = render(Position.initial(), dice=(Die(3, "white", at=(4.0, 3.0), yaw=0.0, size=size),), seed=1,
                          style="classic", conditions=Conditions.clean())
        checker = np.median([c.box[2] for c in truth.checkers if c.location != "off"])
        wide[size] = truth.dice[0].box[2] / checker
    assert all(abs(wide[size] / wide[0.45] - size / 0.45) < 0.05 for size in wide), wide
    renderer = board_renderer("classic", SMALL, "bottom-right")
    for seed in range(10):
        scene = Scene(Position.initial(), (Die(3, "black", size=0.36), Die(5, "black", size=0.5, touching=True)))
        first, second = renderer.place_dice(scene, Conditions.clean(), seed, np.random.default_rng(seed))
        assert 0.43 - 1e-9 <= np.hypot(*np.subtract(second.at, first.at)) <= 1.08 * np.hypot(0.43, 0.4 * 0.43)
    with pytest.raises(ValueError, match="0.2..0.8 checker diameters"):
        Die(2, size=0.9)
