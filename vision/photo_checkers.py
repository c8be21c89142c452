"""Checkers in a photo of a board taken with no calibration: discs found by their outlines.

A checker seen from above is a disc; whatever its colour and whatever lies around it,
its outline is an edge whose gradient points along the radius, all the way round
(a touching neighbour in its row hides only a short arc). ``disc_support`` scores every
pixel as a centre by the share of directions in which such a radial edge lies one
radius away; local maxima are the candidate discs. The checkers' radius is the one at
which discs explain most of the image (``checker_radius``). Each disc keeps the median
colour of its face (robust to a glossy highlight and to a rim of another colour), from
which ``split_colours`` tells the two sides apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DIRECTIONS = 32             # directions sampled round a disc's outline
RADIAL = 0.92               # a radial edge's gradient lies within ~23 degrees of the radius
MIN_DISCS = 4               # round outlines at one radius that make it the checkers' radius
COUNTED = 0.6               # ... of at least this support
CLEAR = 0.2                 # ... standing this share of the way from COUNTED to the clearest outline's support
SPREAD = (0.88, 1.0, 1.12)  # radii (times the checkers' radius) an outline may lie at
EDGE_PERCENTILE = 60        # gradients weaker than this share of the image are not edges
FAINT_PERCENTILE = 35       # ... when looking for the faint rest of an outline already found
MIN_EDGE = 2.0              # ... nor weaker than this (Lab units per pixel)
OVERFULL = 3               # discs beyond a side's checkers a colour group may hold (strays)
SEEN_LEAST = 0.6            # a checker cut by the photo's edge shows this share of its outline at least
CLEAR_OUTLINE = 0.8         # support of an outline that is surely a checker's (a point's bare base shows 0.65..0.7)


@dataclass(frozen=True)
class Disc:
    """A round thing the size of a checker: centre and radius in image pixels, ``support``
    the share of its outline seen as a radial edge (0..1), ``lab`` the median colour of its
    face (OpenCV 8-bit Lab). ``gap`` is the longest arc of the outline not seen, as a
    share of the circle: a neighbour hides a short arc of a checker's, while a point's
    straight sides leave most of a circle unseen toward its tip."""

    x: float
    y: float
    radius: float
    support: float
    lab: tuple[float, float, float]
    gap: float = 0.0

    @property
    def lightness(self) -> float:
        return self.lab[0]


def _lab(image: np.ndarray, sigma: float) -> np.ndarray:
    blurred = cv2.GaussianBlur(image, (0, 0), sigma) if sigma > 0 else image
    return cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB).astype(np.float32)


def radial_edges(image: np.ndarray, sigma: float = 1.0, percentile: float = EDGE_PERCENTILE) -> list[np.ndarray]:
    """For each of ``DIRECTIONS`` directions, where the image has an edge (stronger than
    ``percentile`` per cent of the image's gradients) whose colour gradient points that
    way (either sense): a list of 0/1 uint8 maps."""
    lab = _lab(image, sigma)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) / 8
    # the gradient's square along (ux, uy), summed over the channels, is
    # ux^2 xx + 2 ux uy xy + uy^2 yy: three planes serve every direction
    xx, xy, yy = (gx * gx).sum(axis=2), (gx * gy).sum(axis=2), (gy * gy).sum(axis=2)
    square = xx + yy
    magnitude = np.sqrt(square)
    strong = magnitude > max(MIN_EDGE, float(np.percentile(magnitude, percentile)))
    wanted = RADIAL * RADIAL * square
    maps = []
    for k in range(DIRECTIONS):
        angle = 2 * np.pi * k / DIRECTIONS
        ux, uy = np.cos(angle), np.sin(angle)
        along = (ux * ux) * xx + (2 * ux * uy) * xy + (uy * uy) * yy
        maps.append((strong & (along > wanted)).astype(np.uint8))
    return maps


def _shifted(plane: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``out[y, x] = plane[y + dy, x + dx]``, zero where that falls outside."""
    h, w = plane.shape
    out = np.zeros_like(plane)
    if abs(dx) >= w or abs(dy) >= h:
        return out
    out[max(0, -dy):h - max(0, dy), max(0, -dx):w - max(0, dx)] = \
        plane[max(0, dy):h - max(0, -dy), max(0, dx):w - max(0, -dx)]
    return out


def _hits(edges: list[np.ndarray], x: int, y: int, radius: float) -> np.ndarray:
    """For each direction, whether a radial edge lies about ``radius`` from (x, y) or the
    outline there lies beyond the photo's edge (unseen, not missing)."""
    h, w = edges[0].shape
    out = np.zeros(len(edges), bool)
    for k, plane in enumerate(edges):
        angle = 2 * np.pi * k / len(edges)
        px = int(round(x + radius * np.cos(angle)))
        py = int(round(y + radius * np.sin(angle)))
        if not (0 <= px < w and 0 <= py < h):
            out[k] = True
            continue
        for f in SPREAD:
            px = int(round(x + f * radius * np.cos(angle)))
            py = int(round(y + f * radius * np.sin(angle)))
            if 0 <= px < w and 0 <= py < h and plane[py, px]:
                out[k] = True
                break
    return out


def _longest_gap(hits: np.ndarray) -> float:
    """The longest circular run of misses, as a share of all directions."""
    if not hits.any():
        return 1.0
    start = int(np.argmax(hits))
    run = longest = 0
    for hit in np.roll(hits, -start):
        run = 0 if hit else run + 1
        longest = max(longest, run)
    return longest / len(hits)


def disc_support(edges: list[np.ndarray], radius: float, seen_least: float | None = None) -> np.ndarray:
    """Share of directions (0..1) in which a radial edge lies about ``radius`` from each
    pixel. With ``seen_least``, the share of the directions whose outline lies inside the
    photo (a checker cut by the photo's edge is judged by the part it shows), of at least
    ``seen_least`` of them."""
    h, w = edges[0].shape
    total = np.zeros((h, w), np.float32)
    seen = np.zeros((h, w), np.float32)
    ones = np.ones((h, w), np.uint8)
    for k, plane in enumerate(edges):
        angle = 2 * np.pi * k / len(edges)
        hit = np.zeros((h, w), np.uint8)
        for f in SPREAD:
            hit |= _shifted(plane, int(round(f * radius * np.cos(angle))), int(round(f * radius * np.sin(angle))))
        total += hit
        if seen_least is not None:
            seen += _shifted(ones, int(round(radius * np.cos(angle))), int(round(radius * np.sin(angle))))
    if seen_least is None:
        return total / len(edges)
    return total / np.maximum(seen, seen_least * len(edges))


def _peaks(support: np.ndarray, radius: float, threshold: float, separation: float) -> list[tuple[int, int, float]]:
    """Local maxima of the (smoothed) support above ``threshold``, strongest first, no two
    closer than ``separation`` radii."""
    smooth = cv2.GaussianBlur(support, (0, 0), max(1.0, radius / 8))
    k = int(radius * 0.5) | 1
    local = cv2.dilate(smooth, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ys, xs = np.nonzero((smooth >= local) & (smooth > threshold))
    order = np.argsort(-smooth[ys, xs], kind="stable")
    kept: list[tuple[int, int, float]] = []
    limit = (separation * radius) ** 2
    for j in order:
        x, y = int(xs[j]), int(ys[j])
        if all((x - a) ** 2 + (y - b) ** 2 > limit for a, b, _ in kept):
            kept.append((x, y, float(smooth[y, x])))
    return kept


def checker_radius(image: np.ndarray, smallest: float | None = None, largest: float | None = None) -> float | None:
    """The checkers' radius in pixels: the radius at which round outlines explain most of
    the image (the sum over strong disc candidates of their support times their area),
    searched on a half-size image between ``smallest`` and ``largest`` (default: 1/80 and
    1/8 of the image's shorter side). A board shows many checkers: a radius at which
    fewer than ``MIN_DISCS`` outlines stand out clearly (a cup, a clock face, or the
    blotches of a table far larger than the board's checkers, whose area outweighs their
    faint outlines) is taken only when no other explains anything; clearly is judged
    against the clearest outline at any radius (``CLEAR``), since a soft photo has none
    sharp. None when nothing round stands out."""
    short = min(image.shape[:2])
    smallest = smallest or max(short / 80, 5.0)
    largest = largest or short / 8
    half = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    edges = radial_edges(half, 1.0)
    radii = np.geomspace(smallest / 2, largest / 2, 26)
    found = [_peaks(disc_support(edges, r), r, COUNTED, 1.2) for r in radii]
    clearest = max((s for peaks in found for _, _, s in peaks), default=COUNTED)
    clear = COUNTED + CLEAR * (clearest - COUNTED)
    best, best_r = (False, 0.0), None
    for r, peaks in zip(radii, found):
        value = (sum(s >= clear for _, _, s in peaks) >= MIN_DISCS, sum(s - COUNTED for _, _, s in peaks) * r * r)
        if value[1] > 0 and value > best:
            best, best_r = value, 2 * float(r)
    return best_r


def disc_edges(image: np.ndarray, radius: float) -> list[np.ndarray]:
    """The radial edges (``radial_edges``) checkers of ``radius`` are found by."""
    return radial_edges(image, max(1.0, radius / 12))


def find_discs(image: np.ndarray, radius: float, threshold: float = 0.5, separation: float = 1.1,
               edges: list[np.ndarray] | None = None) -> list[Disc]:
    """Discs of about ``radius`` whose outline support is above ``threshold``, strongest
    first; ``edges`` the image's ``disc_edges`` when already found."""
    edges = disc_edges(image, radius) if edges is None else edges
    faint = radial_edges(image, max(1.0, radius / 12), FAINT_PERCENTILE)
    support = disc_support(edges, radius, SEEN_LEAST)
    lab = _lab(image, 0)
    h, w = support.shape
    face = max(int(radius * 0.7), 1)
    yy, xx = np.mgrid[-face:face + 1, -face:face + 1]
    round_face = xx * xx + yy * yy <= face * face
    discs = []
    for x, y, s in _peaks(support, radius, threshold, separation):
        y0, x0 = y - face, x - face
        window = lab[max(0, y0):min(h, y + face + 1), max(0, x0):min(w, x + face + 1)]
        mask = round_face[max(0, y0) - y0:max(0, y0) - y0 + window.shape[0],
                          max(0, x0) - x0:max(0, x0) - x0 + window.shape[1]]
        pixels = window[mask]
        median = np.median(pixels, axis=0)
        discs.append(Disc(float(x), float(y), float(radius), s, tuple(float(v) for v in median),
                          _longest_gap(_hits(faint, x, y, radius))))
    return discs


COLOUR_WEIGHTS = np.array([1.0, 1.5, 1.5])  # hue tells checkers apart as much as lightness
SPREAD_FLOOR = 4.0                           # Lab units: no side's colours are tighter than this


def weighted(lab) -> np.ndarray:
    """Lab colours (OpenCV 8-bit, ... x 3) in the space checkers' colours are compared in."""
    return np.asarray(lab, np.float64) * COLOUR_WEIGHTS


def split_colours(model: list[Disc], discs: list[Disc], most: int = 15) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two sides' colours learned from ``model`` (discs that surely are checkers); for
    each of ``discs`` its side (1 the lighter, 0 the darker) and its colour's distance from
    each side's median in units of that side's spread (N x 2, column 1 the lighter side);
    and the sides' medians (2 x 3, ``weighted``, row 1 the lighter side).

    Two-means in Lab is started from the extremes along lightness, each chroma axis and
    the main axis of the colours; the split kept is the one whose groups stand furthest
    apart for their spread, a group of more than ``most`` discs counting against it (a
    side has no more checkers than that). A group still well over ``most`` holds two
    shades (one side's checkers lit apart, or a third colour): it is split again and the
    shade nearer the other group joins it, where that leaves neither side overfull.
    """
    if not discs:
        return np.zeros(0, int), np.zeros((0, 2)), np.zeros((2, 3))
    colours = weighted([d.lab for d in discs])
    train = weighted([d.lab for d in model]) if len(model) >= 2 else colours
    member = _regroup(train, _best_split(train, most), most)
    centres = np.array([np.median(train[member == k], axis=0) for k in range(2)])
    spread = np.array([np.median(np.linalg.norm(train[member == k] - centres[k], axis=1))
                       for k in range(2)]) + SPREAD_FLOOR
    if centres[0, 0] > centres[1, 0]:
        centres, spread = centres[::-1], spread[::-1]
    distance = np.linalg.norm(colours[:, None] - centres[None], axis=2) / spread[None]
    return distance.argmin(axis=1), distance, centres


def _best_split(colours: np.ndarray, most: int) -> np.ndarray:
    """The two-means split of ``colours`` (0/1 per colour) whose groups stand furthest
    apart for their spread, less for every colour a group holds beyond ``most``."""
    best = None
    for axis in _split_axes(colours):
        centres, member = _two_means(colours, axis)
        spread = np.array([np.median(np.linalg.norm(colours[member == k] - centres[k], axis=1))
                           if (member == k).any() else 0.0 for k in range(2)]) + SPREAD_FLOOR
        sizes = np.bincount(member, minlength=2)
        separation = float(np.linalg.norm(centres[1] - centres[0]) / spread.sum())
        separation -= 0.1 * float(np.maximum(sizes - most, 0).sum())
        if sizes.min() < 2:         # one odd colour is a stray, not a side
            separation -= 1.0
        if best is None or separation > best[0]:
            best = (separation, member)
    return best[1]


def _regroup(colours: np.ndarray, member: np.ndarray, most: int) -> np.ndarray:
    """``member`` with the shade of an overfull group (more than ``most`` + ``OVERFULL``)
    nearer the other group moved to it, unless that overfills the other."""
    sizes = np.bincount(member, minlength=2)
    big = int(sizes.argmax())
    if sizes[big] <= most + OVERFULL or sizes[1 - big] == 0:
        return member
    inside = np.flatnonzero(member == big)
    shades = _best_split(colours[inside], most)
    other = np.median(colours[member != big], axis=0)
    near = int(np.argmin([np.linalg.norm(np.median(colours[inside[shades == k]], axis=0) - other)
                          if (shades == k).any() else np.inf for k in range(2)]))
    moved = inside[shades == near]
    if sizes[1 - big] + len(moved) > most + OVERFULL or len(moved) == len(inside):
        return member
    member = member.copy()
    member[moved] = 1 - big
    return member


def _split_axes(colours: np.ndarray) -> list[np.ndarray]:
    """Directions to start a two-way split along: Lab's three axes and the colours' main axis."""
    axes = [np.eye(3)[k] for k in range(3)]
    centred = colours - colours.mean(axis=0)
    if len(colours) >= 2:
        axes.append(np.linalg.svd(centred, full_matrices=False)[2][0])
    return axes


def _two_means(colours: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-means (medians) started from the colours at both ends of ``axis``."""
    t = colours @ axis
    centres = np.array([colours[np.argmin(t)], colours[np.argmax(t)]])
    member = np.zeros(len(colours), int)
    for _ in range(20):
        member = np.linalg.norm(colours[:, None] - centres[None], axis=2).argmin(axis=1)
        moved = np.array([np.median(colours[member == k], axis=0) if (member == k).any() else centres[k]
                          for k in range(2)])
        if np.allclose(moved, centres):
            break
        centres = moved
    return centres, member


UNDER_OFFSET = (0.45, 1.3)  # radii a checker under a pile's upper layer lies from one over it
UNDER_MARGIN = 0.2          # its outline is judged where it lies this many radii clear of the discs over it
UNDER_SEEN = 0.3            # ... on at least this share of the outline
UNDER_SUPPORT = 0.8         # ... and must show as a radial edge on this share of that part
UNDER_PLATEAU = 0.5         # its centre is the mean of the places this near as well outlined as the best


def under_discs(image: np.ndarray, tops: list[Disc], radius: float,
                edges: list[np.ndarray] | None = None) -> list[Disc]:
    """Checkers a pile's upper layer partly hides: discs ``UNDER_OFFSET`` radii from one of
    ``tops`` (the discs whose whole outline shows) whose own outline shows as a radial
    edge on ``UNDER_SUPPORT`` of its part clear of every top. A checker put on two in a
    row hides a third of each; one put on a single checker hides most of it and leaves a
    crescent. Its centre is the middle of the places near it outlined as well as the best
    (an outline fits a range of places; the one showing most of it lies at the range's
    edge). ``support`` is the share of its clear part that shows as an edge and ``gap``
    the share hidden, both of the best place's outline, ``lab`` the median colour of the
    part of the face that shows. ``edges`` as for ``find_discs``."""
    if not tops:
        return []
    edges = np.stack(disc_edges(image, radius) if edges is None else edges)
    lab = _lab(image, 0)
    h, w = image.shape[:2]
    centres = np.array([(t.x, t.y) for t in tops])
    radii = np.array([t.radius for t in tops])
    angles = 2 * np.pi * np.arange(DIRECTIONS) / DIRECTIONS
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    offsets = np.concatenate([d * ring for d in np.linspace(*UNDER_OFFSET, 8)]) * radius
    found = []
    for top in tops:
        near = np.hypot(*(centres - (top.x, top.y)).T) < 4 * radius
        cands = np.array([top.x, top.y]) + offsets
        clear = np.hypot(*(cands[:, None] - centres[near][None]).transpose(2, 0, 1)).min(axis=1)
        cands = cands[clear >= UNDER_OFFSET[0] * radius - 0.5]
        outline = cands[:, None] + radius * ring[None]                          # C x K x 2
        gaps = np.hypot(*(outline[:, :, None] - centres[near][None, None]).transpose(3, 0, 1, 2)) - radii[near]
        seen = gaps.min(axis=2) > UNDER_MARGIN * radius
        hit = np.zeros(seen.shape, bool)
        for f in SPREAD:
            p = np.rint(cands[:, None] + f * radius * ring[None]).astype(int)
            inside = (p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)
            px, py = np.clip(p[..., 0], 0, w - 1), np.clip(p[..., 1], 0, h - 1)
            hit |= inside & (edges[np.arange(DIRECTIONS)[None], py, px] > 0)
        shown = seen.sum(axis=1)
        support = (hit & seen).sum(axis=1) / np.maximum(shown, 1)
        for j in np.flatnonzero((shown >= UNDER_SEEN * DIRECTIONS) & (support >= UNDER_SUPPORT)):
            found.append((float(support[j]), float(shown[j]), cands[j]))
    found.sort(key=lambda f: (-f[0], -f[1]))
    places = np.array([f[2] for f in found]).reshape(-1, 2)
    supports = np.array([f[0] for f in found])
    kept: list[Disc] = []
    for support, shown, (x, y) in found:
        if any(np.hypot(x - k.x, y - k.y) < 1.2 * radius for k in kept):
            continue
        plateau = (supports >= support) & (np.hypot(*(places - (x, y)).T) < UNDER_PLATEAU * radius)
        x, y = places[plateau].mean(axis=0)
        face = _face_pixels(lab, x, y, radius, centres, radii)
        if len(face) < 8:
            continue
        median = np.median(face, axis=0)
        kept.append(Disc(float(x), float(y), float(radius), support, tuple(float(v) for v in median),
                         1.0 - shown / DIRECTIONS))
    return kept


def _face_pixels(lab: np.ndarray, x: float, y: float, radius: float, centres: np.ndarray,
                 radii: np.ndarray) -> np.ndarray:
    """The Lab pixels of the face of a disc at (x, y) that lie clear of the discs over it."""
    h, w = lab.shape[:2]
    r = int(np.ceil(radius))
    x0, y0, x1, y1 = max(0, int(x) - r), max(0, int(y) - r), min(w, int(x) + r + 1), min(h, int(y) + r + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    mask = np.hypot(xx - x, yy - y) <= 0.85 * radius
    for (cx, cy), cr in zip(centres, radii):
        mask &= np.hypot(xx - cx, yy - cy) > cr + UNDER_MARGIN * radius
    return lab[y0:y1, x0:x1][mask]


LOWER_BASE = 0.9    # radii from its point's base past which a pile's base-most checker may lie on another
LOWER_RIM = 20.0    # Lab units its rim (or the shade round it) stands from its face's colour at least
LOWER_DIP = 0.75    # past the rim the face's colour (or the shade on it) shows again, within this share of the
LOWER_RISE = 0.5    # rim's contrast, and then another rim: this share of the first's, rising out of that dip
LOWER_EDGE = (0.6, 1.3)  # radii from its centre the top checker's rim lies (the radius found may be a fifth under)
LOWER_STEP = 0.06   # radii between the samples of the profile toward the base
LOWER_WIDE = 0.4    # radii either side of the line to the base the profile takes its median over


def _toward_base(image: np.ndarray, x: float, y: float, radius: float,
                 base: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The profile from the checker at (x, y) toward ``base`` (``image`` BGR, image pixels):
    distances from its centre, from half a radius to 0.3 radii past the base, and at each
    how far the colour (the median across ``LOWER_WIDE`` radii either side of the line)
    lies from the checker's face's."""
    along = np.array(base, float) - (x, y)
    reach = float(np.hypot(*along))
    axis = along / max(reach, 1e-9)
    across = np.array([-axis[1], axis[0]])
    h, w = image.shape[:2]
    x0, y0 = max(0, int(min(x, base[0]) - 2 * radius)), max(0, int(min(y, base[1]) - 2 * radius))
    x1, y1 = min(w, int(max(x, base[0]) + 2 * radius) + 1), min(h, int(max(y, base[1]) + 2 * radius) + 1)
    lab = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)

    def sample(t: np.ndarray, s: np.ndarray) -> np.ndarray:
        p = np.array([x - x0, y - y0]) + t[:, None, None] * axis + s[None, :, None] * across
        px = np.clip(np.rint(p[..., 0]).astype(int), 0, x1 - x0 - 1)
        py = np.clip(np.rint(p[..., 1]).astype(int), 0, y1 - y0 - 1)
        return lab[py, px]                                                    # T x S x 3

    inside = np.linspace(-0.5, 0.5, 5) * radius
    face = np.median(sample(inside, inside).reshape(-1, 3), axis=0)
    t = np.arange(0.5 * radius, reach + 0.3 * radius, LOWER_STEP * radius)
    profile = np.median(np.linalg.norm(sample(t, np.linspace(-LOWER_WIDE, LOWER_WIDE, 7) * radius) - face, axis=2),
                        axis=1)
    return t, profile


def lower_rim(image: np.ndarray, x: float, y: float, radius: float, base: tuple[float, float]) -> bool:
    """Whether a checker lies under the one at (x, y) (``image`` BGR, image pixels), showing
    as a crescent on the side of ``base`` (the nearest point of its point's base).

    A checker put on the base-most one of a row, a little toward the tip, hides all of
    it but a crescent at the base: from the top checker's centre toward the base its
    face's colour gives way to its rim (or the shade at its edge), comes back over the
    crescent (a light checker's in the top one's shade comes back only part way) and
    gives way again at the lower checker's rim, rising out of that dip, where a single
    checker's gives way once, to the point or the case. Only a checker lying
    ``LOWER_BASE`` radii or more from the base leaves room for a crescent."""
    if np.hypot(base[0] - x, base[1] - y) < LOWER_BASE * radius:
        return False
    t, profile = _toward_base(image, x, y, radius, base)
    rim = [j for j in np.flatnonzero((t >= LOWER_EDGE[0] * radius) & (t <= LOWER_EDGE[1] * radius))
           if j + 1 < len(t) and profile[j] >= LOWER_RIM and profile[j] >= profile[j + 1]]
    if not rim:
        return False
    first = profile[rim[0]]
    dip, low = 0, np.inf
    for value in profile[rim[0] + 1:]:
        if dip >= 2 and value >= LOWER_RISE * first and value >= low / LOWER_DIP:
            return True
        if value <= LOWER_DIP * first:
            dip, low = dip + 1, min(low, value)
        else:                           # back at the rim's level before any dip: start again
            dip, low = 0, np.inf
    return False


def row_rims(image: np.ndarray, x: float, y: float, radius: float, base: tuple[float, float]) -> list[float]:
    """Distances (image pixels) from the checker at (x, y) toward ``base`` at which a rim
    crosses the line: its own, then those of the checkers of its row toward the base (the
    last may be where the base-most one meets the case).
    A row squeezed onto its point shows each checker under the next as a crescent of its
    face between two rims. A rim is a peak of the colour's distance from the top
    checker's face of at least ``LOWER_RIM`` and ``LOWER_RISE`` of its own rim's (a shade
    or a glint on a crescent is fainter); two peaks are one rim unless the profile dips
    between them to ``LOWER_DIP`` of the lower one (the face shows between)."""
    t, profile = _toward_base(image, x, y, radius, base)
    own = profile[(t >= LOWER_EDGE[0] * radius) & (t <= LOWER_EDGE[1] * radius)]
    least = max(LOWER_RIM, LOWER_RISE * float(own.max(initial=0.0)))
    peaks = [j for j in range(1, len(t) - 1)
             if profile[j] >= least and profile[j] >= profile[j - 1] and profile[j] >= profile[j + 1]]
    kept: list[int] = []
    for j in peaks:
        if kept and profile[kept[-1]:j + 1].min() > LOWER_DIP * min(profile[kept[-1]], profile[j]):
            kept[-1] = max(kept[-1], j, key=lambda k: profile[k])
        else:
            kept.append(j)
    return [float(t[j]) for j in kept]
