"""Find and read six-sided dice anywhere in an image (a tray, a table) and on a calibrated board.

A face is read on a small square patch that holds one die, upsampled or reduced so the
die is ``DIE_PX`` pixels wide: pips are the round spots whose colour departs from the
face's along one colour direction (a difference of Gaussians at pip size, projected on
the direction of the strongest spots), the die's turn comes from the fourfold symmetry
of its edges, and a 3x3 grid of pip sites is slid over the patch at every plausible
place, spacing and small turn. A value is the face pattern whose pip sites are all
clearly stronger than the other sites and than any spot left unexplained on the face
(the two middle-side sites tell a six from a four); a patch that fits no pattern is
not a die. The weakest pip over the strongest rival is the confidence.

On a board, candidates are what differs from the calibration's empty board yet is
smaller than a checker (an opening by a disc narrower than a checker removes the
checkers and keeps dice, also those leaning on one), plus spots inside checkers whose
colour is neither the board's nor the checker's (a die lying on a checker); each is
read on a patch warped from the full-resolution frame through the calibration.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board_model import BoardModel
from vision.observation import DieRead

PATCH = 56          # side of the patch a face is read on, pixels
DIE_PX = 34         # the die's side in that patch

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

# the 3x3 pip sites, row by row (index 4 is the centre), in units of the pip spacing
_SITES = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], np.float32)


def _sites(*on: int) -> np.ndarray:
    mask = np.zeros(9, bool)
    mask[list(on)] = True
    return mask


#: Every face as the sites its pips occupy (two-fold faces in both diagonals / directions).
PATTERNS: tuple[tuple[int, np.ndarray], ...] = (
    (1, _sites(4)), (2, _sites(0, 8)), (2, _sites(2, 6)), (3, _sites(0, 4, 8)), (3, _sites(2, 4, 6)),
    (4, _sites(0, 2, 6, 8)), (5, _sites(0, 2, 4, 6, 8)), (6, _sites(0, 2, 3, 5, 6, 8)), (6, _sites(0, 1, 2, 6, 7, 8)),
)
_ON = np.array([m for _, m in PATTERNS])
_VALUE = np.array([v for v, _ in PATTERNS])


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
    """The top face read on a patch: its ``value``, ``confidence`` 0..1, the face's
    ``centre`` (patch pixels), ``angle`` (radians, modulo a quarter turn), the pip
    ``spacing`` (pixels) across and along the face and the pip ``margin`` (Lab units)."""

    value: int
    confidence: float
    centre: tuple[float, float]
    angle: float
    spacing: tuple[float, float]
    margin: float

    @property
    def squareness(self) -> float:
        """Shorter over longer pip spacing: 1 for a face seen square on (only for 4..6 pips)."""
        a, b = self.spacing
        return min(a, b) / max(a, b, 1e-6)


# ------------------------------------------------------------------------ face reading
PHOTO_FACES = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1)       # top face side / die side tried in a photo
_RATIOS = (0.25, 0.285)                 # pip spacing / face side tried (dice makers differ)
MIN_FIT = 0.2                          # share of the face's colour variance the pips must explain
MIN_CONTRAST = 20.0                     # Lab distance between pips and face a face must show
WEAKEST = 0.5                          # the weakest pip's contrast over the pips' mean contrast


def edge_angle(patch: np.ndarray, die_px: float) -> float:
    """The die's turn modulo a quarter turn (radians) from the fourfold symmetry of the
    gradients of its outline: the patch blurred until pips fade, weighted on a ring
    where the die's edges lie."""
    sigma = 0.09 * die_px
    gray = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), sigma)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1)
    n = patch.shape[0]
    yy, xx = np.mgrid[:n, :n].astype(np.float32) - (n - 1) / 2
    ring = np.exp(-((np.sqrt(xx * xx + yy * yy) - 0.55 * die_px) ** 2) / (2 * (0.2 * die_px) ** 2))
    z = ((gx * gx + gy * gy) * ring * np.exp(4j * np.arctan2(gy, gx))).sum()
    return float(np.angle(z) / 4)


