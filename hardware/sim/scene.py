"""The simulated board's geometry on a flat "board canvas", seen from straight above.

Distances are in checker diameters (``D``) and scaled to pixels by ``ppd`` (pixels per
diameter). The canonical board has White's home board in the bottom-right corner: White
sits at the bottom, the bear-off trays are on the right, White's points 1..6 run from the
bottom-right corner to the bar, 7..12 on to the bottom-left corner, 13..18 from the
top-left corner to the bar and 19..24 on to the top-right corner. Other home corners are
mirror images of this layout (the trays always stand beside the home boards).

This model is private to the simulator: the reader in ``vision/`` keeps its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

HOME_CORNERS = ("bottom-right", "bottom-left", "top-right", "top-left")

CHECKER_THICKNESS = 0.22
DIE_SIZE = 0.45       # a 17 mm die beside a 38 mm checker
CUBE_SIZE = 0.62


@dataclass(frozen=True)
class Proportions:
    """A board's dimensions in checker diameters. Real boards differ: a tournament case
    has a wide rim and bar, a travel set short points and narrow trays."""

    frame: float = 0.55          # outer rim of the case
    point_width: float = 1.1     # width of a point's base
    bar_width: float = 1.3
    strip: float = 0.35          # rim between the field and the trays
    tray_width: float = 1.35
    point_length: float = 5.0    # five checkers fit in a row
    tip_gap: float = 1.6         # between opposite points' tips

    def __post_init__(self) -> None:
        if self.point_width < 1.0 or self.tray_width < 1.05 or self.point_length < 4.0:
            raise ValueError(f"board proportions too small for checkers: {self}")

    @property
    def half_width(self) -> float:
        return 6 * self.point_width

    @property
    def field_height(self) -> float:
        return 2 * self.point_length + self.tip_gap

    @property
    def board_width(self) -> float:
        return self.frame + 2 * self.half_width + self.bar_width + self.strip + self.tray_width + self.frame

    @property
    def board_height(self) -> float:
        return self.field_height + 2 * self.frame


BOARD_BUILDS: dict[str, Proportions] = {
    "standard": Proportions(),
    "tournament": Proportions(frame=0.85, point_width=1.15, bar_width=1.7, strip=0.45, tray_width=1.5,
                              point_length=5.4, tip_gap=1.3),
    "travel": Proportions(frame=0.45, point_width=1.05, bar_width=1.1, strip=0.3, tray_width=1.2,
                          point_length=4.6, tip_gap=2.2),
    "wide-rim": Proportions(frame=0.75, point_width=1.12, bar_width=1.5, strip=0.5, tray_width=1.4,
                            point_length=5.2, tip_gap=1.5),
    "long-points": Proportions(frame=0.55, point_width=1.08, bar_width=1.25, strip=0.3, tray_width=1.3,
                               point_length=5.8, tip_gap=1.2),
}


@dataclass(frozen=True)
class PointGeometry:
    """One point: ``base`` is the middle of its base on the rim, ``direction`` the unit
    vector from the base to the tip, both in canvas pixels."""

    number: int
    base: tuple[float, float]
    direction: tuple[float, float]
    width: float
    length: float
    dark: bool

    def polygon(self) -> np.ndarray:
        """The triangle (base left, base right, tip) in canvas pixels."""
        bx, by = self.base
        dx, dy = self.direction
        nx, ny = -dy, dx
        hw = self.width / 2
        return np.array([(bx + nx * hw, by + ny * hw), (bx - nx * hw, by - ny * hw),
                         (bx + dx * self.length, by + dy * self.length)], np.float32)

    def slot(self, along: float, across: float = 0.0) -> tuple[float, float]:
        """The canvas point ``along`` pixels from the base toward the tip, ``across`` to the side."""
        bx, by = self.base
        dx, dy = self.direction
        return (bx + dx * along - dy * across, by + dy * along + dx * across)


Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in canvas pixels


@dataclass(frozen=True)
class BoardGeometry:
    """Where everything lies on the board canvas, for one home corner and scale."""

    proportions: Proportions
    home: str
    ppd: float
    size: tuple[int, int]                 # canvas width, height in pixels
    outline: Rect                         # the whole case
    field_left: Rect                      # playing area left of the bar
    field_right: Rect                     # playing area right of the bar
    bar: Rect
    tray_white: Rect
    tray_black: Rect
    points: tuple[PointGeometry, ...]     # index 0 is White's point 1
    white_sits_bottom: bool
    trays_right: bool

    def point(self, number: int) -> PointGeometry:
        """White's point ``number`` (1..24)."""
        return self.points[number - 1]

    def corners(self) -> np.ndarray:
        """The case's corners: top-left, top-right, bottom-right, bottom-left."""
        x0, y0, x1, y1 = self.outline
        return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float32)

    def half_of(self, x: float) -> str:
        """``"left"`` or ``"right"`` of the bar on the canvas."""
        return "left" if x < (self.bar[0] + self.bar[2]) / 2 else "right"

    def right_hand_owner(self, canvas_half: str) -> str:
        """Whose right-hand half a canvas half is: ``"white"`` or ``"black"``.

        The player sitting at the bottom has the canvas's right half on their right.
        """
        bottom_right = "white" if self.white_sits_bottom else "black"
        top_right = "black" if self.white_sits_bottom else "white"
        return bottom_right if canvas_half == "right" else top_right

    def field_of(self, owner: str) -> Rect:
        """The half of the playing area on ``owner``'s right hand."""
        for half, rect in (("left", self.field_left), ("right", self.field_right)):
            if self.right_hand_owner(half) == owner:
                return rect
        raise ValueError(f"no half belongs to {owner!r}")

    def side_edge_y(self, side: str) -> float:
        """The y of the case edge where ``side`` (``"white"``/``"black"``) sits."""
        bottom = (side == "white") == self.white_sits_bottom
        return self.outline[3] if bottom else self.outline[1]


