"""Finding a board in a frame: rough outlines first, then the field's lines.

``quad_candidates`` lists large convex quadrilaterals among the frame's edges (the case,
a half of the field, the field with its rim) and ArUco corner markers when present.
``field_candidates`` takes each quadrilateral and looks, in a view rectified by it, for
the field: four strong lines across the board's long axis (the field's ends and the
bar's two sides, the halves equally wide) and two along it (the points' bases). Every
candidate is a field outline with its bar width, in the frame, for ``fit_board`` to
refine.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

from vision.board_fit import BoardShape

MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50


def _dedupe(quads: list[np.ndarray], quad: np.ndarray, tolerance: float) -> None:
    if not any(np.linalg.norm(quad[:, None] - q[None], axis=2).min(axis=1).max() < tolerance for q in quads):
        quads.append(quad)


def quad_candidates(frame: np.ndarray, limit: int = 12) -> list[np.ndarray]:
    """Large convex quadrilaterals among the frame's colour edges (frame pixels, ring
    order), biggest first."""
    h, w = frame.shape[:2]
    area = float(h * w)
    scale = 640.0 / max(h, w) if max(h, w) > 640 else 1.0
    small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.2), cv2.COLOR_BGR2LAB).astype(np.float32)
    grad = np.zeros(lab.shape[:2], np.float32)
    for c in range(3):
        gx = cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0)
        gy = cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1)
        grad += gx * gx + gy * gy
    grad = np.sqrt(grad)
    quads: list[np.ndarray] = []
    found: list[tuple[float, np.ndarray]] = []
    for level in (97, 93, 88, 80):
        edges = (grad > np.percentile(grad, level)).astype(np.uint8) * 255
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if cv2.contourArea(c) < 0.02 * area * scale * scale:
                continue
            hull = cv2.convexHull(c)
            for eps in (0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True).reshape(-1, 2)
                if len(approx) == 4:
                    quad = approx.astype(np.float64) / scale
                    found.append((cv2.contourArea(quad.astype(np.float32)), quad))
                    break
            else:
                rect = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64) / scale
                found.append((cv2.contourArea(rect.astype(np.float32)) * 0.5, rect))
    found.sort(key=lambda item: -item[0])
    for _, quad in found:
        if len(quads) >= limit:
            break
        _dedupe(quads, _ring(quad), 6.0)
    return quads


def marker_quad(frame: np.ndarray) -> np.ndarray | None:
    """The case's corners from ArUco markers 0..3 (``DICT_4X4_50``) stuck on them, in the
    canonical order (top-left, top-right, bottom-right, bottom-left), if all four are seen."""
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY))
    corners, ids, _ = detector.detectMarkers(frame)
    if ids is None:
        return None
    found = {int(i): c.reshape(4, 2).mean(axis=0) for i, c in zip(ids.ravel(), corners)}
    if not all(k in found for k in range(4)):
        return None
    return np.array([found[k] for k in range(4)], np.float64)


def _ring(quad: np.ndarray) -> np.ndarray:
    """The quad's corners clockwise (image coordinates, y down) from the top-most-left one."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    centre = quad.mean(axis=0)
    ring = quad[np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))]
    start = int(np.argmin(ring.sum(axis=1)))
    return np.roll(ring, -start, axis=0)


# ------------------------------------------------------------------ the field's lines
@dataclass(frozen=True)
class FieldCandidate:
    """A field outline in the frame (corners in the order top-left, top-right,
    bottom-right, bottom-left of a view whose x runs across the points), its bar's width
    in field units, and how strongly the frame's lines support it."""

    corners: np.ndarray
    shape: BoardShape
    score: float


VIEW = 480          # pixels along the rectified view's long side


def _profile_peaks(profile: np.ndarray, count: int) -> np.ndarray:
    """Positions of the ``count`` strongest local maxima of a profile."""
    inner = profile[1:-1]
    is_peak = (inner >= profile[:-2]) & (inner > profile[2:])
    idx = np.flatnonzero(is_peak) + 1
    idx = idx[np.argsort(-profile[idx])][:count]
    return np.sort(idx)


def subpixel_peak(profile: np.ndarray, i: int) -> float:
    """Sub-pixel position of the peak of ``profile`` at index ``i`` (parabola)."""
    if 0 < i < len(profile) - 1:
        a, b, c = profile[i - 1], profile[i], profile[i + 1]
        d = a - 2 * b + c
        if abs(d) > 1e-9:
            return i + float(np.clip(0.5 * (a - c) / d, -0.5, 0.5))
    return float(i)


