"""Find and read six-sided dice anywhere in an image (a tray, a table) and on a calibrated board.

A face is read on a small square patch that holds one die, upsampled or reduced so the
die is ``DIE_PX`` pixels wide. The die's turn (modulo a quarter turn) comes from the
fourfold symmetry of its blurred outline and from its strongest pip-like spots; turned
upright, a 3x3 grid of pip sites is slid over every plausible place, face size and pip
spacing. Each value's pattern (the two middle-side sites tell a six from a four) is
scored by how much of the face's colour variance, along the pips' colour, a face with
pips in that pattern explains; the pattern must show every pip clearly and nothing
pip-like between its sites. A patch that fits no pattern is not a die; the best value's
margin over the best other value is the confidence, less for a one whose margin shows
pips (a corner pip of a larger face) and, on a board, for a face that only just fits.

In a photo, die bodies are what departs from the smoothed background: single dice,
touching dice split at the cores of their blob, and dice as light as the background
found by their pips. On a board, candidates are what the calibration's empty board
lacks: die-sized remains after an opening removes the checkers, spots inside checkers of
neither the board's nor a checker's colour, and crowds of new pip-like spots; each is
read on a patch warped from the full-resolution frame through the calibration, its half
is whose right hand it lies at, and the board around it tells whether it lies on a
checker or leans on something.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

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
# the points half-way along the diagonals between the sites: on a face they show the face's
# colour (a line, an edge or a groove runs through them)
_GAPS = np.array([(x, y) for y in (-0.5, 0.5) for x in (-0.5, 0.5)], np.float32)


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
_LONE = _VALUE == 1


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
    ``spacing`` (pixels) across and along the face, the ``fit`` (share of the face's
    colour variance the pattern explains), the pips' ``contrast`` (Lab distance) and, for
    a one, how pip-like its ``margin`` is (see ``_margin``)."""

    value: int
    confidence: float
    centre: tuple[float, float]
    angle: float
    spacing: tuple[float, float]
    fit: float
    contrast: float
    margin: float = 0.0

    @property
    def squareness(self) -> float:
        """Shorter over longer pip spacing: 1 for a face seen square on (always 1 for a one)."""
        a, b = self.spacing
        return min(a, b) / max(a, b, 1e-6)


# ------------------------------------------------------------------------ face reading
SPECK_FIT = 0.35                        # a one or two found without a die body around it must fit this well
PHOTO_FACES = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1)       # top face side / die side tried in a photo
PHOTO_RATIOS = (0.215, 0.25, 0.285)                 # pip spacing / face side tried (dice makers differ)
MIN_FIT = 0.07                          # share of the face's colour variance the pips must explain
MIN_CONTRAST = 12.0                     # Lab distance between pips and face a face must show
WEAKEST = 0.5                          # the weakest pip's contrast over the pips' mean contrast
GAP = 0.7                             # the most pip-like gap between sites, over the pips' mean contrast
PIP = 0.31                             # a pip's radius over the pip spacing
STEP = 1 / 15                          # the face centres tried lie this many die widths apart
LEAN = 0.85                            # a leaning top face's foreshortening tried
SURE_FIT = 0.5                         # a fit this good needs no second turn tried
LONE = 3.0                             # how much more a lone pip (a one) loses off the centre
LONE_MARGIN = (0.1, 0.3)                # a one's margin this pip-like costs it no / all confidence
OFF_CENTRE = 1.5                       # fit lost per squared die width the face lies off the patch centre


def edge_angle(patch: np.ndarray, die_px: float) -> float:
    """The die's turn modulo a quarter turn (radians) from the fourfold symmetry of the
    gradients of its outline: the patch blurred until pips fade, weighted on a ring
    where the die's edges lie."""
    sigma = 0.09 * die_px
    gray = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), sigma)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1)
    # each gradient's strength times its direction taken four times: (gx + i gy)^4 / |g|^2
    square_re, square_im = gx * gx - gy * gy, 2 * gx * gy
    strength = np.maximum(gx * gx + gy * gy, 1e-6)
    ring = _ring(patch.shape[0], float(die_px))
    z = complex(float(((square_re * square_re - square_im * square_im) / strength * ring).sum()),
                float((2 * square_re * square_im / strength * ring).sum()))
    return float(np.angle(z) / 4)


@lru_cache(maxsize=8)
def _ring(n: int, die_px: float) -> np.ndarray:
    """Weights on the ring of an ``n`` patch where the edges of a die ``die_px`` wide lie."""
    yy, xx = _grid(n)
    return np.exp(-((np.sqrt(xx * xx + yy * yy) - 0.55 * die_px) ** 2) / (2 * (0.2 * die_px) ** 2)).astype(np.float32)


