"""Frame sequences of the simulated table: rolls, hands moving checkers, the cube, timing."""

import numpy as np
import pytest

from engine.moves import legal_plays
from engine.position import BLACK, WHITE, Position
from hardware.sim.render_sequence import TableCamera, play_random_game
from hardware.sim.renderer import Conditions

SIZE = (240, 135)


def camera(**kw):
    kw.setdefault("size", SIZE)
    kw.setdefault("fps", 10)
    return TableCamera(**kw)


def test_frames_carry_timestamps_at_the_frame_rate_and_the_frame_shape():
    cam = camera(seed=1)
    cam.hold(0.5)
    frames = list(cam.frames())
    assert [f.index for f in frames] == list(range(5))
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert all(f.image.shape == (SIZE[1], SIZE[0], 3) for f in frames)
    assert all(f.truth.timestamp == f.timestamp for f in frames)
    assert cam.pending() == 0


def test_a_roll_tumbles_unsettled_then_settles_with_the_thrown_values():
    cam = camera(seed=2)
    cam.roll((6, 3), half="black", tumble=0.5, settle=0.3)
    frames = list(cam.frames())
    assert len(frames) == 8
    tumbling, settled = frames[:5], frames[5:]
    assert all(not f.truth.settled and all(d.moving for d in f.truth.dice) for f in tumbling)
    for f in settled:
        assert f.truth.settled
        assert [(d.value, d.half, d.flat) for d in f.truth.dice] == [(6, "black", True), (3, "black", True)]
    assert np.array_equal(settled[0].truth.dice[0].box, settled[-1].truth.dice[0].box)


def test_a_cocked_roll_is_flagged_on_the_last_die():
    cam = camera(seed=3)
    cam.roll((5, 4), cocked=True, tumble=0.1, settle=0.1)
    last = list(cam.frames())[-1].truth
    assert last.dice[0].flat and last.dice[1].cocked and not last.dice[1].flat


def test_picking_up_the_dice_shows_a_hand_then_an_empty_table():
    cam = camera(seed=4)
    cam.roll((2, 1), tumble=0.1, settle=0.1)
    list(cam.frames())
    cam.pick_up_dice(seconds=1.0)
    cam.hold(0.2)
    frames = list(cam.frames())
    assert any(f.truth.hand for f in frames)
    assert frames[-1].truth.dice == () and frames[-1].truth.settled


def test_a_move_is_hidden_by_a_hand_then_the_new_position_settles():
    start = Position.initial()
    after = legal_plays(start, WHITE, (3, 1))[0].position
    cam = camera(seed=5, conditions=Conditions.clean())
    cam.move(start, after, seconds=1.0, settle=0.3)
    frames = list(cam.frames())
    hand_frames = [f for f in frames if f.truth.hand]
    assert len(hand_frames) >= 4 and all(not f.truth.settled for f in hand_frames)
    assert any(f.truth.occluded_points for f in hand_frames)
    assert frames[0].truth.position == start
    assert frames[-1].truth.position == after and frames[-1].truth.settled


def test_turning_the_cube_ends_on_the_takers_side():
    cam = camera(seed=6)
    cam.set_cube(2, "black")
    frames = list(cam.frames())
    assert frames[0].truth.cube.face == 64
    assert (frames[-1].truth.cube.value, frames[-1].truth.cube.side) == (2, "black")


def test_a_session_is_reproducible_and_keeps_its_pose():
    def run():
        cam = camera(seed=7)
        cam.roll((4, 4), tumble=0.2, settle=0.2)
        return list(cam.frames())
    a, b = run(), run()
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a, b))
    assert all(np.allclose(f.truth.corners, a[0].truth.corners) for f in a)
    assert not np.array_equal(a[-1].image, a[-2].image)      # sensor noise changes frame to frame


def test_a_random_game_changes_the_position_only_by_legal_plays():
    frames = list(play_random_game(camera(seed=8), seed=8, max_turns=2))
    changes = []
    position, dice = frames[0].truth.position, None
    for f in frames:
        if f.truth.settled and f.truth.dice:
            dice = tuple(d.value for d in f.truth.dice)
        if f.truth.position != position:
            changes.append((position, dice, f.truth.position))
            position = f.truth.position
    assert frames[0].truth.position == Position.initial() and len(changes) == 2
    for before, rolled, after in changes:
        reachable = {lp.position for side in (WHITE, BLACK) for lp in legal_plays(before, side, rolled)}
        assert after in reachable


def test_kept_dice_stay_where_they_lie_and_halves_are_picked_up_apart():
    cam = camera(seed=9)
    cam.roll((4,), half="white", tumble=0.1, settle=0.1)
    cam.roll((2,), half="black", tumble=0.1, settle=0.1, keep=True)
    frames = list(cam.frames())
    last = frames[-1].truth
    assert [(d.value, d.half) for d in last.dice] == [(4, "white"), (2, "black")]
    assert frames[-1].truth.dice[0].box == frames[1].truth.dice[0].box
    cam.pick_up_dice(halves=["black"], seconds=0.4)
    cam.hold(0.1)
    assert [(d.value, d.half) for d in list(cam.frames())[-1].truth.dice] == [(4, "white")]


def test_a_bumped_camera_blurs_then_sees_the_board_from_a_new_pose():
    cam = camera(seed=10)
    cam.hold(0.1)
    cam.bump(seconds=0.3)
    cam.hold(0.2)
    frames = list(cam.frames())
    before, shaking, after = frames[0], frames[1:4], frames[4:]
    assert all(not f.truth.settled for f in shaking)
    assert all(f.truth.settled for f in after)
    assert np.abs(after[0].truth.corners - before.truth.corners).max() > 2
    assert np.allclose(after[0].truth.corners, after[-1].truth.corners)


def test_a_die_can_stray_into_the_other_half():
    cam = camera(seed=11)
    cam.roll((6, 2), half=("white", "black"), tumble=0.1, settle=0.1)
    last = list(cam.frames())[-1].truth
    assert [(d.value, d.half) for d in last.dice] == [(6, "white"), (2, "black")]
    with pytest.raises(ValueError, match="2 dice but 1 halves"):
        cam.roll((6, 2), half=["white"])
