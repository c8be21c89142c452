"""The places checkers lie, cut out of a frame as upright strips of one size.

Every point, each side's half of the bar and each side's bear-off tray is a *region*:
a strip ``STRIP_WIDTH`` x ``STRIP_LENGTH`` pixels at ``STRIP_PPD`` pixels per checker
diameter, its base (a point's wide end, the middle of the bar, a tray's outer end)
``BEFORE`` diameters below the strip's top edge and its checkers running down the
strip from there. Strips are cut straight from the camera frame through the
calibration (one interpolation), turned so that every region looks the same way up;
``features`` turns them into what the checker network reads: lightness and colour,
the change from the empty board there, and which side's learned checker colour each
pixel is nearer.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_model import BoardModel

STRIP_WIDTH = 32        # pixels across a strip
STRIP_LENGTH = 120      # pixels along a strip
STRIP_PPD = 18.0        # strip pixels per checker diameter
BEFORE = 0.35           # diameters of the strip before the region's base
CHANNELS = 5            # lightness, a, b, change from the empty board, side
SIDE = 4                # the channel of which side's colour a pixel is nearer (+White, -Black)

#: The regions in their order: White's points 1..24, the bar's halves, the trays.
REGIONS: tuple = tuple(range(1, 25)) + (("bar", "white"), ("bar", "black"), ("off", "white"), ("off", "black"))
BAR = {"white": 24, "black": 25}
TRAY = {"white": 26, "black": 27}

CHANGE_LIGHTNESS = 0.5  # weight of lightness against colour in the change from the empty board
SIDE_LIGHTNESS = 0.3    # ... and in the distance to a side's colour (the light varies)


def region_name(region) -> str:
    """A region as a player names it: 'point 12', "White's bar", "Black's tray"."""
    if isinstance(region, int):
        return f"point {region}"
    place, side = region
    return f"{side.capitalize()}'s {'bar' if place == 'bar' else 'tray'}"


def region_axes(model: BoardModel, region) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, along, across) of a region in canonical pixels: the base point and the unit
    vectors toward its checkers and across it, a proper rotation of the canonical axes."""
    if isinstance(region, int):
        x, y, d = model.point_base(region)
    elif region[0] == "bar":
        x0, y0, x1, y1 = model.bar
        x, y, d = (x0 + x1) / 2, (y0 + y1) / 2, -1 if region[1] == "white" else 1
    else:
        x0, y0, x1, y1 = model.tray(region[1])
        x, y, d = ((x0 + x1) / 2, y1, -1) if region[1] == "white" else ((x0 + x1) / 2, y0, 1)
    return np.array((x, y), np.float64), np.array((0.0, d), np.float64), np.array((float(d), 0.0), np.float64)


def regions_at(model: BoardModel, at, reach: float = 0.25) -> np.ndarray:
    """Which regions' strips hold the canonical point ``at`` (x, y), within ``reach``
    diameters of a strip's edges: booleans in ``REGIONS`` order."""
    s = model.ppd
    out = np.zeros(len(REGIONS), bool)
    for i, region in enumerate(REGIONS):
        base, along, across = region_axes(model, region)
        d = np.asarray(at, np.float64) - base
        a, c = float(d @ along) / s, float(d @ across) / s
        out[i] = (-BEFORE - reach <= a <= STRIP_LENGTH / STRIP_PPD - BEFORE + reach
                  and abs(c) <= STRIP_WIDTH / 2 / STRIP_PPD + reach)
    return out


def canonical_grid(model: BoardModel) -> np.ndarray:
    """Canonical pixel (x, y) of every strip pixel: array (regions, length, width, 2)."""
    s = model.ppd
    v, u = np.mgrid[0:STRIP_LENGTH, 0:STRIP_WIDTH].astype(np.float64)
    along = ((v + 0.5) / STRIP_PPD - BEFORE) * s
    across = ((u + 0.5) - STRIP_WIDTH / 2) / STRIP_PPD * s
    out = np.empty((len(REGIONS), STRIP_LENGTH, STRIP_WIDTH, 2), np.float64)
    for i, region in enumerate(REGIONS):
        base, a, c = region_axes(model, region)
        out[i] = base + along[..., None] * a + across[..., None] * c
    return out


class StripCutter:
    """Cuts the regions' strips out of frames of one calibrated camera (``to_frame`` maps
    canonical pixels to frame pixels) and out of the calibration's empty board."""

    def __init__(self, model: BoardModel, to_frame, empty: np.ndarray,
                 white_lab: tuple[float, float, float], black_lab: tuple[float, float, float]) -> None:
        grid = canonical_grid(model)
        flat = grid.reshape(-1, 2)
        frame_xy = np.asarray(to_frame(flat), np.float32).reshape(-1, STRIP_WIDTH, 2)
        self._maps = cv2.convertMaps(np.ascontiguousarray(frame_xy[..., 0]), np.ascontiguousarray(frame_xy[..., 1]),
                                     cv2.CV_16SC2)
        canon = flat.astype(np.float32).reshape(-1, STRIP_WIDTH, 2)
        empty_strips = cv2.remap(empty, np.ascontiguousarray(canon[..., 0]), np.ascontiguousarray(canon[..., 1]),
                                 cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self.empty = cv2.cvtColor(empty_strips, cv2.COLOR_BGR2LAB).astype(np.float32).reshape(
            len(REGIONS), STRIP_LENGTH, STRIP_WIDTH, 3)
        self.sides = np.array([white_lab, black_lab], np.float32)

    def cut(self, frame: np.ndarray) -> np.ndarray:
        """The regions' strips of a BGR frame: uint8 (regions * length, width, 3)."""
        return cv2.remap(frame, *self._maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def features(self, strips: np.ndarray) -> np.ndarray:
        """What the network reads of cut strips: float32 (regions, CHANNELS, length, width)."""
        lab = cv2.cvtColor(strips, cv2.COLOR_BGR2LAB).reshape(-1, STRIP_LENGTH, STRIP_WIDTH, 3)
        return features(lab, self.empty, self.sides)


def features(lab: np.ndarray, empty_lab: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """Network input from strips in Lab (n, length, width, 3), the empty board's strips in
    Lab (the same shape) and the two sides' checker colours in Lab (White's, Black's; (2, 3)
    for all strips or (n, 2, 3) for each): lightness and colour about mid-grey, the change
    from the empty board, and +1 where a pixel is White's colour, -1 where Black's."""
    lab = np.asarray(lab, np.float32)
    sides = np.asarray(sides, np.float32).reshape(-1, 1, 1, 2, 3)
    light, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    out = np.empty((lab.shape[0], CHANNELS, STRIP_LENGTH, STRIP_WIDTH), np.float32)
    out[:, 0] = (light - 128.0) * (1 / 64.0)
    out[:, 1] = (a - 128.0) * (1 / 24.0)
    out[:, 2] = (b - 128.0) * (1 / 24.0)
    out[:, 3] = _distance(lab, empty_lab, CHANGE_LIGHTNESS) * (1 / 40.0)
    to_white = _distance(lab, sides[..., 0, :], SIDE_LIGHTNESS)
    to_black = _distance(lab, sides[..., 1, :], SIDE_LIGHTNESS)
    out[:, SIDE] = (to_black - to_white) / (to_black + to_white + 8.0)
    return out


def _distance(lab: np.ndarray, other: np.ndarray, lightness: float) -> np.ndarray:
    """Per pixel, the Lab distance to ``other`` with lightness weighted by ``lightness``."""
    d = lab - other
    d *= d
    return np.sqrt(d @ np.float32((lightness, 1.0, 1.0)))
