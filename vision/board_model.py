"""The canonical board the reader warps every frame onto, seen from straight above.

Lengths are in checker diameters (D), scaled by ``ppd`` pixels per diameter. White's
home board is in the bottom-right corner: White's points 1..6 run from the bottom-right
corner to the bar, 7..12 on to the bottom-left corner, 13..18 from the top-left corner
to the bar, 19..24 on to the top-right corner; the bear-off trays stand right of the
field (White's below, Black's above); the bar divides the two halves. A board whose
home board is in another corner is mapped here by a mirrored or rotated homography.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

RIM = 0.55            # outer rim of the case
POINT_WIDTH = 1.1
HALF_WIDTH = 6 * POINT_WIDTH
BAR_WIDTH = 1.3
STRIP = 0.35          # rim between the field and the trays
TRAY_WIDTH = 1.35
POINT_LENGTH = 5.0    # five checkers fit in a row
TIP_GAP = 1.6
FIELD_HEIGHT = 2 * POINT_LENGTH + TIP_GAP
BOARD_WIDTH = RIM + 2 * HALF_WIDTH + BAR_WIDTH + STRIP + TRAY_WIDTH + RIM
BOARD_HEIGHT = FIELD_HEIGHT + 2 * RIM
ROW = 5               # checkers in one row along a point


@dataclass(frozen=True)
class BoardModel:
    """Canonical geometry at ``ppd`` pixels per checker diameter (all coordinates in pixels)."""

    ppd: float = 20.0

    @property
    def size(self) -> tuple[int, int]:
        return int(round(BOARD_WIDTH * self.ppd)), int(round(BOARD_HEIGHT * self.ppd))

    def corners(self) -> np.ndarray:
        """The case's corners: top-left, top-right, bottom-right, bottom-left."""
        w, h = BOARD_WIDTH * self.ppd, BOARD_HEIGHT * self.ppd
        return np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)

    @property
    def field(self) -> tuple[float, float, float, float]:
        """The playing surface (both halves and the bar): x0, y0, x1, y1."""
        s = self.ppd
        return (RIM * s, RIM * s, (RIM + 2 * HALF_WIDTH + BAR_WIDTH) * s, (RIM + FIELD_HEIGHT) * s)

    @property
    def bar(self) -> tuple[float, float, float, float]:
        s = self.ppd
        x0 = (RIM + HALF_WIDTH) * s
        return (x0, RIM * s, x0 + BAR_WIDTH * s, (RIM + FIELD_HEIGHT) * s)

    def half_rect(self, half: str) -> tuple[float, float, float, float]:
        """The half of the field on ``half``'s right hand: White sits at the bottom, so
        White's right-hand half is the right one (holding both home boards' side)."""
        s = self.ppd
        x0, y0, x1, y1 = self.field
        if half == "white":
            return ((RIM + HALF_WIDTH + BAR_WIDTH) * s, y0, x1, y1)
        return (x0, y0, (RIM + HALF_WIDTH) * s, y1)

    def tray(self, colour: str) -> tuple[float, float, float, float]:
        s = self.ppd
        x0 = (RIM + 2 * HALF_WIDTH + BAR_WIDTH + STRIP) * s
        mid = (RIM + FIELD_HEIGHT / 2) * s
        if colour == "white":
            return (x0, mid + 0.1 * s, x0 + TRAY_WIDTH * s, (RIM + FIELD_HEIGHT) * s)
        return (x0, RIM * s, x0 + TRAY_WIDTH * s, mid - 0.1 * s)

    def point_base(self, number: int) -> tuple[float, float, int]:
        """(x of the point's centre line, y of its base, +1 if it points down, -1 up)."""
        s = self.ppd
        left = RIM * s
        bar_x0 = left + HALF_WIDTH * s
        right_x0 = bar_x0 + BAR_WIDTH * s
        right_x1 = right_x0 + HALF_WIDTH * s
        top, bottom = RIM * s, (RIM + FIELD_HEIGHT) * s
        w = POINT_WIDTH * s
        if number <= 6:
            return right_x1 - (number - 0.5) * w, bottom, -1
        if number <= 12:
            return bar_x0 - (number - 6.5) * w, bottom, -1
        if number <= 18:
            return left + (number - 12.5) * w, top, 1
        return right_x0 + (number - 18.5) * w, top, 1

    def slot(self, number: int, along: float) -> tuple[float, float]:
        """The pixel ``along`` checker diameters from point ``number``'s base on its centre line."""
        x, y, d = self.point_base(number)
        return x, y + d * along * self.ppd

    @cached_property
    def slots(self) -> np.ndarray:
        """Centres of the five row slots of every point: array (24, ROW, 2)."""
        return np.array([[self.slot(n, 0.5 + i) for i in range(ROW)] for n in range(1, 25)], np.float32)

    def bar_slots(self, colour: str, count: int = 5) -> np.ndarray:
        """Where a side's checkers wait on the bar: White's on the upper half (toward
        Black's home board, where they enter), Black's on the lower, from the middle outward."""
        x0, y0, x1, y1 = self.bar
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        sign = -1.0 if colour == "white" else 1.0
        return np.array([(cx, cy + sign * (0.95 + i) * self.ppd) for i in range(count)], np.float32)
