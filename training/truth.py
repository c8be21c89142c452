"""Perfect eyes on the simulated table, from the renderer's ground truth.

A ``TruthBoard`` holds the board's proportions, the camera's homography and lens of one
rendered table, so the dice and cube readers can be trained and measured apart from the
calibration. A ``TruthReader`` reports what the renderer really drew as an observation:
the referee's view with perfect eyes, so the referee, the players and the recorder are
tested and measured end to end apart from how well vision reads.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.position import Position
from hardware.sim.render_optics import CameraModel
from hardware.sim.render_pieces import Lift
from hardware.sim.renderer import FrameTruth
from vision.board_model import BoardModel
from vision.cube import BoardCube
from vision.dice import BoardDice
from vision.observation import CubeRead, DieRead, Observation, Occlusion, PointRead

EMPTY = Position.from_points([0] * 24)


class TruthBoard:
    """The perfect calibration of rendered frames: canonical pixels of ``model`` to frame
    pixels through the renderer's own homography and lens, and the empty board's view."""

    def __init__(self, truth: FrameTruth, empty_frame: np.ndarray, opening: tuple[np.ndarray, FrameTruth]) -> None:
        b = truth.conditions.board
        self.model = BoardModel(rim_x=b.frame, rim_y=b.frame, point_width=b.point_width, bar_width=b.bar_width,
                                strip=b.strip, tray_width=b.tray_width, point_length=b.point_length,
                                tip_gap=b.tip_gap)
        self.truth = truth
        self.camera = CameraModel(truth.homography, truth.distortion, truth.size, Lift((0.0, 0.0), 1.0))
        w, h = self.model.size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        xy = self.to_frame(np.stack([u.ravel(), v.ravel()], 1)).reshape(h, w, 2).astype(np.float32)
        self._maps = (np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1]))
        self.empty = self.view(empty_frame)
        frame, opened = opening
        lab = cv2.cvtColor(cv2.blur(frame, (5, 5)), cv2.COLOR_BGR2LAB).astype(np.float32)
        self.checkers = tuple(tuple(float(c) for c in np.mean(
            [lab[int(k.centre[1]), int(k.centre[0])] for k in opened.checkers if k.owner == owner and k.layer == 0],
            axis=0)) for owner in ("white", "black"))

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        """Canonical pixels (White's home board bottom right) to frame pixels."""
        m, t = self.model, self.truth
        d = np.asarray(points, np.float64).reshape(-1, 2) / m.ppd
        if t.home in ("bottom-left", "top-left"):
            d[:, 0] = m.board_width - d[:, 0]
        if t.home in ("top-right", "top-left"):
            d[:, 1] = m.board_height - d[:, 1]
        return self.camera.to_image(d * t.ppd)

    def view(self, frame: np.ndarray) -> np.ndarray:
        return cv2.remap(frame, *self._maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def canonical(self, point) -> tuple[float, float]:
        """The canonical pixel that shows frame ``point`` (x, y)."""
        mx, my = self._maps
        i = int(np.argmin((mx - point[0]) ** 2 + (my - point[1]) ** 2))
        return float(i % mx.shape[1]), float(i // mx.shape[1])

    def die_centres(self, truth: FrameTruth) -> list[tuple[float, float]]:
        """Each die's middle as seen (its box's centre) in canonical pixels."""
        return [self.canonical((x + w / 2, y + h / 2)) for x, y, w, h in (d.box for d in truth.dice)]

    def dice(self) -> BoardDice:
        return BoardDice(self.model, self.to_frame, self.empty, self.checkers)

    def cube(self) -> BoardCube:
        return BoardCube(self.model, self.to_frame)


def region_counts(truth: FrameTruth) -> np.ndarray:
    """The checkers in every region (``vision.strips.REGIONS`` order) of a rendered frame:
    what the board reader's checker counts tell its dice reader."""
    return np.array([abs(n) for n in truth.points] + [truth.bar["white"], truth.bar["black"],
                                                      truth.off["white"], truth.off["black"]])


def matched(reads, truths):
    """Each true die with the read whose box holds its centre (or None); pairs are made
    nearest box centre first, so two dice side by side each get their own read."""
    pairs = []
    for ti, t in enumerate(truths):
        for ri, r in enumerate(reads):
            x, y, w, h = r.box
            if x - 2 <= t.centre[0] <= x + w + 2 and y - 2 <= t.centre[1] <= y + h + 2:
                pairs.append((np.hypot(x + w / 2 - t.centre[0], y + h / 2 - t.centre[1]), ti, ri))
    hit: dict[int, int] = {}
    for _, ti, ri in sorted(pairs):
        if ti not in hit and ri not in hit.values():
            hit[ti] = ri
    return [(t, reads[hit[ti]] if ti in hit else None) for ti, t in enumerate(truths)]


class TruthReader:
    """``read(frame, t)`` for frames of ``hardware.sim.render_sequence.TableCamera``; give it the truth first."""

    def __init__(self):
        self.truth = None

    def read(self, image, timestamp):
        t = self.truth
        if not t.settled:
            return Observation(settled=False, board_visible=True, occlusion=Occlusion(hand=t.hand, motion=True),
                               timestamp=timestamp)
        points = tuple(PointRead(i, None if n == 0 else ("white" if n > 0 else "black"), abs(n), (abs(n), abs(n)), 1.0)
                       for i, n in enumerate(t.points, start=1))
        dice = tuple(DieRead(d.value, d.half, d.flat, d.on_checker, tuple(d.box), 1.0) for d in t.dice)
        cube = None if t.cube is None else CubeRead(t.cube.face, t.cube.side, 1.0)
        return Observation(True, True, points, {k: (v, v) for k, v in t.bar.items()},
                           {k: (v, v) for k, v in t.off.items()}, dice, cube, Occlusion(), timestamp)
