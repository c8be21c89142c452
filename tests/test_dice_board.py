"""Dice and the doubling cube on rendered boards, read through a perfect calibration.

``training.truth.TruthBoard`` is the calibration a rendered frame's ground truth gives
(its board's proportions, the camera's homography and lens), so these tests measure the
dice and cube readers alone; the calibration has tests of its own.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.position import Position
from hardware.sim.render_sequence import random_position
from hardware.sim.renderer import Conditions, Cube, Die, board_renderer, render
from hardware.sim.scene import board_geometry
from training.truth import EMPTY, TruthBoard, matched, region_counts
from vision.dice import DIE_PX, DiceNet, camera_nadir, frame_patches, turned

CLEAN = Conditions.clean()


def scene(position: Position, dice=(), cube=Cube(), seed: int = 0, style: str = "classic",
          conditions: Conditions = CLEAN, home: str = "bottom-right", **kwargs):
    """A frame and its perfect calibration (from an empty board and the opening in the same light)."""
    frame, truth = render(position, dice=dice, cube=cube, seed=seed, style=style, conditions=conditions,
                          home=home, **kwargs)
    empty, _ = render(EMPTY, dice=(), cube=Cube(), seed=seed, style=style, conditions=conditions, home=home)
    opening = render(Position.initial(), dice=(), cube=Cube(), seed=seed, style=style, conditions=conditions,
                     home=home)
    return frame, truth, TruthBoard(truth, empty, opening)


def read_dice(frame, board: TruthBoard):
    """The dice read as the board reader reads them: knowing the checkers' counts."""
    return board.dice().read(frame, board.view(frame), rows=region_counts(board.truth))


def read_cube(frame, board: TruthBoard):
    return board.cube().read(frame, board.view(frame))


@pytest.mark.parametrize("value", range(1, 7))
def test_every_face_flat_in_either_half(value):
    dice = (Die(value, "white", yaw=0.3), Die(7 - value, "black", yaw=1.1))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=value)
    reads = read_dice(frame, board)
    assert len(reads) == 2
    for t, r in matched(reads, truth.dice):
        assert r is not None, t
        assert (r.value, r.half, r.flat, r.on_checker) == (t.value, t.half, True, False)
        assert 0 < r.confidence <= 1


@pytest.mark.parametrize("home", ["bottom-left", "top-right", "top-left"])
def test_halves_follow_the_players_right_hands_on_every_board_orientation(home):
    dice = (Die(3, "white"), Die(5, "black"))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=11, home=home)
    pairs = matched(read_dice(frame, board), truth.dice)
    assert [(r.value, r.half) for _, r in pairs] == [(3, "white"), (5, "black")]


@pytest.mark.parametrize("colour", [((40, 40, 190), (240, 240, 240)), ((25, 25, 25), (235, 235, 235)),
                                    ((60, 140, 40), (240, 240, 240))])
def test_coloured_dice(colour):
    frame, truth, board = scene(Position.initial(), dice=(4, 6), seed=5, style="felt", dice_colour=colour)
    assert sorted(r.value for r in read_dice(frame, board)) == [4, 6]


@pytest.mark.parametrize("seed", range(3, 9))
def test_a_cocked_die_is_not_flat(seed, request):
    """A die leaning on a checker is not read flat (no roll let stand that must be rolled
    again) and is read with its value; the die beside it flat."""
    if seed == 5:
        request.applymarker(pytest.mark.xfail(strict=True, reason="a two leaning on a checker read flat "
                                                                  "(chance of lying flat 0.55)"))
    dice = (Die(2, "white", rest="cocked"), Die(6, "black"))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed)
    (_, cocked), (_, flat) = matched(read_dice(frame, board), truth.dice)
    assert flat is not None and flat.value == 6 and flat.flat
    assert cocked is not None and cocked.value == 2 and not cocked.flat


def test_a_die_on_a_checker():
    dice = (Die(5, "white", rest="on_checker"), Die(1, "black"))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=4)
    (_, on), (_, beside) = matched(read_dice(frame, board), truth.dice)
    assert on is not None and on.value == 5 and on.on_checker and not on.flat
    assert beside is not None and beside.value == 1 and not beside.on_checker