def _snap(profile: np.ndarray, i: int, reach: int) -> int:
    """The strongest position of ``profile`` within ``reach`` of ``i``."""
    lo, hi = max(i - reach, 0), min(i + reach + 1, len(profile))
    return lo + int(np.argmax(profile[lo:hi]))


def _edges(view: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Colour gradient magnitudes across x and across y, zero where the view left the frame."""
    lab = cv2.cvtColor(cv2.GaussianBlur(view, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    gx = np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    gy = np.abs(cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)).sum(axis=2)
    inside = cv2.erode(valid, np.ones((5, 5), np.uint8)) > 0
    return gx * inside, gy * inside


def _field_lines(gx: np.ndarray, gy: np.ndarray, rows: tuple[int, int]) -> list[tuple[float, tuple, tuple]]:
    """Field structures in a rectified view: (score, (x0, b0, b1, x1), (y0, y1))."""
    r0, r1 = rows
    px = gx[r0:r1].mean(axis=0)
    px = px / (px.mean() + 1e-6)
    peaks = _profile_peaks(px, 14)
    width = gx.shape[1]
    out = []
    for x0, b0, b1, x1 in combinations(peaks, 4):
        half_l, half_r, bar = b0 - x0, x1 - b1, b1 - b0
        half = (half_l + half_r) / 2
        if half < 0.12 * width or abs(half_l - half_r) > 0.03 * half + 2:
            continue
        if not 0.08 * half <= bar <= 0.4 * half:
            continue
        score_x = px[x0] + px[b0] + px[b1] + px[x1]
        cols = np.r_[int(x0 + 0.05 * half):int(b0 - 0.05 * half), int(b1 + 0.05 * half):int(x1 - 0.05 * half)]
        py = gy[:, cols].mean(axis=1)
        py = py / (py.mean() + 1e-6)
        # the points' edges cross every row of the field and none of the rim: the field
        # starts where that texture does, on a line across the points' bases
        rx = gx[:, cols].mean(axis=1)
        rx = rx / (rx.mean() + 1e-6)
        band = max(int(0.04 * (x1 - x0)), 2)
        ramp = np.convolve(rx, np.r_[np.ones(band), -np.ones(band)] / band, mode="same")
        mid = len(rx) // 2
        y0 = int(np.argmax(ramp[:mid]))
        y1 = mid + int(np.argmax(-ramp[mid:]))
        y0 = _snap(py, y0, 3)
        y1 = _snap(py, y1, 3)
        if not 0.95 <= (x1 - x0) / max(y1 - y0, 1) <= 1.7:
            continue
        best = (float(ramp[y0] - ramp[y1]) + py[y0] + py[y1], y0, y1)
        xs = tuple(subpixel_peak(px, i) for i in (x0, b0, b1, x1))
        ys = (subpixel_peak(py, best[1]), subpixel_peak(py, best[2]))
        out.append((float(score_x + best[0]), xs, ys))
    out.sort(key=lambda item: -item[0])
    return out[:3]


def field_candidates(frame: np.ndarray, quad: np.ndarray) -> list[FieldCandidate]:
    """Fields whose lines the frame shows near ``quad``: the quad taken as the case (or
    the field) and as either half of the field, with either of its sides across the points."""
    ring = _ring(quad)
    out: list[FieldCandidate] = []
    for turn in (0, 1):
        q = np.roll(ring, -turn, axis=0)
        qw = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
        qh = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
        for left, right, top in ((0.12, 0.12, 0.12), (1.6, 0.12, 0.1), (0.12, 1.6, 0.1)):
            # the view shows the quad as [left, left + 1] x [top, top + 1] of a unit box
            span_x, span_y = 1 + left + right, 1 + 2 * top
            if qw * span_x >= qh * span_y:
                vw = VIEW
                vh = int(round(VIEW * qh * span_y / (qw * span_x)))
            else:
                vh = VIEW
                vw = int(round(VIEW * qw * span_x / (qh * span_y)))
            if min(vw, vh) < 60:
                continue
            sx, sy = vw / span_x, vh / span_y
            dst = np.array([(left * sx, top * sy), ((left + 1) * sx, top * sy),
                            ((left + 1) * sx, (top + 1) * sy), (left * sx, (top + 1) * sy)], np.float32)
            h = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
            view = cv2.warpPerspective(frame, h, (vw, vh), flags=cv2.INTER_AREA)
            valid = cv2.warpPerspective(np.full(frame.shape[:2], 255, np.uint8), h, (vw, vh), flags=cv2.INTER_NEAREST)
            gx, gy = _edges(view, valid)
            rows = (int(top * sy + 0.1 * sy), int((top + 1) * sy - 0.1 * sy))
            inverse = np.linalg.inv(h)
            for score, (x0, b0, b1, x1), (y0, y1) in _field_lines(gx, gy, rows):
                corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64)
                framed = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), inverse).reshape(-1, 2)
                shape = BoardShape(bar=float((b1 - b0) / (x1 - x0)))
                out.append(FieldCandidate(framed, shape, score))
    out.sort(key=lambda c: -c.score)
    kept: list[FieldCandidate] = []
    for c in out:
        if not any(np.linalg.norm(c.corners - k.corners, axis=1).max() < 8 for k in kept):
            kept.append(c)
    return kept


def case_candidates(quad: np.ndarray, shape: BoardShape = BoardShape()) -> list[FieldCandidate]:
    """Fields placed in ``quad`` taken as the case of a board of ``shape``'s proportions,
    with either side of the quad across the points and the trays at either end."""
    ring = _ring(quad)
    x0, y0, x1, y1 = shape.case
    out = []
    for turn in (0, 1):
        q = np.roll(ring, -turn, axis=0)
        for trays_right in (True, False):
            xs = (x0, x1) if trays_right else (1 - x1, 1 - x0)
            src = np.array([(xs[0], y0), (xs[1], y0), (xs[1], y1), (xs[0], y1)], np.float32)
            h = cv2.getPerspectiveTransform(src, q.astype(np.float32))
            corners = cv2.perspectiveTransform(np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64).reshape(-1, 1, 2),
                                               h).reshape(-1, 2)
            out.append(FieldCandidate(corners, shape, 0.0))
    return out


def plausible_field(corners: np.ndarray, size: tuple[int, int]) -> bool:
    """Whether a field outline (frame pixels, canonical order) could be a real field seen
    from above: convex, near-right angles, roughly parallel sides, wider across the points
    than along them, and within the frame's reach."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    w, h = size
    if (c[:, 0] < -0.15 * w).any() or (c[:, 0] > 1.15 * w).any() or (c[:, 1] < -0.15 * h).any() \
            or (c[:, 1] > 1.15 * h).any():
        return False
    crosses = []
    for i in range(4):
        a, b, d = c[i - 1], c[i], c[(i + 1) % 4]
        u, v = a - b, d - b
        cos = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
        if abs(cos) > 0.6:
            return False
        u, v = d - b, a - b
        crosses.append(u[0] * v[1] - u[1] * v[0])
    if not (all(x > 0 for x in crosses) or all(x < 0 for x in crosses)):
        return False
    top, bottom = np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])
    left, right = np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1])
    if not (0.6 < top / bottom < 1.65 and 0.6 < left / right < 1.65):
        return False
    return 0.9 <= (top + bottom) / (left + right) <= 1.8 and min(top, left) > 0.08 * min(w, h)


