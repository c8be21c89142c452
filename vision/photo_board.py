"""Finding the playing field in a photo of a board, with no calibration and no markers.

The field is the unit square seen through a homography ``H`` (field units to image
pixels): x runs across the points (12 points and the bar between the halves), y from
one row of points' bases (0) to the other's (1). ``FieldFit`` adds the bar's width and
the points' length in those units.

A fit is scored by the board's own drawing (``field_score``): the 48 sides of the 24
points must lie on colour edges (more than the same sides moved half a point sideways,
so texture alone earns nothing), the field's outline and the bar's sides must be long
straight edges, and the checkers found in the photo must sit on the points' centre
lines. Candidates come from the large quadrilaterals among the image's edges (the
case, the field, a half) and from the frame of the photo itself turned to the board's
dominant line directions (a board that fills the photo or is cut off by its edges).
The best seeds are searched in their own frame (where the field's ends, the bar and the
bases lie: on blurred edges in coarse steps, then on sharp ones in fine steps), refined
corner by corner, and the best-scoring fit wins.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

UNIT_SQUARE = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)
SIDE_SAMPLES = np.linspace(0.08, 0.92, 8)    # where along a point's side (base to tip) it is sampled
LINE_SAMPLES = np.linspace(0.03, 0.97, 25)
BEYOND_BASE = 0.12                           # field heights beyond a base where a checker still tells of the field
EDGE_CAP = 3.0                               # a sample's edge strength counts up to this many times the mean


@dataclass(frozen=True)
class FieldFit:
    """The field in an image: ``corners`` (4 x 2, image pixels) of the unit field square in
    the order (0, 0), (1, 0), (1, 1), (0, 1); ``bar`` the bar's width and ``tip`` the points'
    length, both as fractions of the field's width and height; ``score`` how well the
    image supports it (``field_score``)."""

    corners: np.ndarray
    bar: float = 0.09
    tip: float = 0.42
    score: float = 0.0

    @property
    def homography(self) -> np.ndarray:
        """Field units to image pixels."""
        return cv2.getPerspectiveTransform(UNIT_SQUARE.astype(np.float32), self.corners.astype(np.float32))

    def to_image(self, field_points) -> np.ndarray:
        pts = np.asarray(field_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_field(self, image_points) -> np.ndarray:
        pts = np.asarray(image_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    @property
    def point_width(self) -> float:
        """A point's width in field units."""
        return (1 - self.bar) / 12

    def column_centres(self) -> np.ndarray:
        """x (field units) of the 12 point columns' centre lines, left to right."""
        w = self.point_width
        half = (1 - self.bar) / 2
        return np.r_[(np.arange(6) + 0.5) * w, 1 - half + (np.arange(6) + 0.5) * w]

    def halves(self) -> list[np.ndarray]:
        """The two halves of the field either side of the bar, as image polygons (4 x 2)."""
        half = (1 - self.bar) / 2
        return [self.to_image([(x0, 0), (x1, 0), (x1, 1), (x0, 1)]) for x0, x1 in ((0, half), (1 - half, 1))]

    def point_width_px(self) -> float:
        """A point's width in image pixels near the field's centre."""
        w = self.point_width
        a, b = self.to_image([(0.5 - w / 2, 0.5), (0.5 + w / 2, 0.5)])
        return float(np.linalg.norm(b - a))