@pytest.mark.parametrize("style, half, value, seed", [("felt", "white", 5, 1), ("blue", "black", 3, 1),
                                                     ("redblack", "black", 3, 1)])
def test_a_die_on_a_checker_like_the_board_around_it(style, half, value, seed):
    """The checker under the die changes the board little (white on a light point), but its
    rim shows round the die: the die is on a checker, not flat."""
    dice = (Die(value, half, rest="on_checker"), Die(1, "black" if half == "white" else "white"))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed, style=style)
    (_, on), (_, beside) = matched(read_dice(frame, board), truth.dice)
    assert on is not None and on.value == value and on.on_checker and not on.flat
    assert beside is not None and beside.flat and not beside.on_checker


def test_an_empty_board_has_no_dice():
    frame, truth, board = scene(Position.initial(), seed=8)
    assert read_dice(frame, board) == []


@pytest.mark.parametrize("value", [2, 4, 8, 16, 32, 64])
@pytest.mark.parametrize("side", ["white", "black", "centre"])
def test_every_cube_face_and_side(value, side):
    frame, truth, board = scene(Position.initial(), dice=(3, 1), cube=Cube(value, side), seed=value)
    cube = read_cube(frame, board)
    assert cube is not None and (cube.value, cube.side) == (value, side)
    assert 0 < cube.confidence <= 1


@pytest.mark.parametrize("side", ["white", "black", "centre"])
def test_the_cube_is_located_on_its_top_face_and_never_read_as_a_die(side):
    frame, truth, board = scene(Position.initial(), dice=(5, 2), cube=Cube(4, side), seed=9)
    view = board.view(frame)
    cube, at = board.cube().locate(frame, view)
    x, y = board.to_frame(np.array([at]))[0]
    assert cube.value == 4 and np.hypot(x - truth.cube.centre[0], y - truth.cube.centre[1]) < 0.5 * truth.cube.box[2]
    dice = board.dice().read(frame, view, at)
    assert sorted(d.value for d in dice) == [2, 5]


@pytest.mark.parametrize("seed, style, value", [(0, "classic", 4), (6, "blue", 64), (9, "felt", 8),
                                               (19, "tournament", 4)])
def test_a_centred_cube_against_checkers_on_the_bar(seed, style, value):
    """A checker of each side on the bar touches the centred cube (as light as the cube in
    some light): the cube's face is cut from them and read."""
    points = list(Position.initial().points())
    points[23] -= 1
    points[0] += 1
    position = Position.from_points(points, bar=(1, 1))
    frame, truth, board = scene(position, dice=(3, 1), cube=Cube(value, "centre"), seed=seed, style=style,
                                conditions=Conditions.random(np.random.default_rng(seed), 0.5))
    cube = read_cube(frame, board)
    assert cube is not None and (cube.value, cube.side) == (value, "centre")


def test_a_centred_cube_at_one_shows_64():
    frame, truth, board = scene(Position.initial(), cube=Cube(), seed=2, style="tournament")
    cube = read_cube(frame, board)
    assert cube is not None and (cube.value, cube.side) == (64, "centre")


def test_no_cube_in_view():
    frame, truth, board = scene(Position.initial(), cube=None, seed=6)
    assert read_cube(frame, board) is None


def _light_point_slot(home: str = "bottom-right", along: float = 1.6) -> tuple[float, float]:
    """A spot on an empty light point of White's home board (canvas, checker diameters)."""
    g = board_geometry(home, 1.0)
    point = next(g.point(n) for n in (2, 3, 4, 5) if not g.point(n).dark)
    return point.slot(along)


@pytest.mark.parametrize("style", ["classic", "felt", "tournament", "brown"])
@pytest.mark.parametrize("value", [1, 5])
def test_a_white_die_on_a_light_point(style, value):
    """A die as light as the point it lies on shows little but its pips: found all the same."""
    dice = (Die(value, "white", at=_light_point_slot(), yaw=0.4), Die(3, "black"))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=21, style=style)
    (_, light), (_, other) = matched(read_dice(frame, board), truth.dice)
    assert light is not None
    assert (light.value, light.half, light.flat, light.on_checker) == (value, "white", True, False)
    assert other is not None and other.value == 3