def read_face(patch: np.ndarray, die_px: float | None = None, search: float = 0.2,
              faces: tuple[float, ...] = PHOTO_FACES) -> FaceRead | None:
    """Read the top face of the die centred in ``patch`` (square, BGR), ``die_px`` wide
    (default: the patch holds the die as ``read_patch`` makes it). The face's centre may
    lie up to ``search`` die widths from the patch centre (a die seen at a slant shows
    its sides on one side), and its side is one of ``faces`` die widths. None when no
    face pattern fits.

    Every hypothesis (face centre, size, pip spacing, value) is scored by how much of
    the colour variance inside the face square a two-colour model explains: the face's
    colour everywhere but at the value's pip discs, which take the pip colour. Missing
    pips, extra pips and blotches all lower it; the best value's fit over the best
    other value's is the confidence.
    """
    n = patch.shape[0]
    die_px = float(die_px or n * DIE_PX / PATCH)
    turn = edge_angle(patch, die_px)
    centre = ((n - 1) / 2, (n - 1) / 2)
    upright = cv2.getRotationMatrix2D(centre, float(np.rad2deg(turn)), 1.0)
    lab = cv2.cvtColor(cv2.warpAffine(patch, upright, (n, n), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE), cv2.COLOR_BGR2LAB).astype(np.float32)
    sums = cv2.integral(lab)                     # (n+1, n+1, 3)
    squares = cv2.integral(lab * lab)
    r = search * die_px
    offsets = np.arange(-r, r + 1e-6, max(1.0, die_px / 34))
    tx, ty = np.meshgrid(offsets, offsets)
    places = np.stack([tx.ravel(), ty.ravel()], axis=1).astype(np.float32) + np.float32(centre)
    best_fit = np.zeros(len(PATTERNS))
    best_at: list = [None] * len(PATTERNS)
    for face in faces:
        side = face * die_px
        half = 0.46 * side
        x0 = np.clip(np.round(places[:, 0] - half).astype(int), 0, n)
        x1 = np.clip(np.round(places[:, 0] + half).astype(int) + 1, 0, n)
        y0 = np.clip(np.round(places[:, 1] - half).astype(int), 0, n)
        y1 = np.clip(np.round(places[:, 1] + half).astype(int) + 1, 0, n)
        area = np.maximum((x1 - x0) * (y1 - y0), 1).astype(np.float32)[:, None]
        total = sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]
        total2 = squares[y1, x1] - squares[y0, x1] - squares[y1, x0] + squares[y0, x0]
        mean = total / area
        variance = np.maximum(total2 / area - mean * mean, 1e-3).sum(axis=1)       # (K,)
        for ratio in _RATIOS:
            spacing = ratio * side
            pip_r = 0.31 * spacing
            k = max(int(round(1.7 * pip_r)), 1)
            discs = cv2.blur(lab, (k, k))
            grid = places[:, None, :] + _SITES[None] * spacing
            at = np.stack([cv2.remap(discs[:, :, c], grid[..., 0], grid[..., 1], cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE) for c in range(3)], axis=2)  # (K,9,3)
            pip_area = np.pi * pip_r * pip_r
            for p, (_, on) in enumerate(PATTERNS):
                m = int(on.sum())
                share = np.clip(m * pip_area / area[:, 0], 1e-3, 0.9)                # mean of the template
                pips = at[:, on, :].mean(axis=1)                                    # (K,3) pip colour
                delta = pips - mean                                                 # pip colour - window mean
                cov = share[:, None] * delta                                        # E[T*I] - E[T]E[I]
                fit = (cov * cov).sum(axis=1) / (share * (1 - share) * variance)
                step = delta / (1 - share)[:, None]                                 # pip - face colour
                contrast = np.linalg.norm(step, axis=1)
                face_colour = pips - step
                each = ((at[:, on, :] - face_colour[:, None, :]) * step[:, None, :]).sum(axis=2)
                weakest = each.min(axis=1) / np.maximum(contrast * contrast, 1e-3)   # 1: as strong as the mean
                fit = np.where((contrast >= MIN_CONTRAST) & (weakest >= WEAKEST), fit, 0.0)
                i = int(np.argmax(fit))
                if fit[i] > best_fit[p]:
                    best_fit[p] = float(fit[i])
                    best_at[p] = (places[i], spacing, float(contrast[i]))
    value_fit = {v: max(best_fit[p] for p in range(len(PATTERNS)) if _VALUE[p] == v) for v in range(1, 7)}
    p = int(np.argmax(best_fit))
    fit = float(best_fit[p])
    if fit < MIN_FIT or best_at[p] is None:
        return None
    value = int(_VALUE[p])
    rival = max(f for v, f in value_fit.items() if v != value)
    place, spacing, contrast = best_at[p]
    back = cv2.invertAffineTransform(upright)
    cx, cy = back @ np.array([place[0], place[1], 1.0])
    return FaceRead(value, float(np.clip((fit - rival) / fit * 2.0, 0.0, 1.0)), (float(cx), float(cy)), turn,
                    (spacing, spacing), fit)


