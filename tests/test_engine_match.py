"""Cube, scoring, Crawford and resignations as table situations."""

from __future__ import annotations

import pytest

from engine.ids import MatchId
from engine.match import ActionRefused, EndReason, Game, Kind, Match, MatchRules, Phase
from engine.position import BLACK, WHITE, Position


def started(rules=MatchRules(length=7), white_die=3, black_die=1, **kw) -> Game:
    """A game after the opening roll and White's first play, Black to roll."""
    return Game.start(rules, **kw).opening_roll(white_die, black_die).play("8/5 6/5")


def test_opening_roll_decides_who_starts_and_ties_roll_again():
    g = Game.start(MatchRules())
    assert g.opening_roll(4, 4) == g
    g = g.opening_roll(2, 6)
    assert g.turn == BLACK and g.dice == (6, 2) and g.phase is Phase.MOVE


def test_auto_doubles_turn_the_cube_on_ties_up_to_the_limit():
    g = Game.start(MatchRules(auto_doubles=2))
    g = g.opening_roll(3, 3).opening_roll(5, 5).opening_roll(1, 1)
    assert g.cube == 4 and g.owner is None and g.phase is Phase.OPENING


def test_double_take_gives_the_taker_the_cube():
    g = started().double(BLACK).take(WHITE)
    assert (g.cube, g.owner, g.turn, g.phase) == (2, WHITE, BLACK, Phase.ROLL)
    with pytest.raises(ActionRefused, match="White owns the cube"):
        g.double(BLACK)


@pytest.mark.parametrize("action, message", [
    (lambda g: g.double(WHITE), "start of their own turn"),
    (lambda g: g.roll(BLACK, (3, 1)).double(BLACK), "after rolling"),
    (lambda g: g.take(WHITE), "no double is offered"),
    (lambda g: g.drop(WHITE), "no double is offered"),
    (lambda g: g.double(BLACK).take(BLACK), "White must answer"),
    (lambda g: g.double(BLACK).roll(BLACK, (3, 1)), "answered first"),
    (lambda g: g.double(BLACK).beaver(WHITE), "beavers are not allowed"),
    (lambda g: g.roll(WHITE, (3, 1)), "Black's turn"),
])
def test_actions_at_the_wrong_time_are_refused_with_a_reason(action, message):
    with pytest.raises(ActionRefused, match=message):
        action(started())


def test_no_double_in_the_crawford_game():
    g = started(crawford=True)
    assert g.why_no_double(BLACK) == "nobody may double in the Crawford game"


def test_drop_scores_the_value_before_the_double():
    g = started().double(BLACK).take(WHITE).roll(BLACK, (6, 5)).play("24/13").double(WHITE).drop(BLACK)
    assert g.outcome.winner == WHITE and g.outcome.points == 2 and g.outcome.reason is EndReason.DROPPED


def test_beaver_and_raccoon_in_money_play():
    rules = MatchRules(beaver=True, raccoon=True)
    g = started(rules).double(BLACK).beaver(WHITE)
    assert (g.offer, g.answerer, g.keeper) == (4, BLACK, WHITE)
    taken = g.take(BLACK)
    assert (taken.cube, taken.owner) == (4, WHITE)
    g = g.raccoon(BLACK)
    assert (g.offer, g.answerer, g.keeper) == (8, WHITE, BLACK)
    with pytest.raises(ActionRefused):
        g.beaver(WHITE)
    dropped = g.drop(WHITE)
    assert dropped.outcome.winner == BLACK and dropped.outcome.points == 4
    assert started(MatchRules(beaver=True)).double(BLACK).beaver(WHITE).take(BLACK).cube == 4
    with pytest.raises(ActionRefused, match="raccoons are not allowed"):
        started(MatchRules(beaver=True)).double(BLACK).beaver(WHITE).raccoon(BLACK)


def test_money_options_are_refused_in_match_play():
    with pytest.raises(ValueError, match="money play"):
        MatchRules(length=5, jacoby=True)
    with pytest.raises(ValueError, match="raccoons need beavers"):
        MatchRules(raccoon=True)


def _race_end(winner_off: int, loser: dict[int, int], loser_bar: int = 0) -> Position:
    """White has one checker left on its ace point; Black as given (Black's numbering)."""
    points = {1: 1}
    for p, n in loser.items():
        points[25 - p] = -n
    return Position.from_points(points, bar=(0, loser_bar))