@lru_cache(maxsize=32)
def board_geometry(home: str = "bottom-right", ppd: float = 48.0,
                   proportions: Proportions = Proportions()) -> BoardGeometry:
    """The board laid out for White's home board in ``home`` at ``ppd`` pixels per checker."""
    if home not in HOME_CORNERS:
        raise ValueError(f"home corner must be one of {', '.join(HOME_CORNERS)}, got {home!r}")
    s = ppd
    pr = proportions
    width, height = pr.board_width * s, pr.board_height * s
    flip_x = home.endswith("left")
    flip_y = home.startswith("top")

    def fx(x: float) -> float:
        return width - x if flip_x else x

    def fy(y: float) -> float:
        return height - y if flip_y else y

    def rect(x0: float, y0: float, x1: float, y1: float) -> Rect:
        xa, xb = sorted((fx(x0), fx(x1)))
        ya, yb = sorted((fy(y0), fy(y1)))
        return (xa, ya, xb, yb)

    top, bottom = pr.frame * s, (pr.frame + pr.field_height) * s
    left_x0 = pr.frame * s
    bar_x0 = left_x0 + pr.half_width * s
    right_x0 = bar_x0 + pr.bar_width * s
    right_x1 = right_x0 + pr.half_width * s
    tray_x0 = right_x1 + pr.strip * s
    tray_x1 = tray_x0 + pr.tray_width * s
    mid = (top + bottom) / 2
    w = pr.point_width * s
    points = []
    for number in range(1, 25):
        if number <= 6:
            cx, base_y, down = right_x1 - (number - 0.5) * w, bottom, -1
        elif number <= 12:
            cx, base_y, down = bar_x0 - (number - 6.5) * w, bottom, -1
        elif number <= 18:
            cx, base_y, down = left_x0 + (number - 12.5) * w, top, 1
        else:
            cx, base_y, down = right_x0 + (number - 18.5) * w, top, 1
        direction = (0.0, float(down * (-1 if flip_y else 1)))
        points.append(PointGeometry(number, (fx(cx), fy(base_y)), direction, w,
                                    pr.point_length * s, dark=number % 2 == 1))
    return BoardGeometry(
        proportions=pr, home=home, ppd=s, size=(int(round(width)), int(round(height))),
        outline=(0.0, 0.0, width, height),
        field_left=rect(left_x0, top, bar_x0, bottom) if not flip_x else rect(right_x0, top, right_x1, bottom),
        field_right=rect(right_x0, top, right_x1, bottom) if not flip_x else rect(left_x0, top, bar_x0, bottom),
        bar=rect(bar_x0, top, right_x0, bottom),
        tray_white=rect(tray_x0, mid + 0.1 * s, tray_x1, bottom),
        tray_black=rect(tray_x0, top, tray_x1, mid - 0.1 * s),
        points=tuple(points),
        white_sits_bottom=not flip_y,
        trays_right=not flip_x,
    )


@dataclass(frozen=True)
class CheckerPlacement:
    """One checker on the canvas: ``location`` is White's point number 1..24, ``"bar"`` or
    ``"off"``; ``layer`` 0 lies on the board, 1 on top of layer 0 and so on; borne-off
    checkers stand ``on_edge`` in the tray."""

    owner: str
    location: int | str
    centre: tuple[float, float]
    layer: int = 0
    on_edge: bool = False


