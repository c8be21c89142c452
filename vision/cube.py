"""Read the doubling cube on a calibrated board: the number on its top face and its side.

The cube lies on the bar: centred between the two halves, or pushed to the edge of the
player who owns it. Along the bar's middle line, whatever departs from the bar's own
colour and is about a cube wide is a candidate; each is cut from the full-resolution
frame, its top face (the square that stands out from the bar) is straightened, and its
ink is compared with the numbers 2..64 drawn in several typefaces and weights, turned
by quarter turns and mirrored (a canonical view may be the board's mirror image). The
best number, clear of every other number, is the face; where it lies along the bar gives
the side: the middle fifth of the field is the centre, otherwise the half nearer the
owner (White sits at the bottom of the canonical view).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision.board_model import BoardModel
from vision.dice import ToFrame, local_homography, read_patch
from vision.observation import CubeRead

FACES = (2, 4, 8, 16, 32, 64)
CUBE_SIDE = 0.62        # the cube's side in checker diameters
TOP = 1.1               # its top face as the camera sees it, over its footprint
PATCH = 72              # the patch a candidate is cut to; the cube's top face is FACE_PX wide in it
FACE_PX = 32
GLYPH = 32              # side of the straightened face the number is matched on
STANDS_OUT = 22.0       # Lab distance from the bar's colour along the bar that marks something lying there
MIN_MATCH = 0.5         # the least correlation a number must reach with the face's ink
CENTRE = 0.1            # half the height of the field's middle band, as a share of the field's height
# wider than the neck between the cube and a checker it touches, narrower than the cube's face
_NECK = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(0.6 * FACE_PX) | 1,) * 2)
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)


class BoardCube:
    """Finds and reads the doubling cube on a calibrated board (``to_frame`` maps canonical
    pixels of ``model`` to frame pixels)."""

    def __init__(self, model: BoardModel, to_frame: ToFrame) -> None:
        self.model = model
        self.to_frame = to_frame
        self._side = CUBE_SIDE * TOP * model.ppd

    def read(self, frame: np.ndarray, canonical: np.ndarray) -> CubeRead | None:
        """The cube in ``frame`` (``canonical`` is its board view), or None when none is seen."""
        found = self.locate(frame, canonical)
        return None if found is None else found[0]

    def locate(self, frame: np.ndarray, canonical: np.ndarray) -> tuple[CubeRead, tuple[float, float]] | None:
        """The cube read in ``frame`` and the canonical centre of its top face, or None."""
        best: tuple[float, int, float, float] | None = None
        for y in self._candidates(canonical):
            read = self._read_at(frame, y)
            if read is not None and (best is None or read[0] > best[0]):
                best = (*read, y)
        if best is None:
            return None
        score, value, confidence, y = best
        bx0, _, bx1, _ = self.model.bar
        return CubeRead(value, self._side_of(y), confidence), ((bx0 + bx1) / 2, y)

    def _candidates(self, canonical: np.ndarray) -> list[float]:
        """Heights along the bar where something about a cube long departs from the bar's colour."""
        m = self.model
        bx0, _, bx1, _ = m.bar
        cx = (bx0 + bx1) / 2
        half = 0.3 * m.ppd
        h = canonical.shape[0]
        strip = canonical[:, int(cx - half):int(np.ceil(cx + half))]
        lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
        bar = np.median(lab.reshape(-1, 3), axis=0)
        profile = np.sqrt(((lab - bar) ** 2).sum(axis=2)).mean(axis=1)
        k = max(int(0.4 * m.ppd), 1)
        profile = np.convolve(profile, np.ones(k) / k, mode="same")
        order = np.argsort(-profile)
        out: list[float] = []
        for y in order:
            if profile[y] < STANDS_OUT or len(out) >= 8:
                break
            if all(abs(y - q) > 0.7 * m.ppd for q in out) and 0.3 * m.ppd <= y <= h - 0.3 * m.ppd:
                out.append(float(y))
        return out

    def _read_at(self, frame: np.ndarray, y: float) -> tuple[float, int, float] | None:
        """(match, value, confidence) of the cube whose top face is near bar height ``y``."""
        bx0, _, bx1, _ = self.model.bar
        k = self._side / FACE_PX
        h = (PATCH - 1) / 2
        to_canonical = np.array([[k, 0, (bx0 + bx1) / 2 - k * h], [0, k, y - k * h], [0, 0, 1]], np.float64)
        patch = read_patch(frame, local_homography(self.to_frame, to_canonical, PATCH), PATCH)
        face = _straighten(patch)
        if face is None:
            return None
        return match_number(face)

    def _side_of(self, y: float) -> str:
        _, y0, _, y1 = self.model.field
        middle = (y0 + y1) / 2
        if abs(y - middle) <= CENTRE * (y1 - y0):
            return "centre"
        return "white" if y > middle else "black"


