"""Positions: where every checker of both sides stands.

Each side counts the points from its own home board: its ace point is 1, its
farthest point 24, so one side's point ``p`` is the other's ``25 - p``. A side's
checkers are a tuple of 26 counts: index 0 is borne off (``OFF``), 1..24 its
points, 25 the bar (``BAR``). This is the numbering of the move notation too
(``25/22``, ``6/0``).

>>> p = Position.initial()
>>> p.pip_count(WHITE)
167
>>> p.position_id(WHITE)
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from enum import Enum, IntEnum

OFF = 0
BAR = 25


class Side(IntEnum):
    """White is GNU Backgammon's player 0 (the left player of a .mat file)."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Side:
        return Side(1 - self)

    def __str__(self) -> str:
        return self.name.lower()


WHITE = Side.WHITE
BLACK = Side.BLACK


class Variant(str, Enum):
    STANDARD = "standard"
    HYPER = "hyper"
    NACKGAMMON = "nackgammon"

    @property
    def checkers(self) -> int:
        """Checkers each side plays with."""
        return 3 if self is Variant.HYPER else 15

    @property
    def start(self) -> dict[int, int]:
        """The opening layout of one side, as ``{point: checkers}``."""
        return _STARTS[self]

    def __str__(self) -> str:
        return self.value


