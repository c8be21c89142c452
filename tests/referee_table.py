"""A table for referee tests: observations made from positions, and a clock that moves on."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.match_log import MatchLog
from controller.referee import Button, Decision, Press, Referee, Timing
from engine.match import MatchRules
from engine.position import BLACK, WHITE, Position
from vision.observation import CubeRead, DieRead, Observation, PointRead


def Die(value: int, half: str | None, flat: bool = True, on_checker: bool = False,
        confidence: float = 1.0) -> DieRead:
    """A die as vision reads it."""
    return DieRead(value, half, flat, on_checker, (0, 0, 10, 10), confidence)


def Cube(value: int, side: str) -> CubeRead:
    """The cube as vision reads it."""
    return CubeRead(value, side, 1.0)


def seen(position: Position, dice=(), cube=Cube(64, "centre"), settled=True, ranges=None, t=0.0) -> Observation:
    """The observation of a frame showing ``position``: every count certain but those ``ranges``
    makes (point -> (min, max)), the borne-off checkers as read in the trays."""
    points = []
    for i, n in enumerate(position.points(), start=1):
        low, high = (ranges or {}).get(i, (abs(n), abs(n)))
        points.append(PointRead(i, None if n == 0 else ("white" if n > 0 else "black"), abs(n), (low, high), 1.0))
    return Observation(settled, True, tuple(points),
                       {"white": (position.bar(WHITE),) * 2, "black": (position.bar(BLACK),) * 2},
                       {"white": (position.off(WHITE),) * 2, "black": (position.off(BLACK),) * 2},
                       tuple(dice), cube, timestamp=t)


@dataclass
class Table:
    """Drives a referee: each look or press advances the time by ``step`` seconds."""

    rules: MatchRules = field(default_factory=lambda: MatchRules(length=5))
    step: float = 0.5
    t: float = 0.0
    events: list = field(default_factory=list)
    signals: list = field(default_factory=list)

    def __post_init__(self):
        self.referee = Referee(MatchLog(("Alice", "Bob"), self.rules), Timing())

    def _keep(self, decision: Decision) -> Decision:
        self.events += decision.events
        self.signals += decision.signals
        return decision

    def look(self, position: Position, dice=(), **kw) -> Decision:
        """The camera sees the table the same way in as many frames as the referee needs to be sure."""
        decision = Decision()
        timing = self.referee.timing
        for _ in range(max(timing.confirm_frames, timing.roll_confirm_frames)):
            self.t += self.step
            one = self.referee.feed(seen(position, dice, t=self.t, **kw), self.t)
            decision.events += one.events
            decision.signals += one.signals
        return self._keep(decision)

    def press(self, button: str) -> Decision:
        self.t += self.step
        return self._keep(self.referee.feed(Press(Button(button), self.t)))

    @property
    def game(self):
        return self.referee.game

    @property
    def position(self) -> Position:
        return self.referee.log.position