# ---------------------------------------------------------------------- image features
class EdgeImage:
    """Colour gradients of an image for sampling at sub-pixel points, scaled so 1 is the
    image's mean gradient magnitude."""

    def __init__(self, image: np.ndarray, sigma: float = 1.2) -> None:
        lab = cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), sigma), cv2.COLOR_BGR2LAB).astype(np.float32)
        gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) / 8
        scale = float(np.sqrt((gx * gx + gy * gy).sum(axis=2)).mean()) + 1e-3
        self.gradient = np.concatenate([gx, gy], axis=2) / scale     # H x W x 6

    def normal_strength(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """Gradient across the line at each point (the colour change along ``normals``), NaN
        outside the image."""
        flat = points.reshape(-1, 2).astype(np.float32)
        g = cv2.remap(self.gradient, flat[:, 0].reshape(1, -1), flat[:, 1].reshape(1, -1), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=(np.nan,) * 4)[0]
        if g.ndim == 1:
            g = g.reshape(-1, 6)
        n = normals.reshape(-1, 2)
        across = g[:, 0:3] * n[:, 0:1] + g[:, 3:6] * n[:, 1:2]
        return np.sqrt((across * across).sum(axis=1)).reshape(points.shape[:-1])


def _segments(fit: FieldFit) -> tuple[np.ndarray, np.ndarray]:
    """The points' 48 sides as (48, 2, 2) field-unit end points (base corner, tip)."""
    w = fit.point_width
    ends = []
    for base, tip in ((0.0, fit.tip), (1.0, 1 - fit.tip)):
        for cx in fit.column_centres():
            for side in (-0.5, 0.5):
                ends.append(((cx + side * w, base), (cx, tip)))
    return np.array(ends, np.float64), np.array([w, 0.0])


def _lines(fit: FieldFit) -> np.ndarray:
    """The field's outline and the bar's two sides as (6, 2, 2) field-unit end points."""
    half = (1 - fit.bar) / 2
    return np.array([((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 0), (0, 1)), ((1, 0), (1, 1)),
                     ((half, 0), (half, 1)), ((1 - half, 0), (1 - half, 1))], np.float64)


def _strengths(edges: EdgeImage, fit: FieldFit, groups: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """Edge strength across each segment of each group (segments in field units, samples
    at fractions ``t`` along them), capped at ``EDGE_CAP``: one array (segments x samples)
    per group. A homography keeps lines straight, so each segment's normal in the image
    is that of its image."""
    points, normals, shapes = [], [], []
    h = fit.homography
    for segs, t in groups:
        a, b = segs[:, 0], segs[:, 1]
        pts = a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]
        img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(pts.shape)
        ends = cv2.perspectiveTransform(segs.reshape(-1, 1, 2), h).reshape(segs.shape)
        tangent = ends[:, 1] - ends[:, 0]
        tangent /= np.linalg.norm(tangent, axis=1, keepdims=True) + 1e-12
        normal = np.broadcast_to(np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)[:, None, :], img.shape)
        points.append(img.reshape(-1, 2))
        normals.append(normal.reshape(-1, 2))
        shapes.append(img.shape[:2])
    strength = np.minimum(edges.normal_strength(np.concatenate(points), np.concatenate(normals)), EDGE_CAP)
    out, start = [], 0
    for shape in shapes:
        n = shape[0] * shape[1]
        out.append(strength[start:start + n].reshape(shape))
        start += n
    return out


def field_score(edges: EdgeImage, fit: FieldFit, discs: np.ndarray | None = None,
                radius: float | None = None) -> float:
    """How well the image shows a board field where ``fit`` puts it (higher is better):
    the points' sides against the same sides half a point aside, the outline and bar as
    straight edges, and how checkers (``discs``, N x 2 image centres) sit on the points;
    a point width far from a checker's (``radius``) costs."""
    segs, shift = _segments(fit)
    on, off, line = _strengths(edges, fit, [(segs, SIDE_SAMPLES), (segs + shift / 2, SIDE_SAMPLES),
                                            (_lines(fit), LINE_SAMPLES)])
    seen = np.isfinite(on)
    if seen.mean() < 0.4:
        return -np.inf
    sides = float(on[seen].mean() - off[np.isfinite(off)].mean())
    # a straight edge is there along most of its length: the median, not the mean
    visible = np.isfinite(line).mean(axis=1) > 0.5
    medians = np.median(np.nan_to_num(line), axis=1) * visible
    score = sides + 0.5 * float(medians.mean())
    if discs is not None and len(discs):
        score += 0.5 * _checkers_on_points(fit, discs, radius)
    if radius:
        ratio = fit.point_width_px() / (2 * radius)
        score -= 2.0 * max(0.0, 0.95 - ratio, ratio - 1.5)
    return score