@pytest.mark.parametrize("seed", [12, 13, 14])
def test_a_die_cocked_against_the_rail(seed):
    """No checker in the half to lean on: the die leans on the rail, and is not flat."""
    position = Position.from_points({13: 8, 12: -8, 14: 7, 11: -7})     # the right-hand halves are empty
    dice = (Die(4, "white", rest="cocked"), Die(2, "white"))
    frame, truth, board = scene(position, dice=dice, seed=seed)
    (_, cocked), (_, flat) = matched(read_dice(frame, board), truth.dice)
    assert cocked is not None and not cocked.flat and not cocked.on_checker
    assert flat is not None and (flat.value, flat.flat) == (2, True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clear_flat_dice_are_read_with_confidence(seed):
    """Dice lying flat in plain view: the reads say they are sure (seed 2's two: 0.79)."""
    frame, truth, board = scene(Position.initial(), dice=(Die(6, "white"), Die(2, "black")), seed=seed)
    pairs = matched(read_dice(frame, board), truth.dice)
    assert all(r is not None and r.value == t.value and r.confidence > 0.75 for t, r in pairs)


@pytest.mark.parametrize("style", ["tournament", "classic", "blue"])
def test_the_cube_among_many_checkers_on_the_bar(style):
    """Three checkers of each side wait on the bar, more than the cube stands out from: the
    cube, centred where it is set down, is read all the same."""
    points = list(Position.initial().points())
    points[5] -= 3          # three of White's six-point checkers and of Black's
    points[18] += 3
    position = Position.from_points(points, bar=(3, 3))
    frame, truth, board = scene(position, dice=(3, 1), cube=Cube(), seed=88, style=style)
    cube = read_cube(frame, board)
    assert cube is not None and (cube.value, cube.side) == (64, "centre")


@pytest.mark.parametrize("seed, home", [(21000402, "bottom-right"), (21000406, "bottom-left"),
                                        (21000407, "top-right"), (21000410, "top-left")])
def test_the_camera_nadir_is_found_from_the_calibration_alone(seed, home):
    """A tilted camera's nadir (the board point under its lens, where a flat die shows no
    side) follows from the mapping of the board into the frame and the frame's size,
    whichever way round the board lies (the canonical view of a board whose home is on
    the left is the mirror image of the frame's)."""
    conditions = Conditions.random(np.random.default_rng(seed), 1.0)
    frame, truth, board = scene(Position.initial(), seed=seed, style="blue", conditions=conditions, home=home)
    camera, _ = board_renderer("blue", (1280, 720), home, conditions.board).camera(conditions.pose)
    nadir = camera_nadir(board.to_frame, board.model, (frame.shape[1], frame.shape[0]))
    seen = board.to_frame(np.array([nadir]))[0]
    true = camera.to_image(np.array([camera.lift.nadir]))[0]
    assert conditions.pose.tilt > 3 and np.hypot(*(seen - true)) < 4


def test_white_dice_showing_one_on_a_light_field_among_checkers():
    """White dice on a tournament board's light field show little but their pips, a one a
    single pip, while the gaps where the checkers of a row meet look like pips too: in
    twelve scenes of random play, every one in a settled frame (22; one frame is blurred
    by motion) is found and read."""
    read = settled = 0
    for seed in range(1, 13):
        rng = np.random.default_rng(seed)
        conditions = Conditions.random(rng, 1.0)
        position = random_position(rng, int(rng.integers(20, 60)))
        frame, truth, board = scene(position, dice=(Die(1, "white"), Die(1, "black")), cube=None, seed=seed,
                                    style="tournament", conditions=conditions)
        if truth.settled:
            settled += 2
            read += sum(r is not None and r.value == 1 for _, r in matched(read_dice(frame, board), truth.dice))
    assert read == settled == 22


@pytest.mark.parametrize("seed, style", [(45, "brown"), (149, "redblack"), (161, "classic"), (183, "felt")])
def test_a_die_beside_its_own_shadow_is_read_once(seed, style):
    """A die and its shadow depart from the empty board as one longer blob, whose middle
    lies off the die's: the die is read there too, with the same face, and is one die."""
    rng = np.random.default_rng(seed)
    conditions = Conditions.random(rng, 1.0)
    position = random_position(rng, int(rng.integers(0, 60)))
    dice = (Die(int(rng.integers(1, 7)), "white"), Die(int(rng.integers(1, 7)), "black"))
    frame, truth, board = scene(position, dice=dice, cube=None, seed=seed, style=style, conditions=conditions)
    reads = read_dice(frame, board)
    assert sorted(r.value for r in reads) == sorted(d.value for d in dice)


@pytest.mark.parametrize("style", ["classic", "tournament", "felt", "brown"])
@pytest.mark.parametrize("values", [(4, 4), (6, 3), (1, 1)])
def test_dice_resting_against_each_other_are_two_dice(style, values):
    """Thrown dice often come to rest face to face: each is read with its own face, and a
    double lying so is two dice, not one die seen off its middle (bench/dice.py measures
    how often across every style: a two beside a five is sometimes read as a four)."""
    dice = (Die(values[0], "white"), Die(values[1], "white", touching=True))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=31, style=style)
    pairs = matched(read_dice(frame, board), truth.dice)
    assert [(r.value, r.half, r.flat) for _, r in pairs if r is not None] == [(v, "white", True) for v in values]