_STARTS = {
    Variant.STANDARD: {24: 2, 13: 5, 8: 3, 6: 5},
    Variant.HYPER: {24: 1, 23: 1, 22: 1},
    Variant.NACKGAMMON: {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
}


class PositionError(ValueError):
    """A position that cannot occur on a board, or an ID that does not decode to one."""


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable board: the checkers of White and Black, each from its own side.

    ``white[p]`` and ``black[p]`` are counts with ``p`` in the side's own numbering
    (0 off, 1..24 points, 25 bar). Constructing checks the position is possible:
    the right number of checkers per side and no point held by both sides.
    """

    white: tuple[int, ...]
    black: tuple[int, ...]
    variant: Variant = Variant.STANDARD

    def __post_init__(self) -> None:
        n = self.variant.checkers
        for side, counts in ((WHITE, self.white), (BLACK, self.black)):
            if len(counts) != 26:
                raise PositionError(f"{side} needs 26 counts (off, points 1-24, bar), got {len(counts)}")
            if any(c < 0 for c in counts):
                raise PositionError(f"{side} has a negative checker count")
            total = sum(counts)
            if total != n:
                raise PositionError(f"{side} has {total} checkers; {self.variant} uses {n}")
        for p in range(1, 25):
            if self.white[p] and self.black[25 - p]:
                raise PositionError(f"point {p} (White's numbering) holds checkers of both sides")

    # construction ---------------------------------------------------------
    @classmethod
    def initial(cls, variant: Variant | str = Variant.STANDARD) -> Position:
        variant = Variant(variant)
        side = [0] * 26
        for point, count in variant.start.items():
            side[point] = count
        return cls(tuple(side), tuple(side), variant)

    @classmethod
    def from_sides(cls, mover: tuple[int, ...] | list[int], opponent: tuple[int, ...] | list[int],
                   on_roll: Side, variant: Variant | str = Variant.STANDARD) -> Position:
        """Build from the mover's and the opponent's 26 counts."""
        mover, opponent = tuple(mover), tuple(opponent)
        if on_roll == WHITE:
            return cls(mover, opponent, Variant(variant))
        return cls(opponent, mover, Variant(variant))

    @classmethod
    def from_board(cls, board: list[list[int]], on_roll: Side = WHITE,
                   variant: Variant | str = Variant.STANDARD) -> Position:
        """From GNU Backgammon's ``[opponent, player_on_roll]`` lists of 25 (points 1-24, bar)."""
        variant = Variant(variant)
        sides = []
        for counts in board:
            if len(counts) != 25:
                raise PositionError(f"a board side needs 25 counts, got {len(counts)}")
            on_board = sum(counts)
            if on_board > variant.checkers:
                raise PositionError(f"a side has {on_board} checkers; {variant} uses {variant.checkers}")
            sides.append((variant.checkers - on_board, *counts))
        return cls.from_sides(sides[1], sides[0], on_roll, variant)

    @classmethod
    def from_points(cls, points: dict[int, int] | list[int], bar: tuple[int, int] = (0, 0),
                    variant: Variant | str = Variant.STANDARD) -> Position:
        """From signed counts on points 1..24 numbered from White's ace point.

        Positive counts are White's checkers, negative Black's; ``bar`` is
        ``(white, black)``. Borne-off checkers are whatever is missing.
        """
        variant = Variant(variant)
        items = points.items() if isinstance(points, dict) else enumerate(points, start=1)
        white, black = [0] * 26, [0] * 26
        for point, count in items:
            if not 1 <= point <= 24:
                raise PositionError(f"point {point} is not on the board (1-24)")
            if count > 0:
                white[point] = count
            elif count < 0:
                black[25 - point] = -count
        white[BAR], black[BAR] = bar
        for name, side in (("White", white), ("Black", black)):
            on_board = sum(side)
            if on_board > variant.checkers:
                raise PositionError(f"{name} has {on_board} checkers; {variant} uses {variant.checkers}")
            side[OFF] = variant.checkers - on_board
        return cls(tuple(white), tuple(black), variant)

    @classmethod
    def _trusted(cls, mover: tuple[int, ...], opponent: tuple[int, ...], on_roll: Side,
                 variant: Variant) -> Position:
        """Build without checking, for positions the move generator derived from valid ones."""
        p = object.__new__(cls)
        white, black = (mover, opponent) if on_roll == 0 else (opponent, mover)
        object.__setattr__(p, "white", white)
        object.__setattr__(p, "black", black)
        object.__setattr__(p, "variant", variant)
        return p

    # views ------------------------------------------------------------------
    def side(self, side: Side) -> tuple[int, ...]:
        return self.black if side else self.white

    def points(self) -> list[int]:
        """Signed counts of points 1..24 from White's ace point: + White, - Black."""
        return [self.white[p] - self.black[25 - p] for p in range(1, 25)]

    def bar(self, side: Side) -> int:
        return self.side(side)[BAR]

    def off(self, side: Side) -> int:
        return self.side(side)[OFF]

    def pip_count(self, side: Side) -> int:
        """Pips the side needs to bear off every checker (a checker on the bar counts 25)."""
        return sum(p * c for p, c in enumerate(self.side(side)))

    def all_home(self, side: Side) -> bool:
        """True when every checker not borne off stands on points 1..6."""
        return not any(self.side(side)[7:])

    def winner(self) -> Side | None:
        """The side that has borne off all its checkers, if any."""
        for side in (WHITE, BLACK):
            if self.off(side) == self.variant.checkers:
                return side
        return None

    def swapped(self) -> Position:
        """The same board with the colours exchanged."""
        return Position(self.black, self.white, self.variant)

    # GNU Backgammon Position ID ----------------------------------------------
    def position_id(self, on_roll: Side) -> str:
        """GNU Backgammon Position ID with ``on_roll`` as the player on roll."""
        bits = 0
        n = 0
        for counts in (self.side(on_roll.opponent), self.side(on_roll)):
            for p in range(1, 26):
                c = counts[p]
                bits |= ((1 << c) - 1) << n
                n += c + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode()[:14]

    @classmethod
    def from_position_id(cls, pid: str, on_roll: Side = WHITE,
                         variant: Variant | str = Variant.STANDARD) -> Position:
        """Decode a Position ID; ``on_roll`` says which colour the player on roll is."""
        variant = Variant(variant)
        pid = pid.strip()
        if len(pid) != 14 or not all(ch.isalnum() or ch in "+/" for ch in pid):
            raise PositionError(f"{pid!r} is not a Position ID (14 characters of base64)")
        bits = int.from_bytes(base64.b64decode(pid + "=="), "little")
        sides: list[list[int]] = [[0] * 25, [0] * 25]
        index, count = 0, 0
        for n in range(80):
            if index >= 50:
                if bits >> n:
                    raise PositionError(f"Position ID {pid} has bits set past the 50 counts")
                break
            if bits >> n & 1:
                count += 1
            else:
                sides[index // 25][index % 25] = count
                index, count = index + 1, 0
        if index < 50:
            raise PositionError(f"Position ID {pid} describes more than 80 bits of checkers")
        return cls.from_board(sides, on_roll, variant)

    # text -------------------------------------------------------------------
    def diagram(self, on_roll: Side | None = None) -> str:
        """A text board seen from White's side: O is White, X is Black.

        White's home board is bottom right; piles taller than five show their count.
        """
        pts = self.points()
        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))

        def cell(point: int, row: int) -> str:
            n = pts[point - 1]
            count, mark = abs(n), ("O" if n > 0 else "X")
            if count > row:
                if row == 4 and count > 5:
                    return f"{count:>2} "[:3] if count > 9 else f" {count} "
                return f" {mark} "
            return " . " if row == 0 else "   "

        def half(points: list[int], row: int) -> str:
            return "".join(cell(p, row) for p in points[:6]) + "|   |" + "".join(cell(p, row) for p in points[6:])

        lines = [" " + "".join(f"{p:^3}" for p in top[:6]) + "     " + "".join(f"{p:^3}" for p in top[6:])]
        lines.append("+" + "-" * 18 + "+---+" + "-" * 18 + "+")
        for row in range(5):
            lines.append("|" + half(top, row) + "|")
        bar = f"BAR  O:{self.bar(WHITE)} X:{self.bar(BLACK)}"
        lines.append("|" + bar.center(41) + "|")
        for row in reversed(range(5)):
            lines.append("|" + half(bottom, row) + "|")
        lines.append("+" + "-" * 18 + "+---+" + "-" * 18 + "+")
        lines.append(" " + "".join(f"{p:^3}" for p in bottom[:6]) + "     " + "".join(f"{p:^3}" for p in bottom[6:]))
        lines.append(f"O (White) pips {self.pip_count(WHITE)}, off {self.off(WHITE)}    "
                     f"X (Black) pips {self.pip_count(BLACK)}, off {self.off(BLACK)}")
        if on_roll is not None:
            lines.append(f"{on_roll} on roll    Position ID {self.position_id(on_roll)}")
        return "\n".join(lines)