def _checkers_on_points(fit: FieldFit, discs: np.ndarray, radius: float | None) -> float:
    """How well checkers sit where a field puts its points' slots: the share of the discs
    inside the field that lie on a point's centre line and, the radius known, how near
    those lie to a whole number of diameters and a half from their base, the first of each
    point half a diameter from it (checkers are stacked from the base). A disc just
    beyond a base (within ``BEYOND_BASE`` of the field's height) counts as off the
    lines: a field that leaves a row's first checkers outside is too short."""
    f = fit.to_field(discs)
    across = (f[:, 0] > 0) & (f[:, 0] < 1)
    inside = across & (f[:, 1] > 0) & (f[:, 1] < 1)
    if not inside.any():
        return 0.0
    beyond = across & ~inside & (f[:, 1] > -BEYOND_BASE) & (f[:, 1] < 1 + BEYOND_BASE)
    weight = min(1.0, inside.sum() / 6)
    offset = np.abs(f[inside, 0][:, None] - fit.column_centres()[None, :])
    column = offset.argmin(axis=1)
    on_line = offset.min(axis=1) / fit.point_width < 0.25
    score = float(on_line.sum() / (inside.sum() + beyond.sum()))
    if radius and on_line.any():
        uv = f[inside][on_line]
        row = np.round(uv[:, 1])
        bases = fit.to_image(np.stack([uv[:, 0], row], axis=1))
        along = np.linalg.norm(discs[inside][on_line] - bases, axis=1) / (2 * radius)
        score += 0.5 * float(np.mean(np.cos(2 * np.pi * (along - 0.5))))
        point = column[on_line] * 2 + row.astype(int)
        first = np.array([along[point == p].min() for p in np.unique(point)])
        score += 0.5 * float(np.mean(np.exp(-0.5 * ((first - 0.5) / 0.25) ** 2)))
    return score * weight


# ------------------------------------------------------------------------- candidates
def _ring(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise (image y down) from the one nearest the top-left."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    centre = quad.mean(axis=0)
    ring = quad[np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))]
    return np.roll(ring, -int(np.argmin(ring.sum(axis=1))), axis=0)


def outline_quads(image: np.ndarray, limit: int = 6) -> list[np.ndarray]:
    """Large convex quadrilaterals among the image's edges (the case, the field), biggest first."""
    area = image.shape[0] * image.shape[1]
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    found: list[tuple[float, np.ndarray]] = []
    for lo, hi in ((30, 90), (12, 36), (60, 180)):
        edges = cv2.dilate(cv2.Canny(gray, lo, hi), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if cv2.contourArea(c) < 0.08 * area:
                continue
            hull = cv2.convexHull(c)
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
            if len(approx) == 4 and cv2.contourArea(approx) > 0.08 * area:
                found.append((float(cv2.contourArea(approx)), _ring(approx)))
    found.sort(key=lambda item: -item[0])
    quads: list[np.ndarray] = []
    for _, q in found:
        if not any(np.abs(q - k).max() < 6 for k in quads):
            quads.append(q)
        if len(quads) >= limit:
            break
    return quads


def line_directions(image: np.ndarray) -> tuple[float, float]:
    """The board's two dominant line directions (degrees, image coordinates): the strongest
    direction of long straight segments and the strongest within 20 degrees of its normal."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    segs = cv2.createLineSegmentDetector().detect(gray)[0]
    hist = np.zeros(180)
    if segs is not None:
        segs = segs.reshape(-1, 4)
        length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
        angle = np.degrees(np.arctan2(segs[:, 3] - segs[:, 1], segs[:, 2] - segs[:, 0])) % 180
        keep = length > min(image.shape[:2]) / 30
        np.add.at(hist, np.round(angle[keep]).astype(int) % 180, length[keep] ** 2)
    kernel = np.exp(-0.5 * (np.arange(-4, 5) / 1.2) ** 2)
    smooth = np.array([sum(hist[(i + j) % 180] * kernel[j + 4] for j in range(-4, 5)) for i in range(180)])
    if not smooth.any():
        return 0.0, 90.0
    fold = smooth[:90] + smooth[90:]
    p = int(np.argmax(fold))
    first = p if smooth[p] >= smooth[p + 90] else p + 90
    near = [(first + 90 + d) % 180 for d in range(-20, 21)]
    second = near[int(np.argmax(smooth[near]))]
    return float(first), float(second)


def frame_quads(image: np.ndarray) -> list[np.ndarray]:
    """The photo's own content turned to the board's line directions: the parallelogram
    with sides along the two dominant directions that holds the image's non-blank part,
    inset a little (a board filling the photo, or cut off by its edges)."""
    a1, a2 = line_directions(image)
    u = np.array([np.cos(np.radians(a1)), np.sin(np.radians(a1))])
    v = np.array([np.cos(np.radians(a2)), np.sin(np.radians(a2))])
    basis = np.stack([u, v], axis=1)
    to_aligned = np.linalg.inv(basis)
    content = _content_mask(image)
    ys, xs = np.nonzero(content)
    if len(xs) == 0:
        return []
    pts = np.stack([xs, ys], axis=1).astype(np.float64)[:: max(1, len(xs) // 20000)]
    al = pts @ to_aligned.T
    lo, hi = np.percentile(al, 1, axis=0), np.percentile(al, 99, axis=0)
    out = []
    for inset in (0.02, 0.07):
        d = (hi - lo) * inset
        box = np.array([(lo[0] + d[0], lo[1] + d[1]), (hi[0] - d[0], lo[1] + d[1]),
                        (hi[0] - d[0], hi[1] - d[1]), (lo[0] + d[0], hi[1] - d[1])])
        out.append(_ring(box @ basis.T))
    return out


def _content_mask(image: np.ndarray) -> np.ndarray:
    """Pixels that are not the flat fill a rotated or sheared copy of a photo is padded with."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    flat = cv2.blur(np.abs(cv2.Laplacian(gray, cv2.CV_32F)), (9, 9)) < 0.5
    corners = [gray[0, 0], gray[0, -1], gray[-1, 0], gray[-1, -1]]
    fill = np.zeros_like(flat)
    for value in set(int(c) for c in corners):
        fill |= flat & (np.abs(gray.astype(int) - value) <= 3)
    return ~fill


def seeds_from_quad(quad: np.ndarray) -> list[FieldFit]:
    """Fields a quadrilateral may outline: the field itself, or the case around it with
    rims (and trays on either end), with either pair of its sides along the points."""
    ring = _ring(quad)
    out = []
    for turn in (0, 1):
        q = np.roll(ring, -turn, axis=0)
        out.append(FieldFit(q))
        h = cv2.getPerspectiveTransform(UNIT_SQUARE.astype(np.float32), q.astype(np.float32))
        for x0, x1, y0, y1 in ((0.04, 0.96, 0.05, 0.95), (0.03, 0.86, 0.05, 0.95), (0.14, 0.97, 0.05, 0.95)):
            inner = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64).reshape(-1, 1, 2)
            out.append(FieldFit(cv2.perspectiveTransform(inner, h).reshape(-1, 2)))
    return out