PILE_STYLES = ("pyramid", "overlap", "stack")


def _pile_slots(count: int, style: str, length: float) -> list[tuple[float, int]]:
    """Positions along a point (in checker diameters from the base) and layers for ``count``
    checkers piled the way ``style`` says: five in a row and then a ``pyramid`` of shorter
    rows on top, one ``overlap``ping row squeezed into the point (``length`` diameters
    long), or a ``stack`` of a second row over the first."""
    if count <= 5:
        return [(0.5 + i, 0) for i in range(count)]
    if style == "overlap" and count <= 8:
        step = (length - 1.0) / (count - 1)
        return [(0.5 + i * step, 0) for i in range(count)]
    slots: list[tuple[float, int]] = []
    if style == "stack":
        for i in range(count):
            layer, index = divmod(i, 5)
            slots.append((0.5 + index + 0.22 * layer, layer))
        return slots
    layer, left, row = 0, count, 5
    while left > 0:
        n = min(left, max(row, 1))
        slots.extend((0.5 + 0.5 * layer + i, layer) for i in range(n))
        left -= n
        layer += 1
        row -= 1
    return slots


def checker_placements(geometry: BoardGeometry, white: tuple[int, ...], black: tuple[int, ...],
                       layout_seed: int, messiness: float = 0.5) -> list[CheckerPlacement]:
    """Where every checker of a position lies, the way a player leaves them.

    ``white``/``black`` are each side's 26 counts in its own numbering (0 off, 25 bar).
    The same ``layout_seed`` gives the same placement of an unchanged point, so checkers
    do not jump between frames. ``messiness`` (0..1) scales how far checkers stray from
    the point's centre line and how much rows bend.
    """
    s = geometry.ppd
    placements: list[CheckerPlacement] = []
    for owner, counts in (("white", white), ("black", black)):
        for own_point in range(1, 25):
            count = counts[own_point]
            if not count:
                continue
            number = own_point if owner == "white" else 25 - own_point
            rng = np.random.default_rng((layout_seed, number, count))
            style = PILE_STYLES[int(rng.integers(len(PILE_STYLES)))]
            point = geometry.point(number)
            bend = rng.normal(0.0, 0.04 * messiness)
            shift = rng.normal(0.0, 0.05 * messiness)
            for along, layer in _pile_slots(count, style, geometry.proportions.point_length):
                across = shift + bend * along ** 2 / 4 + rng.normal(0.0, 0.025 * messiness)
                along += rng.normal(0.0, 0.02 * messiness) + 0.03 * layer
                placements.append(CheckerPlacement(owner, number, point.slot(along * s, across * s), layer))
        placements.extend(_bar_placements(geometry, owner, counts[25], layout_seed, messiness))
        placements.extend(_tray_placements(geometry, owner, counts[0]))
    return placements


def _bar_placements(geometry: BoardGeometry, owner: str, count: int, layout_seed: int,
                    messiness: float) -> list[CheckerPlacement]:
    """Checkers on the bar: each side's on the half of the bar nearer the opponent's
    home board (where they must enter), in a row from the middle outward, squeezed
    together when more than four."""
    if not count:
        return []
    s = geometry.ppd
    x0, y0, x1, y1 = geometry.bar
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    towards_top = (owner == "white") == geometry.white_sits_bottom
    sign = -1.0 if towards_top else 1.0
    start, room = 0.95, geometry.proportions.field_height / 2 - 0.95 - 0.5
    step = 1.0 if count <= 5 else room / (count - 1)
    rng = np.random.default_rng((layout_seed, 25 if owner == "white" else 0, count))
    return [CheckerPlacement(owner, "bar",
                             (cx + rng.normal(0, 0.03 * messiness) * s,
                              cy + sign * (start + i * step) * s), 0)
            for i in range(count)]


def _tray_placements(geometry: BoardGeometry, owner: str, count: int) -> list[CheckerPlacement]:
    """Borne-off checkers standing on edge in the owner's tray, from its outer end inward."""
    if not count:
        return []
    s = geometry.ppd
    x0, y0, x1, y1 = geometry.tray_white if owner == "white" else geometry.tray_black
    outer_bottom = (owner == "white") == geometry.white_sits_bottom
    step = CHECKER_THICKNESS * 1.08 * s
    room = (y1 - y0) - 0.2 * s
    if count * step > room:
        step = room / count
    cx = (x0 + x1) / 2
    out = []
    for i in range(count):
        y = (y1 - 0.1 * s - (i + 0.5) * step) if outer_bottom else (y0 + 0.1 * s + (i + 0.5) * step)
        out.append(CheckerPlacement(owner, "off", (cx, y), 0, on_edge=True))
    return out
