"""Legal plays and the reasons given for illegal ones, on concrete positions."""

from __future__ import annotations

import pytest

from engine.moves import (
    IllegalPlayError, InvalidPlayError, Rule, Segment, apply_play, check_play, explain_result, format_play,
    legal_plays, max_dice_playable, parse_play,
)
from engine.position import BLACK, WHITE, Position


def white(points: dict[int, int], black: dict[int, int] | None = None, bar=(0, 0), variant="standard"):
    """A position from White's point numbers; Black's checkers given in Black's own numbering."""
    signed = dict(points)
    for p, n in (black or {}).items():
        if p == 25:
            continue
        signed[25 - p] = signed.get(25 - p, 0) - n
    return Position.from_points(signed, bar=bar, variant=variant)


START = Position.initial()


def reason(position, dice, play, side=WHITE):
    with pytest.raises(IllegalPlayError) as info:
        check_play(position, side, dice, play)
    return info.value


def test_opening_rolls_have_the_known_number_of_plays():
    assert len(legal_plays(START, WHITE, (3, 1))) == 16
    assert len(legal_plays(START, WHITE, (4, 3))) == 17
    assert len(legal_plays(START, BLACK, (6, 6))) == len(legal_plays(START, WHITE, (6, 6)))


def test_closed_point_names_the_point():
    err = reason(START, (6, 5), "24/18 24/19")
    assert err.rule is Rule.CLOSED_POINT and err.points == (19,) and str(err) == "point 19 is closed"


def test_must_enter_from_the_bar_first():
    pos = white({6: 5, 8: 3, 13: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2}, bar=(1, 0))
    err = reason(pos, (6, 3), "13/7 13/10")
    assert err.rule is Rule.BAR_FIRST and "bar" in str(err)
    assert apply_play(pos, WHITE, (6, 3), "bar/22 13/7").bar(WHITE) == 0
    assert apply_play(pos, WHITE, (6, 3), "25/22 13/7") == apply_play(pos, WHITE, (6, 3), "bar/22 13/7")


def test_closed_board_dances_and_no_play_is_the_empty_play():
    pos = white({6: 5, 8: 3, 13: 5, 24: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}, bar=(1, 0))
    plays = legal_plays(pos, WHITE, (6, 4))
    assert len(plays) == 1 and not plays[0].play and plays[0].position == pos
    assert check_play(pos, WHITE, (6, 4), "").position == pos
    assert check_play(pos, WHITE, (6, 4), "Cannot Move").position == pos
    assert reason(pos, (6, 4), "13/7").rule is Rule.BAR_FIRST


def test_a_dance_is_refused_when_a_play_exists():
    err = reason(START, (6, 5), "")
    assert err.rule is Rule.MUST_PLAY and "65" in str(err)


def test_must_use_both_dice():
    err = reason(START, (6, 1), "13/7")
    assert err.rule is Rule.USE_MORE_DICE and "both dice" in str(err)


def test_higher_die_when_only_one_can_be_played():
    # White: one checker on 24 and the rest home; Black holds White's 18 (its 7) and 16 (its 9) and more.
    pos = white({24: 1, 6: 14}, {7: 2, 9: 2, 2: 2, 3: 2, 4: 2, 5: 3, 11: 2})
    # 6-4: 24/18 is closed, 24/20 open then 20/14 ... make 24/20/14 impossible by holding 14 (Black's 11).
    assert max_dice_playable(pos, WHITE, (6, 4)) >= 1
    pos = white({24: 1, 1: 14}, {7: 2, 9: 2, 11: 2, 12: 2, 2: 2, 3: 2, 4: 3})
    # 24/18 closed (Black's 7), 24/20 open (Black's 5 is empty? Black's 5 = White's 20); then 20/14 closed.
    plays = legal_plays(pos, WHITE, (6, 4))
    assert [str(lp.play) for lp in plays] == ["24/20"]
    pos2 = white({24: 1, 1: 14}, {4: 2, 9: 2, 11: 2, 12: 2, 2: 2, 3: 2, 5: 3})
    # Now 24/18 open and 24/20 closed: only the 6 can be played, and 18/14 is closed by Black's 11.
    assert [str(lp.play) for lp in legal_plays(pos2, WHITE, (6, 4))] == ["24/18"]


def test_higher_die_rule_reason():
    # Either die alone can be played but not both: the 6 must be played.
    pos = white({24: 1, 1: 14}, {3: 2, 8: 2, 13: 2, 12: 2, 11: 2, 2: 2, 4: 3})
    plays = {str(lp.play) for lp in legal_plays(pos, WHITE, (6, 5))}
    assert plays == {"24/18"}
    err = reason(pos, (6, 5), "24/19")
    assert err.rule is Rule.HIGHER_DIE and "6" in str(err)


def test_bearing_off_rules():
    home = Position.from_points({5: 2, 3: 1, 24: -15})
    # 6-1: the 6 bears off from the highest point (5) since none stands on 6.
    assert {str(p.play) for p in legal_plays(home, WHITE, (6, 1))} == {"5/4 5/off", "5/off 3/2"}
    err = reason(home, (6, 1), "3/off 5/4")
    assert err.rule is Rule.BEAR_OFF_HIGHER and err.points == (3, 5)
    outside = Position.from_points({8: 1, 5: 2, 24: -15})
    err = reason(outside, (5, 2), "5/off 5/3")
    assert err.rule is Rule.BEAR_OFF_OUTSIDE and "8" in str(err)
    assert apply_play(outside, WHITE, (5, 2), "8/6 5/off").off(WHITE) == 13