@lru_cache(maxsize=8)
def _grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets (y, x) from the middle of an ``n`` x ``n`` patch."""
    yy, xx = np.mgrid[:n, :n].astype(np.float32) - (n - 1) / 2
    return yy, xx


def pip_angles(lab: np.ndarray, die_px: float) -> list[float]:
    """The die's turn modulo a quarter turn from its strongest pip-like spots near the
    centre, two ways: seen from the middle of its pips, every face's corner pips lie
    along the face's diagonals (and a six's middle pips, fewer, along a row); and two
    pips one spacing apart (or two) lie along a row, the square root of two (or twice
    that) apart along a diagonal, taking the die's size for the spacing."""
    sigma = max(0.055 * die_px, 0.7)
    dog = cv2.GaussianBlur(lab, (0, 0), sigma) - cv2.GaussianBlur(lab, (0, 0), 2.5 * sigma)
    yy, xx = _grid(lab.shape[0])
    inner = xx * xx + yy * yy <= (0.5 * die_px) ** 2
    # pips all depart from the face the same way: keep the spots on the side of the strongest
    magnitude = np.where(inner, (dog * dog).sum(axis=2), 0)
    y0, x0 = np.unravel_index(int(np.argmax(magnitude)), magnitude.shape)
    strength = np.where(inner, np.maximum(dog @ dog[y0, x0], 0), 0)
    k = max(3, int(0.18 * die_px) | 1)
    peak = cv2.dilate(strength, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ys, xs = np.nonzero((strength >= peak) & (strength > 0.5 * strength.max()))
    if len(xs) < 2:
        return []
    order = np.argsort(-strength[ys, xs])[:6]
    pts = _centroids(strength, xs[order], ys[order])
    weight = strength[ys[order], xs[order]] / strength[ys[order[0]], xs[order[0]]]
    turns = []
    v = pts - (pts * weight[:, None]).sum(axis=0) / weight.sum()
    far = np.hypot(v[:, 0], v[:, 1]) > 0.05 * die_px       # a centre pip says nothing
    if far.sum() >= 2:
        vote = -(weight[far] * np.exp(4j * np.arctan2(v[far, 1], v[far, 0]))).sum()
        if abs(vote) >= 0.3 * weight[far].sum():
            turns.append(float(np.angle(vote) / 4))
    vote = 0j
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            d = pts[j] - pts[i]
            ratio = float(np.hypot(*d)) / (0.25 * die_px)     # in (about) pip spacings
            phi = float(np.arctan2(d[1], d[0]))
            w = float(weight[i] * weight[j])                  # the strongest pairs are surely pips
            if 0.75 < ratio < 1.2 or 1.7 < ratio < 2.15:
                vote += w * np.exp(4j * phi)
            elif 1.2 <= ratio <= 1.7 or 2.5 < ratio < 3.4:     # (a six's pips root five apart say nothing)
                vote += w * np.exp(4j * (phi - np.pi / 4))
    if abs(vote) >= 0.3:
        turns.append(float(np.angle(vote) / 4))
    return turns


def _centroids(strength: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The spots peaking at (``xs``, ``ys``) placed to a fraction of a pixel: the centre of
    ``strength`` over the 3 x 3 pixels round each peak (N x 2, x then y). A pixel's error
    in a pip a few pixels from the next turns a face by several degrees."""
    pad = np.pad(strength, 1)
    offsets = np.array([-1.0, 0.0, 1.0], np.float32)
    out = np.empty((len(xs), 2), np.float32)
    for i, (x, y) in enumerate(zip(xs, ys)):
        window = pad[y:y + 3, x:x + 3]
        total = max(float(window.sum()), 1e-6)
        out[i] = (x + float(window.sum(axis=0) @ offsets) / total, y + float(window.sum(axis=1) @ offsets) / total)
    return out


def read_face(patch: np.ndarray, die_px: float | None = None, search: float = 0.2,
              faces: tuple[float, ...] = PHOTO_FACES, blob: float | None = None,
              min_fit: float = MIN_FIT, lone: float = LONE, lean: bool | None = False,
              ratios: tuple[float, ...] = PHOTO_RATIOS, same_spacing: float = 0.0) -> FaceRead | None:
    """Read the top face of the die centred in ``patch`` (square, BGR), ``die_px`` wide
    (default: the patch holds the die as ``read_patch`` makes it). The face's centre may
    lie up to ``search`` die widths from the patch centre (a die seen at a slant shows
    its sides on one side), its side is one of ``faces`` die widths and its pips lie
    ``ratios`` of its side apart (a spacing within ``same_spacing``, relatively, of one
    tried is not tried again). With ``blob``, spots that fit as well when ``blob`` times
    larger are not pips (a checker's glint or rings). A face off the patch centre fits less, a lone pip (a one) ``lone`` times less
    (a single pip of any face looks like a one). None when no face pattern fits at least
    ``min_fit``; with ``lean``, a face that nearly fits is tried again foreshortened one
    way (the top of a die leaning on something), with ``lean`` None every face is (a
    photo's slant, pips set closer one way than the other).

    The face is tried upright at the turn of the die's outline and at the turns of its
    pips. Every hypothesis (face centre, size, pip spacing, value) is scored by how much
    of the colour variance inside the face square, along the pips' colour, a two-colour
    model explains: the face's colour everywhere but at the value's pip discs, which
    take the pip colour. Missing pips, extra pips and blotches of the pips' colour lower
    it (marbling of other colours does not); the best value's fit over the best other
    value's is the confidence.
    """
    n = patch.shape[0]
    die_px = float(die_px or n * DIE_PX / PATCH)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    turns = [edge_angle(patch, die_px)]
    for turn in pip_angles(lab, die_px):
        if all(abs(np.angle(np.exp(4j * (turn - t)))) / 4 > np.deg2rad(5) for t in turns):
            turns.append(turn)
    centre = ((n - 1) / 2, (n - 1) / 2)
    best = None
    for turn in turns:
        if best is not None and best[0][0][~_LONE].max() >= SURE_FIT:    # a lone pip proves no turn
            break
        upright = cv2.getRotationMatrix2D(centre, float(np.rad2deg(turn)), 1.0)
        up = _Upright(cv2.warpAffine(lab, upright, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
        fits = _fit_upright(up, die_px, search, faces, lone, ratios=ratios, same_spacing=same_spacing)
        if best is None or fits[0].max() > best[0][0].max():
            best = (fits, turn, upright, up)
    if lean is None or (lean and min_fit > best[0][0].max() >= 0.5 * min_fit):   # a foreshortened top
        fits, turn, upright, up = best
        for squash in ((1.0, LEAN), (LEAN, 1.0)):
            leaning = _fit_upright(up, die_px, search, faces, lone, squash, ratios, same_spacing)
            if leaning[0].max() > best[0][0].max():
                best = (leaning, turn, upright, up)
    (fit_by_pattern, at_by_pattern), turn, upright, up = best
    p = int(np.argmax(fit_by_pattern))
    fit = float(fit_by_pattern[p])
    value = int(_VALUE[p])
    if fit < min_fit or at_by_pattern[p] is None:
        return None
    rival = max(float(f) for f, v in zip(fit_by_pattern, _VALUE) if v != value)
    place, spacing, contrast, side = at_by_pattern[p]
    if blob and _fit_one(up, place, side, spacing, _ON[p], blob) >= _fit_one(up, place, side, spacing, _ON[p], 1.0):
        return None
    cx, cy = cv2.invertAffineTransform(upright) @ np.array([place[0], place[1], 1.0])
    sx, sy = _squash(up, place, side, spacing, _ON[p])
    confidence = float(np.clip((fit - rival) / fit * 2.0, 0.0, 1.0))
    margin = 0.0
    if value == 1:
        margin = _margin(up, place, side, spacing, _ON[p])
        confidence *= float(np.clip((LONE_MARGIN[1] - margin) / (LONE_MARGIN[1] - LONE_MARGIN[0]), 0.0, 1.0))
    return FaceRead(value, confidence, (float(cx), float(cy)), turn, (spacing * sx, spacing * sy), fit, contrast,
                    margin)


def _fit_one(up: _Upright, place, side: float, spacing: float, on: np.ndarray, scale: float = 1.0,
             squash: tuple[float, float] = (1.0, 1.0)) -> float:
    """The fit (see ``read_face``) of one upright hypothesis, with pips ``scale`` times
    their usual size and the face ``squash``-ed along x and y (a leaning face)."""
    lab, n = up.lab, up.n
    hx, hy = 0.46 * side * squash[0], 0.46 * side * squash[1]
    x0, x1 = int(np.clip(round(place[0] - hx), 0, n)), int(np.clip(round(place[0] + hx) + 1, 0, n))
    y0, y1 = int(np.clip(round(place[1] - hy), 0, n)), int(np.clip(round(place[1] + hy) + 1, 0, n))
    window = lab[y0:y1, x0:x1].reshape(-1, 3)
    if len(window) < 4:
        return 0.0
    pip_r = PIP * spacing * scale
    discs = up.discs(max(int(round(1.7 * pip_r)), 1))
    pts = (np.float32(place) + _SITES[on] * np.float32(squash) * spacing).astype(np.float32)
    pips = cv2.remap(discs, pts[None, :, 0], pts[None, :, 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)[0].mean(axis=0)
    mean = window.mean(axis=0)
    share = min(max(on.sum() * np.pi * pip_r * pip_r / len(window), 1e-3), 0.9)
    step = (pips - mean) / (1 - share)
    return float(share * (1 - share) * (step @ step) / max(window.var(axis=0).sum(), 1e-3))


def _margin(up: _Upright, place, side: float, spacing: float, on: np.ndarray) -> float:
    """How pip-like the face's margin is round a face's pips (1 for a pip's colour, 0 for the
    face's): the most pip-like of eight points ``MARGIN`` pip spacings from the face's
    centre. A lone pip read as a one may be a corner pip of a larger face, whose margin
    then shows the next pip or the die's edge."""
    lab, n = up.lab, up.n
    h = 0.46 * side
    x0, x1 = int(np.clip(round(place[0] - h), 0, n)), int(np.clip(round(place[0] + h) + 1, 0, n))
    y0, y1 = int(np.clip(round(place[1] - h), 0, n)), int(np.clip(round(place[1] + h) + 1, 0, n))
    window = lab[y0:y1, x0:x1].reshape(-1, 3)
    pip_r = PIP * spacing
    discs = up.discs(max(int(round(1.7 * pip_r)), 1))
    pts = (np.float32(place) + np.concatenate([_SITES[on], _RING]) * np.float32(spacing)).astype(np.float32)
    sampled = cv2.remap(discs, pts[None, :, 0], pts[None, :, 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
    k = int(on.sum())
    pips = sampled[:k].mean(axis=0)
    share = min(max(k * np.pi * pip_r * pip_r / max(len(window), 1), 1e-3), 0.9)
    step = (pips - window.mean(axis=0)) / (1 - share)
    face = pips - step
    return float(((sampled[k:] - face) @ step).max() / max(float(step @ step), 1e-3))


def _squash(up: _Upright, place, side: float, spacing: float, on: np.ndarray) -> tuple[float, float]:
    """The face's extent along x and y over its side, as its pips fit best (1, 1 for a face
    seen square on; a leaning face is shorter one way). Faces whose pips lie on one line
    (one, two, three) say nothing: a diagonal row of pips fits a face squashed along x as
    well as one squashed along y, or one seen square on and turned a little."""
    if on.sum() < 4:
        return 1.0, 1.0
    best = (-1.0, (1.0, 1.0))
    for f in (0.76, 0.84, 0.92, 1.0):
        for squash in ((1.0, f), (f, 1.0)):
            fit = _fit_one(up, place, side, spacing, on, 1.0, squash)
            if fit > best[0] + 1e-6:
                best = (fit, squash)
    return best[1]


class _Upright:
    """An upright Lab patch with what every face hypothesis on it needs: its integral
    images (window means and colour covariances) and its blurs at each pip size."""

    def __init__(self, lab: np.ndarray) -> None:
        self.lab = lab
        self.n = lab.shape[0]
        self.sums = cv2.integral(lab)                     # (n+1, n+1, 3)
        self.products = cv2.integral(np.concatenate([lab * lab, lab[..., [0, 0, 1]] * lab[..., [1, 2, 2]]], axis=2))
        self._discs: dict[int, np.ndarray] = {}

    def discs(self, k: int) -> np.ndarray:
        """The patch averaged over ``k`` x ``k`` squares (a pip's mean colour at each pixel)."""
        if k not in self._discs:
            self._discs[k] = cv2.blur(self.lab, (k, k))
        return self._discs[k]


_ON_ONLY = np.where(_ON.T, 0.0, np.inf).astype(np.float32)[:, None]      # (9,1,P): +inf off a pattern's sites
_OFF_ONLY = np.where(_ON.T, -np.inf, 0.0).astype(np.float32)[:, None]    # (9,1,P): -inf on a pattern's sites
_COUNTS = _ON.sum(axis=1).astype(np.float32)
_AVERAGE_T = np.ascontiguousarray((_ON / _COUNTS[:, None]).T.astype(np.float32))   # (9,P)
_PROBES = np.concatenate([_SITES, _GAPS]).astype(np.float32)                     # sites then gaps
MARGIN = 1.35                          # the ring a one's margin is sampled on, in pip spacings
_RING = np.array([(MARGIN * np.cos(a), MARGIN * np.sin(a)) for a in np.arange(8) * np.pi / 4], np.float32)


def _fit_upright(up: _Upright, die_px: float, search: float, faces: tuple[float, ...], lone: float,
                 squash: tuple[float, float] = (1.0, 1.0), ratios: tuple[float, ...] = PHOTO_RATIOS,
                 same_spacing: float = 0.0):
    """Best fit per pattern of an upright face (see ``read_face``) and where it was:
    (fits, [(place, spacing, contrast, face side) or None]); face centres lie on a
    lattice ``STEP`` die widths fine, up to ``search`` die widths either way from the middle.
    A pip spacing within ``same_spacing`` (relatively) of one tried is not tried again."""
    step = max(1.0, die_px * STEP)
    reach = int(search * die_px / step + 1e-6)
    tx, ty = np.meshgrid(np.arange(-reach, reach + 1), np.arange(-reach, reach + 1))
    lattice = np.stack([tx.ravel(), ty.ravel()], axis=1)
    n = up.n
    places = (lattice * step).astype(np.float32) + np.float32((n - 1) / 2)
    # a face far from where the die was found is less likely (a pip at a corner of a face
    # can look like a one on its own)
    off_centre = OFF_CENTRE * ((lattice ** 2).sum(axis=1) * (step / die_px) ** 2).astype(np.float32)
    penalty = off_centre[:, None] * np.where(_LONE, lone, 1.0).astype(np.float32)[None]      # (K,P)
    best_fit = np.zeros(len(PATTERNS))
    best_at: list = [None] * len(PATTERNS)
    sums, products = up.sums, up.products
    tried: list[float] = []
    for face in faces:
        side = face * die_px
        hx, hy = 0.46 * side * squash[0], 0.46 * side * squash[1]
        x0 = np.clip(np.round(places[:, 0] - hx).astype(int), 0, n)
        x1 = np.clip(np.round(places[:, 0] + hx).astype(int) + 1, 0, n)
        y0 = np.clip(np.round(places[:, 1] - hy).astype(int), 0, n)
        y1 = np.clip(np.round(places[:, 1] + hy).astype(int) + 1, 0, n)
        area = np.maximum((x1 - x0) * (y1 - y0), 1).astype(np.float32)
        mean = ((sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]) / area[:, None]).T[:, :, None]  # (3,K,1)
        moments = ((products[y1, x1] - products[y0, x1] - products[y1, x0] + products[y0, x0])
                   / area[:, None]).T                                                   # (6,K)
        mean, moments = mean.astype(np.float32), moments.astype(np.float32)
        # the window's colour covariance: LL aa bb La Lb ab, each (K,1)
        cov = [(moments[c] - mean[i, :, 0] * mean[j, :, 0])[:, None]
               for c, (i, j) in enumerate(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)))]
        for ratio in ratios:
            spacing = ratio * side
            if any(abs(spacing - s) < same_spacing * s for s in tried):
                continue
            tried.append(spacing)
            pip_r = PIP * spacing
            discs = up.discs(max(int(round(1.7 * pip_r)), 1))
            grid = places[:, None, :] + _PROBES[None] * np.float32(squash) * np.float32(spacing)
            sampled = cv2.remap(discs, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE).transpose(2, 0, 1)   # (3,K,9+4)
            at = sampled[:, :, :9]
            share = np.clip(_COUNTS[None] * np.float32(np.pi * pip_r * pip_r) / area[:, None], 1e-3, 0.9)   # (K,P)
            pips = (at.reshape(-1, 9) @ _AVERAGE_T).reshape(3, len(places), -1)        # (3,K,P) pip colour
            step = (pips - mean) / (1 - share)[None]                                   # pip - face colour
            s0, s1, s2 = step
            contrast2 = s0 * s0 + s1 * s1 + s2 * s2
            inverse = 1.0 / np.maximum(contrast2, 1e-3)
            # share of the window's colour variance along the pips' colour that a
            # face-and-pips template explains (blotches of other colours do not count)
            along = (cov[0] * s0 * s0 + cov[1] * s1 * s1 + cov[2] * s2 * s2
                     + 2 * (cov[3] * s0 * s1 + cov[4] * s0 * s2 + cov[5] * s1 * s2)) * inverse
            fit = share * (1 - share) * contrast2 / np.maximum(along, 1e-3) - penalty
            base = ((pips - step) * step).sum(axis=0)                                 # (K,P)
            # pip-likeness of every site and gap, site-first so the reductions run across slices
            probes = sampled.transpose(0, 2, 1)[..., None]                             # (3,9+4,K,1)
            each = s0[None] * probes[0] + s1[None] * probes[1] + s2[None] * probes[2] - base[None]   # (13,K,P)
            weakest = (each[:9] + _ON_ONLY).min(axis=0) * inverse
            strongest = np.maximum((each[:9] + _OFF_ONLY).max(axis=0), each[9:].max(axis=0)) * inverse
            fit = np.where((contrast2 >= MIN_CONTRAST ** 2) & (weakest >= WEAKEST) & (strongest <= GAP), fit, 0.0)
            i = np.argmax(fit, axis=0)                                              # (P,)
            for p in np.nonzero(fit[i, np.arange(len(PATTERNS))] > best_fit)[0]:
                best_fit[p] = float(fit[i[p], p])
                best_at[p] = (places[i[p]], spacing, float(np.sqrt(contrast2[i[p], p])), side)
    return best_fit, best_at


def read_patch(image: np.ndarray, to_image: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The ``size`` x ``size`` patch whose pixel (u, v) shows ``image`` at the point the
    3x3 homography ``to_image`` maps (u, v) to."""
    return cv2.warpPerspective(image, to_image, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _patch_transform(centre, die_side: float, angle_deg: float = 0.0, die_px: float = DIE_PX,
                     size: int = PATCH) -> np.ndarray:
    """Patch pixels to image pixels: the ``size`` patch centred on ``centre``, turned by
    ``angle_deg``, showing a die of ``die_side`` image pixels ``die_px`` patch pixels wide."""
    k = die_side / die_px
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
    """Every readable die in ``image`` (BGR uint8), optionally only inside ``region`` (mask).

    Die bodies are what departs from the smoothed background; a blob the size of one die
    is read as one, a larger blob (dice touching) is read at each of its die-sized
    cores, and a die-sized cluster of small spots (the pips of a die as light as the
    background) as one die; where reads overlap, the best-fitting one stands."""
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
    reads: list[tuple[float, Die]] = []
    rects = []
    for c in contours:
        if cv2.contourArea(c) >= 0.35 * die_size ** 2:
            rects += _split(filled, c, die_size)
    # a die of the background's colour shows only its pips: close them into a die-sized blob
    k = int(0.6 * die_size) | 1
    pips = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) & ~filled
    for rect in rects:
        read = _read_candidate(image, rect)
        if read is not None:
            reads.append(read)
    for c in _components(pips):
        (cx, cy), (w, h), _ = cv2.minAreaRect(c)
        if 0.02 * die_size ** 2 <= cv2.contourArea(c) and max(w, h) <= 1.2 * die_size:
            read = _read_candidate(image, ((cx, cy), (die_size, die_size), 0.0))
            # specks on the background read as ones and twos: without a body around them they must fit well
            if read is not None and (read[1].value > 2 or read[0] >= SPECK_FIT):
                reads.append(read)
    dice: list[Die] = []
    for _, die in sorted(reads, key=lambda r: -r[0]):
        if all(np.hypot(die.centre[0] - d.centre[0], die.centre[1] - d.centre[1]) > 0.6 * die_size for d in dice):
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
    """Rotated boxes of the dice in one blob: the blob itself when it is one die's size,
    else a die-sized box on each core of the blob (the peaks of its distance map)."""
    rect = cv2.minAreaRect(contour)
    (_, _), (w, h), _ = rect
    area = cv2.contourArea(contour)
    if area < 1.6 * die_size ** 2 and max(w, h) < 1.5 * die_size:
        return [rect]
    x, y, bw, bh = cv2.boundingRect(contour)
    sub = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(sub, [contour], -1, 255, cv2.FILLED, offset=(-x + 1, -y + 1))
    dist = cv2.distanceTransform(sub, cv2.DIST_L2, 5)
    k = int(0.5 * die_size) | 1
    peaks = (dist >= cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (dist > 0.25 * die_size)
    ys, xs = np.nonzero(peaks)
    rects, taken = [], []
    for i in np.argsort(-dist[ys, xs]):
        p = (float(xs[i] + x - 1), float(ys[i] + y - 1))
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 0.45 * die_size for q in taken):
            taken.append(p)
            rects.append((p, (die_size, die_size), 0.0))
    return rects


def _read_candidate(image: np.ndarray, rect) -> tuple[float, Die] | None:
    """(fit, die) read on the patch around the rotated box ``rect``."""
    (cx, cy), (w, h), angle = rect
    if min(w, h) <= 0:
        return None
    side = max(w, h)
    to_image = _patch_transform((cx, cy), side, angle)
    face = read_face(read_patch(image, to_image), lean=None)
    if face is None:
        return None
    flat = max(w, h) / min(w, h) < 1.3
    fx, fy = _apply(to_image, face.centre)
    x0, y0 = int(round(fx - side / 2)), int(round(fy - side / 2))
    return face.fit, Die(face.value, (x0, y0, int(round(side)), int(round(side))), flat, face.confidence,
                         ((fx, fy), (w, h), angle))


# ---------------------------------------------------------------------- dice on a board
CHANGE = 22.0           # Lab distance from the empty board that means something lies there
SHADE = 0.4             # weight of darkening in that distance (shadows only darken)
DETAIL = 25.0           # rise in fine detail (Laplacian) over the empty board that marks pips and edges
SPOT = 40.0             # new pip-like spot strength (Hessian) that may be a pip
CROWDS = 6              # at most this many crowds of spots are tried
FAINT = 0.15            # candidates with fewer pip-like spots than this share of the most are not read
CANDIDATES = 8          # at most this many candidates are read, those with the most pip-like spots first
FOREIGN = 45.0          # Lab distance from board and both checker colours that means a die on a checker
DIE_SIDE = 0.45         # a die's side in checker diameters
CUBE_CLEAR = 0.55       # no die's top face lies this near the cube's (checker diameters, either way)
SHIFTS = (-0.4, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4)    # a checker's centre off the die's top face
                        # (checker diameters either way): a raised die's top is seen displaced
RIM_RADII = np.array([0.44, 0.48, 0.52])     # a checker's rim's radius as seen (checker diameters)
RIM_EDGE = 6.0          # lightness change per canonical pixel across a checker's rim
RIM_ROUND = 0.84        # share of the rim showing it round a die on a checker
_RIM = np.stack([np.cos(np.linspace(0, 2 * np.pi, 48, endpoint=False)),
                 np.sin(np.linspace(0, 2 * np.pi, 48, endpoint=False))], axis=1)
CHECKER_RING = 0.42     # radius (checker diameters) of the ring a die on a checker sits inside
COVERED = 12.0          # change from the empty board (Lab) that means the board is covered there
ALL_ROUND = 0.88        # share of the ring around a die covered when it lies on or leans against something
CHECKER_FACE = 22.0     # Lab distance from a checker colour within which the ring shows a checker's face
FACE_ROUND = 0.57       # share of the ring showing one checker colour for a die lying on a checker
SQUARE = 0.88           # a top face whose pips span less than this one way over the other leans
TOP_FACE = 1.1          # a die's top face seen from the camera over its footprint (it stands nearer the lens)
BOARD_FACES = (0.88, 1.02)  # top face sizes tried on a board (the die's size there is known)
BOARD_RATIOS = (0.25, 0.285)
BOX = 1.6               # a read die's box around its top face, in die sides (room for its sides in view)
BOARD_PATCH = 64        # a board die's patch and the die's side in it: room around it for the
BOARD_DIE_PX = 26.0     # top face's parallax
BOARD_SEARCH = 0.45     # how far (die sides) the top face may lie from a candidate
BOARD_FIT = 0.2         # a board is busier than a tray: a face must explain more there
BOARD_CLEAR = 0.45      # a face fitting this well is read with its full confidence
LEANING = 0.4           # the share of its confidence a leaning die's value keeps (never one to take at its word)
BOARD_BLOB = 2.0        # a checker's glint or rings fit as well as pips this much larger
BOARD_SAME_SPACING = 0.03   # a pip spacing this near (relatively) one tried is not tried again


ToFrame = Callable[[np.ndarray], np.ndarray]     # canonical pixels (N x 2) to frame pixels (N x 2)


def local_homography(to_frame: ToFrame, to_canonical: np.ndarray, size: int) -> np.ndarray:
    """Patch pixels to frame pixels for a ``size`` patch placed on the canonical board by
    ``to_canonical`` (3x3): the mapping fitted on the patch's corners, exact for a lens
    without distortion and close enough over a patch for one with."""
    corners = np.array([(0, 0), (size - 1, 0), (size - 1, size - 1), (0, size - 1)], np.float64)
    on_board = _apply_many(to_canonical, corners)
    in_frame = np.asarray(to_frame(on_board), np.float64).reshape(-1, 2)
    return cv2.getPerspectiveTransform(corners.astype(np.float32), in_frame.astype(np.float32)).astype(np.float64)


def is_mirrored(to_frame: ToFrame, model: BoardModel) -> bool:
    """Whether the canonical view is the board's mirror image (its home board is on the
    left as the camera sees it): a camera never mirrors, so the mapping turns it over."""
    x0, y0, x1, y1 = model.field
    c = ((x0 + x1) / 2, (y0 + y1) / 2)
    a, bx, by = np.asarray(to_frame(np.array([c, (c[0] + 1, c[1]), (c[0], c[1] + 1)], np.float64)), np.float64)
    return bool(np.linalg.det(np.array([bx - a, by - a])) < 0)


class BoardDice:
    """Finds and reads the dice on a calibrated board.

    ``to_frame`` maps canonical pixels of ``model`` to frame pixels; ``empty`` is the
    canonical view of the empty board; ``checkers`` the checker colours (Lab), if known.
    """

    def __init__(self, model: BoardModel, to_frame: ToFrame, empty: np.ndarray,
                 checkers: tuple[tuple[float, float, float], ...] = ()) -> None:
        self.model = model
        self.to_frame = to_frame
        self.empty_lab = cv2.cvtColor(cv2.GaussianBlur(empty, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        self.empty_detail = cv2.dilate(_detail(empty), np.ones((3, 3), np.uint8))
        self.empty_spots = cv2.dilate(_spots(empty), np.ones((3, 3), np.uint8))
        self.checkers = np.array(checkers, np.float32).reshape(-1, 3)
        ppd = model.ppd
        opening = int(round(0.72 * ppd)) | 1
        self._opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening))
        x0, y0, x1, y1 = model.field
        w, h = model.size
        self._surface = np.zeros((h, w), np.uint8)
        self._surface[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))] = 255
        self._die_canonical = DIE_SIDE * TOP_FACE * ppd
        self._mirrored = is_mirrored(to_frame, model)     # then the players' right hands swap

    def read(self, frame: np.ndarray, canonical: np.ndarray,
             cube: tuple[float, float] | None = None) -> list[DieRead]:
        """The dice lying on the playing surface of ``frame`` (``canonical`` is its board view;
        ``cube`` the canonical centre of the doubling cube's top face, if read: no die lies
        there). A candidate on the top face of a die already read is not read again; where
        reads overlap, the best-fitting one stands."""
        candidates, change = self.candidates(canonical)
        lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
        reads: list[tuple[float, tuple[float, float], DieRead]] = []
        clear = CUBE_CLEAR * self.model.ppd
        for centre in candidates:
            if cube is not None and max(abs(centre[0] - cube[0]), abs(centre[1] - cube[1])) < clear:
                continue
            if any(np.hypot(centre[0] - at[0], centre[1] - at[1]) < 0.4 * self._die_canonical for _, at, _ in reads):
                continue
            read = self._read_at(frame, centre, change, lab)
            if read is not None:
                reads.append(read)
        out: list[DieRead] = []
        kept: list[tuple[float, float]] = []
        for fit, at, die in sorted(reads, key=lambda r: -r[0]):
            if all(np.hypot(at[0] - x, at[1] - y) > 0.8 * self._die_canonical for x, y in kept):
                out.append(die)
                kept.append(at)
        return out

    def candidates(self, canonical: np.ndarray) -> tuple[list[tuple[float, float]], np.ndarray]:
        """Canonical points where a die may lie, likeliest first, and how much each pixel
        departs from the empty board.

        Something lies where the colour departs from the empty board (darkening counts
        less: shadows); an opening by a disc narrower than a checker keeps the checkers
        and drops dice, so the die-sized remains are candidates, and so are spots inside
        the checkers whose colour is neither the board's nor a checker's, and crowds of
        new pip-like spots (a white die on a light point shows little but its pips). Each
        candidate moves to the middle of the fine detail around it (the pips, on the top
        face); they are ranked by the pip-like spots around them and the first
        ``CANDIDATES`` kept."""
        lab = cv2.cvtColor(cv2.GaussianBlur(canonical, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        diff = lab - self.empty_lab
        diff[..., 0] *= np.where(diff[..., 0] < 0, SHADE, 1.0)
        change = cv2.sqrt(cv2.transform(diff * diff, np.ones((1, 3), np.float32)))
        changed = ((change > CHANGE).astype(np.uint8) * 255) & self._surface
        checkerish = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._opening)
        small = cv2.morphologyEx(changed & ~cv2.dilate(checkerish, np.ones((3, 3), np.uint8)), cv2.MORPH_CLOSE,
                                 np.ones((3, 3), np.uint8))
        found = self._candidates(small)
        if len(self.checkers):
            squared = cv2.transform(lab * lab, np.ones((1, 3), np.float32))
            near = np.min([squared - 2 * cv2.transform(lab, c[None]) + float(c @ c) for c in self.checkers], axis=0)
            foreign = ((near > FOREIGN ** 2) & (change > FOREIGN)).astype(np.uint8) * 255 & checkerish
            found += self._candidates(foreign, 0.2)
        spots = cv2.max(cv2.subtract(_spots(canonical), self.empty_spots), 0) * (self._surface > 0)
        crowd = self._crowd(spots)
        found += self._crowded(crowd)
        rise = cv2.max(cv2.subtract(_detail(canonical), self.empty_detail), 0) * (self._surface > 0)
        found = self._on_pips(rise, found)
        h, w = crowd.shape
        score = [crowd[min(max(int(round(y)), 0), h - 1), min(max(int(round(x)), 0), w - 1)] for x, y in found]
        ranked: list[tuple[float, float]] = []
        for i in np.argsort(score)[::-1]:
            p = found[i]
            if score[i] <= FAINT * max(score):     # (next to) no pip-like spot: not a die's top face
                break
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 0.3 * self._die_canonical for q in ranked):
                ranked.append(p)
        return ranked[:CANDIDATES], change

    def _crowd(self, spots: np.ndarray) -> np.ndarray:
        """For every pixel, the strength of the pip-like spots in the die-sized square around it."""
        k = int(DIE_SIDE * self.model.ppd) | 1
        peaks = np.where((spots >= cv2.dilate(spots, np.ones((3, 3), np.uint8))) & (spots > SPOT), spots, 0)
        return cv2.boxFilter(peaks, -1, (k, k), normalize=False)

    def _crowded(self, crowd: np.ndarray) -> list[tuple[float, float]]:
        """Where new pip-like spots crowd into a die-sized square, the strongest crowds first."""
        side = DIE_SIDE * self.model.ppd
        k = int(side) | 1
        top = cv2.dilate(crowd, np.ones((k, k), np.uint8))
        ys, xs = np.nonzero((crowd >= top) & (crowd > 0))
        out: list[tuple[float, float]] = []
        for i in np.argsort(-crowd[ys, xs]):
            p = (float(xs[i]), float(ys[i]))
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 0.8 * side for q in out):
                out.append(p)
                if len(out) == CROWDS:
                    break
        return out

    def _on_pips(self, rise: np.ndarray, centres: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """Each of ``centres`` moved to the middle of the fine detail around it: the pips, on the top face."""
        r = int(round(0.45 * self.model.ppd))
        h, w = rise.shape
        weight = np.where(rise > DETAIL, rise, 0)
        offsets = np.arange(-r, r + 1, dtype=np.float32)
        out = []
        for centre in centres:
            x, y = int(round(centre[0])), int(round(centre[1]))
            x0, x1, y0, y1 = max(x - r, 0), min(x + r + 1, w), max(y - r, 0), min(y + r + 1, h)
            window = weight[y0:y1, x0:x1]
            total = float(window.sum())
            if total <= 0:
                out.append(centre)
                continue
            dx, dy = offsets[x0 - x + r:x1 - x + r], offsets[y0 - y + r:y1 - y + r]
            out.append((x + float(window.sum(axis=0) @ dx) / total, y + float(window.sum(axis=1) @ dy) / total))
        return out

    def _candidates(self, mask: np.ndarray, solid: float = 0.3) -> list[tuple[float, float]]:
        """Where ``mask`` holds something die-sized: the ridge points of its distance map at
        least ``solid`` die sides deep (slivers and arcs are not), one per die-sized neighbourhood."""
        side = DIE_SIDE * self.model.ppd
        depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        k = int(side) | 1
        peak = cv2.dilate(depth, np.ones((k, k), np.uint8))
        ys, xs = np.nonzero((depth >= peak) & (depth >= solid * side) & (depth <= 0.9 * side))
        out: list[tuple[float, float]] = []
        for i in np.argsort(-depth[ys, xs]):
            p = (float(xs[i]), float(ys[i]))
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 0.8 * side for q in out):
                out.append(p)
        return out

    def _read_at(self, frame, centre, change, lab) -> tuple[float, tuple[float, float], DieRead] | None:
        """(fit, canonical centre of the top face, read) of the die around canonical
        ``centre``, read on a patch of the full-resolution frame."""
        to_canonical = _patch_transform(centre, self._die_canonical, 0.0, BOARD_DIE_PX, BOARD_PATCH)
        to_frame = local_homography(self.to_frame, to_canonical, BOARD_PATCH)
        face = read_face(read_patch(frame, to_frame, BOARD_PATCH), BOARD_DIE_PX, BOARD_SEARCH, BOARD_FACES,
                         BOARD_BLOB, BOARD_FIT, 1.0, True, BOARD_RATIOS, BOARD_SAME_SPACING)
        if face is None:
            return None
        cx, cy = _apply(to_canonical, face.centre)
        half = self._half(cx, cy)
        covered, checker = self._surroundings(change, lab, (cx, cy))
        if not (covered and checker) and self._on_a_rim(lab, (cx, cy)):
            covered = checker = True
        on_checker = covered and checker
        flat = not covered and face.squareness > SQUARE
        r = 0.5 * DIE_SIDE * self.model.ppd * BOX
        corners = np.array([(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)], np.float64)
        fc = np.asarray(self.to_frame(corners), np.float64).reshape(-1, 2)
        x0, y0 = np.floor(fc.min(axis=0)).astype(int)
        x1, y1 = np.ceil(fc.max(axis=0)).astype(int)
        # a face that only just fits is as often a leaning die's side or a partly hidden face;
        # a leaning die's top is seen at a slant beside side faces showing pips as plainly
        clear = float(np.clip((face.fit - BOARD_FIT) / (BOARD_CLEAR - BOARD_FIT), 0.0, 1.0))
        if not flat and not on_checker:
            clear *= LEANING
        return face.fit, (cx, cy), DieRead(face.value, half, flat and not on_checker, on_checker,
                                           (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), face.confidence * clear)

    def _half(self, x: float, y: float) -> str | None:
        """Whose right-hand half holds canonical (x, y); None off the playing surface."""
        fx0, fy0, fx1, fy1 = self.model.field
        if not (fx0 <= x <= fx1 and fy0 <= y <= fy1):
            return None
        bx0, _, bx1, _ = self.model.bar
        right = x >= (bx0 + bx1) / 2
        return "white" if right != self._mirrored else "black"

    def _surroundings(self, change: np.ndarray, lab: np.ndarray, centre) -> tuple[bool, bool]:
        """(covered, by a checker) around a die: a die lying on a checker sits inside the
        checker's disc, so just beyond it the board is covered all round (by a checker's
        face when the checkers' colours are known); a die leaning on something is
        surrounded too, but not by a checker's face. A flat die on the board is not."""
        ppd = self.model.ppd
        r = CHECKER_RING * ppd
        angles = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        ring = np.stack([np.cos(angles), np.sin(angles)], axis=1) * r
        h, w = change.shape
        # the disc need not be centred on the die's top face as seen: rings shifted by ``SHIFTS``
        shifts = np.array([(dx, dy) for dx in SHIFTS for dy in SHIFTS]) * ppd
        pts = ring[None] + shifts[:, None] + np.array(centre)                        # (S,32,2)
        xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        covered = (change[ys, xs] > COVERED).mean(axis=1)                             # (S,)
        face = np.ones(len(shifts))
        if len(self.checkers):
            d = np.linalg.norm(lab[ys, xs][:, :, None, :] - self.checkers[None, None], axis=3)   # (S,32,C)
            face = (d < CHECKER_FACE).mean(axis=1).max(axis=1)
        best = max(zip(covered.tolist(), face.tolist()))
        covered, face = best
        return covered >= ALL_ROUND, covered >= ALL_ROUND and face >= FACE_ROUND

    def _on_a_rim(self, lab: np.ndarray, centre) -> bool:
        """Whether a checker's rim runs round the die at ``centre``: on a circle a checker
        wide centred near the die, the lightness changes across the circle nearly all round.
        A checker like the board it lies on (light on light) changes the board little, but
        its rim still shows; a die on the board has no such circle round it."""
        ppd = self.model.ppd
        reach = int(np.ceil((max(SHIFTS) + max(RIM_RADII)) * ppd)) + 2
        x, y = int(round(centre[0])), int(round(centre[1]))
        h, w = lab.shape[:2]
        x0, y0, x1, y1 = max(x - reach, 0), max(y - reach, 0), min(x + reach + 1, w), min(y + reach + 1, h)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return False
        light = cv2.GaussianBlur(lab[y0:y1, x0:x1, 0], (0, 0), 1.0)
        gx = cv2.Sobel(light, cv2.CV_32F, 1, 0) / 8
        gy = cv2.Sobel(light, cv2.CV_32F, 0, 1) / 8
        shifts = np.array([(dx, dy) for dx in SHIFTS for dy in SHIFTS])                          # (S,2)
        rims = shifts[:, None, None] + _RIM[None] * RIM_RADII[None, :, None, None]                 # (S,R,A,2)
        pts = np.array(centre) - (x0, y0) + rims * ppd
        xs = np.clip(np.round(pts[..., 0]).astype(int), 0, x1 - x0 - 1)                       # (S,R,A)
        ys = np.clip(np.round(pts[..., 1]).astype(int), 0, y1 - y0 - 1)
        across = np.abs(gx[ys, xs] * _RIM[:, 0] + gy[ys, xs] * _RIM[:, 1])
        return bool((across > RIM_EDGE).mean(axis=2).max() >= RIM_ROUND)


def _detail(image: np.ndarray) -> np.ndarray:
    """Fine detail: the magnitude of the Laplacian of the lightly smoothed grey image."""
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.7)
    return np.abs(cv2.Laplacian(gray, cv2.CV_32F))


def _spots(image: np.ndarray) -> np.ndarray:
    """Small round spots (pips) and not lines (rims, grain, point edges): the positive
    determinant of the Hessian of the lightly smoothed grey image, square-rooted."""
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.8)
    xx = cv2.Sobel(gray, cv2.CV_32F, 2, 0, ksize=3)
    yy = cv2.Sobel(gray, cv2.CV_32F, 0, 2, ksize=3)
    xy = cv2.Sobel(gray, cv2.CV_32F, 1, 1, ksize=3)
    return np.sqrt(np.maximum(xx * yy - xy * xy, 0))


def _apply(h: np.ndarray, p) -> tuple[float, float]:
    v = h @ np.array([p[0], p[1], 1.0])
    return float(v[0] / v[2]), float(v[1] / v[2])


def _apply_many(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