@pytest.mark.parametrize("style, values", [("redblack", (3, 4)), ("redblack", (2, 6)), ("blue", (3, 2)),
                                           ("blue", (6, 2))])
def test_a_die_touching_another_that_no_candidate_lies_on_is_found_between_two(style, values):
    """Pips and edges of two dice resting against each other may put the candidates on
    either side of one of them and none on it: the middles of candidates a die apart are
    read as well, and a die read surely there, a die away from the other, is the second."""
    dice = (Die(values[0], "white"), Die(values[1], "white", touching=True))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=31, style=style,
                                conditions=Conditions.random(np.random.default_rng(31), 1.0))
    pairs = matched(read_dice(frame, board), truth.dice)
    assert sorted(r.value for _, r in pairs if r is not None) == sorted(values)


@pytest.mark.parametrize("style, values", [("redblack", (1, 4)), ("redblack", (1, 6)), ("blue", (1, 4))])
def test_a_patch_between_two_dice_touching_read_as_one_of_them_gives_way_to_both(style, values):
    """A candidate between two dice resting against each other may read as one of them,
    its middle put between theirs; the patches between candidates find both a die apart,
    each nearer it than a die's width, and they replace it."""
    dice = (Die(values[0], "white"), Die(values[1], "white", touching=True))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=31, style=style,
                                conditions=Conditions.random(np.random.default_rng(31), 1.0))
    pairs = matched(read_dice(frame, board), truth.dice)
    assert sorted(r.value for _, r in pairs if r is not None) == sorted(values)


@pytest.mark.parametrize("style, value, seed", [("tournament", 5, 30), ("felt", 4, 31), ("brown", 2, 32),
                                               ("blue", 1, 31)])
def test_a_double_resting_face_to_face_is_two_dice_not_one_between_them(style, value, seed):
    """Two dice touching that show the same face make a patch between them look like a die
    showing it too, its middle between theirs; it takes in one of them, and the one left
    lies too near it to be another die: the die as far beyond it is looked for, and found."""
    dice = (Die(value, "white"), Die(value, "white", touching=True))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed, style=style,
                                conditions=Conditions.random(np.random.default_rng(seed), 1.0))
    pairs = matched(read_dice(frame, board), truth.dice)
    assert [r.value for _, r in pairs if r is not None] == [value, value]


