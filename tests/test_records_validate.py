"""Validation of whole matches: each kind of broken record is reported at its line, in the engine's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.match import EndReason, Kind, Match, MatchRules
from engine.moves import Rule
from engine.position import BLACK, WHITE
from engine.records import Action, RecordError, check_match, read_mat, validate, write_mat

MATCHES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "matches"


def corpus(name: str) -> str:
    path = MATCHES / "bglab" / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} not found")
    return path.read_text(encoding="utf-8")


def with_line(text: str, number: int, line: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


def problem(text: str, name: str = "m.mat") -> RecordError:
    checked = validate(read_mat(text, name))
    assert checked.error is not None, "the record was accepted"
    return checked.error


# A Galaxy match: lasse doubles and williampitt drops in game 1 (lines 16-25).
GALAXY = "match1004844.txt"


def test_the_untouched_file_is_valid():
    checked = check_match(read_mat(corpus(GALAXY), GALAXY))
    assert checked.results == [(WHITE, 1), (WHITE, 4)]
    assert checked.score == (5, 0)


def test_a_wrong_die_is_reported_at_its_line():
    text = with_line(corpus(GALAXY), 16, "  1) 52: 13/8 24/23              11: 6/5 6/5 24/23 23/22")
    err = problem(text, "g.mat")
    assert str(err) == "g.mat:16: game 1, move 1, 52: 13/8 24/23 is illegal: 13/8 24/23 does not fit the roll 52"
    assert err.rule is Rule.NOT_THE_DICE


def test_an_illegal_play_gives_the_engines_reason():
    # williampitt's 11 made his 5-point (lasse's 20): lasse cannot land there.
    text = with_line(corpus(GALAXY), 17, "  2) 41: 24/20 23/22             53: 8/3 6/3")
    err = problem(text, "g.mat")
    assert str(err) == "g.mat:17: game 1, move 2, 41: 24/20 23/22 is illegal: point 20 is closed"
    assert err.rule is Rule.CLOSED_POINT


def test_a_play_of_the_right_player_is_checked_from_his_side():
    text = with_line(corpus(GALAXY), 17, "  2) 41: 23/22 22/18             53: 8/3 6/1")
    assert str(problem(text)).startswith("m.mat:17: game 1, move 2, 53: 8/3 6/1 is illegal: ")


def test_a_dance_that_was_not_forced():
    text = with_line(corpus(GALAXY), 18, "  3) 21:                         65: 24/18 18/13")
    err = problem(text)
    assert err.line == 18 and err.rule is Rule.MUST_PLAY
    assert err.reason.startswith("game 1, move 3, 21: (no play) is illegal: a play is possible with 21")


def test_a_hit_mark_where_nothing_is_hit():
    text = with_line(corpus(GALAXY), 18, "  3) 21: 18/16* 16/15            65: 24/18 18/13")
    err = problem(text)
    assert err.line == 18 and err.rule is Rule.WRONG_HIT_MARK


def test_a_wrong_result_after_a_drop():
    text = with_line(corpus(GALAXY), 25, "      Wins 2 point")
    assert str(problem(text)) == ("m.mat:25: game 1: Wins 2 points is wrong: lasse (White) won by a dropped double "
                                  "with the cube at 1, worth 1 point")


def test_a_result_credited_to_the_loser():
    text = with_line(corpus(GALAXY), 25, "                                  Wins 1 point")
    err = problem(text)
    assert err.line == 25
    assert err.reason.startswith("game 1: Wins 1 point is credited to williampitt (Black), but lasse (White) won")


def test_a_score_line_that_does_not_follow_from_the_results():
    text = with_line(corpus(GALAXY), 28, " lasse : 2                       williampitt : 0")
    assert str(problem(text)) == ("m.mat:28: game 2: the score lasse 2, williampitt 0 does not follow from the "
                                  "results before it (1-0)")


def test_a_double_in_the_crawford_game():
    name = "match10014006.txt"            # game 3 is played at 0-4 in a 5-point match
    text = corpus(name)
    checked = check_match(read_mat(text, name))
    crawford = checked.games[2]
    assert crawford.crawford and not checked.games[1].crawford
    turn = next(t.turn for t in crawford.turns if t.turn.action is Action.ROLL and t.turn.number == 2)
    opening = "  2)  Doubles => 2" if turn.side == WHITE else "  2) 11:" + " " * 23 + " Doubles => 2"
    err = problem(with_line(text, turn.line, opening))
    assert err.line == turn.line
    assert err.reason.endswith("Doubles => 2 is not allowed: nobody may double in the Crawford game")


# ---------------------------------------------------------------- short synthetic matches
HEAD = "2 point match\n\n Game 1\n a : 0                          b : 0\n"


def test_a_double_by_the_player_without_access_to_the_cube():
    text = HEAD + ("  1) 31: 8/5 6/5                 Doubles => 2\n"
                   "  2)  Takes                      42: 8/4 6/4\n"
                   "  3) 51: 13/8 6/5                 Doubles => 4\n")
    err = problem(text)
    assert err.line == 7
    assert err.reason == "game 1, move 3, b (Black): Doubles => 4 is not allowed: Black cannot double: White owns the cube"


def test_a_double_after_rolling_and_a_wrong_cube_value():
    text = HEAD + "  1) 31: 8/5 6/5                 Doubles => 4\n"
    assert problem(text).reason == "game 1, move 1, b (Black): Doubles => 4 is wrong: the cube is at 1, so it offers 2"


def test_turns_out_of_order_are_refused_by_the_engine():
    text = HEAD + "  1) 31: 8/5 6/5\n  2) 42: 8/4 6/4\n"
    err = problem(text)
    assert err.line == 6 and err.reason == "game 1, move 2, a (White): 42 is not allowed: White cannot roll: it is Black's turn"


def test_an_opening_doublet_is_impossible():
    err = problem(HEAD + "  1) 33: 8/5 8/5 6/3 6/3\n")
    assert err.line == 5 and "the opening roll cannot be a doublet" in err.reason


def test_drop_resignation_and_the_crawford_game():
    text = HEAD + ("  1) 31: 8/5 6/5                 Doubles => 2\n"
                   "  2)  Drops                       Wins 1 point\n\n"
                   " Game 2\n a : 0                          b : 1\n"
                   "  1)                             42: 8/4 6/4\n"
                   "  2)  Losses 2 points             Wins 2 points\n")
    checked = check_match(read_mat(text))
    first, second = checked.games
    assert first.outcome.reason is EndReason.DROPPED and not first.crawford
    assert second.crawford
    assert second.outcome.reason is EndReason.RESIGNED and second.outcome.kind is Kind.GAMMON
    assert checked.score == (0, 3)
    crawford_double = text.replace("  2)  Losses 2 points             Wins 2 points\n",
                                   "  2)  Doubles => 2\n")
    assert problem(crawford_double).reason.endswith("nobody may double in the Crawford game")


def test_a_one_point_match_has_no_crawford_game():
    # gnubg marks no Crawford game in a one-point match; doubling there is allowed (if pointless).
    assert not Match(MatchRules(length=1)).new_game().game.crawford
    assert Match(MatchRules(length=2), score=(1, 0)).new_game().game.crawford
    text = ("1 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 Doubles => 2\n"
            "  2)  Drops                       Wins 1 point\n")
    checked = check_match(read_mat(text))
    assert not checked.games[0].crawford and checked.score == (0, 1)


def test_a_resignation_that_no_cube_value_explains():
    text = HEAD + "  1) 31: 8/5 6/5                 Losses 5 points\n"
    assert problem(text).reason == ("game 1, move 1, b (Black): Losses 5 points is wrong: with the cube at 1 "
                                    "a resignation is worth 1, 2, 3")


def test_a_resignation_never_answered():
    err = problem(HEAD + "  1) 31: 8/5 6/5                 Losses 1 point\n")
    assert err.reason == "game 1: the resignation is never answered"


def test_capped_match_winning_points_need_and_the_match():
    text = ("3 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 Doubles => 2\n"
            "  2)  Takes                      42: 8/4 6/4\n"
            "  3)  Losses 4 points             Wins 3 points and the match\n")
    checked = check_match(read_mat(text))
    assert checked.results == [(BLACK, 4)] and checked.score == (0, 4)
    uncapped = text.replace("Wins 3 points and the match", "Wins 3 points")
    assert problem(uncapped).reason == ("game 1: Wins 3 points is wrong: b (Black) won by the resignation of "
                                        "a gammon with the cube at 2, worth 4 points")


def test_and_the_match_when_the_match_goes_on():
    text = ("5 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 Doubles => 2\n"
            "  2)  Drops                       Wins 1 point and the match\n")
    assert problem(text).reason == "game 1: Wins 1 point and the match is wrong: b (Black) still needs 5 points"


def test_and_the_match_in_a_money_session():
    text = ("0 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 Doubles => 2\n"
            "  2)  Drops                       Wins 1 point and the match\n")
    assert problem(text).reason == "game 1: Wins 1 point and the match is wrong: a money session has no match to win"


def test_a_finished_game_needs_its_result_line():
    err = problem(HEAD + "  1) 31: 8/5 6/5                 Doubles => 2\n  2)  Drops\n")
    assert err.line == 6 and err.reason == ("game 1 is over (b (Black) won by a dropped double with the cube at 1, "
                                            "worth 1 point) but the record gives no 'Wins' line")


def test_beavers_only_in_money_play_and_with_the_right_value():
    double = "  1) 31: 8/5 6/5                 Doubles => 2\n"
    in_a_match = problem(HEAD + double + "  2)  Beavers => 4\n")
    assert in_a_match.reason == ("game 1, move 2, a (White): Beavers => 4 is not allowed: "
                                 "beavers are not allowed in this match")
    money = "0 point match\n\n Game 1\n a : 0                          b : 0\n" + double
    assert problem(money + "  2)  Beavers => 8\n").reason == (
        "game 1, move 2, a (White): Beavers => 8 is wrong: the cube is at 2, so it offers 4")
    raccoon = check_match(read_mat(money + "  2)  Beavers => 4                Beavers => 8\n  3)  Drops\n"
                                           "                                  Wins 4 points\n"))
    assert raccoon.results == [(BLACK, 4)] and raccoon.count(Action.BEAVER) == 2


def test_games_after_the_match_is_over():
    text = ("1 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                 Losses 1 point\n      Wins 1 point\n\n"
            " Game 2\n a : 1                          b : 0\n  1) 31: 8/5 6/5\n")
    err = problem(text)
    assert err.line == 8 and err.reason == "game 2 cannot be played: the match is over: White won 1-0"


def test_a_game_without_result_followed_by_another():
    text = HEAD + "  1) 31: 8/5 6/5\n\n Game 2\n a : 0                          b : 0\n"
    err = problem(text)
    assert err.line == 7 and err.reason == "game 1 has no result but game 2 follows it"


def test_a_money_session_with_beaver_and_the_take_left_out():
    text = ("0 point match\n\n Game 1\n gnubg : 0                      root : 0\n"
            "  1)                             31: 8/5 6/5 \n"
            "  2)  Doubles => 2                Beavers => 4\n"
            "  3) 64: 24/18 18/14             \n"
            "      Wins 8 points\n")
    record = read_mat(text)
    assert record.rules == MatchRules(length=0, crawford=False, beaver=True, raccoon=True, max_cube=1024)
    checked = check_match(record)
    assert [t.turn.action for t in checked.games[0].turns] == [
        Action.ROLL, Action.DOUBLE, Action.BEAVER, Action.TAKE, Action.ROLL]
    assert checked.count(Action.TAKE) == 1
    assert checked.games[0].outcome.kind is Kind.GAMMON and checked.score == (8, 0)
    written = write_mat(checked)
    assert "  2)  Doubles => 2                Beavers => 4\n  3)  Takes                      \n  4) 64: 24/18 18/14 " in written
    assert check_match(read_mat(written)).transcript() == checked.transcript()


STUDIO = "BoardLord - Llabba 7pt Backgammon Studio 2023_08_09 18_11_07.txt"


def test_a_roll_written_after_the_last_checker_is_off_is_not_a_move():
    # Old exports may give the loser one more roll after the game ended (gnubg keeps it as unplayed dice).
    text = corpus(STUDIO)
    assert text.split("\n")[41].startswith("  23) 54: 1/off(2)")    # BoardLord bears off his last checkers
    extra = with_line(text, 42, "  23) 54: 1/off(2)                      61:")
    before, after = check_match(read_mat(text)), check_match(read_mat(extra))
    assert after.turns == before.turns and after.results == before.results
    last = after.games[0].turns[-1]
    assert last.turn.dice == (6, 1) and last.turn.side == BLACK and last.play is None
    winner_rolls = with_line(text, 43, "  24) 61:")
    assert problem(winner_rolls).reason.startswith("game 1, move 24, 61: the game is already over (BoardLord (White) won")
