"""Invariants of the engine over positions reached by random legal play (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ids import GameState, MatchId, Resignation, Xgid
from engine.moves import apply_play, apply_steps, legal_plays
from engine.position import BLACK, OFF, WHITE, Position, Side, Variant

variants = st.sampled_from(list(Variant))
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def games(draw):
    """A position reached by random legal plays, the side on roll and a roll."""
    variant = draw(variants)
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    position, side = Position.initial(variant), draw(st.sampled_from([WHITE, BLACK]))
    for _ in range(draw(st.integers(0, 80))):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        position = rng.choice(legal_plays(position, side, roll)).position
        if position.winner() is not None:
            break
        side = side.opponent
    return position, side, draw(dice)


@settings(max_examples=150, deadline=None)
@given(games())
def test_every_play_keeps_checkers_and_is_made_of_single_die_steps(game):
    position, side, roll = game
    if position.winner() is not None:
        return
    n = position.variant.checkers
    seen = set()
    for lp in legal_plays(position, side, roll):
        after = lp.position
        assert sum(after.white) == n and sum(after.black) == n
        assert after not in seen
        seen.add(after)
        assert apply_steps(position, side, lp.play.steps) == after
        expected = roll[0] * 4 if roll[0] == roll[1] else sum(roll)
        dice_used = [s.frm - s.to for s in lp.play.steps]
        if len(lp.play.steps) == (4 if roll[0] == roll[1] else 2) and all(s.to != OFF for s in lp.play.steps):
            assert sum(dice_used) == expected
        pips_moved = position.pip_count(side) - after.pip_count(side)
        assert pips_moved == sum(dice_used)
        hits = sum(s.hit for s in lp.play.steps)
        assert after.bar(side.opponent) - position.bar(side.opponent) == hits
        hit_pips = sum(25 - (25 - s.to) for s in lp.play.steps if s.hit)
        assert after.pip_count(side.opponent) - position.pip_count(side.opponent) == hit_pips


@settings(max_examples=150, deadline=None)
@given(games())
def test_notation_round_trips_through_checked_application(game):
    position, side, roll = game
    if position.winner() is not None:
        return
    for lp in legal_plays(position, side, roll):
        assert apply_play(position, side, roll, str(lp.play)) == lp.position


@settings(max_examples=200, deadline=None)
@given(games(), st.sampled_from([WHITE, BLACK]))
def test_position_id_and_xgid_round_trip(game, on_roll):
    position = game[0]
    assert Position.from_position_id(position.position_id(on_roll), on_roll, position.variant) == position
    assert Xgid.decode(Xgid(position).encode(), position.variant).position == position


@given(st.builds(
    MatchId,
    cube_value=st.sampled_from([2 ** k for k in range(16)]),
    cube_owner=st.sampled_from([None, WHITE, BLACK]),
    on_roll=st.sampled_from(list(Side)), crawford=st.booleans(),
    game_state=st.sampled_from(list(GameState)), turn=st.sampled_from(list(Side)),
    double_offered=st.booleans(), resignation=st.sampled_from(list(Resignation)),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.integers(0, 2 ** 15 - 1),
    score=st.tuples(st.integers(0, 2 ** 15 - 1), st.integers(0, 2 ** 15 - 1)),
    extra=st.integers(0, 3),
))
def test_match_id_round_trips(m):
    decoded = MatchId.decode(m.encode())
    assert decoded == m and decoded.extra == m.extra


@given(st.text(max_size=20))
def test_decoders_refuse_garbage_with_a_value_error(text):
    for decode in (lambda t: Position.from_position_id(t), MatchId.decode, Xgid.decode):
        try:
            decode(text)
        except ValueError:
            pass