def locate_fields(frame: np.ndarray, keep: int = 3) -> list:
    """The board's field in the frame: up to ``keep`` refined poses (``FitResult``), the
    best supported first. Every rough outline is tried as the case, the field or a half
    of it; each is first aligned coarsely on a half-size frame, and the best few are
    fitted at full size with the lens and the board's shape."""
    from vision.board_fit import BoardPose, Lens, fit_board, refine_bases

    h, w = frame.shape[:2]
    size = (w, h)
    small = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    quads = quad_candidates(frame)
    marker = marker_quad(frame)
    if marker is not None:
        quads.insert(0, marker)
    rough = []
    for quad in quads:
        for cand in field_candidates(frame, quad)[:4] + case_candidates(quad):
            if not plausible_field(cand.corners, size):
                continue
            pose = BoardPose(cand.corners / 2, Lens(0.0, (w // 2, h // 2)), cand.shape)
            fit = fit_board(small, pose, passes=((2.0, 8.0),), fit_lens=False, fit_shape=False, iterations=3)
            if np.isfinite(fit.residual) and plausible_field(fit.pose.corners * 2, size):
                rough.append((fit.support / (fit.residual + 0.5), fit.pose))
    rough.sort(key=lambda item: -item[0])
    fitted = []
    tried: list[np.ndarray] = []
    for _, pose in rough:
        if any(np.abs(pose.corners - t).max() < 3 for t in tried):
            continue
        tried.append(pose.corners)
        if len(tried) > keep:
            break
        fit = fit_board(frame, BoardPose(pose.corners * 2, Lens(0.0, size), pose.shape),
                        passes=((1.5, 8.0), (1.0, 4.0)))
        if not np.isfinite(fit.residual):
            continue
        fit = fit_board(frame, refine_bases(frame, fit.pose), passes=((1.0, 3.0), (0.8, 2.0)))
        if np.isfinite(fit.residual) and plausible_field(fit.pose.corners, size):
            fitted.append(fit)
    fitted.sort(key=lambda f: -f.support / (f.residual + 0.3))
    return fitted
