"""What the camera saw in one frame: the ``Observation`` the referee consumes.

Points are numbered 1..24 from White's ace point. A count is *certain* only when its
``count_range`` is a single value and nothing covers the point; ``to_position`` gives a
position only when every count is certain, so an occluded or ambiguous frame can never
be mistaken for a position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.position import BLACK, WHITE, Position, PositionError, Variant

COLOURS = ("white", "black")


def _outside(count: int, low: int, high: int) -> int:
    """How far ``count`` lies outside [low, high]."""
    return max(low - count, count - high, 0)


@dataclass(frozen=True)
class PointRead:
    """Checkers on one point: ``color`` None when empty; ``count_range`` (min, max) is honest
    where a pile hides checkers; ``occluded`` when a hand or motion covers the point."""

    point: int
    color: str | None
    count: int
    count_range: tuple[int, int]
    confidence: float
    occluded: bool = False

    @property
    def certain(self) -> bool:
        return not self.occluded and self.count_range[0] == self.count_range[1] == self.count

    @property
    def signed(self) -> int:
        """+count for White, -count for Black."""
        return self.count if self.color == "white" else -self.count if self.color == "black" else 0


@dataclass(frozen=True)
class DieRead:
    """One die: ``half`` is whose right-hand half of the board it lies in ('white'/'black'),
    None off the playing surface; ``flat`` False when it leans (cocked); ``box`` (x, y, w, h)
    in frame pixels."""

    value: int
    half: str | None
    flat: bool
    on_checker: bool
    box: tuple[int, int, int, int]
    confidence: float


@dataclass(frozen=True)
class CubeRead:
    """The doubling cube: the face ``value`` shown (64 when centred at the start) and its
    ``side``: 'centre', or 'white'/'black' for the side that owns it."""

    value: int
    side: str
    confidence: float


@dataclass(frozen=True)
class Occlusion:
    """Why a frame is not settled: a ``hand`` (skin or unexplained colour over the board),
    ``motion`` since the previous frame, and the fraction of the playing surface covered."""

    hand: bool = False
    motion: bool = False
    covered: float = 0.0


@dataclass(frozen=True)
class Observation:
    """One frame as read. ``settled`` only when the board is visible and nothing moves or
    covers it; ``camera_moved`` asks for re-calibration."""

    settled: bool
    board_visible: bool
    points: tuple[PointRead, ...] = ()
    bar: dict[str, tuple[int, int]] = field(default_factory=lambda: {"white": (0, 0), "black": (0, 0)})
    off: dict[str, tuple[int, int]] = field(default_factory=lambda: {"white": (0, 0), "black": (0, 0)})
    dice: tuple[DieRead, ...] = ()
    cube: CubeRead | None = None
    occlusion: Occlusion = Occlusion()
    timestamp: float | None = None
    camera_moved: bool = False

    @classmethod
    def not_visible(cls, timestamp: float | None = None, camera_moved: bool = False) -> Observation:
        """A frame that does not show the calibrated board."""
        return cls(settled=False, board_visible=False, timestamp=timestamp, camera_moved=camera_moved)

    def point(self, number: int) -> PointRead:
        return self.points[number - 1]

    def to_position(self, variant: Variant | str = Variant.STANDARD) -> Position | None:
        """The position, or None unless the frame is settled, every count is certain
        (points, bar; borne-off checkers are what is missing), the counts make a legal board
        and the borne-off checkers so found are those read in the trays."""
        if not (self.settled and self.board_visible) or len(self.points) != 24:
            return None
        if not all(p.certain for p in self.points):
            return None
        if any(lo != hi for lo, hi in self.bar.values()):
            return None
        try:
            position = Position.from_points([p.signed for p in self.points],
                                            bar=(self.bar["white"][0], self.bar["black"][0]), variant=variant)
        except PositionError:
            return None
        return position if self.admits(position) else None

    def misfit(self, position: Position) -> int:
        """How many checkers of ``position`` the frame does not explain: counts outside the
        ranges read (points, bar, borne off) and checkers of the other colour on a point
        read with at least one checker certain. 0 when the frame admits ``position``."""
        if len(self.points) != 24:
            return 2 * position.variant.checkers
        total = 0
        for read, expected in zip(self.points, position.points()):
            low, high = read.count_range
            count = abs(expected)
            if count and low > 0 and read.color != ("white" if expected > 0 else "black"):
                total += max(count, low)
            else:
                total += _outside(count, low, high)
        for name, side in (("white", WHITE), ("black", BLACK)):
            total += _outside(position.bar(side), *self.bar[name]) + _outside(position.off(side), *self.off[name])
        return total

    def admits(self, position: Position) -> bool:
        """Whether ``position`` fits every range read. A settled frame whose ranges exclude
        the true position is a confident misread."""
        return self.misfit(position) == 0

    def distance(self, position: Position) -> int:
        """Checkers by which the counts read (the best guesses inside the ranges) differ from
        ``position``'s points: what ranks positions the frame admits equally."""
        return sum(abs(read.signed - expected) for read, expected in zip(self.points, position.points()))

    def to_json(self, variant: Variant | str = Variant.STANDARD) -> dict:
        """The ``bgref read --json`` contract: counts as integers where certain, else [min, max]."""
        def amount(rng: tuple[int, int]):
            return rng[0] if rng[0] == rng[1] else list(rng)

        position = self.to_position(variant)
        return {
            "settled": self.settled,
            "points": [{"point": p.point, "color": p.color,
                        "count": p.count if p.certain else list(p.count_range),
                        "confidence": round(p.confidence, 3)} for p in self.points],
            "bar": {c: amount(self.bar[c]) for c in COLOURS},
            "off": {c: amount(self.off[c]) for c in COLOURS},
            "dice": [{"value": d.value, "half": d.half, "flat": d.flat, "box": list(d.box)} for d in self.dice],
            "cube": None if self.cube is None else {"value": self.cube.value, "side": self.cube.side},
            "position_id": None if position is None else position.position_id(WHITE),
        }