# ------------------------------------------------------------------------- refinement
def _within(fit: FieldFit, x0: float, x1: float, y0: float, y1: float) -> FieldFit:
    """The field moved to the rectangle [x0, x1] x [y0, y1] of its own units."""
    box = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64)
    return replace(fit, corners=fit.to_image(box))


def align(coarse: EdgeImage, fine: EdgeImage, fit: FieldFit, discs, radius, reach: float = 0.08) -> FieldFit:
    """Grid search, in the field's own frame, of where its ends and the bar's width (then
    its two bases) lie within ``reach`` of the present ones: first on ``coarse`` (blurred)
    edges in coarse steps, then on ``fine`` ones in fine steps about the best."""
    best = fit
    for edges, span, step, bars in ((coarse, reach, reach / 4, (0.05, 0.08, 0.11, 0.14)),
                                    (fine, reach / 4, reach / 8, (0.9, 1.0, 1.1))):
        offsets = np.arange(-span, span + step / 2, step)
        base = best = replace(best, score=field_score(edges, best, discs, radius))
        for bar in bars if edges is coarse else tuple(base.bar * f for f in bars):
            for a in offsets:
                for b in offsets:
                    trial = replace(_within(base, a, 1 + b, 0, 1), bar=bar)
                    s = field_score(edges, trial, discs, radius)
                    if s > best.score:
                        best = replace(trial, score=s)
        base = best
        for a in offsets:
            for b in offsets:
                trial = _within(base, 0, 1, a, 1 + b)
                s = field_score(edges, trial, discs, radius)
                if s > best.score:
                    best = replace(trial, score=s)
    return best


