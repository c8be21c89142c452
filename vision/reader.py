"""Read one frame of a calibrated board into an ``Observation``.

The checker network counts every point, bar half and tray, and the counts are weighed
together so that each side has all its checkers (``vision.checkers``). The frame is
also straightened onto the canonical board: what neither the empty board nor the
checkers counted, the dice and the cube explain (a hand, an arm) makes the regions
under it covered, as do those the network sees a hand over (in a found hand's margin
even where a die or the cube might explain it) unless it is sure of their counts all the
same; covered regions are read as honest ranges, and while a hand is seen anywhere, or
anything moves against the previous frame, the frame is not settled.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.board_model import BoardModel
from vision.calibration import Calibration
from vision.checkers import HAND, SURE_HAND, CheckerCounter
from vision.cube import BoardCube
from vision.dice import DIE_SIDE, BoardDice
from vision.image_check import BRIGHTEST, DARKEST
from vision.observation import CubeRead, DieRead, Observation, Occlusion
from vision.occlusion import Coverage, explained_mask
from vision.strips import regions_at

CHECKERS = 15
MOTION = 18.0           # grey change between frames that counts as motion
SHAKEN = 0.97           # a frame whose detail at full scale over half scale falls below this share of the previous
                        # frame's is blurred by a shaking camera


class BoardReader:
    """Reads frames of the board described by ``calibration``; remembers the previous frame
    to notice motion, so use one reader per camera. What it learns of the table (the
    dice's size) its ``calibration`` takes on."""

    def __init__(self, calibration: Calibration, checkers: int = CHECKERS) -> None:
        self.calibration = calibration
        self.model: BoardModel = calibration.model
        self.checkers = checkers
        self.counter = CheckerCounter(calibration, checkers)
        self.coverage = Coverage(calibration)
        self._previous: np.ndarray | None = None
        calibration.maps()
        self._dice_reader: BoardDice | None = None
        self._cube_reader: BoardCube | None = None

    # ------------------------------------------------------------------ public
    def read(self, frame: np.ndarray, timestamp: float | None = None) -> Observation:
        """The observation of one BGR frame (the calibrated camera's size)."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("a frame must be a BGR colour image")
        if (frame.shape[1], frame.shape[0]) != tuple(self.calibration.frame_size):
            raise ValueError(f"frame is {frame.shape[1]}x{frame.shape[0]}, calibrated for "
                             f"{self.calibration.frame_size[0]}x{self.calibration.frame_size[1]}")
        mean = float(np.mean(cv2.mean(frame)[:3]))
        if mean < DARKEST or mean > BRIGHTEST:
            self._previous = None
            return Observation.not_visible(timestamp)
        canonical = self.calibration.view(frame)
        lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
        if not self.coverage.board_in_place(lab):
            self._previous = None
            return Observation.not_visible(timestamp, camera_moved=True)
        motion = self._motion(lab)
        counts = self.counter.read(frame)
        highest = counts.highest()
        placed, cube, cube_at = self._read_dice_and_cube(frame, canonical, highest, not motion)
        things = [at for _, at in placed] + ([] if cube_at is None else [cube_at])
        covered = self.coverage.find(lab, explained_mask(self.model, highest, lab.shape[:2], things))
        seen = self._hands_seen(counts.hands, things, covered.margin)
        hidden = covered.regions | (seen & ~counts.sure_beside_hand())
        if (hidden != (counts.hands > HAND)).any():
            counts = self.counter.weigh(counts.probabilities, counts.hands, hidden)
        points, bar, off = self.counter.observe(counts, hidden)
        dice = [die for die, _ in placed]
        hand = covered.hand or bool(seen.any())
        occlusion = Occlusion(hand=hand, motion=motion, covered=covered.share)
        settled = not (hand or motion)
        return Observation(settled=settled, board_visible=True, points=tuple(points), bar=bar, off=off,
                           dice=tuple(dice), cube=cube, occlusion=occlusion, timestamp=timestamp)

    # ------------------------------------------------------------------ checks
    def _hands_seen(self, hands: np.ndarray, things, margin: np.ndarray) -> np.ndarray:
        """The regions the checker network sees a hand over: a die or the cube read in a
        region explains a hand the network is not sure of there (it now and then takes
        them for fingertips), unless the region lies in the ``margin`` of a hand found or
        beside an arm on the table (booleans in ``REGIONS`` order); a sure one stands."""
        seen = hands > HAND
        doubtful = seen & (hands < SURE_HAND) & ~margin
        if doubtful.any() and things:
            seen &= ~(doubtful & np.any([regions_at(self.model, at) for at in things], axis=0))
        return seen

    def _motion(self, lab: np.ndarray) -> bool:
        """Whether anything moved since the previous frame: a change in the half-scale grey
        view, or a camera that shook (the frame's detail blurred against the previous
        frame's, ``SHAKEN``: a shake blurs a frame more than it moves it)."""
        lightness = np.ascontiguousarray(lab[..., 0])
        grey = cv2.resize(lightness, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        sharpness = _detail(lightness) / max(_detail(grey), 1e-6)
        previous, self._previous = self._previous, (grey, sharpness)
        if previous is None:
            return False
        diff = cv2.GaussianBlur(np.abs(grey - previous[0]), (0, 0), 1.5)
        return bool((diff > MOTION).mean() > 0.002 or sharpness < SHAKEN * previous[1])

    # ------------------------------------------------------------------- dice
    def _read_dice_and_cube(self, frame: np.ndarray, canonical: np.ndarray, rows: np.ndarray,
                            still: bool) -> tuple[
            list[tuple[DieRead, tuple[float, float]]], CubeRead | None, tuple[float, float] | None]:
        """The dice and the doubling cube with their canonical centres (``canonical`` is the
        board view at the model's scale; ``rows`` each region's largest possible count): found
        on the canonical view, read on patches of the full-resolution frame; the cube first,
        so that its face is not taken for a die's. Dice in a ``still`` frame (nothing moved
        since the last) teach the table's dice size."""
        if self._dice_reader is None:
            cal = self.calibration
            self._dice_reader = BoardDice(cal.model, cal.to_frame, cal.empty, (cal.white.lab, cal.black.lab),
                                          cal.dice_size or DIE_SIDE)
            self._cube_reader = BoardCube(cal.model, cal.to_frame)
        found = self._cube_reader.locate(frame, canonical)
        cube, at = (None, None) if found is None else found
        placed = self._dice_reader.placed(frame, canonical, at, rows, still)
        if self._dice_reader.size != (self.calibration.dice_size or DIE_SIDE):
            self.calibration = replace(self.calibration, dice_size=self._dice_reader.size)
        return placed, cube, at


def _detail(grey: np.ndarray) -> float:
    """Mean gradient magnitude (L1) of a grey image."""
    return float(cv2.mean(np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0)))[0]
                 + cv2.mean(np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1)))[0])
