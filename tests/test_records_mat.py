"""The .mat reader (every dialect), the GNU Backgammon-dialect writer and the SGF export."""

from __future__ import annotations

import doctest

import pytest

import engine.records
import engine.records.mat
from engine.match import EndReason, Kind, MatchRules
from engine.moves import Segment
from engine.position import BAR, BLACK, WHITE, Variant
from engine.records import Action, RecordError, check_match, read_mat, validate, write_mat, write_sgf

# Galaxy, Studio and gnubg spellings mixed in one match: no hit marks, bar and
# 25, (2) repeats, a merged move, a bare-dice dance, Losses before Wins and a
# capped "and the match" line. GNU Backgammon 1.07 imports it and exports
# exactly WRITTEN and WRITTEN_SGF (apart from its AP[...] name).
MIXED = """\
; [Site "Kitchen table"]
; [EventDate "2024.08.06"]

3 point match

 Game 1
 alice : 0                       bob : 0
  1) 31: 8/5 6/5                 62: 24/18 13/11
  2) 64: 13/7 24/20              66:
  3)  Doubles => 2                Takes
  4) 11: 8/7(2) 6/5(2)           52: bar/23 13/8
  5) 43: 20/16 16/13              Doubles => 4
  6)  Drops                       Wins 2 point

 Game 2
 alice : 0                       bob : 2
  1)                             42: 8/4 6/4
  2) 31: 8/5 6/5                  Losses 1 point
      Wins 1 point

 Game 3
 alice : 1                       bob : 2
  1) 65: 24/13                    Doubles => 2
  2)  Drops                       Wins 1 point and the match
"""

WRITTEN = "\n".join([
    '; [Site "Kitchen table"]',
    '; [EventDate "2024.08.06"]',
    "",
    " 3 point match",
    "",
    " Game 1",
    " alice : 0                      bob : 0",
    "  1) 31: 8/5 6/5                 62: 24/18 13/11 ",
    "  2) 64: 24/20 13/7*             66: ",
    "  3)  Doubles => 2                Takes",
    "  4) 11: 8/7 8/7 6/5 6/5         52: 25/23 13/8 ",
    "  5) 43: 20/16 16/13              Doubles => 4",
    "  6)  Drops                       Wins 2 points ",
    "",
    " Game 2",
    " alice : 0                      bob : 2",
    "  1)                             42: 8/4 6/4 ",
    "  2) 31: 8/5 6/5                 ",
    "      Wins 1 point",
    "",
    " Game 3",
    " alice : 1                      bob : 2",
    "  1) 65: 24/18 18/13              Doubles => 2",
    "  2)  Drops                       Wins 1 point ",
    "", ""])

WRITTEN_SGF = """\
(;FF[4]GM[6]CA[UTF-8]AP[bgref]MI[length:3][game:0][ws:0][bs:0]PW[alice]PB[bob]DT[2024-08-06]PC[Kitchen table]\
RU[Crawford]RE[B+2]
;W[31hefe]
;B[62agln]
;W[64xtmg]
;B[66]
;W[double]
;B[take]
;W[11hghgfefe]
;B[52yblq]
;W[43tppm]
;B[double]
;W[drop])
(;FF[4]GM[6]CA[UTF-8]AP[bgref]MI[length:3][game:1][ws:0][bs:2]PW[alice]PB[bob]RU[Crawford:CrawfordGame]RE[W+1R]
;B[42qusu]
;W[31hefe])
(;FF[4]GM[6]CA[UTF-8]AP[bgref]MI[length:3][game:2][ws:1][bs:2]PW[alice]PB[bob]RU[Crawford]RE[B+1]
;W[65xrrm]
;B[double]
;W[drop])
"""


@pytest.mark.parametrize("module", [engine.records, engine.records.mat])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------- reading
def test_the_reader_keeps_what_the_file_says_with_line_numbers():
    record = read_mat(MIXED, "mixed.mat")
    assert record.players == ("alice", "bob")
    assert record.headers == (("Site", "Kitchen table"), ("EventDate", "2024.08.06"))
    assert record.rules == MatchRules(length=3, max_cube=1024) and record.length_line == 4
    first, second, third = record.games
    assert (first.number, first.line, first.score, first.score_line) == (1, 6, (0, 0), 7)
    assert [(t.line, t.number, t.side, t.action) for t in first.turns[:4]] == [
        (8, 1, WHITE, Action.ROLL), (8, 1, BLACK, Action.ROLL), (9, 2, WHITE, Action.ROLL), (9, 2, BLACK, Action.ROLL)]
    dance = first.turns[3]
    assert dance.dice == (6, 6) and dance.play == () and dance.text == ""
    repeats = first.turns[6]
    assert repeats.text == "8/7(2) 6/5(2)" and repeats.play == (Segment(8, 7), Segment(8, 7), Segment(6, 5),
                                                                 Segment(6, 5))
    assert first.turns[7].play == (Segment(BAR, 23), Segment(13, 8))
    assert (first.turns[9].action, first.turns[9].value) == (Action.DOUBLE, 4)
    assert (first.result.line, first.result.winner, first.result.points) == (13, BLACK, 2)
    assert second.turns[0].side == BLACK                      # the right player won the opening roll
    assert (second.turns[-1].action, second.turns[-1].side, second.turns[-1].value) == (Action.RESIGN, BLACK, 1)
    assert (second.result.winner, second.result.line) == (WHITE, 19)
    assert third.turns[0].play == (Segment(24, 13),) and third.result.and_the_match


