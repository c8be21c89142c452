"""Fitting a board's shape, pose and the camera's lens to a frame by its edges.

The board is described in *field units*: the playing field (both halves and the bar)
is the unit square, x to the right of the canonical view (trays on the right), y down.
A ``BoardShape`` gives the other lines in those units: the bar's width, the points'
length, the rims and the trays. The frame shows the field through a homography ``H``
(field units to the ideal, undistorted image) and a lens with one radial coefficient
(``Lens``). ``fit_board`` moves the field's four corners, the lens and the shape until
every model edge (the points' triangles, the field, the bar, the case and the trays)
lies on an edge of the frame: each model edge is sampled, the strongest colour edge
along its normal is searched within a radius that shrinks from pass to pass, and the
parameters follow by robust Gauss-Newton on the distances.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np


# ------------------------------------------------------------------------- the lens
@dataclass(frozen=True)
class Lens:
    """Radial (barrel) distortion about the frame's centre: a frame pixel ``p`` shows the
    ideal pinhole image point ``c + (p - c) * (1 + k * r^2)``, ``r`` being ``|p - c|``
    over the half-diagonal."""

    k: float
    size: tuple[int, int]

    @property
    def centre(self) -> np.ndarray:
        w, h = self.size
        return np.array([(w - 1) / 2, (h - 1) / 2])

    @property
    def norm(self) -> float:
        w, h = self.size
        return float(np.hypot(w, h) / 2)

    def undistort(self, points: np.ndarray) -> np.ndarray:
        """Frame pixels (N x 2) to ideal image points."""
        c, n = self.centre, self.norm
        u = (np.asarray(points, np.float64).reshape(-1, 2) - c) / n
        return c + u * (1 + self.k * (u * u).sum(axis=1, keepdims=True)) * n

    def distort(self, ideal: np.ndarray) -> np.ndarray:
        """Ideal image points (N x 2) to frame pixels."""
        c, n = self.centre, self.norm
        u = (np.asarray(ideal, np.float64).reshape(-1, 2) - c) / n
        if self.k == 0:
            return c + u * n
        ru = np.sqrt((u * u).sum(axis=1))
        rd = ru.copy()
        k = self.k
        for _ in range(6):      # Newton on rd * (1 + k rd^2) = ru
            rd -= (rd * (1 + k * rd * rd) - ru) / (1 + 3 * k * rd * rd)
        scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
        return c + u * scale[:, None] * n


# -------------------------------------------------------------------- the board shape
@dataclass(frozen=True)
class BoardShape:
    """A board's lines in field units (field width and height are 1): ``bar`` width over
    the field's width, ``tip`` the points' length over the field's height, ``rim_x`` and
    ``rim_y`` the case's rim beside and above/below the field, ``strip`` the rim between
    the field and the trays and ``tray`` the trays' width (0 for a board without trays)."""

    bar: float = 0.092
    tip: float = 0.43
    rim_x: float = 0.039
    rim_y: float = 0.047
    strip: float = 0.025
    tray: float = 0.095

    def point_centre(self, number: int) -> tuple[float, float, int]:
        """(x of point ``number``'s centre line, y of its base, +1 if it points down, -1 up)."""
        half = (1 - self.bar) / 2
        w = half / 6
        if number <= 6:
            return 1 - (number - 0.5) * w, 1.0, -1
        if number <= 12:
            return half - (number - 6.5) * w, 1.0, -1
        if number <= 18:
            return (number - 12.5) * w, 0.0, 1
        return 1 - half + (number - 18.5) * w, 0.0, 1

    @property
    def point_width(self) -> float:
        return (1 - self.bar) / 12

    @property
    def case(self) -> tuple[float, float, float, float]:
        """The case's outline: x0, y0, x1, y1."""
        x1 = 1 + (self.strip + self.tray if self.tray > 0 else 0) + self.rim_x
        return (-self.rim_x, -self.rim_y, x1, 1 + self.rim_y)

    def segments(self, outer: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The model's straight edges as (N, 2, 2) end points and a weight for each: the
        field's outline, the bar and the points' triangles, and with ``outer`` the case
        and the trays."""
        segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
        weights: list[float] = []

        def add(a, b, weight=1.0):
            segs.append((a, b))
            weights.append(weight)

        half = (1 - self.bar) / 2
        b0, b1 = half, 1 - half
        for y in (0.0, 1.0):
            add((0.0, y), (b0, y))
            add((b1, y), (1.0, y))
        for x in (0.0, b0, b1, 1.0):
            add((x, 0.0), (x, 1.0))
        w = self.point_width
        for n in range(1, 25):
            cx, base, d = self.point_centre(n)
            tip = (cx, base + d * self.tip)
            add((cx - w / 2, base), tip, 0.5)
            add((cx + w / 2, base), tip, 0.5)
        if not outer:
            return np.array(segs, np.float64), np.array(weights, np.float64)
        x0, y0, x1, y1 = self.case
        add((x0, y0), (x1, y0))
        add((x0, y1), (x1, y1))
        add((x0, y0), (x0, y1))
        add((x1, y0), (x1, y1))
        if self.tray > 0:
            t0, t1 = 1 + self.strip, 1 + self.strip + self.tray
            for ya, yb in ((0.0, 0.48), (0.52, 1.0)):
                add((t0, ya), (t0, yb))
                add((t1, ya), (t1, yb))
        return np.array(segs, np.float64), np.array(weights, np.float64)


UNIT_SQUARE = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)


@dataclass(frozen=True)
class BoardPose:
    """Where the field lies in the frame: its corners in the ideal image (top-left,
    top-right, bottom-right, bottom-left of the canonical view), the lens and the shape."""

    corners: np.ndarray     # 4 x 2, ideal image
    lens: Lens
    shape: BoardShape

    @property
    def homography(self) -> np.ndarray:
        """Field units to the ideal image."""
        return cv2.getPerspectiveTransform(UNIT_SQUARE.astype(np.float32), self.corners.astype(np.float32))

    def to_frame(self, field_points: np.ndarray) -> np.ndarray:
        """Field units (N x 2) to frame pixels."""
        pts = np.asarray(field_points, np.float64).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return self.lens.distort(ideal)

    def to_field(self, frame_points: np.ndarray) -> np.ndarray:
        """Frame pixels (N x 2) to field units."""
        ideal = self.lens.undistort(frame_points).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(ideal, np.linalg.inv(self.homography)).reshape(-1, 2)


# --------------------------------------------------------------------- edge search
def edge_image(frame: np.ndarray, sigma: float) -> np.ndarray:
    """The frame in Lab (float32), smoothed by ``sigma`` pixels, for edge searches."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    return cv2.GaussianBlur(lab, (0, 0), sigma) if sigma > 0 else lab


def find_edges(image: np.ndarray, points: np.ndarray, normals: np.ndarray, radius: float,
               step: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """For each frame point, the signed offset along its normal (within ``radius``) of the
    strongest colour edge, and that edge's strength (0 where the search leaves the frame)."""
    n = len(points)
    ts = np.arange(-radius, radius + step / 2, step, dtype=np.float32)
    xy = points[:, None, :] + ts[None, :, None] * normals[:, None, :]
    mapx = xy[..., 0].astype(np.float32)
    mapy = xy[..., 1].astype(np.float32)
    profile = cv2.remap(image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(-1e4,) * 3)
    inside = (profile > -1e3).all(axis=2)
    diff = profile[:, 2:] - profile[:, :-2]
    strength = np.sqrt((diff * diff).sum(axis=2))
    strength[~(inside[:, 2:] & inside[:, :-2])] = 0
    # prefer the nearer of two edges: a strong line a little further must not win outright
    near = np.exp(-0.5 * (ts[1:-1] / (0.6 * radius)) ** 2)
    best = np.argmax(strength * near[None, :], axis=1)
    rows = np.arange(n)
    peak = strength[rows, best]
    left = strength[rows, np.maximum(best - 1, 0)]
    right = strength[rows, np.minimum(best + 1, strength.shape[1] - 1)]
    denom = left - 2 * peak + right
    frac = np.where(np.abs(denom) > 1e-6, 0.5 * (left - right) / np.where(np.abs(denom) > 1e-6, denom, 1), 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    offset = ts[1:-1][best] + frac * step
    return offset.astype(np.float64), peak.astype(np.float64) / (2 * step)


# -------------------------------------------------------------------------- fitting
@dataclass(frozen=True)
class FitResult:
    pose: BoardPose
    residual: float          # median distance of the edge samples to the model (pixels)
    support: float           # share of the samples that found their edge


MIN_EDGE = 3.0          # Lab units per pixel: weaker "edges" are noise
TRIANGLES = 8           # segments before this index are the field's and bar's lines
SHAPE_LIMITS = {"bar": (0.02, 0.2), "tip": (0.3, 0.5)}


class _Samples:
    """Points along the model's inner segments, kept as (segment, fraction) so they follow
    the shape when it changes."""

    def __init__(self, shape: BoardShape, spacing: float) -> None:
        segs, weights = shape.segments()
        ids, fractions = [], []
        for i, (a, b) in enumerate(segs):
            # a triangle's two edges meet at its tip: sample them only where they are apart
            span = 0.7 if i >= TRIANGLES else 0.92
            n = max(int(np.hypot(*(b - a)) * span / spacing), 2)
            ids.append(np.full(n, i))
            fractions.append(0.04 + span * (np.arange(n) + 0.5) / n)
        self.ids = np.concatenate(ids)
        self.t = np.concatenate(fractions)
        self.weights = weights[self.ids]

    def points(self, shape: BoardShape) -> tuple[np.ndarray, np.ndarray]:
        segs, _ = shape.segments()
        a, b = segs[self.ids, 0], segs[self.ids, 1]
        d = b - a
        return a + self.t[:, None] * d, d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)


def _pack(pose: BoardPose) -> np.ndarray:
    return np.concatenate([pose.corners.ravel(), [pose.lens.k * 100, pose.shape.bar, pose.shape.tip]])


def _unpack(v: np.ndarray, pose: BoardPose) -> BoardPose:
    shape = replace(pose.shape, bar=float(np.clip(v[9], *SHAPE_LIMITS["bar"])),
                    tip=float(np.clip(v[10], *SHAPE_LIMITS["tip"])))
    return BoardPose(v[:8].reshape(4, 2).copy(), Lens(float(v[8]) / 100, pose.lens.size), shape)


STEPS = np.array([0.5] * 8 + [0.02, 1e-3, 1e-3])


def fit_board(frame: np.ndarray, pose: BoardPose,
              passes=((3.0, 16.0), (1.5, 8.0), (1.0, 4.0), (0.8, 2.5)),
              fit_lens: bool = True, fit_shape: bool = True, iterations: int = 4) -> FitResult:
    """Refine ``pose`` so the model's inner edges (field, bar, points) lie on the frame's
    edges. Each pass is (blur sigma, search radius) in frame pixels."""
    free = np.ones(11, bool)
    free[8] = fit_lens
    residual, support = np.inf, 0.0
    for sigma, radius in passes:
        image = edge_image(frame, sigma)
        # the shape only once the lines are caught: a long search would stretch the points
        free[9:] = fit_shape and radius <= 8
        for _ in range(iterations):
            step = _gauss_newton_step(image, pose, radius, free)
            if step is None:
                return FitResult(pose, np.inf, 0.0)
            pose, residual, support = step
    return FitResult(pose, residual, support)


def _gauss_newton_step(image: np.ndarray, pose: BoardPose, radius: float, free: np.ndarray):
    width_px = float(np.linalg.norm(pose.corners[1] - pose.corners[0]))
    samples = _Samples(pose.shape, max(4.0 / max(width_px, 1.0), 0.002))
    pts, dirs = samples.points(pose.shape)
    base = pose.to_frame(pts)
    tangent = pose.to_frame(pts + dirs * 1e-3) - base
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normals = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    offset, strength = find_edges(image, base, normals, radius)
    valid = strength > 0
    if valid.sum() < 20:
        return None
    # an edge counts when it stands out on its own line (lines differ in contrast)
    level = np.zeros(samples.ids.max() + 1)
    for i in np.unique(samples.ids[valid]):
        on = valid & (samples.ids == i)
        level[i] = np.median(strength[on])
    valid &= (strength > 0.5 * level[samples.ids]) & (strength > MIN_EDGE)
    if valid.sum() < 20:
        return None
    v0 = _pack(pose)
    cols = []
    for j in np.flatnonzero(free):
        dv = np.zeros_like(v0)
        dv[j] = STEPS[j]
        moved = _unpack(v0 + dv, pose)
        cols.append(((moved.to_frame(samples.points(moved.shape)[0]) - base) * normals).sum(axis=1) / STEPS[j])
    jac = np.stack(cols, axis=1)
    r = offset
    scale = np.median(np.abs(r[valid])) * 1.4826 + 0.3
    u = r / max(4.685 * scale, 1.0)
    w = samples.weights * np.where(np.abs(u) < 1, (1 - u * u) ** 2, 0.0) * valid
    jw = jac * w[:, None]
    try:
        delta = np.linalg.solve(jac.T @ jw + 1e-6 * np.eye(jac.shape[1]), jw.T @ r)
    except np.linalg.LinAlgError:
        return None
    v1 = v0.copy()
    v1[free] += delta
    return _unpack(v1, pose), float(np.median(np.abs(r[valid]))), float(valid.mean())


def refine_bases(frame: np.ndarray, pose: BoardPose, reach: float = 0.08) -> BoardPose:
    """Put the field's top and bottom lines where the points' edges begin.

    Along the points nothing but those lines fixes where the field ends, and a board
    whose rim is the field's colour shows them only as the start of the points' edges:
    across each base, the rows of the field cross the points' many edges, the rows of
    the rim none. Each base moves to the steepest rise of that edge texture within
    ``reach`` (field units); the other corners follow by the same homography.
    """
    px_per_unit = float(np.linalg.norm(pose.corners[2] - pose.corners[3]))
    step = 0.5 / max(px_per_unit, 1.0)
    half = (1 - pose.shape.bar) / 2
    xs = np.r_[np.arange(0.03, half - 0.01, 1.5 / max(px_per_unit, 1.0)),
               np.arange(1 - half + 0.01, 0.97, 1.5 / max(px_per_unit, 1.0))]
    ys_off = np.arange(-reach, reach + step / 2, step)
    lab = edge_image(frame, 0.8)
    moved = {}
    for base, inward in ((0.0, 1.0), (1.0, -1.0)):
        ys = base + inward * ys_off
        grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        dx = 0.6 / max(px_per_unit, 1.0)
        left = pose.to_frame(grid - (dx, 0)).astype(np.float32).reshape(len(ys), len(xs), 2)
        right = pose.to_frame(grid + (dx, 0)).astype(np.float32).reshape(len(ys), len(xs), 2)
        a = cv2.remap(lab, left[..., 0], left[..., 1], cv2.INTER_LINEAR)
        b = cv2.remap(lab, right[..., 0], right[..., 1], cv2.INTER_LINEAR)
        texture = np.abs(a - b).sum(axis=2).mean(axis=1)          # per row, rim side first
        # a sustained step (the field goes on), not a short bump (the case's edge)
        m = 16
        csum = np.concatenate([[0.0], np.cumsum(texture)])
        idx = np.arange(m, len(texture) - m)
        after = (csum[idx + m] - csum[idx]) / m
        before = (csum[idx] - csum[idx - m]) / m
        rise = after - before
        if len(rise) < 3:
            continue                # a field too small in the frame to show a step
        j = int(np.argmax(rise))
        if after[j] < 1.6 * before[j] or j in (0, len(rise) - 1):
            continue
        l, c, r = rise[j - 1], rise[j], rise[j + 1]
        d = l - 2 * c + r
        frac = float(np.clip(0.5 * (l - r) / d, -0.5, 0.5)) if abs(d) > 1e-9 else 0.0
        i = idx[j] - 0.5
        moved[base] = base + inward * (ys_off[0] + (i + frac) * step)
    if not moved:
        return pose
    y0, y1 = moved.get(0.0, 0.0), moved.get(1.0, 1.0)
    src = np.array([(0, y0), (1, y0), (1, y1), (0, y1)], np.float64)
    ideal = cv2.perspectiveTransform(src.reshape(-1, 1, 2), pose.homography).reshape(-1, 2)
    scale = 1.0 / (y1 - y0)
    shape = replace(pose.shape, tip=pose.shape.tip * scale)
    return BoardPose(ideal, pose.lens, shape)
