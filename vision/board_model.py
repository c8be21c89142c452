"""The canonical board the reader warps every frame onto, seen from straight above.

Lengths are in checker diameters (D), scaled by ``ppd`` pixels per diameter. White's
home board is in the bottom-right corner: White's points 1..6 run from the bottom-right
corner to the bar, 7..12 on to the bottom-left corner, 13..18 from the top-left corner
to the bar, 19..24 on to the top-right corner; the bear-off trays stand right of the
field (White's below, Black's above); the bar divides the two halves. A board whose
home board is in another corner is mapped here by a mirrored or turned view.

Boards differ in their proportions (rim, point width and length, bar, trays): each
calibration measures its board's and keeps them in a ``BoardModel``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cached_property

import numpy as np

ROW = 5               # checkers in one row along a point
THICKNESS = 0.22      # a checker's thickness (D)
ON_EDGE_STEP = 0.2376  # room a borne-off checker standing on edge takes in a tray (D)


@dataclass(frozen=True)
class BoardModel:
    """One board's geometry at ``ppd`` pixels per checker diameter (coordinates in
    canonical pixels unless named otherwise). ``rim_x``/``rim_y`` are the case's rim
    beside and above/below the field; ``strip`` the rim between the field and the
    trays; ``tray_width`` 0 for a board without trays; the canonical view shows
    ``margin`` of the table all round the case (where an arm reaching in shows)."""

    ppd: float = 24.0
    rim_x: float = 0.55
    rim_y: float = 0.55
    point_width: float = 1.1
    bar_width: float = 1.3
    strip: float = 0.35
    tray_width: float = 1.35
    point_length: float = 5.0
    tip_gap: float = 1.6
    margin: float = 0.0

    @property
    def half_width(self) -> float:
        return 6 * self.point_width

    @property
    def field_width(self) -> float:
        return 2 * self.half_width + self.bar_width

    @property
    def field_height(self) -> float:
        return 2 * self.point_length + self.tip_gap

    @property
    def board_width(self) -> float:
        trays = self.strip + self.tray_width if self.tray_width > 0 else 0.0
        return 2 * self.rim_x + self.field_width + trays

    @property
    def board_height(self) -> float:
        return self.field_height + 2 * self.rim_y

    @property
    def size(self) -> tuple[int, int]:
        """The canonical view's width and height in pixels (the case and the margin)."""
        return (int(round((self.board_width + 2 * self.margin) * self.ppd)),
                int(round((self.board_height + 2 * self.margin) * self.ppd)))

    @property
    def origin(self) -> tuple[float, float]:
        """The field's top-left corner in diameters from the view's top-left corner."""
        return self.margin + self.rim_x, self.margin + self.rim_y

    def at(self, ppd: float) -> BoardModel:
        """The same board at another scale."""
        return replace(self, ppd=float(ppd))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> BoardModel:
        return cls(**{k: float(v) for k, v in data.items()})

    # ------------------------------------------------------------ regions (pixels)
    def corners(self) -> np.ndarray:
        """The case's corners: top-left, top-right, bottom-right, bottom-left."""
        s = self.ppd
        a = self.margin * s
        w, h = a + self.board_width * s, a + self.board_height * s
        return np.array([(a, a), (w, a), (w, h), (a, h)], np.float64)

    @property
    def field(self) -> tuple[float, float, float, float]:
        """The playing surface (both halves and the bar): x0, y0, x1, y1."""
        s = self.ppd
        x, y = self.origin
        return (x * s, y * s, (x + self.field_width) * s, (y + self.field_height) * s)

    @property
    def bar(self) -> tuple[float, float, float, float]:
        s = self.ppd
        x, y = self.origin
        x0 = (x + self.half_width) * s
        return (x0, y * s, x0 + self.bar_width * s, (y + self.field_height) * s)

    def tray(self, colour: str) -> tuple[float, float, float, float]:
        """A side's bear-off tray (White's below the middle, Black's above)."""
        s = self.ppd
        x0 = (self.origin[0] + self.field_width + self.strip) * s
        _, y0, _, y1 = self.field
        mid = (y0 + y1) / 2
        if colour == "white":
            return (x0, mid + 0.1 * s, x0 + self.tray_width * s, y1)
        return (x0, y0, x0 + self.tray_width * s, mid - 0.1 * s)

    def point_base(self, number: int) -> tuple[float, float, int]:
        """(x of the point's centre line, y of its base, +1 if it points down, -1 up)."""
        s = self.ppd
        x0, y0, x1, y1 = self.field
        bx0, _, bx1, _ = self.bar
        w = self.point_width * s
        if number <= 6:
            return x1 - (number - 0.5) * w, y1, -1
        if number <= 12:
            return bx0 - (number - 6.5) * w, y1, -1
        if number <= 18:
            return x0 + (number - 12.5) * w, y0, 1
        return bx1 + (number - 18.5) * w, y0, 1

    def slot(self, number: int, along: float, across: float = 0.0) -> tuple[float, float]:
        """The pixel ``along`` diameters from point ``number``'s base toward its tip and
        ``across`` diameters to the side (toward higher x)."""
        x, y, d = self.point_base(number)
        return x + across * self.ppd, y + d * along * self.ppd

    @cached_property
    def slots(self) -> np.ndarray:
        """Centres of the five row slots of every point: array (24, ROW, 2)."""
        return np.array([[self.slot(n, 0.5 + i) for i in range(ROW)] for n in range(1, 25)], np.float64)

    def bar_base(self, colour: str) -> tuple[float, float, int]:
        """Where a side's checkers on the bar start and which way their column runs:
        White's on the upper half (toward Black's home board, where they enter), Black's
        on the lower, from the middle outward. (x, y of the column's start, +1 down / -1 up)."""
        x0, y0, x1, y1 = self.bar
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        direction = -1 if colour == "white" else 1
        return cx, cy + direction * 0.45 * self.ppd, direction

    def bar_slots(self, colour: str, count: int = 5) -> np.ndarray:
        x, y, d = self.bar_base(colour)
        return np.array([(x, y + d * (0.5 + i) * self.ppd) for i in range(count)], np.float64)
