"""Calibration: where the board lies in the camera's frame and what its checkers look like.

Found from one frame of a known position (the opening position unless told otherwise)
with no markers: the case's outline is a large convex quadrilateral among the frame's
edges; each of its eight corner assignments (four turns, mirrored or not) is tried, and
the one whose checker slots best split into two checker colours and empty board, as the
known position says, wins. The two colours of the opening position are told apart by
their layout up to a swap (the opening is symmetric across the board's long axis with
colours exchanged), so the lighter colour is taken for White unless told otherwise.
Optional ArUco markers (DICT_4X4_50, ids 0..3 at the case's top-left, top-right,
bottom-right and bottom-left corners of the canonical view) fix the outline on
difficult boards.

The calibration keeps the homography from frame to the canonical board
(``vision.board_model``), the checker colours, and an image of the empty board in the
canonical view (occupied points are filled in from empty points of the same colour
and direction) against which every later frame is compared.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.position import Position
from vision.board_model import ROW, BoardModel

MODEL = BoardModel()
FORMAT = 1


class CalibrationError(ValueError):
    """The frame does not show a board that can be calibrated."""


@dataclass(frozen=True)
class Calibration:
    """The board's place in the frame and its colours (Lab, OpenCV 8-bit scale)."""

    homography: np.ndarray            # frame pixels -> canonical board pixels
    frame_size: tuple[int, int]       # width, height
    white: tuple[float, float, float]
    black: tuple[float, float, float]
    empty: np.ndarray                 # canonical view of the empty board, BGR
    corners: np.ndarray               # the case's corners in the frame (canonical order)
    occupancy: float = 12.0           # slot change against the empty board that means a checker

    @property
    def model(self) -> BoardModel:
        return MODEL

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The frame seen on the canonical board."""
        return cv2.warpPerspective(frame, self.homography, MODEL.size, flags=cv2.INTER_LINEAR)

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        """Canonical board pixels to frame pixels."""
        pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def to_json(self) -> dict:
        ok, png = cv2.imencode(".png", self.empty)
        if not ok:
            raise CalibrationError("could not encode the empty-board image")
        return {"format": FORMAT, "homography": self.homography.tolist(), "frame_size": list(self.frame_size),
                "white": list(self.white), "black": list(self.black), "corners": self.corners.tolist(),
                "occupancy": self.occupancy, "empty_png": base64.b64encode(png.tobytes()).decode()}

    @classmethod
    def from_json(cls, data: dict) -> Calibration:
        try:
            if data.get("format") != FORMAT:
                raise CalibrationError(f"calibration format {data.get('format')!r} is not {FORMAT}")
            png = np.frombuffer(base64.b64decode(data["empty_png"]), np.uint8)
            empty = cv2.imdecode(png, cv2.IMREAD_COLOR)
            if empty is None or empty.shape[:2] != MODEL.size[::-1]:
                raise CalibrationError("calibration's empty-board image is damaged")
            return cls(np.array(data["homography"], np.float64), tuple(data["frame_size"]),
                       tuple(data["white"]), tuple(data["black"]), empty,
                       np.array(data["corners"], np.float32), float(data["occupancy"]))
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, CalibrationError):
                raise
            raise CalibrationError(f"calibration data is incomplete or malformed ({err})") from err

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()))

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as err:
            raise CalibrationError(f"{path}: not a calibration file ({err.msg})") from err
        return cls.from_json(data)


# ---------------------------------------------------------------- the board's outline
def board_quads(frame: np.ndarray) -> list[np.ndarray]:
    """Candidate outlines of the board: large convex quadrilaterals among the frame's edges."""
    gray = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    area = frame.shape[0] * frame.shape[1]
    quads: list[np.ndarray] = []
    for lo, hi in ((30, 90), (12, 36), (60, 180)):
        edges = cv2.dilate(cv2.Canny(gray, lo, hi), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if cv2.contourArea(c) < 0.04 * area:
                continue
            hull = cv2.convexHull(c)
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
            if len(approx) != 4 or cv2.contourArea(approx) < 0.04 * area:
                continue
            quad = approx.astype(np.float32)
            if not any(np.abs(quad[:, None] - q[None]).sum(axis=2).min(axis=1).max() < 4 for q in quads):
                quads.append(quad)
    return quads


def aruco_quad(frame: np.ndarray) -> np.ndarray | None:
    """The outline from ArUco markers 0..3 (DICT_4X4_50) at the case's corners, if all are seen."""
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(frame)
    if ids is None:
        return None
    found = {int(i): c.reshape(4, 2).mean(axis=0) for i, c in zip(ids.ravel(), corners)}
    if not all(k in found for k in range(4)):
        return None
    return np.array([found[k] for k in range(4)], np.float32)


def _assignments(quad: np.ndarray) -> list[np.ndarray]:
    """The quad's corners in each of the eight orders (four turns, mirrored or not)."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    ring = quad[np.argsort(angles)]  # clockwise in image coordinates (y down)
    out = []
    for r in range(4):
        turned = np.roll(ring, -r, axis=0)
        out.append(turned)
        out.append(turned[[1, 0, 3, 2]])
    return out


# ------------------------------------------------------------ sampling the checker slots
def slot_colours(canonical: np.ndarray, model: BoardModel = MODEL) -> np.ndarray:
    """Mean Lab colour of a disc around each point's five row slots: array (24, ROW, 3)."""
    lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
    k = int(model.ppd * 0.6) | 1
    blurred = cv2.blur(lab, (k, k))
    xy = np.round(model.slots).astype(int)
    xy[..., 0] = np.clip(xy[..., 0], 0, lab.shape[1] - 1)
    xy[..., 1] = np.clip(xy[..., 1], 0, lab.shape[0] - 1)
    return blurred[xy[..., 1], xy[..., 0]]


def slot_change(canonical: np.ndarray, empty: np.ndarray, model: BoardModel = MODEL) -> np.ndarray:
    """How much each row slot differs from the empty board, pixel by pixel (24 x ROW).

    A checker on a point of its own colour still covers the point's edges and casts a
    rim and a shadow, so the change counts both colour and gradient differences over a
    disc nearly a checker wide.
    """
    a = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
    b = cv2.cvtColor(empty, cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = np.abs(a - b).sum(axis=2)
    ga, gb = (cv2.GaussianBlur(x[..., 0], (0, 0), 1.0) for x in (a, b))
    grad = lambda g: np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1))  # noqa: E731
    change = diff + 0.5 * np.abs(grad(ga) - grad(gb))
    k = int(model.ppd * 0.8) | 1
    blurred = cv2.blur(change, (k, k))
    xy = np.round(model.slots).astype(int)
    xy[..., 0] = np.clip(xy[..., 0], 0, change.shape[1] - 1)
    xy[..., 1] = np.clip(xy[..., 1], 0, change.shape[0] - 1)
    return blurred[xy[..., 1], xy[..., 0]]