@pytest.mark.parametrize("seed, style", [(3, "classic"), (4, "tournament"), (5, "felt")])
def test_a_patch_beside_a_die_tells_where_its_middle_lies(seed, style):
    """The board's network says where a die's middle lies from a patch cut off it: the
    patches of one die gather on its middle, so two dice touching are never one die."""
    frame, truth, board = scene(Position.initial(), dice=(Die(5, "white", yaw=0.3),), seed=seed, style=style)
    reader = board.dice()
    (cx, cy), = board.die_centres(truth)
    side = reader.die_side
    points = [(cx + dx * side, cy + dy * side) for dx, dy in ((0, 0), (0.3, 0), (-0.3, 0.1), (0, -0.35), (0.2, 0.25))]
    angles = np.asarray(reader.upright(points, (frame.shape[1], frame.shape[0])))
    _, _, shift = DiceNet()(frame_patches(frame, reader.to_frame, points, side, DIE_PX, angles))
    put = np.asarray(points) + turned(shift * side, angles)
    assert np.hypot(*(put - (cx, cy)).T).max() < 0.2 * side


@pytest.mark.parametrize("seed, style, white, black", [(13, "tournament", (6, 2.57), (6, 2.43)),
                                                       (14, "felt", (1, 1.08), (5, 2.11))])
def test_small_dice_teach_the_reader_their_size(seed, style, white, black):
    """Precision dice beside a tournament board's checkers are 0.36 of a checker wide, smaller
    than the 0.45 the reader first looks for, and read at that size a six may show three pips
    or a one three: the first lone dice read teach the table's size, and the frame is read
    again at it."""
    dice = (Die(white[0], "white", yaw=white[1], size=0.36), Die(black[0], "black", yaw=black[1], size=0.36))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed, style=style)
    reader = board.dice()
    reads = reader.read(frame, board.view(frame), rows=region_counts(truth))
    assert reader.size in (0.32, 0.36, 0.40)
    assert [(r.value, r.half) for _, r in matched(reads, truth.dice)] == [(white[0], "white"), (black[0], "black")]


def test_a_tables_first_dice_teach_the_size_its_next_throws_are_read_at():
    """A throw whose dice are read too unsure to teach anything (a 4-4 of precision dice
    read as 3 and 5) is read right once an earlier throw taught the table's size."""
    first = (Die(5, "white", yaw=0.2, size=0.36), Die(2, "black", yaw=0.9, size=0.36))
    frame, truth, board = scene(Position.initial(), dice=first, seed=16, style="classic")
    reader = board.dice()
    reader.read(frame, board.view(frame), rows=region_counts(truth))
    assert reader.size in (0.32, 0.36, 0.40)
    double = (Die(4, "white", yaw=1.29, size=0.36), Die(4, "black", yaw=0.28, size=0.36))
    frame, truth, _ = scene(Position.initial(), dice=double, seed=16, style="classic")
    reads = reader.read(frame, board.view(frame), rows=region_counts(truth))
    assert [(r.value, r.half) for _, r in matched(reads, truth.dice)] == [(4, "white"), (4, "black")]


@pytest.mark.parametrize("seed", range(4))
def test_usual_dice_keep_the_size_the_reader_looks_for(seed):
    """Dice 0.45 of a checker wide read no surer at another size: the reader keeps its own."""
    dice = (Die(1 + seed, "white", yaw=0.4 * seed), Die(6 - seed, "black", yaw=1.0))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed, style=["classic", "tournament", "felt",
                                                                                   "brown"][seed])
    reader = board.dice()
    reads = reader.read(frame, board.view(frame), rows=region_counts(truth))
    assert [r.value for _, r in matched(reads, truth.dice)] == [d.value for d in dice]
    assert reader.size == 0.45


@pytest.mark.parametrize("seed, style, values", [(12, "blue", (4, 4)), (58, "redblack", (4, 2))])
def test_dice_resting_against_each_other_teach_no_size(seed, style, values):
    """A die with a neighbour in its patch may read surest at a wrong size (these pairs
    would teach 0.32 of a checker, and then be read 2-2): only lone dice teach the table's."""
    dice = (Die(values[0], "white"), Die(values[1], "white", touching=True))
    frame, truth, board = scene(Position.initial(), dice=dice, seed=seed, style=style)
    reader = board.dice()
    reads = reader.read(frame, board.view(frame), rows=region_counts(truth))
    assert reader.size == 0.45
    assert sorted(r.value for _, r in matched(reads, truth.dice) if r is not None) == sorted(values)
