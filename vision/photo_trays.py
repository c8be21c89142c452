"""Reading the bear-off trays in a photo: checkers standing on edge beyond a field end.

A tray runs along an end of the field, beyond the rim between them. Borne-off checkers
stand on edge in it, one against the next: seen from above, a band a checker's diameter
across the tray, of its side's colour, each checker's face lightest in its middle. The
strip beyond each end is looked at straight (through the field's homography); a band is
where edges across the tray crowd over a checker's width, running on as far as those
edges or its side's colour (learned from the checkers on the points) go, and each face
along it is one checker, or, where the lightest lines are far lighter than the side's
colour (dark checkers with silver rims: the rims of checkers side by side show as one
line), each stretch between two of them, the band running from the first rim to the last
(however far the case's dark around them stretches it). The checkers found on the points
and the bar (one on the ace point may reach over the rim) take no part.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.photo_board import FieldFit

PX_PER_DIAMETER = 24          # the straightened strip's scale
FINEST = 1.5                  # photo pixels a strip pixel may stand for, sampled once (more: averaged)
REACH = 3.4                   # diameters beyond the field's end looked at (rim, strip and tray)
NEAR_END = 0.15               # ... from this far beyond it (the field's edge itself)
BEYOND_ENDS = 0.12            # field heights the trays reach beyond the field's sides
ACROSS = (0.75, 1.25)         # a band's width across the tray, in diameters (a die's or the cube's less)
EDGE_FLOOR = 4.0              # mean edge strength (Lab units per pixel) over a band at least ...
EDGE_OVER = 3.0               # ... and this many times the strip's usual
FLOOR_APART = 12.0            # Lab units a line across a band lies from the tray's floor ...
GAP = 0.15                    # ... but for gaps this many diameters long (the dark between faces)
THINNEST = 0.18               # diameters: the least room a checker standing on edge takes ...
FACE_LENGTH = 0.45            # ... and the most
SINGLE = 0.7                  # ... a band of one checker at most (its face and the side below it)
EVEN = 0.2                    # steps: the most a face lies from the even row that fits them all best
ENDS = (0.5, 2.5)             # steps a band runs beyond its first and last faces' (their halves, a side below)
SIDE_SPREADS = 4.0            # a band's middle lies within this many spreads of its side's colour
FACE_CONTRAST = 8.0           # a face's middle is this much lighter (Lab L) than the dark between faces
RIM_LIGHTER = 60.0            # lines this much lighter (Lab L) than the side's colour are rims between faces
TRAY_FROM = 0.4               # diameters beyond the field's end a tray starts at least (the rim between)
MOST = 0.75                   # share of a band's lines off the tray's floor that its run of faces holds at least
CLEAR = 1.15                  # radii round a checker found where the strip is not looked at


@dataclass(frozen=True)
class TrayBand:
    """Checkers of one ``colour`` ('light'/'dark') standing on edge beyond field end
    ``end`` (0 or 1, the field's x): ``count`` of them, the band from ``start`` to ``stop``
    along the end (field y)."""

    end: int
    colour: str
    count: int
    start: float
    stop: float


def read_trays(image: np.ndarray, fit: FieldFit, checkers) -> list[TrayBand]:
    """The bands of checkers standing on edge beyond either end of the field in ``image``
    (BGR); ``checkers`` those found (x, y, radius, colour, place). A band of the darker
    side whose faces' lines are far lighter than its colour shows silver rims, its faces
    between them; the lighter side's faces are lighter than any rim, and lines far
    lighter than them are glints."""
    on_points = [c for c in checkers if c.place == "point"]
    colours = _side_colours(image, on_points)
    if colours is None:
        return []
    darker = min(colours, key=lambda side: colours[side][0][0])
    diameter = 2 * float(np.median([c.radius for c in on_points]))
    unit = fit.point_width * diameter / fit.point_width_px()      # a diameter in field units

    def field_y(row: int) -> float:
        return row / PX_PER_DIAMETER * unit - BEYOND_ENDS

    bands = []
    for end in (0, 1):
        lab, seen = _strip(image, fit, end, unit, checkers, diameter)
        for start, stop, x0, x1, colour in _bands(lab, seen, colours):
            if x0 < (TRAY_FROM - NEAR_END) * PX_PER_DIAMETER or field_y(start) < 0.5 < field_y(stop):
                continue        # on the field's own edge, or across the middle (a hinge, the trays' divider)
            lightness = _lightness(lab, x0, x1)
            faces = _faces(lightness, start, stop)
            if colour == darker and faces and np.median(lightness[faces]) > colours[colour][0][0] + RIM_LIGHTER:
                # silver rims: the faces lie between them, the band from the first to the last
                faces = _one_line(faces, lightness)
                start, stop = faces[0], faces[-1]
                faces = [(a + b) // 2 for a, b in zip(faces, faces[1:])]
            count = _standing(faces, stop - start)
            if count:
                bands.append(TrayBand(end, colour, count, field_y(start), field_y(stop)))
    return bands


def _side_colours(image: np.ndarray, checkers) -> dict[str, tuple[np.ndarray, float]] | None:
    """Each side's checker colour (Lab) and its spread, from the middles of its checkers."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    out = {}
    for colour in ("light", "dark"):
        pixels = []
        for c in checkers:
            if c.colour != colour:
                continue
            r = max(1, int(c.radius * 0.5))
            x, y = int(round(c.x)), int(round(c.y))
            pixels.append(lab[max(0, y - r):min(h, y + r + 1), max(0, x - r):min(w, x + r + 1)].reshape(-1, 3))
        if not pixels:
            return None
        pixels = np.vstack(pixels)
        mean = np.median(pixels, axis=0)
        spread = float(np.median(np.linalg.norm(pixels - mean, axis=1))) + 4.0
        out[colour] = (mean, spread)
    return out


def _strip(image: np.ndarray, fit: FieldFit, end: int, unit: float, checkers,
           diameter: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo beyond field end ``end`` straightened (Lab): x across the tray outward from
    the field (``PX_PER_DIAMETER`` a diameter), y along it from field y = -``BEYOND_ENDS``;
    and where it shows the photo and no checker found on the points or the bar. Where a
    strip pixel stands for more than ``FINEST`` of the photo's (its checkers ``diameter``
    pixels across), the strip is sampled the least whole number of times finer that
    brings a sample to at most that and averaged down, each of its pixels about the mean of
    the photo's under it: sampled once, the photo's detail jitters the faces' lines."""
    scale = PX_PER_DIAMETER / unit
    width, height = int(np.ceil(REACH * PX_PER_DIAMETER)), int(np.ceil((1 + 2 * BEYOND_ENDS) * scale))
    sign = 1.0 if end == 1 else -1.0
    to_field = np.array([[sign / scale, 0, end + sign * NEAR_END * unit], [0, 1 / scale, -BEYOND_ENDS], [0, 0, 1]])
    warp = fit.homography @ to_field
    oversample = max(1, int(np.ceil(diameter / (FINEST * PX_PER_DIAMETER))))
    # a fine pixel's place in strip pixels, so that each block of them averages to its strip pixel's middle
    shift = (1 - oversample) / (2 * oversample)
    fine = np.array([[1 / oversample, 0, shift], [0, 1 / oversample, shift], [0, 0, 1]])
    strip = cv2.warpPerspective(image, warp @ fine, (oversample * width, oversample * height),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    strip = cv2.resize(strip, (width, height), interpolation=cv2.INTER_AREA)
    clear = np.full(image.shape[:2], 255, np.uint8)
    for c in (c for c in checkers if c.place != "off"):
        cv2.circle(clear, (int(round(c.x)), int(round(c.y))), int(round(CLEAR * c.radius)), 0, -1)
    seen = cv2.warpPerspective(clear, warp, (width, height), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                               borderValue=0) > 0
    return cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32), seen


def _bands(lab: np.ndarray, seen: np.ndarray, colours) -> list[tuple[int, int, int, int, str]]:
    """Runs along the strip (rows start..stop, columns x0..x1) crossed by edges over a
    checker's diameter (``ACROSS``) and no wider: the faces of checkers on edge, and the
    side (of ``colours``) whose colour they are nearer. A band's width is measured again
    over all its rows (``_across``; a few rows of its end are a noisy measure of it), that
    width taken where it is still a checker's."""
    across = int(ACROSS[0] * PX_PER_DIAMETER)
    face = int(round(FACE_LENGTH * PX_PER_DIAMETER))
    weights = np.array([1.0, 0.5, 0.5], np.float32)
    edges = sum(w * np.abs(cv2.Sobel(lab[:, :, i], cv2.CV_32F, 0, 1, ksize=3)) / 4 for i, w in enumerate(weights))
    edges[~cv2.erode(seen.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)] = 0
    window = cv2.blur(edges, (across, face), borderType=cv2.BORDER_CONSTANT)
    strength, where = window.max(axis=1), window.argmax(axis=1)
    level = max(EDGE_FLOOR, EDGE_OVER * float(np.median(strength)))
    lean = across // 2         # how far a band's edges may wander across from row to row
    out: list[tuple[int, int, int, int, str]] = []
    j = 0
    while j < len(strength):
        if strength[j] < level:
            j += 1
            continue
        k = j
        while k + 1 < len(strength) and strength[k + 1] >= level and abs(int(where[k + 1]) - int(where[j])) <= lean:
            k += 1
        x0, x1 = _across(edges[j:k + 1])
        if _checker_wide(x0, x1):
            band = _as_side(lab, seen, edges, level, (j + k) // 2, x0, x1, colours)
            if band is not None and not any(band[0] < b[1] and b[0] < band[1] for b in out):
                wide = _across(edges[band[0]:band[1]])
                if _checker_wide(*wide):
                    band = (band[0], band[1], *wide, band[4])
                out.append(band)
        j = k + 1
    return out


def _checker_wide(x0: int, x1: int) -> bool:
    """Whether columns x0..x1 of the strip are as wide as a checker (``ACROSS``)."""
    return ACROSS[0] * PX_PER_DIAMETER <= x1 - x0 <= ACROSS[1] * PX_PER_DIAMETER


def _across(edges: np.ndarray) -> tuple[int, int]:
    """The columns x0..x1 where the edges along rows ``edges`` are at least half their
    strongest: a band's width across the tray."""
    profile = edges.mean(axis=0)
    wide = np.flatnonzero(profile >= 0.5 * profile.max())
    return int(wide.min()), int(wide.max()) + 1


def _as_side(lab: np.ndarray, seen: np.ndarray, edges: np.ndarray, level: float, middle: int, x0: int, x1: int,
             colours) -> tuple[int, int, int, int, str] | None:
    """The band about row ``middle`` (start, stop, x0, x1, colour) as the side's whose
    colour its middle is nearer (``_extent`` with each side's colour, cut to its lines off
    the tray's floor: ``_off_floor``; lines more than ``RIM_LIGHTER`` lighter than the
    side's colour left out if a third of the middle is darker: silver rims between dark
    faces; the rest, or their lighter half where that lies nearer: the faces' middles,
    not the shade between them), None unless within ``SIDE_SPREADS`` of it (a tray's
    divider, the rim between its ends, is no side's colour) and ``THINNEST`` long."""
    across = _lines_across(lab, seen, edges, level, x0, x1)
    if across is None:
        return None
    _, lines, floor, _ = across
    quarter = (x1 - x0) // 4
    best = None
    for colour, (mean, spread) in colours.items():
        extent = _extent(*across, middle, mean)
        if extent is not None:
            extent = _off_floor(extent, lines, floor, middle, mean)
            inner = lab[extent[0]:extent[1], x0 + quarter:x1 - quarter].reshape(-1, 3)
            faces = inner[inner[:, 0] <= mean[0] + RIM_LIGHTER]
            if 3 * len(faces) >= len(inner):
                inner = faces        # silver rims between dark faces: the faces' colour
            middles = inner[inner[:, 0] >= np.median(inner[:, 0])]
            apart = min(float(np.linalg.norm(np.median(part, axis=0) - mean)) / spread for part in (inner, middles))
            if best is None or apart < best[0]:
                best = (apart, extent, colour)
    if best is None or best[0] > SIDE_SPREADS or best[1][1] - best[1][0] < THINNEST * PX_PER_DIAMETER:
        return None
    return (*best[1], x0, x1, best[2])


def _off_floor(extent: tuple[int, int], lines: np.ndarray, floor: np.ndarray, middle: int,
               side: np.ndarray) -> tuple[int, int]:
    """A band's ``extent`` (rows) cut to its run of lines off the tray's ``floor`` (beyond
    ``FLOOR_APART`` from it, gaps of ``GAP`` bridged) nearest row ``middle``, where that
    run holds ``MOST`` of the extent's lines off the floor: the faces' edges blur into the
    floor beside them, and the floor is no checker's (the band's colour and length count
    its checkers). A line darker than the floor and farther from the ``side``'s colour
    than the floor is is the floor in the faces' shade, no face. Faces of a side whose
    colour is the floor's (black on a black floor, their silver rims all that stands off
    it) tell nothing: the band stays whole."""
    if _floor_coloured(side, floor):
        return extent
    part = lines[extent[0]:extent[1]]
    shade = (part[:, 0] < floor[0]) & (np.linalg.norm(part - side, axis=1) > np.linalg.norm(floor - side))
    off = extent[0] + np.flatnonzero((np.linalg.norm(part - floor, axis=1) > FLOOR_APART) & ~shade)
    runs = np.split(off, np.flatnonzero(np.diff(off) > GAP * PX_PER_DIAMETER) + 1) if len(off) else []
    run = min(runs, key=lambda r: 0 if r[0] <= middle <= r[-1] else min(abs(r - middle)), default=None)
    if run is None or len(run) < MOST * len(off):
        return extent
    return int(run[0]), int(run[-1]) + 1


def _lines_across(lab: np.ndarray, seen: np.ndarray, edges: np.ndarray, level: float, x0: int,
                  x1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The lines across the strip at columns x0..x1: which show the photo (``inside``),
    their median colours, the tray's floor there (the colour most of them show) and which
    are crossed by edges as a band's (at ``level``); None where too few show it."""
    face = int(round(FACE_LENGTH * PX_PER_DIAMETER))
    inside = seen[:, x0:x1].sum(axis=1) > (x1 - x0) // 2
    if inside.sum() < 2 * PX_PER_DIAMETER:
        return None
    lines = np.array([np.median(lab[r, x0:x1][seen[r, x0:x1]], axis=0) if inside[r] else np.zeros(3)
                      for r in range(len(lab))])
    energy = cv2.blur(edges[:, x0:x1].mean(axis=1).reshape(-1, 1), (1, face), borderType=cv2.BORDER_CONSTANT)
    busy = cv2.erode((energy >= level).astype(np.uint8), np.ones((face, 1), np.uint8)).ravel().astype(bool)
    return inside, lines, _mode(lines[inside]), busy


def _extent(inside: np.ndarray, lines: np.ndarray, floor: np.ndarray, busy: np.ndarray, middle: int,
            side: np.ndarray) -> tuple[int, int] | None:
    """The run of lines across (``_lines_across``) about row ``middle`` crossed by edges
    as a band's or nearer the ``side``'s colour than the tray's floor (unless the side's
    colour is the floor's and rims far lighter show: then what is nearer it is the case
    or the table beyond), gaps of a face's dark edge bridged; None where none is."""
    from_floor = np.linalg.norm(lines - floor, axis=1)
    rimmed = _floor_coloured(side, floor) and bool((lines[inside, 0] > side[0] + RIM_LIGHTER).any())
    coloured = (np.linalg.norm(lines - side, axis=1) < from_floor) & (from_floor > FLOOR_APART) & (not rimmed)
    differs = inside & (busy | coloured)
    hits = np.flatnonzero(differs)
    if not len(hits):
        return None
    a = b = int(hits[np.argmin(np.abs(hits - middle))])
    if abs(a - middle) > int(round(FACE_LENGTH * PX_PER_DIAMETER)):
        return None
    gap = int(GAP * PX_PER_DIAMETER)
    while a > 0 and differs[max(0, a - gap):a].any():
        a = max(0, a - gap) + int(np.flatnonzero(differs[max(0, a - gap):a])[0])
    while b < len(lines) - 1 and differs[b + 1:b + 1 + gap].any():
        b = b + 1 + int(np.flatnonzero(differs[b + 1:b + 1 + gap])[-1])
    return a, b + 1


def _floor_coloured(side: np.ndarray, floor: np.ndarray) -> bool:
    """Whether a side's colour is the tray floor's (within ``FLOOR_APART``: black checkers
    on a black floor, only their silver rims standing off it)."""
    return bool(np.linalg.norm(side - floor) <= FLOOR_APART)


def _mode(lines: np.ndarray) -> np.ndarray:
    """The colour (Lab) the most of ``lines`` lie within ``FLOOR_APART`` / 2 of."""
    near = np.linalg.norm(lines[:, None, :] - lines[None, ::4, :], axis=2) <= FLOOR_APART / 2
    return np.median(lines[near[:, int(np.argmax(near.sum(axis=0)))]], axis=0)


def _faces(lines: np.ndarray, start: int, stop: int) -> list[int]:
    """The rows of a band's faces (rows start..stop of the strip whose lines across the
    band have lightness ``lines``, from ``_lightness``): each face shows lightest in its
    middle, a peak of the lines' lightness standing ``FACE_CONTRAST`` above the lows on
    both sides of it within a face's length (the edges between faces, or beyond the band),
    each low taken before any lighter line."""
    face = int(round(FACE_LENGTH * PX_PER_DIAMETER))
    lo, hi = max(0, start - face), min(len(lines), stop + face)
    lightness = lines[lo:hi]

    def low(i: int, way: int) -> float:
        least, j = lightness[i], i + way
        while 0 <= j < len(lightness) and abs(j - i) <= face and lightness[j] <= lightness[i]:
            least, j = min(least, lightness[j]), j + way
        return float(least)

    return [lo + i for i in range(max(1, start - lo), min(stop - lo, len(lightness) - 1))
            if lightness[i] > lightness[i - 1] and lightness[i] >= lightness[i + 1]
            and lightness[i] - max(low(i, -1), low(i, 1)) >= FACE_CONTRAST]


def _one_line(rims: list[int], lines: np.ndarray) -> list[int]:
    """The rows of the lines of rims (``rims``, in order, their lightness in ``lines``):
    peaks nearer than ``THINNEST`` are one line, at its lightest (two checkers' rims side
    by side show as one, its glint peaking twice)."""
    out = [rims[0]]
    for row in rims[1:]:
        if row - out[-1] >= THINNEST * PX_PER_DIAMETER:
            out.append(row)
        elif lines[row] > lines[out[-1]]:
            out[-1] = row
    return out


def _lightness(lab: np.ndarray, x0: int, x1: int) -> np.ndarray:
    """Each line's lightness across a band (columns ``x0``..``x1``), over its middle half."""
    quarter = (x1 - x0) // 4
    return lab[:, x0 + quarter:x1 - quarter, 0].mean(axis=1)


def _standing(faces: list[int], length: int) -> int:
    """Checkers standing in a band ``length`` rows long whose faces lie at rows ``faces``:
    one a face, the faces a checker's thickness apart (``THINNEST`` to ``FACE_LENGTH``
    diameters, evenly: none more than ``EVEN`` of a step from the even row that fits them
    best, since each face's lightest line may lie a pixel or two off its middle) and the
    band about as long as their steps (``ENDS`` more); 0 where the faces are no such row
    (a board's pattern, wood's grain, a hinge)."""
    if not faces:
        return 0
    if len(faces) == 1:
        return int(length <= SINGLE * PX_PER_DIAMETER)
    steps = np.diff(faces)
    order = np.arange(len(faces))
    even = np.polyval(np.polyfit(order, faces, 1), order)
    if steps.min() < THINNEST * PX_PER_DIAMETER or steps.max() > FACE_LENGTH * PX_PER_DIAMETER \
            or np.abs(faces - even).max() > EVEN * steps.mean():
        return 0
    ends = length / steps.mean() - (len(faces) - 1)
    return len(faces) if ENDS[0] <= ends <= ENDS[1] else 0