def _straighten(patch: np.ndarray) -> np.ndarray | None:
    """The cube's top face in ``patch`` turned square to the axes and ``GLYPH`` wide (grey),
    or None when no face-sized square stands out near the middle.

    The cube stands out from the bar (light on a dark bar or dark on a light one); of
    the cube, the top face is the part lit like its brightest (or darkest) part, the sides
    being in shade; the digits are closed over. Where the cube touches a checker of its
    colour (on the bar), the two are cut apart at the neck between them, and where closing
    joined them, the unclosed cube with its digits filled is taken."""
    gray = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    n = patch.shape[0]
    _, light = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    best = None
    for bright, mask in ((True, light), (False, 255 - light)):
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                                                                                            close))
        for i in range(1, count):
            if stats[i, cv2.CC_STAT_AREA] < 0.5 * FACE_PX ** 2:
                continue
            if np.hypot(centroids[i][0] - n / 2, centroids[i][1] - n / 2) > 0.9 * FACE_PX:
                continue
            body = labels == i
            found = _square(body.astype(np.uint8) * 255, n)
            if found is None:       # the cube with a side face in view: keep the lit top
                lit = np.percentile(gray[body].astype(np.float32), 85 if bright else 15)
                top = (gray >= 0.86 * lit) if bright else (gray <= lit / 0.86)
                top = cv2.morphologyEx((top & body).astype(np.uint8) * 255, cv2.MORPH_CLOSE, close)
                found = _square(top, n)
            for part in (body.astype(np.uint8) * 255, top) if found is None else ():
                found = found or _cut_square(part, n)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
    for mask in (light, 255 - light) if best is None else ():
        # closing joined the cube to a checker just clear of it: the unclosed cube, digits filled
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        solid = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, cv2.FILLED)
        found = _square(solid, n) or _cut_square(solid, n)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    if best is None:
        best = _printed_square(light, n)
    if best is None:
        return None
    (cx, cy), (w, hgt), angle = best[1]
    side = (w + hgt) / 2 * 0.94
    m = cv2.getRotationMatrix2D((cx, cy), angle, GLYPH / side)
    m[:, 2] += (GLYPH - 1) / 2 - np.array([cx, cy])
    return cv2.warpAffine(gray, m, (GLYPH, GLYPH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def _printed_square(light: np.ndarray, n: int):
    """(distance from the middle, rect) of the face-sized square, square to the board's
    axes as a cube set down by hand is, that is all one colour but for printing in its
    middle: the cube's face where it touches checkers or shows a side. None if none."""
    best = None
    for mask in (light, 255 - light):
        solid = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
        k, inner = FACE_PX, int(FACE_PX * 0.6)
        fill = cv2.boxFilter((solid > 0).astype(np.float32), -1, (k, k), borderType=cv2.BORDER_CONSTANT)
        ink = cv2.boxFilter(((solid > 0) & (mask == 0)).astype(np.float32), -1, (inner, inner),
                            borderType=cv2.BORDER_CONSTANT)
        score = np.where((fill > 0.9) & (ink > 0.06) & (ink < 0.45), fill, 0)
        yy, xx = np.mgrid[:n, :n]
        score[np.hypot(xx - n / 2, yy - n / 2) > 0.8 * FACE_PX] = 0
        if score.max() <= 0:
            continue
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        off = float(np.hypot(x - n / 2, y - n / 2))
        if best is None or off < best[0]:
            best = (off, ((float(x), float(y)), (float(k), float(k)), 0.0))
    return best


def _cut_square(mask: np.ndarray, n: int):
    """``_square`` of the parts of ``mask`` joined by necks narrower than ``_NECK``: the cube
    touching a checker of its colour on the bar (each part is what an opening keeps of it).
    None when there is no neck to cut (an opening only rounds a lone blob away)."""
    count, labels = cv2.connectedComponents(cv2.erode(mask, _NECK))
    best = None
    if count < 3:
        return None
    for i in range(1, count):
        part = cv2.dilate((labels == i).astype(np.uint8) * 255, _NECK) & mask
        found = _square(part, n)
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    return best


def _square(mask: np.ndarray, n: int):
    """(distance from the middle, rotated rect) of the face-sized, nearly square blob of
    ``mask`` nearest the patch's middle, or None."""
    best = None
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    for i in range(1, count):
        area = stats[i, cv2.CC_STAT_AREA]
        off = float(np.hypot(centroids[i][0] - n / 2, centroids[i][1] - n / 2))
        if not 0.55 * FACE_PX ** 2 <= area <= 1.7 * FACE_PX ** 2 or off > 0.85 * FACE_PX:
            continue
        pts = np.column_stack(np.nonzero(labels == i)[::-1]).astype(np.float32)
        rect = cv2.minAreaRect(pts)
        w, h = rect[1]
        if min(w, h) <= 0 or max(w, h) / min(w, h) > 1.35 or area / (w * h) < 0.75:
            continue
        if best is None or off < best[0]:
            best = (off, rect)
    return best


def _ink(face: np.ndarray) -> np.ndarray | None:
    """The face's ink (the darker or lighter minority, whichever the face is printed in)
    cropped to the number's bounds and scaled to fill the glyph square, as a zero-mean
    unit vector; None for a blank face."""
    f = cv2.GaussianBlur(face.astype(np.float32), (0, 0), 0.7)
    lo, hi = np.percentile(f, 3), np.percentile(f, 97)
    if hi - lo < 20:
        return None
    ink = np.clip((f - lo) / (hi - lo), 0, 1)
    if (ink > 0.5).mean() > 0.5:         # dark ink on a light face: make the ink the bright part
        ink = 1 - ink
    # the number's strokes: ink blobs clear of the face's edge (a rim, a side face, a shadow)
    count, labels, stats, _ = cv2.connectedComponentsWithStats((ink > 0.5).astype(np.uint8))
    n = face.shape[0]
    keep = np.zeros(count, bool)
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        keep[i] = area >= 3 and x > 0 and y > 0 and x + w < n and y + h < n
    strokes = keep[labels]
    ys, xs = np.nonzero(strokes)
    if len(xs) < 4:
        return None
    ink = np.where(cv2.dilate(strokes.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0, ink, 0.0)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    crop = ink[y0:y1, x0:x1]
    k = (GLYPH - 4) / max(x1 - x0, y1 - y0)
    w, h = max(int(round((x1 - x0) * k)), 1), max(int(round((y1 - y0) * k)), 1)
    glyph = np.zeros((GLYPH, GLYPH), np.float32)
    ox, oy = (GLYPH - w) // 2, (GLYPH - h) // 2
    glyph[oy:oy + h, ox:ox + w] = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    v = _gradients(glyph)
    v = v - v.mean()
    norm = float(np.linalg.norm(v))
    return None if norm < 1e-6 else v / norm


def _gradients(glyph: np.ndarray, cell: int = 8, bins: int = 9) -> np.ndarray:
    """Histograms of stroke directions (unsigned, ``bins`` bins, weighted by gradient
    strength) over ``cell``-pixel cells, each overlapping 2x2 block of cells normalised:
    the shape of the strokes with their thickness and blur mostly gone."""
    gx = cv2.Sobel(glyph, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(glyph, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.sqrt(gx * gx + gy * gy)
    position = (np.arctan2(gy, gx) % np.pi) / np.pi * bins - 0.5
    low = np.floor(position).astype(int)
    upper = position - low
    hist = np.zeros(glyph.shape + (bins,), np.float32)
    rows, cols = np.indices(glyph.shape)
    np.add.at(hist, (rows, cols, low % bins), magnitude * (1 - upper))
    np.add.at(hist, (rows, cols, (low + 1) % bins), magnitude * upper)
    n = glyph.shape[0] // cell
    cells = hist[:n * cell, :n * cell].reshape(n, cell, n, cell, bins).sum(axis=(1, 3))
    blocks = np.stack([cells[i:i + 2, j:j + 2].ravel() for i in range(n - 1) for j in range(n - 1)])
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-3
    return blocks.ravel()


def match_number(face: np.ndarray) -> tuple[float, int, float] | None:
    """(correlation, number, confidence) of the number printed on a straightened ``GLYPH``
    face: the best match over every drawing of every number; the confidence is how far it
    stands clear of the best other number. None when nothing matches well."""
    v = _ink(face)
    if v is None:
        return None
    bank, values = _templates()
    scores = bank @ v
    per_value = np.array([scores[values == f].max() for f in FACES])
    order = np.argsort(-per_value)
    best, second = float(per_value[order[0]]), float(per_value[order[1]])
    if best < MIN_MATCH:
        return None
    return best, FACES[int(order[0])], float(np.clip((best - second) / (1 - second + 1e-6) * 2, 0.0, 1.0))


@lru_cache(maxsize=1)
def _templates() -> tuple[np.ndarray, np.ndarray]:
    """Every number drawn on a face in each typeface and weight, at quarter turns and small
    tilts, plain and mirrored, as the same unit ink vectors ``_ink`` makes."""
    vectors, values = [], []
    n = 64
    for face in FACES:
        text = str(face)
        for font in _FONTS:
            for thickness in (2, 3):
                canvas = np.full((n, n), 235, np.uint8)
                scale = cv2.getFontScaleFromHeight(font, int(n * (0.42 if len(text) == 1 else 0.3)), thickness)
                (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
                if tw > 0.8 * n:
                    scale *= 0.8 * n / tw
                    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
                cv2.putText(canvas, text, ((n - tw) // 2, (n + th) // 2), font, scale, 25, thickness, cv2.LINE_AA)
                for mirrored in (False, True):
                    base = canvas[:, ::-1] if mirrored else canvas
                    for quarter in range(4):
                        turned = np.rot90(base, quarter)
                        for tilt in (-6.0, 0.0, 6.0):
                            m = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), tilt, 1.0)
                            drawn = cv2.warpAffine(np.ascontiguousarray(turned), m, (n, n),
                                                   borderMode=cv2.BORDER_REPLICATE)
                            small = cv2.resize(drawn, (GLYPH, GLYPH), interpolation=cv2.INTER_AREA)
                            vec = _ink(small)
                            if vec is not None:
                                vectors.append(vec)
                                values.append(face)
    return np.array(vectors, np.float32), np.array(values)
