"""Find and read six-sided dice anywhere in an image (a tray, a table) and on a calibrated board.

Candidates are found by plain image operations, generously; each is cut to a small patch
with the candidate in its middle, and a dice network made by ``training/dice.py`` says of
every patch at once whether a die lies in its middle and which face it shows. The
board's network (``vision/models/dice``) reads a die ``DIE_PX`` wide with room around it
for the checker it may lie on, and says too how the die rests: flat, cocked (leaning on
a checker or the rail) or on top of a checker; the photos' network (``dice_photo``)
reads a die ``PHOTO_DIE_PX`` wide, faces only, and the board photos' (``dice_board_photo``)
likewise, having also learnt rendered boards seen as photos. Their probabilities are
calibrated on data they were not trained on, so a read's ``confidence`` is the chance that it is right.

In a photo, die bodies are what departs from the smoothed background: single dice,
clusters of touching dice read all over, and dice as light as the background found by
their pips. On a board, candidates are what the calibration's empty board lacks:
die-sized remains after an opening removes the checkers, spots inside checkers of
neither the board's nor a checker's colour, and crowds of new pip-like spots; each is
read on a patch warped from the full-resolution frame through the calibration and
turned so that the camera is up in it (where a flat die shows its sides), and its half is
whose right hand it lies at.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import Callable

import cv2
import numpy as np

from vision.board_fit import Lens
from vision.board_model import ROW, BoardModel
from vision.nets import CHUNK, Network
from vision.observation import DieRead
from vision.strips import region_axes

PATCH = 40              # side of the patch a network reads, pixels
DIE_PX = 14.0           # a die's side in the board network's patch (room for the checker it may lie on)
PHOTO_DIE_PX = 30.0     # ... in the photo network's patch (about the photos' own scale: their pips are small)
PHOTO_VIEWS = 8         # a photo's patch is read turned and mirrored every way (a photo is no video frame)
RESTS = ("flat", "cocked", "on_checker")     # the network's rest classes, in order
IS_DIE = 0.5            # the least probability of a die in a patch's middle for it to be read
FLAT = 0.3              # a die is read flat unless the chance that it lies flat is below this
SAME_DIE = 0.5          # middles put nearer than this (die sides) on a board are one die's (the network puts them
                        # within 0.15 of it; dice touching lie a die apart)
PHOTO_SAME_DIE = 0.8    # ... in a photo (where dice differ in size)
PHOTO_MIXED = 0.6       # ... but patches reading another face only nearer than this (beyond: a die touching it)
NEIGHBOUR = 0.7         # a die read nearer than this (die sides) to a surer one in a photo, and less sure than
NEIGHBOUR_SURE = 0.8    # this, is that one seen off its middle
SAME_FACE = 0.6         # a die read on a board this near (die sides) a surer one showing the same face is that one
                        # seen off its middle (a die and its shadow make a longer blob)
TWINS = 0.3             # ... unless farther than this, and a die showing that face lies as far beyond the surer one


@dataclass(frozen=True)
class Die:
    """One die read from an image.

    ``box`` is the axis-aligned (x, y, w, h) around the die; ``centre`` its middle;
    ``flat`` is False when the die leans (its top is not a square face); ``confidence``
    is the probability (0..1) that a die showing ``value`` lies there.
    """

    value: int
    box: tuple[int, int, int, int]
    flat: bool
    confidence: float
    centre: tuple[float, float]

    def to_json(self) -> dict:
        return {"value": self.value, "box": list(self.box), "flat": self.flat,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class Seen:
    """A die a network sees: its ``centre`` (where the patches that show it lie, the surer
    the more), its ``value`` and the chance that a die showing it lies there
    (``confidence``), the chance of each rest (``rests``, in ``RESTS`` order) and the
    patch that showed it most surely (``best``, an index into the patches read)."""

    centre: tuple[float, float]
    value: int
    confidence: float
    rests: tuple[float, float, float]
    best: int


class DiceNet:
    """A dice network: reads batches of ``PATCH`` x ``PATCH`` BGR patches. The board's
    (``dice``) also tells how each die rests; the photo's (``dice_photo``) reads faces only."""

    def __init__(self, name: str = "dice") -> None:
        self.net = Network(name)

    def __call__(self, patches: list[np.ndarray], views: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per patch, the chances of no die and of a die showing 1..6 in its middle (N, 7),
        of each rest (N, 3; lying flat for a network that does not tell), and where the
        die's middle lies from the patch's as cut, in die sides along the patch's axes
        (N, 2; zero for a network that does not tell); with ``views`` 8, faces and rests
        are the mean over the patch's quarter turns and their mirror images (every face is
        the same face turned or mirrored)."""
        if not patches:
            return np.zeros((0, 7), np.float32), np.zeros((0, 3), np.float32), np.zeros((0, 2), np.float32)
        faces, rests, shifts = [], [], []
        step = max(CHUNK // views, 1)       # a photo may give thousands of candidates: memory stays bounded
        for start in range(0, len(patches), step):
            part = patches[start:start + step]
            if views > 1:
                part = [np.ascontiguousarray(np.rot90(q, k)) for p in part for q in (p, p[:, ::-1])
                        for k in range(views // 2)]
            out = self.net(net_input(part))
            faces.append(out["face"].reshape(-1, views, 7).mean(axis=1))
            rests.append(out["rest"].reshape(-1, views, 3).mean(axis=1) if "rest" in out else
                         np.tile(np.float32([1, 0, 0]), (len(faces[-1]), 1)))
            shifts.append(out["shift"][::views] if "shift" in out else np.zeros((len(faces[-1]), 2), np.float32))
        return np.concatenate(faces), np.concatenate(rests), np.concatenate(shifts)

    def dice(self, patches: list[np.ndarray], centres, apart: float, views: int = 1,
             mixed: float | None = None, angles=None, side: float = 0.0) -> list[Seen]:
        """The dice in patches cut around ``centres``, surest read first: patches nearer than
        ``apart`` to a surer one that shows a die show the same die (those reading another
        face only nearer than ``mixed``, if given: beyond, they show a neighbour touching
        it), and their reads are pooled: the chance of each value given a die, weighted by
        the chance of a die and by nearness to the surest patch. With the patches' turns
        (``angles``, degrees) and the die's ``side``, each patch stands where it puts its
        die's middle (a network that tells its shift): the patches of one die gather there,
        and dice touching stay apart."""
        face, rest, shift = self(patches, views)
        die = 1 - face[:, 0]
        own = face[:, 1:].argmax(axis=1)
        pts = np.asarray(centres, np.float64).reshape(-1, 2)
        if angles is not None:
            pts = pts + turned(shift * side, np.asarray(angles, np.float64))
        free = die >= IS_DIE
        out: list[Seen] = []
        for i in np.argsort(-face[:, 1:].max(axis=1), kind="stable"):
            if not free[i]:
                continue
            off = np.hypot(pts[:, 0] - pts[i, 0], pts[:, 1] - pts[i, 1])
            same = free & (off < apart)
            if mixed is not None:
                same &= (own == own[i]) | (off < mixed)
            free &= ~same
            near = 1 - off[same] / apart
            w = near * die[same]
            values = (near[:, None] * face[same, 1:]).sum(axis=0) / w.sum()
            v = int(np.argmax(values))
            centre = (w[:, None] * pts[same]).sum(axis=0) / w.sum()
            rests = (w[:, None] * rest[same]).sum(axis=0) / w.sum()
            out.append(Seen((float(centre[0]), float(centre[1])), v + 1, float(die[i] * values[v]),
                            tuple(float(r) for r in rests), int(i)))
        return out


def net_input(patches: list[np.ndarray]) -> np.ndarray:
    """The network's input for BGR patches: (N, 3, PATCH, PATCH) float32, each patch less
    its mean colour (the light's tint) and over its spread (the light's strength)."""
    out = []
    for p in patches:
        mean, spread = cv2.meanStdDev(p)
        out.append((p.astype(np.float32) - mean.ravel().astype(np.float32))
                   * np.float32(1.0 / (np.sqrt(float((spread * spread).mean())) + 10.0)))
    return cv2.dnn.blobFromImages(out)


def turned(vectors, angle_deg) -> np.ndarray:
    """Vectors (..., 2) given along a patch's axes, along the image's for a patch turned by
    ``angle_deg`` degrees (``patch_transform``; a negative angle turns them back)."""
    v = np.asarray(vectors, np.float64)
    t = np.deg2rad(angle_deg)
    c, s = np.cos(t), np.sin(t)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


def read_patch(image: np.ndarray, to_image: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The ``size`` x ``size`` patch whose pixel (u, v) shows ``image`` at the point the
    3x3 homography ``to_image`` maps (u, v) to."""
    return cv2.warpPerspective(image, to_image, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def patch_transform(centre, die_side: float, angle_deg: float = 0.0, die_px: float = DIE_PX,
                    size: int = PATCH) -> np.ndarray:
    """Patch pixels to image pixels: the ``size`` patch centred on ``centre``, turned by
    ``angle_deg``, showing a die of ``die_side`` image pixels ``die_px`` patch pixels wide."""
    k = die_side / die_px
    t = np.deg2rad(angle_deg)
    c, s = np.cos(t) * k, np.sin(t) * k
    h = (size - 1) / 2
    return np.array([[c, -s, centre[0] - c * h + s * h], [s, c, centre[1] - s * h - c * h], [0, 0, 1]], np.float64)


# -------------------------------------------------------------------- dice in a photo
LEANS = 1.3             # a lone die's blob this much longer one way than the other leans
LATTICE = 0.4           # candidates over a cluster of dice lie this far apart (die sides): one within 0.3 of
                        # every die's middle

Candidate = tuple[float, float, float, bool]      # centre x, centre y, die side (pixels), flat

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


def photo_candidates(image: np.ndarray, region: np.ndarray | None = None,
                     die_size: float | None = None) -> tuple[list[Candidate], float | None]:
    """Where dice may lie in a photo, as (centre x, centre y, die side in pixels, flat), and
    the side of a typical die (None when nothing die-like stands out). A die on its own
    whose blob is not square leans (on another die, the tray's wall): it is not flat.

    Die bodies are what departs from the smoothed background; a blob the size of one die
    is one candidate, a larger blob (dice touching) gives many (see ``_split``), and a
    die-sized cluster of small spots (the pips of a die as light as the background) one
    more. The network sorts them out: candidates are cheap, a die missed is not."""
    mask = foreground_mask(image)
    if region is not None:
        mask = cv2.bitwise_and(mask, region)
    filled = _fill_small_holes(mask, 0.002 * mask.size)
    contours = _components(filled)
    if die_size is None:
        die_size = _estimate_die_size(contours)
    if die_size is None:
        return [], None
    found: list[Candidate] = []
    for c in contours:
        if cv2.contourArea(c) >= 0.35 * die_size ** 2:
            found += _split(filled, c, die_size)
    # a die of the background's colour shows only its pips: close them into a die-sized blob
    k = int(0.6 * die_size) | 1
    pips = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) & ~filled
    for c in _components(pips):
        (cx, cy), (w, h), _ = cv2.minAreaRect(c)
        if 0.01 * die_size ** 2 <= cv2.contourArea(c) and max(w, h) <= 1.2 * die_size:
            found.append((cx, cy, die_size, True))
    return found, die_size