def test_the_old_dialect_low_die_first_ratings_in_names_hits_marked():
    text = (" 5 point match\n\n Game 1\n zoonk,1666 : 0                   nori,1699 : 0\n"
            "  1) 26: 24/18 13/11              15: 24/23 6/1*\n"
            "  2) 46: 25/21 21/15              32: 13/10 13/11\n")
    record = read_mat(text)
    assert record.players == ("zoonk,1666", "nori,1699") and record.headers == ()
    assert record.games[0].turns[0].dice == (2, 6)
    checked = check_match(record)
    assert checked.games[0].turns[1].play.steps[1].hit
    assert "  1) 62: 24/18 13/11             51: 24/23 6/1* " in write_mat(checked).split("\n")


def test_studio_words_merged_moves_and_cannot_move():
    text = ("7 point match\n\n\n Game 1\n BoardLord : 0                          Llabba : 0\n"
            "  1) 62: 13/5                          61: Cannot Move\n")
    record = read_mat(text)
    roll, dance = record.games[0].turns
    assert roll.play == (Segment(13, 5),) and dance.text == "Cannot Move" and dance.play == ()
    err = validate(record).error
    assert err.line == 6 and err.reason.startswith("game 1, move 1, 61: Cannot Move is illegal: a play is possible")


def test_crlf_tabs_and_a_byte_order_mark_read_the_same():
    plain = read_mat(MIXED, "m")
    assert read_mat("\ufeff" + MIXED.replace("\n", "\r\n"), "m") == plain
    assert read_mat(MIXED.replace("  1) 31: 8/5 6/5   ", "  1)\t31: 8/5 6/5\t"), "m") == plain


def test_empty_names_are_allowed():
    text = "3 point match\n\n Game 1\n lasse : 0                        : 0\n  1)                             51: 24/23 13/8\n"
    assert read_mat(text).players == ("lasse", "")


@pytest.mark.parametrize("headers, rules", [
    ('; [Crawford "Off"]\n; [CubeLimit "64"]', MatchRules(length=3, crawford=False, max_cube=64)),
    ('; [Variation "NackGammon"]', MatchRules(length=3, max_cube=1024, variant=Variant.NACKGAMMON)),
    ('; [Variation "HyperGammon (3)"]', MatchRules(length=3, max_cube=1024, variant=Variant.HYPER)),
    ('; [Variation "Backgammon"]\n; [Unrated "Off"]', MatchRules(length=3, max_cube=1024)),
])
def test_headers_set_the_rules(headers, rules):
    text = headers + "\n\n3 point match\n\n Game 1\n a : 0    b : 0\n"
    assert read_mat(text).rules == rules


def test_a_money_session_takes_jacoby_from_the_header():
    text = '; [Jacoby "On"]\n\n0 point match\n\n Game 1\n a : 0    b : 0\n'
    assert read_mat(text).rules == MatchRules(length=0, crawford=False, jacoby=True, beaver=True, raccoon=True,
                                              max_cube=1024)


def test_the_variant_argument_overrides_the_header():
    text = '; [Variation "Backgammon"]\n\n3 point match\n\n Game 1\n a : 0    b : 0\n'
    record = read_mat(text, "h.mat", variant="hyper")
    assert record.rules.variant is Variant.HYPER
    assert '; [Variation "HyperGammon (3)"]' in write_mat(check_match(record))


