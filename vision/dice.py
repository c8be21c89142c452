"""Find and read six-sided dice anywhere in an image: a tray, a table, a board.

The reader is classical: the die bodies are segmented from the local background
(colour distance in Lab against a heavily smoothed copy of the image), touching
dice are split at the narrow necks of their mask, every candidate is rectified
from its rotated bounding box, and its face is read by fitting the six pip
patterns onto a 3x3 grid of pip sites. A face counts only when its pips are a
valid pattern; the margin between the pips and the empty sites is the confidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

PATCH = 48  # side of a rectified die face, pixels


@dataclass(frozen=True)
class Die:
    """One die read from an image.

    ``box`` is the axis-aligned (x, y, w, h) around the die; ``rect`` the rotated
    box ((cx, cy), (w, h), angle) as OpenCV gives it; ``flat`` is False when the
    die leans (its top is not a square face); ``confidence`` is 0..1.
    """

    value: int
    box: tuple[int, int, int, int]
    flat: bool
    confidence: float
    rect: tuple[tuple[float, float], tuple[float, float], float]

    @property
    def centre(self) -> tuple[float, float]:
        return self.rect[0]

    def to_json(self) -> dict:
        return {"value": self.value, "box": list(self.box), "flat": self.flat,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class FaceRead:
    """The value read from one rectified face; ``error`` is the pattern fit's worst pip offset."""

    value: int
    confidence: float
    error: float


#: Canonical pip centres per face value, in units of the face side, about the face centre.
_A = 0.27
CANONICAL: dict[int, np.ndarray] = {
    1: np.array([[0, 0]], np.float32),
    2: np.array([[-_A, -_A], [_A, _A]], np.float32),
    3: np.array([[-_A, -_A], [0, 0], [_A, _A]], np.float32),
    4: np.array([[-_A, -_A], [_A, -_A], [-_A, _A], [_A, _A]], np.float32),
    5: np.array([[-_A, -_A], [_A, -_A], [0, 0], [-_A, _A], [_A, _A]], np.float32),
    6: np.array([[-_A, -_A], [_A, -_A], [-_A, 0], [_A, 0], [-_A, _A], [_A, _A]], np.float32),
}


def pipness_map(patch: np.ndarray, body: np.ndarray | None = None) -> np.ndarray:
    """How unlike the face colour each pixel of a rectified die face is (Lab distance, float).

    The face colour is the median of the die body (``body`` mask, else all but a thin rim);
    pixels outside the body score 0.
    """
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    n = patch.shape[0]
    if body is None:
        body = np.zeros((n, n), np.uint8)
        body[:] = 255
    sample = lab[body > 0]
    if len(sample) < 10:
        return np.zeros((n, n), np.float32)
    face = np.median(sample, axis=0)
    diff = lab - face
    d = np.sqrt((diff ** 2).sum(axis=2))
    d[body == 0] = 0
    return d


_HARMONIC = {2: 2, 3: 2, 4: 4, 5: 4, 6: 2}  # rotational symmetry used to orient each pattern


def _pattern_fit(points: np.ndarray, value: int) -> tuple[float, float]:
    """(error, scale) of pip centres (face units) against the value's pattern about their centroid.

    The canonical pattern is oriented by the angle of the points' second or fourth
    harmonic (a quarter turn either way for the two-fold patterns) and stretched
    to their spread along each axis (pip spacing varies between dice, by up to a
    third between rows and columns); each pip is matched to its nearest
    counterpart both ways and the error is the worst match, in face units.
    ``scale`` is the fitted pattern size relative to the canonical one.
    """
    if value == 1:
        return 0.0, 1.0
    c = points - points.mean(axis=0)
    canon = CANONICAL[value]
    z = c[:, 0] + 1j * c[:, 1]
    zc = canon[:, 0] + 1j * canon[:, 1]
    m = _HARMONIC[value]
    phi = (np.angle((z ** m).sum()) - np.angle((zc ** m).sum())) / m
    best = (np.inf, 1.0)
    for turn in ((0.0, np.pi / 2) if m == 2 else (0.0,)):
        w = z * np.exp(-1j * (phi + turn))  # the points in the pattern's frame
        sx = np.sqrt((w.real ** 2).mean() / max((zc.real ** 2).mean(), 1e-9))
        sy = np.sqrt((w.imag ** 2).mean() / max((zc.imag ** 2).mean(), 1e-9))
        if not 0.7 <= sx / max(sy, 1e-9) <= 1.45:
            continue
        fitted = zc.real * sx + 1j * zc.imag * sy
        d = np.abs(fitted[:, None] - w[None, :])
        err = float(max(d.min(axis=1).max(), d.min(axis=0).max()))
        if err < best[0]:
            best = (err, float(np.sqrt(sx * sy)))
    return best