def find_dice(image: np.ndarray, region: np.ndarray | None = None, die_size: float | None = None,
              net: DiceNet | None = None) -> list[Die]:
    """Every die in ``image`` (BGR uint8), optionally only inside ``region`` (mask): each of
    ``photo_candidates`` read by the photos' network on a patch of the image scaled so
    that a typical die is ``PHOTO_DIE_PX`` wide; where reads overlap, the surest stands.
    In a cluster, patches off a die's middle that read another face show a die touching
    it (a die of its own), and an unsure die read beside a surer one is that one."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        raise ValueError("find_dice needs a BGR colour image")
    candidates, die_size = photo_candidates(image, region, die_size)
    if not candidates:
        return []
    return _read_candidates(photo_scaled(image, die_size), candidates, die_size, net or _net())


def _read_candidates(scaled: tuple[np.ndarray, float], candidates: list[Candidate], die_size: float,
                     net: DiceNet) -> list[Die]:
    """The dice a photos' network (``net``) reads at ``candidates`` of a photo whose typical
    die is ``die_size`` pixels wide, ``scaled`` by ``photo_scaled`` (see ``find_dice``)."""
    small, scale = scaled
    patches = [read_patch(small, photo_patch_transform(c, scale)) for c in candidates]
    dice: list[Die] = []
    for seen in net.dice(patches, [c[:2] for c in candidates], PHOTO_SAME_DIE * die_size, PHOTO_VIEWS,
                         PHOTO_MIXED * die_size):
        (cx, cy), side = seen.centre, candidates[seen.best][2]
        if seen.confidence < NEIGHBOUR_SURE and any(
                np.hypot(cx - d.centre[0], cy - d.centre[1]) < NEIGHBOUR * die_size for d in dice):
            continue
        x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
        dice.append(Die(seen.value, (x0, y0, int(round(side)), int(round(side))), candidates[seen.best][3],
                        seen.confidence, seen.centre))
    return dice


def photo_scaled(image: np.ndarray, die_size: float) -> tuple[np.ndarray, float]:
    """The photo scaled (by the returned factor) so that a die ``die_size`` wide is
    ``PHOTO_DIE_PX`` wide, averaged down rather than sampled (pips are a few pixels there)."""
    scale = PHOTO_DIE_PX / die_size
    if scale >= 1:
        return image, 1.0
    h, w = image.shape[:2]
    size = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), scale


def photo_patch_transform(candidate: Candidate, scale: float, angle_deg: float = 0.0) -> np.ndarray:
    """Patch pixels to pixels of the photo scaled by ``scale`` for a candidate, its side
    ``PHOTO_DIE_PX`` wide."""
    cx, cy, side, _ = candidate
    return patch_transform(((cx + 0.5) * scale - 0.5, (cy + 0.5) * scale - 0.5), side * scale, angle_deg,
                           PHOTO_DIE_PX)


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


def _split(mask: np.ndarray, contour, die_size: float) -> list[Candidate]:
    """Candidates of the dice in one blob: the blob itself when it is one die's size,
    else die-sized candidates on a lattice ``LATTICE`` apart over the parts of the blob
    a die's core fits in (dice touching along a side leave no core of their own)."""
    (cx, cy), (w, h), _ = cv2.minAreaRect(contour)
    area = cv2.contourArea(contour)
    if area < 1.6 * die_size ** 2 and max(w, h) < 1.5 * die_size:
        return [(cx, cy, max(w, h), max(w, h) < LEANS * min(w, h))]
    x, y, bw, bh = cv2.boundingRect(contour)
    sub = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(sub, [contour], -1, 255, cv2.FILLED, offset=(-x + 1, -y + 1))
    sub[1:-1, 1:-1] &= mask[y:y + bh, x:x + bw]        # the blob's large holes stay open (a tray's floor)
    dist = cv2.distanceTransform(sub, cv2.DIST_L2, 5)
    k = int(0.5 * die_size) | 1
    peaks = (dist >= cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (dist > 0.25 * die_size)
    step = max(int(round(LATTICE * die_size)), 1)
    lattice = np.zeros_like(peaks)
    lattice[::step, ::step] = dist[::step, ::step] > 0.3 * die_size
    ys, xs = np.nonzero(lattice)
    return [(px + x - 1, py + y - 1, die_size, True)
            for px, py in _apart(dist, peaks, 0.45 * die_size, 256) + list(zip(xs.astype(float), ys.astype(float)))]


_NETS: dict[str, DiceNet] = {}


def _net(name: str = "dice_photo") -> DiceNet:
    """The shared network ``name``: ``find_dice``'s, or photo import's ``dice_board_photo``
    (a board reader keeps its own)."""
    if name not in _NETS:
        _NETS[name] = DiceNet(name)
    return _NETS[name]


# ------------------------------------------------------------ dice on a board in a photo
BOARD_PHOTO_CHECKER = 40.0  # a board photo's pip-like spots are looked for with a checker this many pixels wide
BOARD_PHOTO_DIE = 0.6       # a die's side, with the sides a photo shows, in checker diameters (dice come with
                            # the set) ...
BOARD_PHOTO_SIZES = ((0.65, 0.9), (1.5, 0.9))  # ... or times these, read only this sure (the set's own dice;
                                                # at other scales more of a board's texture looks like pips)
BOARD_PHOTO_CROWDS = 24     # at most this many crowds of spots are candidates ...
BOARD_PHOTO_SPOTS = 12      # ... and this many lone spots (a one)
BOARD_PHOTO_SURE = 0.5      # the least confidence of a die read in a board photo
BOARD_PHOTO_SEEN = 0.5      # ... and the least chance of a die there by the photos' network
BOARD_PHOTO_RING = 3.2      # round a die, a square this many sides wide holds ...
BOARD_PHOTO_AROUND = 24     # ... at most this many pip-like spots (four other dice's); more are an inlay's dots
BOARD_PHOTO_AS_PIPS = 0.4   # ... counting those at least this share as strong as the die's own pips


def find_board_photo_dice(image: np.ndarray, diameter: float, surface=None, checkers=()) -> list[Die]:
    """The dice on a board in a photo (BGR) whose checkers are ``diameter`` pixels wide,
    surest first: ``board_photo_candidates`` read by the board photos' network at
    ``BOARD_PHOTO_DIE`` checker diameters, at least ``BOARD_PHOTO_SURE`` sure, where the
    photos' network too sees a die at least ``BOARD_PHOTO_SEEN`` likely (the board photos'
    network learnt rendered boards, and takes some real boards' inlaid dots for sixes;
    the photos' has seen real photos only); then, where none was read, the dice read at
    the other sizes of ``BOARD_PHOTO_SIZES`` as sure as it says, surest first (dice
    nearer than ``PHOTO_SAME_DIE`` of the larger side are one). A die lies on a plain
    surface: one read amid more spots than other dice could show (``BOARD_PHOTO_AROUND``)
    is an ornamented board's dots; spots on ``checkers`` (circles x, y, radius in image
    pixels: their rims and rings) are none."""
    spots, peaks, f = _board_photo_spots(image, diameter, surface)
    ys, xs = np.nonzero(peaks)
    strength, xs, ys = spots[ys, xs], xs / f, ys / f
    for x, y, r in checkers:
        off = np.hypot(xs - x, ys - y) > r
        xs, ys, strength = xs[off], ys[off], strength[off]

    def read(size: float, sure: float) -> list[Die]:
        die = BOARD_PHOTO_DIE * size
        return _board_photo_dice(image, _crowds(spots, peaks, f, diameter, die), (xs, ys, strength),
                                 die * diameter, sure)

    dice = read(1.0, BOARD_PHOTO_SURE)
    other = [d for size, sure in BOARD_PHOTO_SIZES for d in read(size, sure)]
    for d in sorted(other, key=lambda d: -d.confidence):
        if not any(np.hypot(d.centre[0] - k.centre[0], d.centre[1] - k.centre[1])
                   < PHOTO_SAME_DIE * max(d.box[2], k.box[2]) for k in dice):
            dice.append(d)
    return sorted(dice, key=lambda d: -d.confidence)


def _board_photo_dice(image: np.ndarray, candidates: list[Candidate], spots: tuple, side: float,
                      sure: float) -> list[Die]:
    """``find_board_photo_dice`` at one die size, ``side`` pixels: the dice read at
    ``candidates`` at least ``sure``; ``spots`` the pip-like spots off the checkers (x, y,
    strength arrays in image pixels)."""
    if not candidates:
        return []
    small, scale = photo_scaled(image, side)
    dice = [d for d in _read_candidates((small, scale), candidates, side, _net("dice_board_photo"))
            if d.confidence >= sure and _spots_around(d, *spots, side) <= BOARD_PHOTO_AROUND]
    if not dice:
        return []
    face = _net()([read_patch(small, photo_patch_transform((*d.centre, side, True), scale)) for d in dice],
                  PHOTO_VIEWS)[0]
    return [d for d, none in zip(dice, face[:, 0]) if 1 - none >= BOARD_PHOTO_SEEN]


def board_photo_candidates(image: np.ndarray, diameter: float, surface=None,
                           die: float = BOARD_PHOTO_DIE) -> tuple[list[Candidate], tuple]:
    """Where dice may lie on a board in a photo (BGR) whose checkers are ``diameter``
    pixels wide, each a die ``die`` diameters wide, and the pip-like spots found (x, y,
    strength arrays in image pixels).

    A board is all edges and blobs (points, rows of checkers, the case), so candidates are
    pip-like spots instead: where they crowd into a die-sized square, and the strongest
    lone ones (a one has a single pip), only on the ``surface`` where dice are rolled
    (image polygons, if given: the halves of the field; the cube waits on the bar and its
    numbers read as pips)."""
    spots, peaks, f = _board_photo_spots(image, diameter, surface)
    ys, xs = np.nonzero(peaks)
    return _crowds(spots, peaks, f, diameter, die), (xs / f, ys / f, spots[ys, xs])


def _board_photo_spots(image: np.ndarray, diameter: float, surface) -> tuple[np.ndarray, np.ndarray, float]:
    """The pip-like spots of a board photo on its ``surface`` (see
    ``board_photo_candidates``), seen at the scale ``f`` that makes a checker
    ``BOARD_PHOTO_CHECKER`` pixels wide: their strength, where they peak, and ``f``."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        raise ValueError("find_board_photo_dice needs a BGR colour image")
    f = BOARD_PHOTO_CHECKER / diameter
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    keep = np.full(small.shape[:2], 255, np.uint8)
    if surface is not None:
        keep[:] = 0
        for polygon in surface:
            cv2.fillConvexPoly(keep, np.round(np.asarray(polygon, np.float64) * f).astype(np.int32), 255)
    spots = _spots(small)
    spots[keep == 0] = 0
    return spots, (spots > SPOT) & (spots >= cv2.dilate(spots, np.ones((3, 3), np.uint8))), f


def _crowds(spots: np.ndarray, peaks: np.ndarray, f: float, diameter: float, die: float) -> list[Candidate]:
    """Candidates for dice ``die`` checker diameters wide among the spots of
    ``_board_photo_spots``: their crowds in a die-sized square and the strongest lone ones."""
    square = int(die * BOARD_PHOTO_CHECKER) | 1
    found = (_crowded(spots * peaks, square, BOARD_PHOTO_CROWDS)
             + _apart(spots, peaks, 0.8 * square, BOARD_PHOTO_SPOTS))
    return [(x / f, y / f, die * diameter, True) for x, y in found]


def _spots_around(die: Die, xs: np.ndarray, ys: np.ndarray, strength: np.ndarray, side: float) -> int:
    """How many of the spots at (``xs``, ``ys``) lie round a die ``side`` pixels wide:
    within a square of ``BOARD_PHOTO_RING`` sides about its middle, outside its own box,
    and at least ``BOARD_PHOTO_AS_PIPS`` as strong as the strongest in its box (its pips:
    an inlay's dots stand out as pips do, a grain's spots along a point's edge do not)."""
    x, y, w, h = die.box
    dx, dy = np.abs(xs - x - w / 2), np.abs(ys - y - h / 2)
    inside = (dx <= 0.6 * side) & (dy <= 0.6 * side)
    pips = float(strength[inside].max()) if inside.any() else 0.0
    return int(((dx <= BOARD_PHOTO_RING / 2 * side) & (dy <= BOARD_PHOTO_RING / 2 * side) & ~inside
                & (strength >= BOARD_PHOTO_AS_PIPS * pips)).sum())


# ---------------------------------------------------------------------- dice on a board
CHANGE = 22.0           # Lab distance from the empty board that means something lies there
SHADE = 0.4             # weight of darkening in that distance (shadows only darken)
SPOT = 40.0             # new pip-like spot strength (Hessian) that may be a pip
CROWDS = 24             # at most this many crowds of spots are candidates (checkers' grain crowds more weak spots
                        # than a die has pips; candidates are then ranked by their strongest spot)
FAINT = 0.15            # a candidate whose strongest pip-like spot is under this share of the strongest is not read
CANDIDATES = 16         # at most this many candidates are read, those with the strongest pip-like spots first,
SPACING = 0.3           # ... none nearer another than this (die sides)
BETWEEN = (0.9, 1.6)    # ... and the middles of those this far apart (die sides), at most half as many,
BETWEEN_SURE = 0.5      # ... where a die is read only this sure ...
LATER = 8               # ... and the next this many candidates in rank, ...
LATER_SURE = 0.9        # ... where a die is read only this sure, ...
APART = 0.8             # ... and this far from every other (die sides; dice touching lie about a side apart)
FOREIGN = 45.0          # Lab distance from board and both checker colours that means a die on a checker
DIE_SIDE = 0.45         # a die's side in checker diameters, until a table's own is learned:
SIZES = (0.32, 0.36, 0.40, 0.45, 0.50, 0.55)    # the sides a table's dice may have (checker diameters)
LEARN = 8               # a table's dice size is weighed on its first this many lone flat dice read ...
LEARN_SURE = 0.5        # ... at least this sure, ...
LONE = 1.6              # ... with no other die read, nor the cube, nearer than this (die sides: a neighbour in
                        # the patch makes a die read surely at a wrong size), and each apart from those before
LEARN_MIN = 2           # a size is taken on at least this many of them (one die now and then reads surest off its
                        # size) ...
SURER = 2.0             # ... where they read this much surer than at the size used (mean log-odds of the
                        # surest face: a die is read nearly sure at several sizes in a clear frame) ...
SURER_ALONE = 6.0       # ... or on one, this much surer (a die that reads far surer at another size is misread
                        # at the one used, and a table's first throw often shows one lone die only)
CUBE_CLEAR = 0.55       # no die's top face lies this near the cube's (checker diameters, either way)
TOP_FACE = 1.1          # a die's top face seen from the camera over its footprint (it stands nearer the lens)
BOX = 1.6               # a read die's box around its middle, in die sides (room for its sides in view)
GAP_ACROSS = 0.5        # half-width (diameters) across a row of the gaps where two of its checkers (or the first
                        # and the point's base) meet
GAP_ALONG = 0.2         # ... and their half-width along it
GAP_SPOTS = 0.4         # weight of a spot in such a gap: the field between two rims looks like a pip


ToFrame = Callable[[np.ndarray], np.ndarray]     # canonical pixels (N x 2) to frame pixels (N x 2)


def frame_patches(frame: np.ndarray, to_frame: ToFrame, centres, side: float, side_px: float,
                  angles=None, scales=None, size: int = PATCH) -> list[np.ndarray]:
    """``size`` x ``size`` patches of ``frame`` around canonical ``centres``, showing ``side``
    canonical pixels ``side_px`` patch pixels wide (or ``scales`` times that), turned by
    ``angles`` degrees; each warped from the full-resolution frame by the mapping fitted
    on its corners: exact for a lens without distortion, close enough over a patch for one with."""
    if not len(centres):
        return []
    n = len(centres)
    angles = [0.0] * n if angles is None else angles
    scales = [1.0] * n if scales is None else scales
    corners = np.array([(0, 0), (size - 1, 0), (size - 1, size - 1), (0, size - 1)], np.float32)
    on_board = np.concatenate([_apply_many(patch_transform(c, side / k, a, side_px, size), corners)
                               for c, a, k in zip(centres, angles, scales)])
    in_frame = np.asarray(to_frame(on_board), np.float32).reshape(-1, 4, 2)
    return [read_patch(frame, cv2.getPerspectiveTransform(corners, quad).astype(np.float64), size) for quad in in_frame]


def is_mirrored(to_frame: ToFrame, model: BoardModel) -> bool:
    """Whether the canonical view is the board's mirror image (its home board is on the
    left as the camera sees it): a camera never mirrors, so the mapping turns it over."""
    x0, y0, x1, y1 = model.field
    c = ((x0 + x1) / 2, (y0 + y1) / 2)
    a, bx, by = np.asarray(to_frame(np.array([c, (c[0] + 1, c[1]), (c[0], c[1] + 1)], np.float64)), np.float64)
    return bool(np.linalg.det(np.array([bx - a, by - a])) < 0)


def camera_nadir(to_frame: ToFrame, model: BoardModel, frame_size: tuple[int, int]) -> tuple[float, float]:
    """The canonical point under the camera's lens, from the mapping alone: a pinhole
    camera aimed at the case's middle, with square pixels and a calibration's lens
    (``vision.board_fit.Lens`` of a ``frame_size`` frame, w x h) whose distortion is the
    one that makes the mapping of the case a homography ``H``. The
    camera's focal length and the vertical's vanishing point follow from ``H`` (its first
    two columns are two orthogonal directions of equal length seen through the lens);
    a camera looking straight down has its nadir under the case's middle."""
    w, h = model.size
    grid = np.array([(x, y) for x in np.linspace(0, w, 7) for y in np.linspace(0, h, 7)], np.float64)
    seen = np.asarray(to_frame(grid), np.float64).reshape(-1, 2)

    def fit(k: float) -> tuple[float, np.ndarray]:
        ideal = Lens(float(k), frame_size).undistort(seen)
        hom, _ = cv2.findHomography(grid, ideal, 0)
        back = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), hom).reshape(-1, 2)
        return float(((back - ideal) ** 2).sum()), hom

    ks = np.linspace(-0.1, 0.4, 11)
    errors = [fit(k)[0] for k in ks]
    i = int(np.clip(np.argmin(errors), 1, len(ks) - 2))
    a, b, e = errors[i - 1:i + 2]                   # the parabola through the least error and its neighbours
    bend = a - 2 * b + e
    step = float(np.clip(0.5 * (a - e) / bend, -1, 1)) if bend > 0 else 0.0
    _, hom = fit(ks[i] + step * (ks[1] - ks[0]))
    middle = hom @ np.array([w / 2, h / 2, 1.0])
    centred = np.array([[1, 0, -middle[0] / middle[2]], [0, 1, -middle[1] / middle[2]], [0, 0, 1]]) @ hom
    h1, h2 = centred[:, 0], centred[:, 1]
    # 1/f^2 from h1.h2 = 0 and |h1| = |h2| once the focal length is divided out
    a, b = h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]
    e, d = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2
    inverse_f2 = -(a * b + e * d) / (a * a + e * e) if a * a + e * e > 0 else 0.0
    if inverse_f2 <= 0:
        return w / 2, h / 2
    n = np.cross(h1, h2)
    below = np.linalg.solve(centred, np.array([n[0], n[1], n[2] * inverse_f2]))
    if abs(below[2]) < 1e-12:
        return w / 2, h / 2
    return float(below[0] / below[2]), float(below[1] / below[2])


