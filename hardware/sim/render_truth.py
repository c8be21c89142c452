"""Ground truth of a simulated frame: what a perfect reader would report."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.position import WHITE, Position
from hardware.sim.render_spec import Conditions

Box = tuple[int, int, int, int]     # x, y, w, h in frame pixels


@dataclass(frozen=True)
class DieTruth:
    """A die as the frame shows it: ``half`` is whose right-hand half it lies in
    (``"white"``/``"black"``, ``None`` off the board), ``canvas_half`` left or right of the
    bar in the canonical view; ``flat`` only when it lies flat on the board."""

    value: int
    half: str | None
    canvas_half: str | None
    flat: bool
    cocked: bool
    on_checker: bool
    moving: bool
    centre: tuple[float, float]
    box: Box


@dataclass(frozen=True)
class CubeTruth:
    """The doubling cube: ``value`` in the game (1 when centred), ``face`` shown on top,
    ``side`` ``"centre"``, ``"white"`` or ``"black"``."""

    value: int
    face: int
    side: str
    centre: tuple[float, float]
    box: Box


@dataclass(frozen=True)
class CheckerTruth:
    """One checker: ``location`` White's point 1..24, ``"bar"`` or ``"off"``; ``layer`` 0
    lies on the board; ``centre`` of its top face and ``box`` in frame pixels;
    ``visible`` the share of its top face no other checker covers (1 for borne-off
    checkers, which show their edges)."""

    owner: str
    location: int | str
    layer: int
    centre: tuple[float, float]
    box: Box
    visible: float = 1.0


@dataclass(frozen=True, eq=False)
class FrameTruth:
    """Everything true about one rendered frame.

    ``points`` are 24 signed counts for White's points 1..24 (+White, -Black);
    ``corners`` the board case's corners in frame pixels in the order top-left, top-right,
    bottom-right, bottom-left of the canonical canvas (White's home board in ``home``);
    ``homography`` maps board-canvas pixels (``canvas_size``, ``ppd`` pixels per checker
    diameter) to the ideal image before the lens's barrel ``distortion`` (see
    ``render_optics``). ``occluded_points`` are the points a hand covers; ``settled`` is
    false while a hand is over the board, a die moves or the camera shakes.
    """

    position: Position
    points: tuple[int, ...]
    bar: dict[str, int]
    off: dict[str, int]
    dice: tuple[DieTruth, ...]
    cube: CubeTruth | None
    hand: bool
    occluded_points: tuple[int, ...]
    occluded_bar: bool
    occluded_trays: tuple[str, ...]
    settled: bool
    corners: np.ndarray
    homography: np.ndarray
    distortion: float
    canvas_size: tuple[int, int]
    ppd: float
    home: str
    style: str
    size: tuple[int, int]
    checkers: tuple[CheckerTruth, ...]
    layers: dict[int, int]
    point_polygons: dict[int, np.ndarray]
    conditions: Conditions
    markers: dict[int, np.ndarray]
    seed: int | None = None
    timestamp: float | None = None

    def to_json(self) -> dict:
        """A JSON-ready summary (what a label file for this frame holds)."""
        return {
            "position_id": self.position.position_id(WHITE),
            "points": list(self.points), "bar": dict(self.bar), "off": dict(self.off),
            "dice": [{"value": d.value, "half": d.half, "flat": d.flat, "cocked": d.cocked,
                      "on_checker": d.on_checker, "moving": d.moving, "box": list(d.box)} for d in self.dice],
            "cube": None if self.cube is None else {"value": self.cube.value, "face": self.cube.face,
                                                    "side": self.cube.side, "box": list(self.cube.box)},
            "hand": self.hand, "occluded_points": list(self.occluded_points), "settled": self.settled,
            "corners": np.round(self.corners, 2).tolist(), "home": self.home, "style": self.style,
            "size": list(self.size), "seed": self.seed, "timestamp": self.timestamp,
        }