@pytest.mark.parametrize("black, bar, kind", [
    ({6: 14}, 0, Kind.SINGLE),
    ({6: 15}, 0, Kind.GAMMON),
    ({6: 14, 20: 1}, 0, Kind.BACKGAMMON),
    ({6: 14}, 1, Kind.BACKGAMMON),
])
def test_game_results_single_gammon_backgammon_times_the_cube(black, bar, kind):
    position = _race_end(14, black, bar)
    g = Game(MatchRules(length=9), position, cube=2, owner=BLACK, turn=WHITE, phase=Phase.ROLL)
    g = g.roll(WHITE, (2, 1)).play("1/off")
    assert g.outcome.kind is kind and g.outcome.points == 2 * int(kind) and g.outcome.winner == WHITE


def test_jacoby_counts_gammons_single_while_the_cube_is_centred():
    position = _race_end(14, {6: 15})
    rules = MatchRules(jacoby=True)
    g = Game(rules, position, turn=WHITE, phase=Phase.ROLL).roll(WHITE, (2, 1)).play("1/off")
    assert g.outcome.points == 1
    g = Game(rules, position, cube=2, owner=BLACK, turn=WHITE, phase=Phase.ROLL, cube_turned=True)
    assert g.roll(WHITE, (2, 1)).play("1/off").outcome.points == 4


def test_resignation_offered_refused_and_accepted():
    g = started().resign(BLACK, Kind.GAMMON)
    assert g.phase is Phase.RESIGNING
    with pytest.raises(ActionRefused, match="their own resignation"):
        g.accept_resignation(BLACK)
    back = g.refuse_resignation(WHITE)
    assert back.phase is Phase.ROLL and back.turn == BLACK
    done = g.accept_resignation(WHITE)
    assert done.outcome.points == 2 and done.outcome.reason is EndReason.RESIGNED


def test_crawford_then_post_crawford():
    m = Match(MatchRules(length=3)).new_game()
    g = m.game.opening_roll(5, 1).play("13/8 6/5")
    g = g.double(BLACK).drop(WHITE)
    m = m.with_game(g)
    assert m.score == (0, 1) and not m.is_crawford_next()
    m = m.new_game()
    g = m.game.opening_roll(6, 1).play("13/7 8/7").double(BLACK).take(WHITE)
    g = g.roll(BLACK, (6, 5)).play("13/7 13/8").double(WHITE).drop(BLACK)
    m = m.with_game(g)
    assert m.score == (2, 1) and m.is_crawford_next()
    m = m.new_game()
    assert m.game.crawford and not m.post_crawford
    g = m.game.opening_roll(3, 1).play("8/5 6/5").resign(WHITE, Kind.SINGLE).accept_resignation(BLACK)
    m = m.with_game(g)
    assert m.score == (2, 2) and not m.is_crawford_next()
    m = m.new_game()
    assert not m.game.crawford and m.post_crawford
    assert m.game.opening_roll(4, 1).play("24/23 13/9").why_no_double(BLACK) is None
    g = m.game.opening_roll(4, 1).play("24/23 13/9").double(BLACK).drop(WHITE)
    m = m.with_game(g)
    assert m.over and m.winner == BLACK
    with pytest.raises(ActionRefused, match="match is over"):
        m.new_game()


def test_cube_value_counts_in_full_past_the_match_length():
    m = Match(MatchRules(length=3)).new_game()
    g = m.game.opening_roll(3, 1).play("8/5 6/5").double(BLACK).take(WHITE)
    g = g.roll(BLACK, (6, 5)).play("24/13").double(WHITE).take(BLACK)
    g = g.roll(WHITE, (2, 1)).play("13/11 6/5").resign(BLACK, Kind.GAMMON).accept_resignation(WHITE)
    m = m.with_game(g)
    assert m.score == (8, 0) and m.over


def test_match_id_of_a_state():
    m = Match(MatchRules(length=5)).new_game()
    g = m.game.opening_roll(3, 1)
    m = m.with_game(g)
    decoded = MatchId.decode(m.match_id())
    assert decoded.dice == (3, 1) and decoded.match_length == 5 and decoded.cube_owner is None
