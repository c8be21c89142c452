"""Properties of the referee under any sequence of what a camera and the buttons can give.

Whatever the frames show (positions reached by legal or illegal play, misread counts,
dice anywhere, flat or cocked, the cube on any face, hands over the board) and whatever
buttons are pressed, the referee never fails and every event it accepts folds back into
the same match after a restart.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.match_log import MatchLog
from controller.referee import Button, Press
from engine.moves import legal_plays
from engine.position import BLACK, WHITE, Position
from referee_table import Cube, Die, Table, seen
from vision.observation import Occlusion

HALVES = ("white", "black", None)


@st.composite
def frames(draw):
    """A frame: a board reached from the opening by random play, dice, cube, hand."""
    position = Position.initial()
    side = draw(st.sampled_from(("white", "black")))
    mover = WHITE if side == "white" else BLACK
    for _ in range(draw(st.integers(0, 3))):
        dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
        plays = legal_plays(position, mover, dice)
        position = plays[draw(st.integers(0, len(plays) - 1))].position
        mover = mover.opponent
    dice = draw(st.lists(st.builds(Die, st.integers(1, 6), st.sampled_from(HALVES), st.booleans()), max_size=3))
    cube = draw(st.one_of(st.none(), st.builds(Cube, st.sampled_from((2, 4, 8, 64)),
                                               st.sampled_from(("centre", "white", "black")))))
    ranges = draw(st.dictionaries(st.integers(1, 24), st.tuples(st.integers(0, 3), st.integers(3, 8)), max_size=2))
    obs = seen(position, dice, cube=cube, ranges=ranges)
    if draw(st.integers(0, 4)) == 0:
        obs = replace(obs, settled=False, occlusion=Occlusion(hand=draw(st.booleans()), motion=True))
    return obs


steps = st.lists(st.one_of(st.tuples(st.just("look"), frames(), st.integers(1, 5)),
                           st.tuples(st.just("press"), st.sampled_from(list(Button)), st.just(1))),
                 min_size=1, max_size=25)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_any_frames_and_presses_leave_a_match_that_folds_back(sequence):
    table = Table()
    table.look(Position.initial())  # the board set up: a game starts
    for kind, item, repeat in sequence:
        for _ in range(repeat):
            table.t += 0.5
            if kind == "look":
                table._keep(table.referee.feed(replace(item, timestamp=table.t), table.t))
            else:
                table._keep(table.referee.feed(Press(item, table.t)))
    log = table.referee.log
    again = MatchLog.from_events(log.events)
    assert again.position == log.position and again.match.score == log.match.score
    if log.game is not None:
        assert again.game.phase is log.game.phase and again.game.dice == log.game.dice