class BoardDice:
    """Finds and reads the dice on a calibrated board.

    ``to_frame`` maps canonical pixels of ``model`` to frame pixels; ``empty`` is the
    canonical view of the empty board; ``checkers`` the checker colours (Lab), if known.
    It learns the side of the table's dice (``size``, checker diameters, first ``size``)
    from the first dice it reads, so one reader reads one table.
    """

    def __init__(self, model: BoardModel, to_frame: ToFrame, empty: np.ndarray,
                 checkers: tuple[tuple[float, float, float], ...] = (), size: float = DIE_SIDE) -> None:
        self.model = model
        self.to_frame = to_frame
        h, w = empty.shape[:2]
        self._small = (w // 2, h // 2)          # the change from the empty board is looked for at half scale
        self.empty_lab = _lab(cv2.resize(empty, self._small, interpolation=cv2.INTER_LINEAR))
        self.empty_spots = cv2.dilate(_spots(empty), np.ones((3, 3), np.uint8))
        self.checkers = np.array(checkers, np.float32).reshape(-1, 3)
        x0, y0, x1, y1 = model.field
        self._surface = np.zeros((h, w), np.uint8)
        self._surface[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))] = 255
        self._surface_small = cv2.resize(self._surface, self._small, interpolation=cv2.INTER_NEAREST)
        opening = int(round(0.36 * model.ppd)) | 1          # narrower than a checker, wider than a die
        self._opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening))
        self._sized(size)
        self._evidence: list[tuple[tuple[float, float], np.ndarray]] = []    # lone dice's surest face per size
        self._mirrored = is_mirrored(to_frame, model)     # then the players' right hands swap
        self._nadir: dict[tuple[int, int], tuple[float, float]] = {}     # per frame size
        self._net: DiceNet | None = None
        self._meets = [self._meeting_places(number) for number in range(1, 25)]

    def read(self, frame: np.ndarray, canonical: np.ndarray, cube: tuple[float, float] | None = None,
             rows: np.ndarray | None = None) -> list[DieRead]:
        """The dice lying on the playing surface of ``frame`` (``canonical`` is its board view;
        ``cube`` the canonical centre of the doubling cube's top face, if read: no die lies
        there; ``rows`` each region's largest possible count, ``vision.strips.REGIONS``
        order, where known: it tells where checkers of a row meet). Where reads overlap,
        the surest stands."""
        return [die for die, _ in self.placed(frame, canonical, cube, rows)]

    def placed(self, frame: np.ndarray, canonical: np.ndarray, cube: tuple[float, float] | None = None,
               rows: np.ndarray | None = None, still: bool = True) -> list[tuple[DieRead, tuple[float, float]]]:
        """The dice ``read`` finds, each with the canonical centre of its top face. Until
        ``LEARN`` lone dice have been seen in ``still`` frames (a rolling die is blurred),
        each teaches the table's dice size (``_learn_size``); a frame whose dice changed it
        is read again at the new size."""
        out = self._placed(frame, canonical, cube, rows)
        if still and len(self._evidence) < LEARN and self._learn_size(frame, out, cube):
            out = self._placed(frame, canonical, cube, rows)
        return out

    def _learn_size(self, frame: np.ndarray, placed: list[tuple[DieRead, tuple[float, float]]],
                   cube: tuple[float, float] | None = None) -> bool:
        """Learns the side of this table's dice from the lone flat dice ``placed`` read in
        ``frame`` (``LEARN_SURE`` sure, no die or ``cube`` within ``LONE`` sides, each apart
        from those learned from before): each is cut again at every one of ``SIZES`` and
        read in one batch; the network reads a die surest at its own size, so where the
        mean log-odds of the surest face over the dice learned from (``LEARN_MIN`` at least)
        are ``SURER`` above the size in use, or one die's ``SURER_ALONE``, that size is the
        table's. Whether the size changed."""
        apart = LONE * self.die_side
        others = [at for _, at in placed] + ([] if cube is None else [cube])
        learned = [at for at, _ in self._evidence]
        lone = [at for die, at in placed if die.flat and die.confidence >= LEARN_SURE
                and sum(np.hypot(at[0] - o[0], at[1] - o[1]) < apart for o in others) == 1
                and all(np.hypot(at[0] - o[0], at[1] - o[1]) >= apart for o in learned)]
        lone = lone[:LEARN - len(self._evidence)]
        if not lone:
            return False
        centres = [at for at in lone for _ in SIZES]
        scales = [self.size / size for _ in lone for size in SIZES]
        angles = self.upright(centres, (frame.shape[1], frame.shape[0]))
        faces = self._net(frame_patches(frame, self.to_frame, centres, self.die_side, DIE_PX, angles, scales))[0]
        surest = np.clip(faces[:, 1:].max(axis=1), 1e-4, 1 - 1e-4).reshape(len(lone), len(SIZES))
        surest = np.log(surest / (1 - surest))
        self._evidence += list(zip(lone, surest))
        mean = np.mean([s for _, s in self._evidence], axis=0)
        best = SIZES[int(np.argmax(mean))]
        surer = SURER if len(self._evidence) >= LEARN_MIN else SURER_ALONE
        if best == self.size or mean.max() < mean[SIZES.index(self.size)] + surer:
            return False
        self._sized(best)
        return True

    def _sized(self, size: float) -> None:
        """Reads dice ``size`` checker diameters wide from now on."""
        self.size = size
        self.die_side = size * TOP_FACE * self.model.ppd      # canonical pixels
        self._square = np.ones((int(size * self.model.ppd) | 1,) * 2, np.uint8)     # a die's footprint

    def _placed(self, frame: np.ndarray, canonical: np.ndarray, cube: tuple[float, float] | None = None,
                rows: np.ndarray | None = None) -> list[tuple[DieRead, tuple[float, float]]]:
        ranked = self.candidates(canonical, cube, rows, CANDIDATES + LATER)
        candidates = ranked[:CANDIDATES]
        if self._net is None:
            self._net = DiceNet()
        patches, angles = self._patches(frame, candidates)
        seen = self._net.dice(patches, candidates, SAME_DIE * self.die_side, angles=angles, side=self.die_side)
        seen = self._missed(frame, candidates, seen, ranked[CANDIDATES:])
        seen = self._twins(frame, seen)
        # how each die rests, read again on a patch centred on its middle beside the patches
        # cut around it, which see its sides askew (a flat die's like a leaning one's)
        again = self._net(self._patches(frame, [s.centre for s in seen])[0])[1]
        out: list[tuple[DieRead, tuple[float, float]]] = []
        for die, chances in zip(seen, (np.add(s.rests, r) / 2 for s, r in zip(seen, again))):
            if any(read.value == die.value and np.hypot(at[0] - die.centre[0], at[1] - die.centre[1])
                   < SAME_FACE * self.die_side for read, at in out):
                continue
            flat, cocked, on_checker = chances
            rest = "flat" if flat >= FLAT else "cocked" if cocked > on_checker else "on_checker"
            cx, cy = die.centre
            out.append((DieRead(die.value, self._half(cx, cy), rest == "flat", rest == "on_checker",
                                self._box(cx, cy), die.confidence * float(chances[RESTS.index(rest)])), (cx, cy)))
        return out

    def _twins(self, frame: np.ndarray, seen: list[Seen]) -> list[Seen]:
        """Two dice touching that show the same face make a patch between them read as that
        face too, its middle between theirs, and it takes in the patches of one of them: where
        a die read lies between ``TWINS`` and ``SAME_FACE`` sides from a surer one showing the
        same face, a patch as far beyond the surer one is read, and a die showing that face
        whose middle lies there is the one the read between them hid."""
        side = self.die_side
        out = list(seen)
        for i, sure in enumerate(seen):
            other = next((o for o in seen[i + 1:] if o.value == sure.value and TWINS * side
                          < np.hypot(sure.centre[0] - o.centre[0], sure.centre[1] - o.centre[1]) < SAME_FACE * side),
                         None)
            if other is None:
                continue
            beyond = 2 * np.asarray(sure.centre) - other.centre
            patches, angles = self._patches(frame, [beyond])
            face, rest, shift = self._net(patches)
            middle = beyond + turned(shift * side, np.asarray(angles))[0]
            if (1 - face[0, 0] >= IS_DIE and int(face[0, 1:].argmax()) + 1 == sure.value
                    and np.hypot(*(middle - beyond)) < TWINS * side):
                out[i] = replace(sure, centre=(float(middle[0]), float(middle[1])),
                                 confidence=float(face[0, sure.value]), rests=tuple(float(r) for r in rest[0]))
        return out

    def _patches(self, frame: np.ndarray, centres) -> tuple[list[np.ndarray], list[float]]:
        """The board network's patches of ``frame`` around canonical ``centres``, each turned
        camera up (``upright``), and their turns."""
        angles = self.upright(centres, (frame.shape[1], frame.shape[0]))
        return frame_patches(frame, self.to_frame, centres, self.die_side, DIE_PX, angles), angles

    def upright(self, centres, frame_size: tuple[int, int]) -> list[float]:
        """The turn (degrees) of the patch around each canonical centre that puts the camera
        up in it: a flat die then shows the sides that face the lens above its top face
        only (its top is seen pushed away from the lens), while a cocked one shows them
        whichever way it leans."""
        if frame_size not in self._nadir:
            self._nadir[frame_size] = camera_nadir(self.to_frame, self.model, frame_size)
        nx, ny = self._nadir[frame_size]
        return [float(np.degrees(np.arctan2(nx - x, y - ny))) for x, y in centres]

    def candidates(self, canonical: np.ndarray, cube: tuple[float, float] | None = None,
                   rows: np.ndarray | None = None, limit: int = CANDIDATES) -> list[tuple[float, float]]:
        """Canonical points where a die may lie, none within ``CUBE_CLEAR`` of the ``cube``
        read there; ``rows`` as in ``placed``.

        Something lies where the colour departs from the empty board (darkening counts
        less: shadows); an opening by a disc narrower than a checker keeps the checkers
        and drops dice, so the die-sized remains are candidates, and so are spots inside
        the checkers whose colour is neither the board's nor a checker's, and crowds of
        new pip-like spots (a white die on a light point shows little but its pips), and
        the strongest lone spots (a one's single pip crowds nothing), all ranked by their
        strongest spot. The field seen in the gaps where two checkers of a row meet looks
        like a pip too: spots there count less as lone spots and in the ranking. At most
        ``limit``."""
        lab = _lab(cv2.resize(canonical, self._small, interpolation=cv2.INTER_LINEAR))
        diff = lab - self.empty_lab
        light = diff[..., 0]
        light[:] = cv2.max(light, 0) + SHADE * cv2.min(light, 0)
        change = cv2.sqrt(cv2.transform(diff * diff, np.ones((1, 3), np.float32)))
        changed = cv2.compare(change, CHANGE, cv2.CMP_GT) & self._surface_small
        checkerish = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._opening)
        side = self.die_side / 2
        found = _ridges(changed & ~cv2.dilate(checkerish, np.ones((3, 3), np.uint8)), side, 0.3)
        if len(self.checkers):
            # squared distance to the nearest checker colour: |lab|^2 - 2 lab.c + |c|^2
            near = cv2.transform(lab * lab, np.ones((1, 3), np.float32)) + np.min(
                [cv2.transform(lab, -2 * c[None]) + float(c @ c) for c in self.checkers], axis=0)
            foreign = cv2.compare(near, FOREIGN ** 2, cv2.CMP_GT) & cv2.compare(change, FOREIGN, cv2.CMP_GT)
            found += _ridges(foreign & checkerish, side, 0.2)
        found = [(2 * x + 0.5, 2 * y + 0.5) for x, y in found]
        spots = cv2.subtract(_spots(canonical), self.empty_spots)
        spots[self._surface == 0] = 0
        peaks = (spots > SPOT) & (spots >= cv2.dilate(spots, np.ones((3, 3), np.uint8)))
        found += _crowded(spots * peaks, self._square.shape[0], CROWDS)
        if rows is not None:
            cv2.multiply(spots, self._gap_weights(rows), dst=spots)
        found += _apart(spots, peaks, 0.8 * self._square.shape[0], CROWDS)
        # ranked by the strongest new pip-like spot in a die-sized square around them (a
        # one has a single pip, as strong as any)
        strongest = cv2.dilate(spots, self._square)
        h, w = strongest.shape
        score = [float(strongest[min(max(int(y), 0), h - 1), min(max(int(x), 0), w - 1)]) for x, y in found]
        clear = CUBE_CLEAR * self.model.ppd
        ranked: list[tuple[float, float]] = []
        for i in np.argsort(-np.asarray(score), kind="stable"):     # ties: the die-sized remains first
            if score[i] <= FAINT * max(score) or len(ranked) == limit:     # (next to) no pip-like spot
                break
            p = found[i]
            if cube is not None and max(abs(p[0] - cube[0]), abs(p[1] - cube[1])) < clear:
                continue
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > SPACING * self.die_side for q in ranked):
                ranked.append(p)
        return ranked

    def _missed(self, frame: np.ndarray, candidates, seen: list[Seen], later=()) -> list[Seen]:
        """``seen`` with the dice ``candidates`` missed: a die's pips and edges may put
        candidates on either side of it and none on it (the network finds a die only within
        about a third of a side of a patch's middle), so the middles of candidates about a
        die apart are read too. A die read there surely (``BETWEEN_SURE``) whose middle lies
        farther than ``APART`` sides from every die seen is another die; two read there a die
        apart, each within ``APART`` of one seen, are two dice touching whose patch between
        them was read as one of them, and they replace it. So are dice read ``LATER_SURE`` at
        the candidates ranked ``later``: a die where a row's checkers meet, its pips' spots
        weighed down as the gaps' are, may rank below many spots on the checkers."""
        between = self._between(candidates)
        places = between + list(later)
        if not places:
            return seen
        sure = [BETWEEN_SURE] * len(between) + [LATER_SURE] * len(later)
        patches, angles = self._patches(frame, places)
        found = [s for s in self._net.dice(patches, places, SAME_DIE * self.die_side, angles=angles,
                                           side=self.die_side) if s.confidence >= sure[s.best]]

        def near(a: Seen, b: Seen) -> bool:
            return bool(np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) <= APART * self.die_side)

        def flanked(die: Seen) -> bool:
            return any(not near(a, b) for a, b in combinations([f for f in found if near(f, die)], 2))

        out = [s for s in seen if not flanked(s)]
        for f in found:
            if not any(near(f, o) for o in out):
                out.append(f)
        return out

    def _between(self, ranked: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The middles of ``ranked`` candidates ``BETWEEN`` die sides apart (none within
        ``SPACING`` of a candidate or of another), at most half as many as ``CANDIDATES``."""
        pts = np.asarray(ranked, np.float64).reshape(-1, 2)
        i, j = np.triu_indices(len(pts), 1)
        apart = np.hypot(*(pts[i] - pts[j]).T) / self.die_side
        out: list[tuple[float, float]] = []
        for m in (pts[i] + pts[j])[(BETWEEN[0] < apart) & (apart < BETWEEN[1])] / 2:
            if all(np.hypot(*(m - q)) > SPACING * self.die_side for q in [*pts, *out]):
                out.append((float(m[0]), float(m[1])))
        return out[:CANDIDATES // 2]

    def _meeting_places(self, number: int) -> list[np.ndarray]:
        """The bands across point ``number`` where two checkers of its row meet, or its first
        checker and the point's base, every half diameter from the base (canonical polygons)."""
        base, along, across = region_axes(self.model, number)
        s = self.model.ppd
        out = []
        for a in np.arange(2 * ROW + 1) / 2:
            middle = base + along * a * s
            corners = [middle + (along * u * GAP_ALONG + across * v * GAP_ACROSS) * s
                       for u, v in ((-1, -1), (-1, 1), (1, 1), (1, -1))]
            out.append(np.round(corners).astype(np.int32))
        return out

    def _gap_weights(self, rows: np.ndarray) -> np.ndarray:
        """The weight of a spot at each canonical pixel: ``GAP_SPOTS`` where the field shows
        between the rims of checkers of a row that meet (``rows`` as in ``placed``; every
        half diameter along a pile), else 1."""
        weights = np.ones(self._surface.shape, np.float32)
        bands = [band for meets, count in zip(self._meets, rows) if count > 0
                 for band in (meets[0:2 * int(count):2] if count <= ROW else meets)]
        for band in bands:
            cv2.fillConvexPoly(weights, band, GAP_SPOTS)
        return weights

    def _box(self, cx: float, cy: float) -> tuple[int, int, int, int]:
        """The frame box (x, y, w, h) round a die read at canonical (cx, cy)."""
        r = 0.5 * self.size * self.model.ppd * BOX
        corners = np.array([(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)], np.float64)
        fc = np.asarray(self.to_frame(corners), np.float64).reshape(-1, 2)
        x0, y0 = np.floor(fc.min(axis=0)).astype(int)
        x1, y1 = np.ceil(fc.max(axis=0)).astype(int)
        return int(x0), int(y0), int(x1 - x0), int(y1 - y0)

    def _half(self, x: float, y: float) -> str | None:
        """Whose right-hand half holds canonical (x, y); None off the playing surface."""
        fx0, fy0, fx1, fy1 = self.model.field
        if not (fx0 <= x <= fx1 and fy0 <= y <= fy1):
            return None
        bx0, _, bx1, _ = self.model.bar
        right = x >= (bx0 + bx1) / 2
        return "white" if right != self._mirrored else "black"


def _ridges(mask: np.ndarray, side: float, solid: float) -> list[tuple[float, float]]:
    """Where ``mask`` holds something die-sized (``side`` pixels): the ridge points of its
    distance map at least ``solid`` sides deep (slivers and arcs are not), one per
    die-sized neighbourhood, deepest first."""
    depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    peak = cv2.dilate(depth, np.ones((int(side) | 1,) * 2, np.uint8))
    return _apart(depth, (depth >= peak) & (depth >= solid * side) & (depth <= 0.9 * side), 0.8 * side)


def _crowded(peaks: np.ndarray, square: int, limit: int) -> list[tuple[float, float]]:
    """Where pip-like spots (``peaks``: their strengths where they peak, else 0) crowd
    into a ``square``-pixel square, the strongest crowds first, each at its spots' middle:
    the squares holding the same spots tie, and the tie goes to the square nearest their
    middle (else a lone die's crowd was a square of ties, all but a few of them dropped
    among the strongest crowds' ties, and the die missed); at most ``limit``."""
    crowd = cv2.boxFilter(peaks, -1, (square, square), normalize=False)
    crowd += 1e-3 * cv2.GaussianBlur(peaks, (0, 0), square / 4)
    top = cv2.dilate(crowd, np.ones((square, square), np.uint8))
    return _apart(crowd, (crowd >= top) & (crowd > 0), 0.8 * square, limit)


def _apart(score: np.ndarray, where: np.ndarray, gap: float, limit: int = 64) -> list[tuple[float, float]]:
    """The points of ``where`` (x, y), highest ``score`` first, each more than ``gap`` from
    every one taken before it; at most ``limit``."""
    ys, xs = np.nonzero(where)
    values = score[ys, xs]
    if len(values) > 4 * limit:
        keep = np.argpartition(-values, 4 * limit)[:4 * limit]
        ys, xs, values = ys[keep], xs[keep], values[keep]
    order = np.argsort(-values, kind="stable")
    pts = np.stack([xs[order], ys[order]], axis=1).astype(np.float32)
    near = ((pts[:, None] - pts[None]) ** 2).sum(axis=2) <= gap * gap
    free = np.ones(len(pts), bool)
    taken: list[int] = []
    for i in range(len(pts)):
        if free[i]:
            taken.append(i)
            if len(taken) == limit:
                break
            free &= ~near[i]
    return [(float(x), float(y)) for x, y in pts[taken]]


def _lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)


def _spots(image: np.ndarray) -> np.ndarray:
    """Small round spots (pips) and not lines (rims, grain, point edges): the positive
    determinant of the Hessian of the lightly smoothed grey image, square-rooted."""
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.8)
    xx = cv2.Sobel(gray, cv2.CV_32F, 2, 0, ksize=3)
    yy = cv2.Sobel(gray, cv2.CV_32F, 0, 2, ksize=3)
    xy = cv2.Sobel(gray, cv2.CV_32F, 1, 1, ksize=3)
    return cv2.sqrt(cv2.max(xx * yy - xy * xy, 0))


def _apply_many(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