def refine(edges: EdgeImage, fit: FieldFit, discs: np.ndarray | None, radius: float | None,
           rounds: int = 3) -> FieldFit:
    """Coordinate ascent of ``field_score`` over the four corners (each along the field's
    two directions), the bar's width and the points' length, with shrinking steps."""
    best = replace(fit, score=field_score(edges, fit, discs, radius))
    size = float(np.linalg.norm(fit.corners[1] - fit.corners[0]))
    step = 0.006 * size
    for _ in range(rounds):
        improved = True
        while improved:
            improved = False
            for trial in _moves(best, step):
                s = field_score(edges, trial, discs, radius)
                if s > best.score + 1e-4:
                    best, improved = replace(trial, score=s), True
        step /= 2
    return best


def _moves(fit: FieldFit, step: float):
    c = fit.corners
    across = (c[1] - c[0] + c[2] - c[3]) / 2
    along = (c[3] - c[0] + c[2] - c[1]) / 2
    across /= np.linalg.norm(across) + 1e-12
    along /= np.linalg.norm(along) + 1e-12
    for i in range(4):
        for d in (across, along):
            for sign in (-1, 1):
                moved = c.copy()
                moved[i] += sign * step * d
                yield replace(fit, corners=moved)
    for bar in (fit.bar * 0.93, fit.bar * 1.07):
        if 0.01 < bar < 0.25:
            yield replace(fit, bar=bar)
    for tip in (fit.tip - 0.02, fit.tip + 0.02):
        if 0.3 < tip < 0.48:
            yield replace(fit, tip=tip)


def find_field(image: np.ndarray, discs: np.ndarray | None = None, radius: float | None = None,
               keep: int = 5) -> FieldFit | None:
    """The best-supported field in ``image`` (BGR), or None when nothing looks like one.
    ``discs`` (N x 2) are checker centres found beforehand and ``radius`` their radius.
    A board's half (six points on either side of it) looks much like a whole field turned
    a quarter, and its outline may be the only quad seeded: where the field found leaves
    ``LEFT_OUT`` checkers out (the other half's), it is doubled across the side where most
    of them lie to seed the search again, and the whole board is taken where it scores
    ``BETTER`` more, counting ``TAKEN_IN`` for the checkers it takes in (a half of the
    board in glare shows its points faintly: the half in the light outscores it)."""
    fine = EdgeImage(image)
    coarse = EdgeImage(image, sigma=max(2.5, (radius or 0) / 5))
    seeds = []
    for quad in outline_quads(image) + frame_quads(image):
        seeds.extend(seeds_from_quad(quad))
    if not seeds:
        return None
    best = _best_of(seeds, coarse, fine, discs, radius, keep)
    left = _left_out(best, discs)
    if left.sum() >= LEFT_OUT:
        held = [_inside(_within(best, *box), discs[left]).sum() for box in DOUBLED]
        doubled = [s for box, n in zip(DOUBLED, held) if n == max(held)
                   for s in seeds_from_quad(_within(best, *box).corners)]
        whole = _best_of(doubled, coarse, fine, discs, radius, WHOLE_KEEP)
        taken_in = (left.sum() - _left_out(whole, discs).sum()) / len(discs)
        if whole.score + TAKEN_IN * taken_in >= best.score + BETTER:
            best = whole
    return _moved_ends(fine, best, discs, radius)


def _inside(fit: FieldFit, discs: np.ndarray) -> np.ndarray:
    """Which of ``discs`` (N x 2 image centres) lie within the field ``fit`` puts in the
    image, or less than ``OUTSIDE`` of its length or height beyond it."""
    u, v = fit.to_field(discs).T
    return (u >= -OUTSIDE) & (u <= 1 + OUTSIDE) & (v >= -OUTSIDE) & (v <= 1 + OUTSIDE)


def _left_out(fit: FieldFit, discs: np.ndarray | None) -> np.ndarray:
    """Which of ``discs`` lie beyond the field ``fit`` (``_inside``'s complement)."""
    return np.zeros(0, bool) if discs is None or not len(discs) else ~_inside(fit, discs)


LEFT_OUT = 6             # checkers found beyond a field found that make it perhaps a board's half ...
OUTSIDE = 0.05           # ... lying this far beyond it (of its length or height)
DOUBLED = ((-1, 1, 0, 1), (0, 2, 0, 1), (0, 1, -1, 1), (0, 1, 0, 2))  # ... which is then doubled across the side
WHOLE_KEEP = 4           # where most of them lie; seeds of the doubled fields refined
TAKEN_IN = 1.0           # score a whole board gains per share of the checkers found that the half left out