def pip_candidates(pip: np.ndarray) -> list[tuple[float, float, float]]:
    """Pip-like spots in a pipness map: (x, y, strength), strongest first.

    A spot is a local maximum of a difference of Gaussians tuned to the pip size
    (about a sixth of the face), so touching pips stay apart and broad regions
    (shading, a side face) do not count.
    """
    n = pip.shape[0]
    fine = cv2.GaussianBlur(pip, (0, 0), n / 26)
    coarse = cv2.GaussianBlur(pip, (0, 0), n / 10)
    resp = fine - coarse
    peak = cv2.dilate(resp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n // 7 | 1, n // 7 | 1)))
    ys, xs = np.nonzero((resp >= peak) & (resp > 6.0))
    spots = sorted(((float(resp[y, x]), float(x), float(y)) for y, x in zip(ys, xs)), reverse=True)
    out: list[tuple[float, float, float]] = []
    for strength, x, y in spots:
        if all(np.hypot(x - ox, y - oy) > n / 9 for ox, oy, _ in out):
            out.append((x, y, strength))
    return out


def read_face(patch: np.ndarray, body: np.ndarray | None = None) -> FaceRead | None:
    """Read the value of a rectified die (any size; resized to PATCH) from its pips.

    Among the strongest pip-like spots, the largest set of similar strength that
    forms a value's pattern, at a plausible size, about the die's centre, is the
    face (a valid 4 hides in a 5 or a 6, so larger sets win; pips on a side face
    are foreshortened and do not fit the pattern). None when no set fits.
    """
    if patch.shape[0] != PATCH:
        patch = cv2.resize(patch, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
        if body is not None:
            body = cv2.resize(body, (PATCH, PATCH), interpolation=cv2.INTER_NEAREST)
    if body is None:
        body = np.full((PATCH, PATCH), 255, np.uint8)
    inner = cv2.distanceTransform((body > 0).astype(np.uint8), cv2.DIST_L2, 3)
    pip = pipness_map(patch, body)
    pip[inner < PATCH / 16] = 0  # the die's outline and shaded sides are not pips
    spots = [sp for sp in pip_candidates(pip) if inner[int(sp[1]), int(sp[0])] >= PATCH / 12]
    if not spots:
        return None
    top = spots[0][2]
    spots = [sp for sp in spots if sp[2] >= 0.3 * top][:8]
    xy = (np.array([(x, y) for x, y, _ in spots], np.float32) - PATCH / 2) / PATCH
    strength = np.array([st for _, _, st in spots], np.float32)
    for k in range(min(6, len(spots)), 0, -1):
        best: FaceRead | None = None
        for subset in combinations(range(len(spots)), k):
            idx = list(subset)
            pts = xy[idx]
            if np.hypot(*pts.mean(axis=0)) > 0.13:
                continue
            st = strength[idx]
            if st.min() < 0.45 * st.max():
                continue
            err, scale = _pattern_fit(pts, k)
            err /= max(scale, 0.5) * _A  # relative to the pip spacing, which varies between dice
            if err > 0.3 or not 0.4 <= scale <= 1.35:
                continue
            others = np.delete(strength, idx)
            rival = float(others.max()) if len(others) else 0.0
            confidence = float(np.clip(1.0 - err / 0.3, 0.0, 1.0) ** 0.5
                               * np.clip(st.min() / 20.0, 0.0, 1.0)
                               * np.clip(1.5 - rival / st.min(), 0.0, 1.0) ** 0.5)
            if best is None or confidence > best.confidence:
                best = FaceRead(k, confidence, err)
        if best is not None:
            return best
    return None


def _square_corners(rect, scale: float = 1.0) -> np.ndarray:
    (cx, cy), (w, h), angle = rect
    side = max(w, h) * scale
    return cv2.boxPoints(((cx, cy), (side, side), angle)).astype(np.float32)


def rectify(image: np.ndarray, rect, size: int = PATCH, scale: float = 1.0) -> np.ndarray:
    """The square of side max(w, h) * scale on the rotated box ``rect``, warped to size x size."""
    m = cv2.getPerspectiveTransform(_square_corners(rect, scale), _patch_corners(size))
    if image.ndim == 2:
        return cv2.warpPerspective(image, m, (size, size), flags=cv2.INTER_NEAREST)
    return cv2.warpPerspective(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _patch_corners(size: int) -> np.ndarray:
    return np.array([[0, size - 1], [0, 0], [size - 1, 0], [size - 1, size - 1]], np.float32)


def foreground_mask(image: np.ndarray, threshold: float = 22.0) -> np.ndarray:
    """Pixels whose Lab colour differs from the smoothed local background (uint8 0/255)."""
    h, w = image.shape[:2]
    f = 160.0 / max(h, w)
    small = cv2.resize(image, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    bg = cv2.resize(cv2.medianBlur(small, 31), (w, h), interpolation=cv2.INTER_LINEAR)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    bgl = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = lab - bgl
    diff[..., 0] *= 0.5  # shadows change lightness, dice change colour
    d = np.sqrt((diff ** 2).sum(axis=2))
    mask = (d > threshold).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return mask


def _fill_small_holes(mask: np.ndarray, max_area: float) -> np.ndarray:
    """The mask with every hole smaller than ``max_area`` pixels (pips, glints) filled."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    filled = mask.copy()
    if hierarchy is None:
        return filled
    holes = [c for c, h in zip(contours, hierarchy[0]) if h[3] >= 0 and cv2.contourArea(c) < max_area]
    cv2.drawContours(filled, holes, -1, 255, thickness=cv2.FILLED)
    return filled


def _components(mask: np.ndarray) -> list[np.ndarray]:
    """Outer boundaries of every blob, including blobs lying inside another blob's hole."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    return [c for c, h in zip(contours, hierarchy[0]) if h[3] < 0]


def find_dice(image: np.ndarray, region: np.ndarray | None = None, die_size: float | None = None) -> list[Die]:
    """Every readable die in ``image`` (BGR uint8), optionally only inside ``region`` (mask)."""
    if image is None or image.ndim != 3 or image.size == 0:
        raise ValueError("find_dice needs a BGR colour image")
    mask = foreground_mask(image)
    if region is not None:
        mask = cv2.bitwise_and(mask, region)
    filled = _fill_small_holes(mask, 0.002 * mask.size)
    contours = _components(filled)
    if die_size is None:
        die_size = _estimate_die_size(contours)
    if die_size is None:
        return []
    dice: list[Die] = []
    for c in _components(filled):
        area = cv2.contourArea(c)
        if area < 0.35 * die_size ** 2:
            continue
        for rect in _split(filled, c, die_size):
            die = _read_candidate(image, filled, rect)
            if die is not None:
                dice.append(die)
    return dice


def _estimate_die_size(contours) -> float | None:
    """Median side of the blobs that look like single dice (square, solid)."""
    sides = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 150:
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(c)
        if min(w, h) <= 0:
            continue
        if max(w, h) / min(w, h) < 1.25 and area / (w * h) > 0.75:
            sides.append((w + h) / 2)
    if not sides:
        return None
    return float(np.median(sides))


def _split(mask: np.ndarray, contour, die_size: float) -> list:
    """Rotated boxes of the dice in one blob: the blob itself, or its parts split at necks."""
    rect = cv2.minAreaRect(contour)
    (_, _), (w, h), _ = rect
    area = cv2.contourArea(contour)
    if area < 1.6 * die_size ** 2 and max(w, h) < 1.5 * die_size:
        return [rect]
    x, y, bw, bh = cv2.boundingRect(contour)
    sub = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(sub, [contour], -1, 255, cv2.FILLED, offset=(-x + 1, -y + 1))
    dist = cv2.distanceTransform(sub, cv2.DIST_L2, 5)
    peaks = (dist > 0.3 * die_size).astype(np.uint8)
    n, labels = cv2.connectedComponents(peaks)
    rects = []
    if n <= 2:
        return [rect] if max(w, h) < 2.5 * die_size else []
    markers = labels.astype(np.int32)
    markers[sub == 0] = -1
    markers[(sub > 0) & (peaks == 0)] = 0
    cv2.watershed(cv2.cvtColor(sub, cv2.COLOR_GRAY2BGR), markers)
    for k in range(1, n):
        part = (markers == k).astype(np.uint8) * 255
        cs = _components(part)
        if not cs:
            continue
        c = max(cs, key=cv2.contourArea)
        if cv2.contourArea(c) < 0.35 * die_size ** 2:
            continue
        (cx, cy), (pw, ph), ang = cv2.minAreaRect(c)
        rects.append(((cx + x - 1, cy + y - 1), (pw, ph), ang))
    return rects


def _read_candidate(image: np.ndarray, body: np.ndarray, rect) -> Die | None:
    (cx, cy), (w, h), angle = rect
    if min(w, h) <= 0:
        return None
    face = read_face(rectify(image, rect, scale=1.15), rectify(body, rect, scale=1.15))
    if face is None:
        return None
    flat = max(w, h) / min(w, h) < 1.3
    side = max(w, h)
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    return Die(face.value, (x0, y0, int(round(side)), int(round(side))), flat, face.confidence, rect)
