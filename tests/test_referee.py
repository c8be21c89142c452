"""The referee's rules of procedure, as table scenarios (observations and buttons in, events and signals out)."""

from __future__ import annotations

from dataclasses import replace

from controller.match_log import MatchLog
from controller.referee import Beep, Display, Lights, PointLights, Referee
from engine.match import Game, MatchRules, Phase
from engine.moves import apply_play
from engine.position import BLACK, WHITE, Position

from referee_table import Cube, Die, Table, seen
from vision.observation import Occlusion

START = Position.initial()


def texts(decision) -> list[str]:
    return [" / ".join(s.lines) for s in decision.signals if isinstance(s, Display)]


def types(decision) -> list[str]:
    return [e["type"] for e in decision.events]


def opened(white=3, black=1) -> Table:
    """A table after the set-up and an opening roll."""
    table = Table()
    assert types(table.look(START)) == ["game"]
    table.look(START, [Die(white, "white"), Die(black, "black")])
    return table


def test_opening_roll_starts_the_game_and_the_higher_die_plays():
    table = opened(3, 1)
    assert {k: v for k, v in table.events[-1].items() if k != "t"} == {"type": "opening", "white": 3, "black": 1}
    assert table.game.turn == WHITE and table.game.dice == (3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    assert types(table.look(after, [Die(3, "white"), Die(1, "black")])) == []  # dice still down: not finished
    d = table.look(after)  # dice picked up
    assert types(d) == ["play"] and d.events[0]["play"] == "8/5 6/5"
    assert table.game.turn == BLACK and table.game.phase is Phase.ROLL
    assert any(isinstance(s, Lights) and s.turn == BLACK for s in d.signals)


def test_equal_opening_dice_are_rolled_again():
    table = Table()
    table.look(START)
    d = table.look(START, [Die(4, "white"), Die(4, "black")])
    assert "Equal dice: roll again" in texts(d)[-1] and table.game.phase is Phase.OPENING
    assert types(table.look(START, [Die(5, "white"), Die(2, "black")])) == []  # same dice still lying there
    table.look(START)
    table.look(START, [Die(5, "white"), Die(2, "black")])
    assert table.game.turn == WHITE and table.game.dice == (5, 2)


def test_opening_dice_in_one_half_are_rolled_again():
    table = Table()
    table.look(START)
    d = table.look(START, [Die(4, "white"), Die(2, "white")])
    assert any("Roll again" in t for t in texts(d)) and any(isinstance(s, Beep) for s in d.signals)
    assert table.game.phase is Phase.OPENING


def _black_to_roll() -> tuple[Table, Position]:
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    table.look(after)
    return table, after


def test_cocked_die_wrong_half_off_board_and_on_a_checker_mean_roll_again():
    for bad, words in [(Die(5, "black", flat=False), "cocked"), (Die(5, "white"), "wrong half"),
                       (Die(5, None), "off the playing surface"), (Die(5, "black", on_checker=True), "on a checker")]:
        table, pos = _black_to_roll()
        d = table.look(pos, [Die(2, "black"), bad])
        assert types(d) == [] and any(words in t for t in texts(d)), words
        assert types(table.look(pos, [Die(2, "black"), Die(5, "black")])) == []  # must pick up first
        table.look(pos)
        assert types(table.look(pos, [Die(2, "black"), Die(5, "black")])) == ["roll"]


def test_an_unsure_third_die_beside_a_sure_pair_is_no_die_but_a_sure_one_is_a_faulty_roll():
    table, pos = _black_to_roll()
    ring = Die(1, "black", flat=False, confidence=0.3)      # a checker's ring read as a leaning die
    assert types(table.look(pos, [Die(2, "black"), Die(5, "black"), ring])) == ["roll"]
    assert sorted(table.game.dice) == [2, 5]
    table, pos = _black_to_roll()
    d = table.look(pos, [Die(2, "black"), Die(5, "black"), Die(1, "black", confidence=0.9)])
    assert types(d) == [] and any("roll two dice" in t for t in texts(d))
    table, pos = _black_to_roll()
    d = table.look(pos, [Die(2, "black"), Die(5, "black", flat=False, confidence=0.3)])
    assert types(d) == [] and any("cocked" in t for t in texts(d))     # a pair is never thinned


def test_roll_by_the_opponent_before_the_dice_are_picked_up_is_void():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    table.look(after, [Die(3, "white"), Die(1, "black")])  # opening dice lie in both halves
    table2, pos = _black_to_roll()
    table2.look(pos, [Die(6, "black"), Die(5, "black")])
    moved = apply_play(pos, BLACK, (6, 5), "24/13")
    d = table2.look(moved, [Die(6, "black"), Die(5, "black"), Die(2, "white"), Die(1, "white")])
    assert types(d) == [] and any("void" in t for t in texts(d))
    d = table2.look(moved, [Die(2, "white"), Die(1, "white")])  # Black picks up; White's void dice still lie
    assert types(d) == ["play"]
    table2.look(moved)
    assert types(table2.look(moved, [Die(2, "white"), Die(1, "white")])) == ["roll"]


def test_illegal_play_is_signalled_until_corrected():
    table = opened(3, 1)
    wrong = apply_play(START, WHITE, (4, 1), "8/4 6/5")
    d = table.look(wrong)
    assert types(d) == [] and any("Illegal" in t for t in texts(d))
    assert any(isinstance(s, Lights) and s.illegal for s in d.signals)
    assert any(isinstance(s, PointLights) and s.points for s in d.signals)
    assert any(isinstance(s, Beep) and s.kind == "illegal" for s in d.signals)
    right = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    d = table.look(right)
    assert types(d) == ["play"] and any(isinstance(s, Lights) and not s.illegal for s in d.signals)


def test_illegal_play_accepted_by_the_opponent():
    table = opened(3, 1)
    wrong = apply_play(START, WHITE, (4, 1), "8/4 6/5")
    table.look(wrong)
    d = table.press("accept")
    assert types(d) == ["accepted"] and table.position == wrong and table.game.turn == BLACK


def test_rolling_accepts_an_illegal_play():
    table = opened(3, 1)
    wrong = apply_play(START, WHITE, (4, 1), "8/4 6/5")
    table.look(wrong)
    d = table.look(wrong, [Die(6, "black"), Die(5, "black")])
    assert types(d) == ["accepted", "roll"] and table.game.dice == (6, 5)


def test_undo_needs_the_opponent():
    table, after = _black_to_roll()
    d = table.press("undo")
    assert types(d) == [] and any("ACCEPT" in t for t in texts(d))
    d = table.press("accept")
    assert types(d) == ["undo"] and table.game.turn == WHITE and table.game.phase is Phase.MOVE
    assert table.position == START
    assert types(table.look(after)) == []  # the undone play is still on the board: nothing is judged
    table.look(START, [Die(3, "white"), Die(1, "white")])  # checkers and dice put back
    again = apply_play(START, WHITE, (3, 1), "24/21 6/5")
    d = table.look(again)
    assert types(d) == ["play"] and d.events[0]["play"] == "24/21 6/5"


def test_double_seen_on_the_cube_and_take_and_drop():
    table, pos = _black_to_roll()
    d = table.look(pos, cube=Cube(2, "black"))
    assert types(d) == ["double"] and table.game.phase is Phase.DOUBLED
    d = table.look(pos, cube=Cube(2, "white"))
    assert types(d) == ["take"] and table.game.cube == 2 and table.game.owner == WHITE
    table2, pos2 = _black_to_roll()
    table2.look(pos2, cube=Cube(2, "black"))
    d = table2.press("menu")
    assert "Drops" in texts(d)[-1] or "drops" in texts(d)[-1]
    d = table2.press("accept")
    assert types(d) == ["drop"] and table2.game.phase is Phase.OVER
    assert table2.referee.log.match.score == (0, 1)


def test_a_roll_is_taken_from_steady_dice_while_a_pile_count_flickers():
    table, pos = _black_to_roll()
    roll = [Die(6, "black"), Die(5, "black")]
    flicker = [None, None, {19: (5, 6)}, {19: (5, 6)}] * 2  # Black's pile on White's 19 point
    for ranges in flicker:
        table.t += table.step
        table._keep(table.referee.feed(seen(pos, roll, ranges=ranges, t=table.t), table.t))
    assert [e["type"] for e in table.events][-1] == "roll" and table.game.dice == (6, 5)


def test_accept_lets_a_roll_called_faulty_stand():
    table, pos = _black_to_roll()
    d = table.look(pos, [Die(6, "black", flat=False), Die(5, "black")])
    assert any("Roll again: a die is cocked" in t for t in texts(d))
    d = table.press("accept")  # the players see the die lies flat
    assert types(d) == ["roll"] and d.events[0]["chosen"] and table.game.dice == (6, 5)
    assert table.game.phase is Phase.MOVE


def test_accept_does_not_take_a_roll_thrown_out_of_turn():
    table, pos = _black_to_roll()
    d = table.look(pos, [Die(6, "white"), Die(5, "white")])
    assert any("turn to roll" in t for t in texts(d))
    assert types(table.press("accept")) == [] and table.game.phase is Phase.ROLL


def test_a_frame_that_only_changed_since_the_last_confirms_the_next_settled_one():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    moved = replace(seen(after), settled=False, occlusion=Occlusion(motion=True))  # the hand just left
    assert types(table.referee.feed(moved, table.t + 0.1)) == []
    assert types(table.referee.feed(seen(after), table.t + 0.2)) == ["play"]


def test_a_frame_with_a_hand_over_the_board_confirms_nothing():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    covered = replace(seen(after), settled=False, occlusion=Occlusion(hand=True, motion=True))
    table.referee.feed(covered, table.t + 0.1)
    assert types(table.referee.feed(seen(after), table.t + 0.2)) == []
    assert types(table.referee.feed(seen(after), table.t + 0.3)) == ["play"]


def test_a_cube_misread_for_a_few_frames_is_no_double():
    table, pos = _black_to_roll()
    timing = table.referee.timing
    for _ in range(timing.roll_confirm_frames - 1):
        table.t += table.step
        table._keep(table.referee.feed(seen(pos, cube=Cube(2, "black"), t=table.t), table.t))
    table.look(pos)
    assert "double" not in [e["type"] for e in table.events] and table.game.phase is Phase.ROLL
    assert types(table.look(pos, cube=Cube(2, "black"))) == ["double"]


def test_no_double_in_the_crawford_game_is_shown():
    table = Table(rules=MatchRules(length=3))
    log = table.referee.log
    log.match = log.match.__class__(log.rules, score=(2, 0))
    table.look(START)
    assert table.game.crawford
    table.look(START, [Die(3, "white"), Die(1, "black")])
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    table.look(after)
    d = table.look(after, cube=Cube(2, "black"))
    assert types(d) == [] and any("Crawford" in t for t in texts(d))


def test_resignation_from_the_menu():
    table, pos = _black_to_roll()
    items = [label for label, _ in table.referee.menu_items()]
    index = items.index("Black resigns gammon")
    for _ in range(index + 1):
        table.press("menu")
    d = table.press("accept")
    assert types(d) == ["resign"] and table.game.phase is Phase.RESIGNING
    d = table.press("accept")
    assert types(d) == ["resign_accept"] and table.referee.log.match.score == (2, 0)


def test_hidden_board_waits_then_asks_to_clear_the_view():
    table, pos = _black_to_roll()
    for _ in range(10):
        d = table.look(pos, [Die(6, "black"), Die(5, "black")], settled=False)
        assert types(d) == []
    assert any("clear the view" in " ".join(s.lines) for s in table.signals if isinstance(s, Display))


def test_unclear_pile_is_not_guessed():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    alternative = apply_play(START, WHITE, (3, 1), "6/3 6/5")  # changes points 6, 5 and 3
    assert after != alternative
    d = table.look(after, ranges={6: (3, 5), 8: (1, 3), 5: (2, 2)})
    assert types(d) == [] or d.events[0]["play"] == "8/5 6/5"


def _menu_labels(table) -> list[str]:
    return [label for label, _ in table.referee.menu_items()]


def _pick(table, label: str):
    for _ in range(_menu_labels(table).index(label) + 1):
        table.press("menu")
    return table.press("accept")


def test_a_play_the_camera_cannot_settle_is_asked_once_and_picked_on_menu():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    # points read as ranges: 8/5 6/5 and 6/5 6/3 cannot be told apart
    ranges = {8: (1, 3), 6: (3, 5), 5: (1, 2), 3: (0, 1)}
    for _ in range(6):
        table.look(after, ranges=ranges)
    asks = [s for s in table.signals if isinstance(s, Display) and "MENU" in " ".join(s.lines)]
    assert len(asks) == 1 and sum(isinstance(s, Beep) and s.kind == "attention" for s in table.signals) == 1
    labels = _menu_labels(table)
    offered = [label for label in labels if label.startswith("White played")]
    assert sorted(offered) == ["White played 6/5 6/3", "White played 8/5 6/5"] and labels[:2] == offered
    d = _pick(table, "White played 8/5 6/5")
    assert types(d) == ["play"] and d.events[0]["chosen"] is True
    assert table.position == after and table.game.turn == BLACK
    assert not any(label.startswith("White played") for label in _menu_labels(table))


def test_a_false_alarm_is_put_right_by_picking_the_play_on_menu():
    table = opened(3, 1)
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    misread = Position.from_points([p - 1 if i == 5 else p for i, p in enumerate(after.points())])
    table.look(misread)  # a checker too few on the 6 point: read with certainty, it is illegal
    assert table.referee.illegal is not None
    assert _menu_labels(table)[0] == "White played 8/5 6/5"  # the legal play nearest to the read
    d = _pick(table, "White played 8/5 6/5")
    assert types(d) == ["play"] and table.position == after and table.referee.illegal is None
    assert any(isinstance(s, Lights) and not s.illegal for s in d.signals)


def test_a_roll_the_camera_never_saw_is_picked_with_its_play_on_menu():
    table, pos = _black_to_roll()
    after = apply_play(pos, BLACK, (5, 3), "13/8 13/10")
    d = table.look(after)  # Black rolled, played and picked up the dice unseen
    assert types(d) == [] and any("not seen" in t for t in texts(d))
    labels = _menu_labels(table)
    assert "Black rolled 53 and played 13/10 13/8" in labels
    assert all(not label.startswith("Black rolled") or "played" in label for label in labels)
    d = _pick(table, "Black rolled 53 and played 13/10 13/8")
    assert types(d) == ["roll", "play"] and all(e["chosen"] for e in d.events)
    assert table.position == after and table.game.turn == WHITE
    # the board as the referee knows it raises nothing more
    assert types(table.look(after)) == [] and not any("not seen" in t for t in texts(table.look(after)))


def test_a_misread_roll_is_put_right_with_its_play_on_menu():
    table, pos = _black_to_roll()
    table.look(pos, [Die(5, "black"), Die(1, "black")])  # the camera read a 1 where the die shows a 3
    after = apply_play(pos, BLACK, (5, 3), "13/8 13/10")
    d = table.look(after)
    assert any("Illegal" in t for t in texts(d))
    assert "Black rolled 53 and played 13/10 13/8" in _menu_labels(table)
    d = _pick(table, "Black rolled 53 and played 13/10 13/8")
    assert types(d) == ["dice", "play"] and table.position == after and table.referee.illegal is None
    log = table.referee.log
    turn = log.record().turns[-1]
    assert sorted(turn.turn.dice) == [3, 5] and str(turn.play) == "13/10 13/8"
    again = MatchLog.from_events(log.events)  # as after a restart
    assert again.position == after and sorted(again.record().turns[-1].turn.dice) == [3, 5]


def test_a_board_seen_before_the_roll_is_looked_at_afresh_after_it():
    table, pos = _black_to_roll()
    after = apply_play(pos, BLACK, (5, 3), "13/8 13/10")
    misread = Position.from_points([p + 1 if i == 0 else p for i, p in enumerate(after.points())])
    table.look(misread)  # checkers moved (and misread) before the dice were seen: no roll explains it
    table.look(misread, [Die(5, "black"), Die(1, "black")])  # and the 3 read as a 1
    table.look(misread)  # the dice picked up: the same board, now judged for the roll 51
    assert table.referee.illegal is not None
    assert "Black rolled 53 and played 13/10 13/8" in _menu_labels(table)


def test_a_misread_no_roll_explains_is_left_alone_before_the_roll():
    table, pos = _black_to_roll()
    misread = Position.from_points([p + 1 if i == 0 else p for i, p in enumerate(pos.points())])
    d = table.look(misread)
    assert types(d) == [] and not any(isinstance(s, Beep) for s in d.signals)
    assert not any(label.startswith("Black rolled") for label in _menu_labels(table))


def test_dance_is_accepted_when_the_dice_are_picked_up():
    closed = Position.from_points({19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 24: -2, 12: -3, 13: 14}, bar=(1, 0))
    table = Table()
    log = table.referee.log
    game = Game(log.rules, closed, turn=WHITE, phase=Phase.ROLL)
    log.apply({"type": "game"})
    log.match = log.match.with_game(game)
    table.look(closed)
    d = table.look(closed, [Die(6, "white"), Die(4, "white")])
    assert types(d) == ["roll"] and any("no legal move" in t for t in texts(d))
    d = table.look(closed)
    assert types(d) == ["play"] and d.events[0]["play"] == ""


def test_restart_from_the_events_gives_the_same_state():
    table, pos = _black_to_roll()
    table.look(pos, cube=Cube(2, "black"))
    table.look(pos, cube=Cube(2, "white"))
    log = MatchLog.from_events(table.referee.log.events)
    assert log.match == table.referee.log.match and log.position == table.position
    restarted = Referee(log)
    assert restarted.game.cube == 2 and restarted.game.turn == BLACK


def test_a_money_session_ends_from_the_menu_and_a_new_match_is_offered():
    from referee_table import Table as T
    table = T(rules=MatchRules(length=0))
    table.look(START)
    table.look(START, [Die(3, "white"), Die(1, "black")])
    after = apply_play(START, WHITE, (3, 1), "8/5 6/5")
    table.look(after)
    table.look(after, cube=Cube(2, "black"))
    labels = [label for label, _ in table.referee.menu_items()]
    assert "End the session" not in labels  # a game is being played
    for _ in range(labels.index("White drops") + 1):
        table.press("menu")
    table.press("accept")
    labels = [label for label, _ in table.referee.menu_items()]
    for _ in range(labels.index("End the session") + 1):
        table.press("menu")
    d = table.press("accept")
    assert types(d) == ["end"] and table.referee.log.finished
    assert "Session over" in texts(d)[-1]
    assert types(table.look(START)) == []  # no new game in an ended session
    labels = [label for label, _ in table.referee.menu_items()]
    for _ in range(labels.index("Start a new match") + 1):
        table.press("menu")
    from controller.referee import NewMatchRequested
    d = table.press("accept")
    assert any(isinstance(s, NewMatchRequested) for s in d.signals)


def test_a_checker_missing_from_the_read_is_never_judged_illegal():
    table = opened(5, 6)
    after = apply_play(START, BLACK, (6, 5), "24/13")
    observed = seen(after)  # one of Black's six on its 13 point (White's 12) is not seen
    points = list(observed.points)
    points[11] = replace(points[11], count=5, count_range=(5, 5))
    hidden = replace(observed, points=tuple(points))
    for _ in range(12):
        table.t += 0.5
        d = table.referee.feed(hidden, table.t)
        assert not d.events and not any(isinstance(s, Beep) and s.kind == "illegal" for s in d.signals)
    assert any("clear the view" in " ".join(s.lines) for s in d.signals if isinstance(s, Display)) or \
        table.referee.asked_to_pick


def test_accept_lets_an_opening_roll_called_faulty_stand():
    table = Table()
    table.look(START)
    d = table.look(START, [Die(5, "white", flat=False), Die(2, "black")])
    assert any("Roll again: a die is cocked" in t for t in texts(d)) and table.game.phase is Phase.OPENING
    d = table.press("accept")  # the players see the die lies flat
    assert types(d) == ["opening"] and d.events[0]["chosen"]
    assert table.game.turn == WHITE and table.game.dice == (5, 2) and table.game.phase is Phase.MOVE
    after = apply_play(START, WHITE, (5, 2), "13/8 13/11")
    assert types(table.look(after)) == ["play"]


def test_accept_cannot_let_opening_dice_in_one_half_stand():
    table = Table()
    table.look(START)
    table.look(START, [Die(4, "white"), Die(2, "white")])
    assert types(table.press("accept")) == [] and table.game.phase is Phase.OPENING