def _best_of(seeds: list[FieldFit], coarse: EdgeImage, fine: EdgeImage, discs, radius, keep: int) -> FieldFit:
    """The best field refined from the ``keep`` best-scoring distinct ``seeds``, each tried
    with a narrow and a wide bar and aligned first; or the best seed refined as it lies,
    where that scores more and lies half a point or more along from it: the points repeat
    every point's width, and aligning on blurred edges can move a field a point along (a
    pile over a half's first point hides what tells the two apart there)."""
    scored = []
    for seed in seeds:
        for bar in (0.06, 0.1):
            s = replace(seed, bar=bar)
            scored.append(replace(s, score=field_score(coarse, s, discs, radius)))
    scored.sort(key=lambda f: -f.score)
    distinct: list[FieldFit] = []
    for seed in scored:
        if not any(np.abs(seed.corners - d.corners).max() < 4 for d in distinct):
            distinct.append(seed)
    best = max((refine(fine, align(coarse, fine, seed, discs, radius), discs, radius) for seed in distinct[:keep]),
               key=lambda fit: fit.score)
    as_seeded = refine(fine, distinct[0], discs, radius)
    along = abs(float(best.to_field(as_seeded.to_image([(0.5, 0.5)]))[0, 0]) - 0.5)
    return as_seeded if as_seeded.score > best.score and along >= best.point_width / 2 else best


END_REACH = 0.12         # of the field's length or height: how far an end or a base found may lie from the true one
BETTER = 0.3             # score by which a field found again (doubled, an end moved) must beat the one found


def _moved_ends(edges: EdgeImage, fit: FieldFit, discs: np.ndarray | None, radius: float | None) -> FieldFit:
    """``fit`` with one end moved (the other half of the field held where it is, the bar
    wider or narrower) or one base moved, within ``END_REACH``, and refined, where that
    scores ``BETTER`` more. An arm or a card over one end of the board takes the
    outline seeds and the search about them there; the other half's points, found, stay
    right. A little more is no proof: an arm's own edges along an end score a little too."""
    best = fit
    offsets = np.arange(-END_REACH, END_REACH + 1e-9, 0.005)
    while True:
        trials = []
        for k in offsets:
            for bar, box in (((best.bar - k) / (1 - k), (k, 1, 0, 1)), ((best.bar + k) / (1 + k), (0, 1 + k, 0, 1))):
                if 0.01 < bar < 0.25:
                    trials.append(replace(_within(best, *box), bar=bar))
            trials += [_within(best, 0, 1, k, 1), _within(best, 0, 1, 0, 1 + k)]
        scored = max((replace(t, score=field_score(edges, t, discs, radius)) for t in trials), key=lambda t: t.score)
        if scored.score <= best.score + 1e-4:
            return best if best.score >= fit.score + BETTER else fit
        best = refine(edges, scored, discs, radius)


FIELD_SAMPLES = 200      # samples of the field's colour that must show for it to be known


def field_colour(image: np.ndarray, fit: FieldFit, away: np.ndarray | None = None) -> np.ndarray | None:
    """The colour (OpenCV 8-bit Lab median) of the field itself: the band between the two
    rows' tips in both halves, where no point is drawn, sampled away from the circles
    ``away`` (N x 3: x, y, radius; checkers found) and inside the photo; None when too
    little of it shows."""
    half = (1 - fit.bar) / 2
    us = np.r_[np.linspace(0.02, half - 0.02, 40), np.linspace(1 - half + 0.02, 0.98, 40)]
    vs = np.linspace(fit.tip + 0.01, 1 - fit.tip - 0.01, 8)
    xy = fit.to_image(np.array([(u, v) for u in us for v in vs]))
    h, w = image.shape[:2]
    keep = (xy[:, 0] >= 0) & (xy[:, 0] <= w - 1) & (xy[:, 1] >= 0) & (xy[:, 1] <= h - 1)
    if away is not None and len(away):
        d = np.hypot(xy[:, None, 0] - away[None, :, 0], xy[:, None, 1] - away[None, :, 1])
        keep &= (d > away[None, :, 2]).all(axis=1)
    if keep.sum() < FIELD_SAMPLES:
        return None
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), 1.5), cv2.COLOR_BGR2LAB)
    at = np.round(xy[keep]).astype(int)
    return np.median(lab[at[:, 1], at[:, 0]].astype(np.float64), axis=0)
