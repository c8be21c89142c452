"""Read one frame of a calibrated board into an ``Observation``.

The frame is warped onto the canonical board. Every row slot of every point is compared
with the empty board and the two checker colours learned at calibration; a point's count
is the run of checker slots from its base. A full row may hide a pile (a second layer or
an overlapping row), so its count is a range (five up to all the side's checkers not
seen elsewhere), narrowed by the checker totals when only one pile of a colour is in
doubt. A slot that looks like neither board nor checker is covered (a hand, an arm, a
moving die): its point is occluded and never read with confidence, and the frame is not
settled. Motion against the previous frame also unsettles it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_model import ROW, BoardModel
from vision.calibration import Calibration, slot_change, slot_colours
from vision.dice import find_dice
from vision.observation import CubeRead, DieRead, Observation, Occlusion, PointRead

CHECKERS = 15
UNEXPLAINED = 60.0      # Lab distance from both checker colours beyond which an occupied slot is covered
MOTION = 18.0           # mean grey change over the field between frames that means motion
DICE_PPD = 56.0         # canonical scale for reading dice


class BoardReader:
    """Reads frames of the board described by ``calibration``; remembers the previous frame
    to notice motion, so use one reader per camera."""

    def __init__(self, calibration: Calibration, checkers: int = CHECKERS) -> None:
        self.calibration = calibration
        self.model: BoardModel = calibration.model
        self.checkers = checkers
        self._empty_slots = slot_colours(calibration.empty)
        self._white = np.array(calibration.white, np.float32)
        self._black = np.array(calibration.black, np.float32)
        self._previous: np.ndarray | None = None
        self._reference_edges = self._structure(calibration.empty)
        scale = DICE_PPD / self.model.ppd
        self._dice_scale = np.diag([scale, scale, 1.0]) @ calibration.homography
        self._dice_size = (int(self.model.size[0] * scale), int(self.model.size[1] * scale))

    # ------------------------------------------------------------------ public
    def read(self, frame: np.ndarray, timestamp: float | None = None) -> Observation:
        """The observation of one BGR frame (the calibrated camera's size)."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("a frame must be a BGR colour image")
        if (frame.shape[1], frame.shape[0]) != tuple(self.calibration.frame_size):
            raise ValueError(f"frame is {frame.shape[1]}x{frame.shape[0]}, calibrated for "
                             f"{self.calibration.frame_size[0]}x{self.calibration.frame_size[1]}")
        mean = float(frame.mean())
        if mean < 12 or mean > 243:
            self._previous = None
            return Observation.not_visible(timestamp)
        canonical = self.calibration.warp(frame)
        if not self._board_in_place(canonical):
            self._previous = None
            return Observation.not_visible(timestamp, camera_moved=True)
        motion = self._motion(canonical)
        colours = slot_colours(canonical, self.model)
        labels, confidence, unexplained = self._classify(colours, slot_change(canonical, self.calibration.empty))
        points = self._points(labels, confidence, unexplained)
        bar = self._bar(canonical)
        covered = float(unexplained.mean())
        hand = bool(unexplained.sum() >= 2)
        points, bar, off = self._resolve(points, bar, canonical)
        dice, cube = self._read_dice_and_cube(frame, canonical)
        occlusion = Occlusion(hand=hand, motion=motion, covered=covered)
        settled = not (hand or motion)
        return Observation(settled=settled, board_visible=True, points=tuple(points), bar=bar, off=off,
                           dice=tuple(dice), cube=cube, occlusion=occlusion, timestamp=timestamp)

    # ------------------------------------------------------------------ checks
    def _structure(self, canonical: np.ndarray) -> np.ndarray:
        """Edge strength of the canonical view (what a moved camera misplaces)."""
        gray = cv2.GaussianBlur(cv2.cvtColor(canonical, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.5)
        edges = np.abs(cv2.Sobel(gray, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(gray, cv2.CV_32F, 0, 1))
        return cv2.GaussianBlur(edges, (0, 0), 1.5)

    def _board_in_place(self, canonical: np.ndarray) -> bool:
        """The board's rim and bar still line up with the calibration (the camera did not move)."""
        now = self._structure(canonical)
        ref = self._reference_edges
        mask = self._static_mask()
        a, b = now[mask], ref[mask]
        a, b = a - a.mean(), b - b.mean()
        corr = float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6))
        return corr > 0.5

    def _static_mask(self) -> np.ndarray:
        """Canonical pixels that never hold checkers: the rim around the field."""
        if not hasattr(self, "_static"):
            w, h = self.model.size
            mask = np.ones((h, w), bool)
            x0, y0, x1, y1 = (int(v) for v in self.model.field)
            mask[y0 + 2:y1 - 2, x0 + 2:x1 - 2] = False
            tx0 = int(self.model.tray("black")[0])
            mask[:, tx0 - 2:] = False
            self._static = mask
        return self._static

    def _motion(self, canonical: np.ndarray) -> bool:
        gray = cv2.cvtColor(canonical, cv2.COLOR_BGR2GRAY).astype(np.float32)
        previous, self._previous = self._previous, gray
        if previous is None:
            return False
        diff = cv2.GaussianBlur(np.abs(gray - previous), (0, 0), 3.0)
        return bool((diff > MOTION).mean() > 0.002)

    # ------------------------------------------------------------------ points
    def _classify(self, colours: np.ndarray, change: np.ndarray):
        """Per slot: 0 empty, 1 White, 2 Black; confidence 0..1; unexplained (covered) flag.

        A slot holds a checker when it changed from the empty board by more than the
        calibrated level; the checker's colour is the nearer of the two learned colours.
        """
        level = self.calibration.occupancy
        occupied = change > level
        d_white = np.linalg.norm(colours - self._white, axis=2)
        d_black = np.linalg.norm(colours - self._black, axis=2)
        labels = np.where(occupied, np.where(d_white <= d_black, 1, 2), 0)
        occ_conf = np.clip(np.abs(change - level) / (0.5 * level), 0.0, 1.0)
        near, far = np.minimum(d_white, d_black), np.maximum(d_white, d_black)
        col_conf = np.clip((far - near) / (far + 1e-6) * 2.0, 0.0, 1.0)
        confidence = np.where(occupied, np.minimum(occ_conf, col_conf), occ_conf)
        unexplained = occupied & (near > UNEXPLAINED)
        return labels, confidence, unexplained

    def _points(self, labels, confidence, unexplained) -> list[PointRead]:
        reads = []
        for i in range(24):
            row = labels[i]
            occluded = bool(unexplained[i].any())
            colour_id = 0
            run = 0
            for lab in row:
                if lab == 0:
                    break
                if colour_id == 0:
                    colour_id = lab
                if lab != colour_id:
                    break
                run += 1
            consistent = all(lab == 0 for lab in row[run:])
            conf = float(confidence[i].min()) if consistent else 0.0
            colour = {0: None, 1: "white", 2: "black"}[int(colour_id)]
            hi = self.checkers if run == ROW else run
            if occluded:
                conf = 0.0
                rng = (run, self.checkers)
            else:
                rng = (run, hi)
            reads.append(PointRead(i + 1, colour, run, rng, conf, occluded))
        return reads

    def _bar(self, canonical: np.ndarray) -> dict[str, tuple[int, int]]:
        lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
        empty = cv2.cvtColor(self.calibration.empty, cv2.COLOR_BGR2LAB).astype(np.float32)
        k = int(self.model.ppd * 0.6) | 1
        lab, empty = cv2.blur(lab, (k, k)), cv2.blur(empty, (k, k))
        out = {}
        for colour, ref in (("white", self._white), ("black", self._black)):
            n = 0
            for x, y in self.model.bar_slots(colour):
                c, e = lab[int(y), int(x)], empty[int(y), int(x)]
                if np.linalg.norm(c - ref) < np.linalg.norm(c - e):
                    n += 1
                else:
                    break
            out[colour] = (n, n if n < 5 else self.checkers)
        return out

    def _resolve(self, points: list[PointRead], bar, canonical):
        """Narrow pile ranges with the checker totals: a side's checkers not seen on points or
        the bar are borne off, so a single full row of a colour is fixed when the trays' count
        agrees; with several, they stay ranges."""
        off = {}
        for colour in ("white", "black"):
            mine = [p for p in points if p.color == colour]
            seen = sum(p.count for p in mine) + bar[colour][0]
            tray = self._tray_count(canonical, colour)
            piles = [p for p in mine if p.count_range[0] != p.count_range[1]]
            missing = self.checkers - seen - tray
            if len(piles) == 1 and missing >= 0 and not piles[0].occluded:
                p = piles[0]
                points[p.point - 1] = PointRead(p.point, colour, p.count + missing, (p.count + missing,) * 2,
                                                p.confidence, False)
                off[colour] = (tray, tray)
            elif not piles:
                off[colour] = (max(0, self.checkers - seen), max(0, self.checkers - seen))
            else:
                free = max(0, self.checkers - seen)
                for p in piles:
                    hi = min(p.count_range[1], p.count + free)
                    points[p.point - 1] = PointRead(p.point, colour, p.count, (p.count, hi), p.confidence,
                                                    p.occluded)
                off[colour] = (0, free)
        return points, bar, off

    def _tray_count(self, canonical: np.ndarray, colour: str) -> int:
        """Borne-off checkers standing on edge in a tray: the occupied length over one checker's
        thickness."""
        x0, y0, x1, y1 = (int(v) for v in self.model.tray(colour))
        cx = (x0 + x1) // 2
        band = slice(max(cx - 3, 0), cx + 3)
        now = cv2.cvtColor(canonical[y0:y1, band], cv2.COLOR_BGR2LAB).astype(np.float32).mean(axis=1)
        ref = cv2.cvtColor(self.calibration.empty[y0:y1, band], cv2.COLOR_BGR2LAB).astype(np.float32).mean(axis=1)
        differs = np.linalg.norm(now - ref, axis=1) > 20
        if not differs.any():
            return 0
        # White's tray fills from the bottom (its outer end), Black's from the top
        profile = differs[::-1] if colour == "white" else differs
        filled = int(np.argmin(profile)) if not profile.all() else len(profile)
        return int(round(filled / (0.2376 * self.model.ppd)))

    # ------------------------------------------------------------------- dice
    def _read_dice_and_cube(self, frame: np.ndarray, canonical: np.ndarray) -> tuple[list[DieRead], CubeRead | None]:
        """The dice and the doubling cube (``canonical`` is the board view at the model's scale)."""
        return self._dice(frame), None

    def _dice(self, frame: np.ndarray) -> list[DieRead]:
        view = cv2.warpPerspective(frame, self._dice_scale, self._dice_size, flags=cv2.INTER_LINEAR)
        scale = DICE_PPD / self.model.ppd
        x0, y0, x1, y1 = (v * scale for v in self.model.field)
        region = np.zeros(view.shape[:2], np.uint8)
        region[int(y0):int(y1), int(x0):int(x1)] = 255
        found = find_dice(view, region=region, die_size=0.42 * DICE_PPD)
        inverse = np.linalg.inv(self._dice_scale)
        out = []
        for die in found:
            (cx, cy) = die.centre
            half = "white" if cx / scale >= self.model.half_rect("white")[0] else "black"
            x, y, w, h = die.box
            corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32).reshape(-1, 1, 2)
            fc = cv2.perspectiveTransform(corners, inverse).reshape(-1, 2)
            fx0, fy0 = fc.min(axis=0)
            fx1, fy1 = fc.max(axis=0)
            box = (int(fx0), int(fy0), int(fx1 - fx0), int(fy1 - fy0))
            out.append(DieRead(die.value, half, die.flat, False, box, die.confidence))
        return out