def test_bear_off_in_either_order_61():
    pos = Position.from_points({6: 1, 24: -15})
    assert [str(p.play) for p in legal_plays(pos, WHITE, (6, 1))] == ["6/off"] or \
        {str(p.play) for p in legal_plays(pos, WHITE, (6, 1))} >= {"6/off"}
    assert apply_play(pos, WHITE, (6, 1), "6/5 5/off").winner() == WHITE


def test_die_playable_only_after_the_other():
    # 21 from the bar: only the 2 enters (Black holds White's 24), then the 1 is played.
    pos = white({6: 5, 8: 3, 13: 6}, {1: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 5}, bar=(1, 0))
    plays = {str(lp.play) for lp in legal_plays(pos, WHITE, (2, 1))}
    assert plays == {"bar/23 8/7", "bar/23 6/5"}  # 22 and 12 are Black's points


def test_doubles_with_fewer_than_four_playable():
    pos = white({24: 2, 6: 13}, {8: 2, 11: 2, 1: 11})
    # 4-4: 24/20 open, 20/16 closed (Black's 9? no: White 16 = Black 9): only two 4s per checker.
    assert max_dice_playable(pos, WHITE, (4, 4)) <= 4
    err = None
    try:
        check_play(pos, WHITE, (4, 4), "6/2")
    except IllegalPlayError as e:
        err = e
    assert err is not None and err.rule is Rule.USE_MORE_DICE


def test_wrong_hit_mark_is_refused():
    err = reason(START, (3, 1), "8/5* 6/5")
    assert err.rule is Rule.WRONG_HIT_MARK and err.points == (5,)


def test_hits_are_computed_with_or_without_star():
    pos = white({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 20: 1})  # Black blot on White's 5
    a = apply_play(pos, WHITE, (3, 1), "8/5* 6/5")
    b = apply_play(pos, WHITE, (3, 1), "8/5 6/5")
    assert a == b and a.bar(BLACK) == 1


def test_merged_move_prefers_route_without_unmarked_hit():
    pos = white({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 4, 24: 2, 15: 1})  # Black blot on White's 10
    via_10 = apply_play(pos, WHITE, (3, 2), "13/10*/8")
    quiet = apply_play(pos, WHITE, (3, 2), "13/8")
    assert via_10.bar(BLACK) == 1 and quiet.bar(BLACK) == 0


def test_move_not_fitting_the_roll():
    err = reason(START, (6, 1), "13/8 24/23")
    assert err.rule in (Rule.NOT_THE_DICE,) and "61" in str(err)


def test_no_checker_there():
    err = reason(START, (3, 1), "9/6 6/5")
    assert err.rule is Rule.NO_CHECKER and err.points == (9,)


@pytest.mark.parametrize("text, expected", [
    ("24/18 13/11*", (Segment(24, 18), Segment(13, 11, True))),
    ("13/7(2)", (Segment(13, 7), Segment(13, 7))),
    ("bar/22", (Segment(25, 22),)),
    ("25/22", (Segment(25, 22),)),
    ("6/off", (Segment(6, 0),)),
    ("6/0", (Segment(6, 0),)),
    ("24/14", (Segment(24, 14),)),
    ("bar/20*/18*", (Segment(25, 20, True), Segment(20, 18, True))),
    ("8/4*(2)", (Segment(8, 4, True), Segment(8, 4, True))),
    ("Cannot Move", ()),
    ("", ()),
])
def test_notation_dialects_parse(text, expected):
    assert parse_play(text) == expected


@pytest.mark.parametrize("text", ["13-7", "13/", "/7", "13/7(9)", "7/13", "off/3", "3/bar", "26/20", "x"])
def test_unparsable_plays_are_refused_with_the_token(text):
    with pytest.raises(InvalidPlayError) as info:
        parse_play(text)
    assert text.split("(")[0][:2] in str(info.value) or text in str(info.value)


def test_format_merges_and_counts_like_gnubg():
    assert format_play([(13, 10, False), (10, 6, False)]) == "13/6"
    assert format_play([(25, 20, True), (20, 18, True)]) == "bar/20*/18*"
    assert format_play([(13, 7, False), (13, 7, False)]) == "13/7(2)"
    assert format_play([(6, 0, False), (5, 0, False)]) == "6/off 5/off"


def test_explain_result_accepts_a_legal_board_and_explains_an_illegal_one():
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    assert str(explain_result(START, after, WHITE, (3, 1)).play) == "8/5 6/5"
    wrong = apply_play(START, WHITE, (4, 1), "8/4 6/5")  # 4-1 played with a 3-1 on the dice
    err = None
    try:
        explain_result(START, wrong, WHITE, (3, 1))
    except IllegalPlayError as e:
        err = e
    assert err is not None and err.rule is Rule.NOT_THE_DICE


def test_explain_result_catches_a_hit_checker_left_on_the_board():
    pos = white({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 20: 1})  # Black blot on White's 5
    hit = apply_play(pos, WHITE, (3, 1), "13/10 6/5*")
    left_off_the_bar = Position.from_points(hit.points(), bar=(0, 0))  # the hit checker vanished
    with pytest.raises(IllegalPlayError) as info:
        explain_result(pos, left_off_the_bar, WHITE, (3, 1))
    assert info.value.rule is Rule.HIT_TO_BAR and info.value.points == (5,)


def test_opponent_checkers_may_not_move():
    after = Position.from_points({**dict(enumerate(START.points(), 1)), 1: -1, 2: -1})
    with pytest.raises(IllegalPlayError) as info:
        explain_result(START, after, WHITE, (3, 1))
    assert info.value.rule is Rule.OPPONENT_MOVED
