"""The simulated table: two players replaying a recorded match under a simulated camera.

:class:`SimPlayers` replays a validated match record turn by turn as people do
at a real table: they set up the board, throw the dice into the right half,
move the checkers with their hands, pick up the dice, turn and pass the cube,
and press the table's buttons (reading the display to find a MENU entry). They
watch the referee's lights and display, and with ``mistakes`` > 0 they sometimes
play an illegal move, throw a cocked die or roll before the opponent has
finished, and put things right when told; now and then the opponent accepts an
illegal play instead, and then both take it back with UNDO and the player plays
the roll again as recorded. They never tell the referee what they meant: the
referee sees only frames and button presses.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from engine.match import EndReason, Kind
from engine.moves import legal_plays
from engine.position import WHITE, Position, Side
from engine.records.model import Action
from engine.records.validate import CheckedMatch
from firmware_bridge.events import ButtonPress
from hardware.sim.render_sequence import Frame, TableCamera


ACCEPTED = 0.3   # share of caught illegal plays the opponent accepts (and both then take back)


def opening_dice(winner: Side, dice) -> tuple[int, int]:
    """The opening roll as (White's die, Black's die): the winner of it threw the higher."""
    high, low = max(dice), min(dice)
    return (high, low) if winner == WHITE else (low, high)


@dataclass
class Tally:
    """What the players did wrong on purpose, and what the referee said about it."""

    injected: int = 0
    caught: int = 0
    accepted: int = 0     # caught illegal plays the opponent accepted (then both took back)
    missed: int = 0
    false_alarms: int = 0
    alarms: list[tuple[float, str]] = field(default_factory=list)   # (seconds, what was signalled) of each false alarm
    picked: int = 0       # plays and cube actions the players picked on MENU: the camera could not settle them
    turns: int = 0


@dataclass
class SimPlayers:
    """Two players replaying ``match`` at the table seen by ``camera``.

    Iterate :meth:`actions` for frames and button presses; between items tell
    them what the table shows with :meth:`see_lights` and :meth:`see_display`.
    """

    match: CheckedMatch
    camera: TableCamera
    mistakes: float = 0.0
    seed: int = 0
    patience: int = 40
    tally: Tally = field(default_factory=Tally)

    def __post_init__(self):
        self.rng = np.random.default_rng(self.seed + 1)
        self.now = 0.0
        self._start = (0, 0)
        self.illegal_lit = False
        self.display: tuple[str, ...] = ()
        self._expect_illegal = False
        self._expect_roll_again = False
        self._shown = 0  # displays seen so far

    # ------------------------------------------------------------------ what the players see
    def see_lights(self, illegal: bool) -> None:
        if illegal and not self.illegal_lit and not self._expect_illegal:
            self._false_alarm(" ".join(self.display) or "illegal")
        self.illegal_lit = illegal

    def see_display(self, lines: tuple[str, ...]) -> None:
        text = " ".join(lines)
        if lines != self.display and ("Roll again" in text or "void" in text) and not self._expect_roll_again:
            self._false_alarm(text)
        self.display = lines
        self._shown += 1

    def _false_alarm(self, what: str) -> None:
        self.tally.false_alarms += 1
        self.tally.alarms.append((round(self.now, 2), what))

    def says(self, *words: str) -> bool:
        """Whether the display shows any of ``words``."""
        text = " ".join(self.display)
        return any(w in text for w in words)

    # ------------------------------------------------------------------ acting
    def _shoot(self) -> Iterator[Frame]:
        for frame in self.camera.frames():
            self.now = frame.timestamp
            yield frame

    def _settle(self, seconds: float = 0.4) -> Iterator[Frame]:
        self.camera.hold(seconds)
        yield from self._shoot()

    def _arrange(self, before: Position, after: Position, side: str) -> Iterator[Frame]:
        self.camera.move(before, after, side=side)
        yield from self._shoot()

    def _throw(self, side: str, dice, half: str | None = None, cocked: bool = False) -> Iterator[Frame]:
        self.camera.roll(dice, half=half or side, cocked=cocked, keep=True)
        yield from self._shoot()

    def _pick_up(self, side: str, halves: tuple[str, ...]) -> Iterator[Frame]:
        self.camera.pick_up_dice(side=side, halves=halves)
        self.camera.hold(0.4)
        yield from self._shoot()

    def _cube(self, side: str, value: int, where: str) -> Iterator[Frame]:
        self.camera.set_cube(value, where)
        yield from self._settle()

    def _press(self, button: str):
        yield ButtonPress(button, "sim", self.now)
        yield from self._settle(0.1)

    def _choose(self, *labels: str, required: bool = True):
        """Press MENU until the display shows one of ``labels``, then ACCEPT; whether one was offered."""
        for _ in range(30):
            yield from self._press("menu")
            if self.display and self.display[-1].endswith(labels):
                yield from self._press("accept")
                return True
        if required:
            raise RuntimeError(f"the menu never offered {' or '.join(labels)!r} (display: {self.display})")
        yield from self._press("undo")  # close the menu
        return False

    def _told_or_chosen(self, action: str) -> Iterator[Frame | ButtonPress]:
        """Wait for the display to show ``action`` (a cube action the camera should see); if it
        does not, the players choose it on MENU."""
        yield from self._wait_for(lambda: self.says(action))
        if not self.says(action):
            self.tally.picked += 1
            yield from self._choose(action)

    def _wait_for(self, predicate, patience: int | None = None) -> Iterator[Frame]:
        for _ in range(patience or self.patience):
            if predicate():
                return
            yield from self._settle(0.1)

    def _verdict(self, side: Side, before: Position, after: Position, dice) -> Iterator[Frame | ButtonPress]:
        """After the pick-up, wait for the referee to take the play. A play it cannot settle
        from the camera (it asks), or calls illegal by mistake (with the roll, when the roll
        was misread), and a roll it did not see, the players pick on MENU; a false alarm whose
        play is not offered, the opponent accepts."""
        name = str(side).capitalize()

        def told() -> bool:
            return self.says(f"{name} played", " wins ", "on MENU") or self.illegal_lit
        yield from self._wait_for(told, patience=2 * self.patience)
        if not (self.says("on MENU") or self.illegal_lit):
            return
        play = next(lp.play for lp in legal_plays(before, side, dice) if lp.position == after)
        labels = (f"{name} played {play or 'nothing'}", f"{name} rolled {max(dice)}{min(dice)} and played {play}")
        if self.says("not seen"):
            labels = labels[1:]
        self.tally.picked += 1
        if not (yield from self._choose(*labels, required=not self.illegal_lit)):
            yield from self._press("accept")

    # ------------------------------------------------------------------ the match
    def resume(self, game_index: int, entry_index: int, position: Position, cube: tuple[int, str]) -> None:
        """Carry on from entry ``entry_index`` of game ``game_index``, the table set as given."""
        self._start = (game_index, entry_index)
        self.camera.set_position(position)
        self.camera.set_cube(*cube)

    def actions(self) -> Iterator[Frame | ButtonPress]:
        yield from self._settle()
        variant = self.match.record.rules.variant
        start_game, start_entry = self._start
        for number, game in enumerate(self.match.games):
            if number < start_game:
                continue
            if number and not (number == start_game and start_entry):
                self.camera.set_cube(1, "centre")
                yield from self._arrange(self.camera.scene.position, Position.initial(variant), "white")
            skip = start_entry if number == start_game else 0
            yield from self._game(game, Position.initial(variant), skip)

    def _game(self, game, position: Position, skip: int = 0) -> Iterator[Frame | ButtonPress]:
        opening = True
        cube = 1
        turns = [t for t in game.turns if not t.turn.unplayed]
        for i, checked in enumerate(turns):
            turn = checked.turn
            side = str(turn.side)
            if i < skip:  # already played before the replay was interrupted
                opening = opening and turn.action is not Action.ROLL
                position = checked.position if turn.action is Action.ROLL else position
                cube = turn.value if turn.action in (Action.DOUBLE, Action.BEAVER) else cube
                continue
            if turn.action is Action.ROLL:
                self.tally.turns += 1
                if opening:
                    white_die, black_die = opening_dice(turn.side, turn.dice)
                    shown = self._shown
                    yield from self._throw("white", [white_die])
                    yield from self._throw("black", [black_die])
                    yield from self._let_a_false_roll_again_stand(shown, "rolled")
                    halves = ("white", "black")
                    opening = False
                else:
                    yield from self._roll(side, turn.dice)
                    halves = (side,)
                after = checked.position
                if after != position:
                    yield from self._play(turn.side, position, after, turn.dice, halves)
                else:
                    yield from self._pick_up(side, halves)
                    yield from self._verdict(turn.side, position, after, turn.dice)
                position = after
            elif turn.action is Action.DOUBLE:
                where = side if cube == 1 else self.camera.scene.cube.side
                cube = turn.value
                yield from self._cube(side, cube, where)
                yield from self._told_or_chosen(f"{side.capitalize()} doubles")
            elif turn.action is Action.TAKE:
                yield from self._cube(side, cube, side)
                yield from self._told_or_chosen(f"{side.capitalize()} takes")
            elif turn.action is Action.DROP:
                yield from self._choose(f"{side.capitalize()} drops")
            elif turn.action is Action.BEAVER:
                cube = turn.value
                yield from self._choose(f"{side.capitalize()} beavers")
                yield from self._cube(side, cube, side)
        if game.outcome is not None and game.outcome.reason is EndReason.RESIGNED:
            loser = game.outcome.winner.opponent
            yield from self._choose(f"{str(loser).capitalize()} resigns {Kind(game.outcome.kind).name.lower()}")
            yield from self._press("accept")
        yield from self._settle()

    def _roll(self, side: str, dice: tuple[int, int]) -> Iterator[Frame]:
        if self.mistakes and self.rng.random() < self.mistakes / 2:
            cocked = bool(self.rng.random() < 0.5)
            half = side if cocked else ("white" if side == "black" else "black")
            self.tally.injected += 1
            self._expect_roll_again = True
            yield from self._throw(side, dice, half=half, cocked=cocked)
            yield from self._wait_for(lambda: self.says("Roll again"))
            self._count(self.says("Roll again"))
            yield from self._pick_up(side, ("white", "black"))
            self._expect_roll_again = False
        shown = self._shown
        yield from self._throw(side, dice)
        yield from self._let_a_false_roll_again_stand(shown, f"{side.capitalize()} rolled")

    def _let_a_false_roll_again_stand(self, shown: int, taken: str) -> Iterator[Frame | ButtonPress]:
        """Wait for the referee's word on dice thrown fairly (``taken``: what the display says
        when it takes them); a "roll again" for them is a false alarm, and the players let
        the roll stand (ACCEPT)."""
        def told() -> bool:
            return self._shown > shown and self.says(taken, "Roll again")
        yield from self._wait_for(told)
        if told() and self.says("Roll again"):
            yield from self._press("accept")

    def _count(self, caught: bool) -> None:
        if caught:
            self.tally.caught += 1
        else:
            self.tally.missed += 1

    def _play(self, side: Side, before: Position, after: Position, dice, halves) -> Iterator[Frame]:
        name = str(side)
        wrong = self._wrong_play(side, before, dice) if self.mistakes and self.rng.random() < self.mistakes else None
        if wrong is not None:
            self.tally.injected += 1
            self._expect_illegal = True
            yield from self._arrange(before, wrong, name)
            yield from self._pick_up(name, halves)
            yield from self._wait_for(lambda: self.illegal_lit)
            self._count(self.illegal_lit)
            taken_back = self.illegal_lit and self.rng.random() < ACCEPTED
            if taken_back:
                yield from self._accept_and_take_back(side, dice, halves)
            yield from self._arrange(wrong, after, name)
            if taken_back:
                yield from self._pick_up(name, halves)
            yield from self._wait_for(lambda: not self.illegal_lit)
            self._expect_illegal = False
            yield from self._verdict(side, before, after, dice)
            return
        yield from self._arrange(before, after, name)
        if self.mistakes and len(halves) == 1 and self.rng.random() < self.mistakes / 2:
            other = str(side.opponent)
            self.tally.injected += 1
            self._expect_roll_again = True
            yield from self._throw(other, [int(self.rng.integers(1, 7)), int(self.rng.integers(1, 7))])
            yield from self._wait_for(lambda: self.says("void"))
            self._count(self.says("void"))
            yield from self._pick_up(other, (other,))
            self._expect_roll_again = False
        yield from self._pick_up(name, halves)
        yield from self._verdict(side, before, after, dice)

    def _accept_and_take_back(self, side: Side, dice, halves) -> Iterator[Frame | ButtonPress]:
        """The opponent accepts the illegal play; then the player asks to take it back (UNDO),
        the opponent agrees (ACCEPT), and the player puts the dice back to play the roll again."""
        self.tally.accepted += 1
        yield from self._press("accept")
        yield from self._wait_for(lambda: not self.illegal_lit)
        yield from self._press("undo")
        yield from self._press("accept")
        yield from self._wait_for(lambda: self.says("taken back"))
        if not self.says("taken back"):
            raise RuntimeError(f"the accepted play was not taken back (display: {self.display})")
        if len(halves) == 2:
            self.camera.roll(opening_dice(side, dice), half=("white", "black"))
        else:
            self.camera.roll(dice, half=halves[0])
        yield from self._shoot()

    def _wrong_play(self, side: Side, before: Position, dice) -> Position | None:
        """A position reachable with other dice that the roll does not allow."""
        allowed = {lp.position for lp in legal_plays(before, side, dice)}
        options = []
        for other in {(dice[0], max(1, dice[1] - 1)), (dice[0], min(6, dice[1] + 1)),
                      (max(1, dice[0] - 1), dice[1]), (min(6, dice[0] + 1), dice[1])}:
            options += [lp.position for lp in legal_plays(before, side, other)
                        if lp.play and lp.position not in allowed]
        if not options:
            return None
        return options[int(self.rng.integers(len(options)))]


class SimTableSource:
    """The simulated table as a camera: ``read()`` gives the players' frames at camera pace.

    The players' button presses go to ``events`` (the queue the GPIO buttons and
    the display unit use); ``speed`` > 1 plays faster than real time. ``now``
    is the table's own clock (seconds of play), and ``truth`` what the last
    frame really showed.
    """

    def __init__(self, players: SimPlayers, events: queue.Queue, speed: float = 1.0,
                 clock: Callable[[], float] = time.monotonic):
        self.players = players
        self.events = events
        self.speed = speed
        self.clock = clock
        self.now = 0.0
        self.truth = None
        self._actions = players.actions()
        self._started: float | None = None
        self._open = True
        self.error: str | None = None

    def isOpened(self) -> bool:
        return self._open

    def release(self) -> None:
        self._open = False

    def read(self):
        if not self._open:
            return False, None
        try:
            return self._next()
        except RuntimeError as err:  # the players are stuck: the table stops, saying why
            self.error = str(err)
            self._open = False
            return False, None

    def _next(self):
        for item in self._actions:
            if isinstance(item, ButtonPress):
                self.events.put(item)
                continue
            if self._started is None:
                self._started = self.clock() - item.timestamp / self.speed
            delay = self._started + item.timestamp / self.speed - self.clock()
            if delay > 0:
                time.sleep(delay)
            self.now, self.truth = item.timestamp, item.truth
            return True, item.image
        self._open = False
        return False, None


__all__ = ["SimPlayers", "SimTableSource", "Tally"]