def read_patch(image: np.ndarray, to_image: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The ``size`` x ``size`` patch whose pixel (u, v) shows ``image`` at the point the
    3x3 homography ``to_image`` maps (u, v) to."""
    return cv2.warpPerspective(image, to_image, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _patch_transform(centre, die_side: float, angle_deg: float = 0.0, size: int = PATCH) -> np.ndarray:
    """Patch pixels to image pixels: the patch centred on ``centre``, turned by ``angle_deg``,
    with a die of ``die_side`` image pixels ``DIE_PX`` patch pixels wide."""
    k = die_side / (DIE_PX * size / PATCH)
    t = np.deg2rad(angle_deg)
    c, s = np.cos(t) * k, np.sin(t) * k
    h = (size - 1) / 2
    return np.array([[c, -s, centre[0] - c * h + s * h], [s, c, centre[1] - s * h - c * h], [0, 0, 1]], np.float64)


# -------------------------------------------------------------------- dice in a photo
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
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))


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
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
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
    for c in contours:
        if cv2.contourArea(c) < 0.35 * die_size ** 2:
            continue
        for rect in _split(filled, c, die_size):
            die = _read_candidate(image, rect)
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
    if n <= 2:
        return [rect] if max(w, h) < 2.5 * die_size else []
    markers = labels.astype(np.int32)
    markers[sub == 0] = -1
    markers[(sub > 0) & (peaks == 0)] = 0
    cv2.watershed(cv2.cvtColor(sub, cv2.COLOR_GRAY2BGR), markers)
    rects = []
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


def _read_candidate(image: np.ndarray, rect) -> Die | None:
    (cx, cy), (w, h), angle = rect
    if min(w, h) <= 0:
        return None
    side = max(w, h)
    face = read_face(read_patch(image, _patch_transform((cx, cy), side, angle)))
    if face is None:
        return None
    flat = max(w, h) / min(w, h) < 1.3
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    return Die(face.value, (x0, y0, int(round(side)), int(round(side))), flat, face.confidence, rect)


# ---------------------------------------------------------------------- dice on a board
CHANGE = 30.0           # Lab distance from the empty board that means something lies there
FOREIGN = 45.0          # Lab distance from board and both checker colours that means a die on a checker
DIE_SIDE = 0.45         # a die's side in checker diameters
CHECKER_RING = 0.42     # radius (checker diameters) of the ring a die on a checker sits inside
TOP_FACE = 1.1          # a die's top face seen from the camera over its footprint (it stands nearer the lens)
BOARD_FACES = (0.85, 0.95, 1.05)


class BoardDice:
    """Finds and reads the dice on a calibrated board.

    ``homography`` maps frame pixels to the canonical board of ``model``; ``empty`` is
    the canonical view of the empty board; ``checkers`` the two checker colours (Lab).
    """

    def __init__(self, model: BoardModel, homography: np.ndarray, empty: np.ndarray,
                 checkers: tuple[tuple[float, float, float], tuple[float, float, float]]) -> None:
        self.model = model
        self.to_frame = np.linalg.inv(np.asarray(homography, np.float64))
        self.empty_lab = cv2.cvtColor(cv2.GaussianBlur(empty, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        self.checkers = np.array(checkers, np.float32)
        ppd = model.ppd
        opening = int(round(0.72 * ppd)) | 1
        self._opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening))
        x0, y0, x1, y1 = model.field
        w, h = model.size
        self._surface = np.zeros((h, w), np.uint8)
        self._surface[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))] = 255
        self._die_canonical = DIE_SIDE * TOP_FACE * ppd
        # a camera sees the board unmirrored: a homography that turns it over means the
        # canonical view is the board's mirror image, and the players' right hands swap
        jac = self._jacobian(((x0 + x1) / 2, (y0 + y1) / 2))
        self._mirrored = bool(np.linalg.det(jac) < 0)

    def read(self, frame: np.ndarray, canonical: np.ndarray) -> list[DieRead]:
        """The dice lying on the playing surface of ``frame`` (``canonical`` is its board view)."""
        lab = cv2.cvtColor(cv2.GaussianBlur(canonical, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        change = np.sqrt(((lab - self.empty_lab) ** 2).sum(axis=2))
        changed = ((change > CHANGE).astype(np.uint8) * 255) & self._surface
        checkerish = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._opening)
        small = changed & ~cv2.dilate(checkerish, np.ones((3, 3), np.uint8))
        near = np.min(np.linalg.norm(lab[:, :, None, :] - self.checkers[None, None], axis=3), axis=2)
        foreign = ((near > FOREIGN) & (change > FOREIGN)).astype(np.uint8) * 255 & checkerish
        out: list[DieRead] = []
        taken: list[tuple[float, float]] = []
        for centre in self._candidates(small) + self._candidates(foreign, min_area=0.05):
            if any(np.hypot(centre[0] - x, centre[1] - y) < 0.4 * self.model.ppd for x, y in taken):
                continue
            die = self._read_at(frame, centre, changed, checkerish)
            if die is not None:
                out.append(die)
                taken.append(centre)
        return out

    def _candidates(self, mask: np.ndarray, min_area: float = 0.08) -> list[tuple[float, float]]:
        """Centroids of the die-sized blobs of ``mask`` (areas in square checker diameters)."""
        ppd2 = self.model.ppd ** 2
        n, _, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
        return [(float(centroids[i][0]), float(centroids[i][1])) for i in range(1, n)
                if min_area * ppd2 <= stats[i, cv2.CC_STAT_AREA] <= 0.9 * ppd2]

    def _read_at(self, frame, centre, changed, checkerish) -> DieRead | None:
        """Read the die around canonical ``centre`` on a patch of the full-resolution frame."""
        to_canonical = _patch_transform(centre, self._die_canonical)
        to_frame = self.to_frame @ to_canonical
        face = read_face(read_patch(frame, to_frame), search=0.3, faces=BOARD_FACES)
        if face is None:
            return None
        cx, cy = _apply(to_canonical, face.centre)
        half = self._half(cx, cy)
        on_checker = self._on_checker(checkerish, (cx, cy))
        flat = face.squareness > 0.86
        r = 0.5 * DIE_SIDE * self.model.ppd * 1.3
        corners = np.array([(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)], np.float64)
        fc = _apply_many(self.to_frame, corners)
        x0, y0 = np.floor(fc.min(axis=0)).astype(int)
        x1, y1 = np.ceil(fc.max(axis=0)).astype(int)
        return DieRead(face.value, half, flat and not on_checker, on_checker,
                       (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), face.confidence)

    def _half(self, x: float, y: float) -> str | None:
        """Whose right-hand half holds canonical (x, y); None off the playing surface."""
        fx0, fy0, fx1, fy1 = self.model.field
        if not (fx0 <= x <= fx1 and fy0 <= y <= fy1):
            return None
        bx0, _, bx1, _ = self.model.bar
        right = x >= (bx0 + bx1) / 2
        return "white" if right != self._mirrored else "black"

    def _jacobian(self, p) -> np.ndarray:
        """d(frame)/d(canonical) at canonical point ``p``."""
        a = _apply(self.to_frame, p)
        bx = _apply(self.to_frame, (p[0] + 1, p[1]))
        by = _apply(self.to_frame, (p[0], p[1] + 1))
        return np.array([[bx[0] - a[0], by[0] - a[0]], [bx[1] - a[1], by[1] - a[1]]])

    def _on_checker(self, checkerish: np.ndarray, centre) -> bool:
        """A die on a checker sits inside a checker disc: the ring around it is checker all round."""
        r = CHECKER_RING * self.model.ppd
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        xs = np.clip(np.round(centre[0] + r * np.cos(angles)).astype(int), 0, checkerish.shape[1] - 1)
        ys = np.clip(np.round(centre[1] + r * np.sin(angles)).astype(int), 0, checkerish.shape[0] - 1)
        return bool((checkerish[ys, xs] > 0).mean() > 0.8)


def _apply(h: np.ndarray, p) -> tuple[float, float]:
    v = h @ np.array([p[0], p[1], 1.0])
    return float(v[0] / v[2]), float(v[1] / v[2])


def _apply_many(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