def layout_masks(position: Position) -> tuple[np.ndarray, np.ndarray]:
    """Which row slots hold a White and which a Black checker in ``position`` (24 x ROW booleans;
    points with more than five checkers fill their row)."""
    white = np.zeros((24, ROW), bool)
    black = np.zeros((24, ROW), bool)
    for i, signed in enumerate(position.points()):
        n = min(abs(signed), ROW)
        (white if signed > 0 else black)[i, :n] = signed != 0
    return white, black


def layout_score(colours: np.ndarray, white: np.ndarray, black: np.ndarray) -> float:
    """How well slot colours split into the layout's two checker groups and the empty slots
    (of dark and of light points apart): the smallest gap between a checker group's mean
    and any other group's mean, over the checker groups' spread."""
    empty = ~(white | black)
    parity = (np.arange(24) % 2 == 0)[:, None].repeat(ROW, axis=1)
    groups = [colours[white], colours[black], colours[empty & parity], colours[empty & ~parity]]
    means = [g.mean(axis=0) if len(g) else np.full(3, np.nan) for g in groups]
    spread = [np.sqrt(((g - m) ** 2).sum(axis=1)).mean() for g, m in zip(groups[:2], means[:2])]
    gaps = [np.linalg.norm(means[i] - means[j]) for i in (0, 1) for j in range(4) if j != i and len(groups[j])]
    return float(min(gaps) / (spread[0] + spread[1] + 4.0))


_FLIP_TB = np.array([[1, 0, 0], [0, -1, MODEL.size[1]], [0, 0, 1]], np.float64)


