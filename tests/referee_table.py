"""A table for referee tests: observations made from positions, and a clock that moves on."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.match_log import MatchLog
from controller.referee import Button, Decision, Press, Referee, Timing
from engine.match import MatchRules
from engine.position import BLACK, WHITE, Position


@dataclass(frozen=True)
class Die:
    value: int
    half: str | None
    flat: bool = True
    on_checker: bool = False
    box: tuple = (0, 0, 10, 10)
    confidence: float = 1.0


@dataclass(frozen=True)
class Cube:
    value: int
    side: str
    confidence: float = 1.0


@dataclass(frozen=True)
class Point:
    color: str | None
    count: int
    count_range: tuple[int, int]
    confidence: float = 1.0
    occluded: bool = False


@dataclass(frozen=True)
class Seen:
    """What a camera saw, in the shape of vision's observations."""

    points: tuple[Point, ...]
    bar: dict
    off: dict
    dice: tuple[Die, ...] = ()
    cube: Cube | None = None
    settled: bool = True
    board_visible: bool = True
    timestamp: float = 0.0

    def to_position(self, variant):
        if any(p.count_range[0] != p.count_range[1] for p in self.points):
            return None
        signed = [0 if p.color is None else (p.count if p.color == "white" else -p.count) for p in self.points]
        return Position.from_points(signed, bar=(self.bar["white"], self.bar["black"]), variant=variant)


def seen(position: Position, dice=(), cube=Cube(64, "centre"), settled=True, ranges=None, t=0.0) -> Seen:
    points = []
    for i, n in enumerate(position.points(), start=1):
        low, high = (ranges or {}).get(i, (abs(n), abs(n)))
        points.append(Point(None if n == 0 else ("white" if n > 0 else "black"), abs(n), (low, high)))
    return Seen(tuple(points), {"white": position.bar(WHITE), "black": position.bar(BLACK)},
                {"white": position.off(WHITE), "black": position.off(BLACK)},
                tuple(dice), cube, settled, True, t)


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