@pytest.mark.parametrize("text, line, reason", [
    ("", 1, "no match length line (e.g. '5 point match'): not a .mat record"),
    ("hello world\n", 1, "expected the match length line (e.g. '5 point match'), found 'hello world'"),
    ('; [Crawford "maybe"]\n3 point match\n', 1, 'Crawford "maybe" is neither "On" nor "Off"'),
    ('; [CubeLimit "100"]\n3 point match\n', 1, 'CubeLimit "100" is not a power of two'),
    ('; [Variation "Acey-deucey"]\n3 point match\n', 1,
     'Variation "Acey-deucey" is not a variant bgref plays (standard backgammon, Nackgammon, Hypergammon)'),
    ("3 point match\n", 1, "the record has no games (no ' Game 1' line)"),
    ("3 point match\n\n  1) 31: 8/5 6/5\n", 3, "expected ' Game 1', found '1) 31: 8/5 6/5'"),
    ("3 point match\n Game 2\n", 2, "Game 2 where Game 1 was expected"),
    ("3 point match\n Game 1\n", 2, "Game 1 ends before its player line ('name : score  name : score')"),
    ("3 point match\n Game 1\n  1) 31: 8/5 6/5\n", 3,
     "expected the player line of game 1 ('name : score  name : score'), found '1) 31: 8/5 6/5'"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) 71: 8/1\n", 4, "game 1, move 1: 71 is not a roll: each die shows 1 to 6"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/\n", 4,
     "game 1, move 1: 31: 8/5 6/ is not a play: cannot read '6/' as a move (expected e.g. 13/7, bar/22, 6/off, 8/5*(2))"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5 hello\n", 4,
     "game 1, move 1: 31: 8/5 6/5 hello is not a play: cannot read 'hello' as a move "
     "(expected e.g. 13/7, bar/22, 6/off, 8/5*(2))"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) Doubles => 2  Takes  Drops\n", 4,
     "game 1, move 1: 3 entries on one line; a line holds at most two (the left player's and the right player's)"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) Resigns\n", 4, "game 1, move 1: cannot read 'Resigns'"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  Shuffles the dice\n", 4, "game 1: cannot read 'Shuffles the dice'"),
    ("3 point match\n Game 1\n a : 0  b : 0\n      Wins 1 point\n  2) 31: 8/5 6/5\n", 5,
     "game 1, move 2: 31: after the game's result (line 4)"),
    ("3 point match\n Game 1\n a : 0  b : 0\n Game 2\n c : 0  b : 0\n", 5,
     "players c and b differ from game 1's a and b"),
    ("3 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 \x01\x02\n", 4,
     "line holds control characters: this is not a .mat text"),
    ("3 point match\n" + "x" * 2000 + "\n", 2, "line is 2000 characters long; a .mat line is far shorter"),
])
def test_lines_that_are_not_the_format_are_named(text, line, reason):
    with pytest.raises(RecordError) as info:
        read_mat(text, "bad.mat")
    assert (info.value.line, info.value.reason) == (line, reason)
    assert str(info.value) == f"bad.mat:{line}: {reason}"


# ---------------------------------------------------------------- checking what was read
def test_the_mixed_match_replays_with_full_values():
    checked = check_match(read_mat(MIXED, "mixed.mat"))
    assert [g.crawford for g in checked.games] == [False, True, False]
    assert checked.results == [(BLACK, 2), (WHITE, 1), (BLACK, 1)] and checked.score == (1, 3)
    second = checked.games[1].outcome
    assert (second.reason, second.kind, second.points) == (EndReason.RESIGNED, Kind.SINGLE, 1)
    assert checked.turns == 10
    assert [checked.count(a) for a in (Action.DOUBLE, Action.TAKE, Action.DROP)] == [3, 1, 2]


# ---------------------------------------------------------------- writing
def test_the_writer_writes_gnubgs_own_dialect():
    assert write_mat(check_match(read_mat(MIXED, "mixed.mat"))) == WRITTEN


def test_read_write_read_gives_the_same_match():
    checked = check_match(read_mat(MIXED, "mixed.mat"))
    again = check_match(read_mat(write_mat(checked), "again.mat"))
    assert again.transcript() == checked.transcript()
    assert again.record.players == checked.record.players and again.record.rules == checked.record.rules
    assert write_mat(again) == WRITTEN


def test_the_writer_states_rules_a_reader_would_not_assume():
    text = "5 point match\n\n Game 1\n a : 0    b : 0\n  1) 31: 24/21 22/21\n"
    record = read_mat(text, "h.mat", variant=Variant.HYPER)
    record = type(record)(record.players, MatchRules(length=5, crawford=False, max_cube=64, variant=Variant.HYPER),
                          record.games)
    written = write_mat(check_match(record))
    assert written.startswith('; [Crawford "Off"]\n; [CubeLimit "64"]\n; [Variation "HyperGammon (3)"]\n\n 5 point')
    assert read_mat(written).rules == record.rules


def test_an_invalid_record_is_not_written():
    checked = validate(read_mat("3 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/3\n", "x.mat"))
    with pytest.raises(ValueError, match="cannot write a record that is not valid: x.mat:4:"):
        write_mat(checked)
    with pytest.raises(ValueError, match="cannot export a record that is not valid"):
        write_sgf(checked)


# ---------------------------------------------------------------- SGF
def test_the_sgf_export_is_gnubgs_match_format():
    assert write_sgf(check_match(read_mat(MIXED, "mixed.mat"))) == WRITTEN_SGF


def test_sgf_letters_bar_off_unplayed_dice_and_escaping():
    text = ("0 point match\n\n Game 1\n x]y : 0    b : 0\n"
            "  1) 21: 13/11 24/23             61: ????\n"
            "      Wins 1 point\n")
    sgf = write_sgf(check_match(read_mat(text)))
    assert sgf == ("(;FF[4]GM[6]CA[UTF-8]AP[bgref]MI[length:0][game:0][ws:0][bs:0]PW[x\\]y]PB[b]RE[W+1R]\n"
                   ";W[21xwmk]\n;PL[B]DI[61])\n")