def calibrate(frame: np.ndarray, position: Position | None = None, white: str = "light",
              markers: bool = True) -> Calibration:
    """Calibrate from one frame showing ``position`` (the opening position by default).

    ``white`` says which checkers are White when the layout cannot tell: 'light' or 'dark'.
    Raises CalibrationError when no board outline explains the position.
    """
    _check_frame(frame)
    position = position or Position.initial()
    w_mask, b_mask = layout_masks(position)
    quads = []
    if markers:
        q = aruco_quad(frame)
        if q is not None:
            quads.append(q)
    quads = quads or board_quads(frame)
    if not quads:
        raise CalibrationError("no board outline found in the frame")
    dst = MODEL.corners()
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for quad in quads:
        for order in _assignments(quad):
            h = cv2.getPerspectiveTransform(order, dst)
            score = layout_score(slot_colours(cv2.warpPerspective(frame, h, MODEL.size)), w_mask, b_mask)
            if best is None or score > best[0]:
                best = (score, h, order)
    assert best is not None
    score, h, order = best
    if score < 0.0:
        raise CalibrationError(f"the frame does not show the expected position on a board (fit {score:.2f})")
    canonical = cv2.warpPerspective(frame, h, MODEL.size)
    colours = slot_colours(canonical)
    white_lab, black_lab = colours[w_mask].mean(axis=0), colours[b_mask].mean(axis=0)
    symmetric = _is_colour_symmetric(position)
    if symmetric and (white_lab[0] < black_lab[0]) == (white == "light"):
        h = _FLIP_TB @ h
        order = order[[3, 2, 1, 0]]
        canonical = cv2.warpPerspective(frame, h, MODEL.size)
        colours = slot_colours(canonical)
        white_lab, black_lab = colours[w_mask].mean(axis=0), colours[b_mask].mean(axis=0)
    empty = _empty_board(canonical, position)
    change = slot_change(canonical, empty)
    occupied = change[w_mask | b_mask]
    vacant = change[~(w_mask | b_mask)]
    level = float(np.clip((np.percentile(occupied, 10) + np.percentile(vacant, 90)) / 2, 4.0, 60.0))
    return Calibration(h, (frame.shape[1], frame.shape[0]), tuple(map(float, white_lab)),
                       tuple(map(float, black_lab)), empty, order, level)


def _is_colour_symmetric(position: Position) -> bool:
    """True when the position looks the same across the board's long axis with colours swapped."""
    pts = position.points()
    return all(pts[i] == -pts[23 - i] for i in range(24)) and position.bar(0) == position.bar(1)


def _empty_board(canonical: np.ndarray, position: Position) -> np.ndarray:
    """The canonical view with every occupied point's strip copied from the nearest empty
    point of the same colour and direction (points alternate colours, so two apart)."""
    empty = canonical.copy()
    pts = position.points()
    s = MODEL.ppd
    half_w = int(round(0.55 * s))
    length = int(round(5.2 * s))
    for n in range(1, 25):
        if pts[n - 1] == 0:
            continue
        quarter = (n - 1) // 6
        donors = sorted((m for m in range(quarter * 6 + 1, quarter * 6 + 7)
                         if (m - n) % 2 == 0 and pts[m - 1] == 0), key=lambda m: abs(m - n))
        if not donors:
            continue
        src, dst = _strip(donors[0], half_w, length), _strip(n, half_w, length)
        empty[dst] = canonical[src]
    return empty


def _strip(number: int, half_w: int, length: int) -> tuple[slice, slice]:
    x, y, d = MODEL.point_base(number)
    x = int(round(x))
    y = int(round(y))
    ys = slice(y, y + length) if d > 0 else slice(y - length, y)
    return ys, slice(x - half_w, x + half_w)


def _check_frame(frame: np.ndarray) -> None:
    if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        raise CalibrationError("the frame is not a colour image")
    if min(frame.shape[:2]) < 64:
        raise CalibrationError(f"the frame is too small ({frame.shape[1]}x{frame.shape[0]})")
    mean = float(frame.mean())
    if mean < 12:
        raise CalibrationError("the frame is black (camera covered or no light)")
    if mean > 243:
        raise CalibrationError("the frame is overexposed")
