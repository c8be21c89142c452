"""What may cover points in a photo of a board, with no empty board to compare against.

A photo's points are their own reference: the points of one colour look alike at the
same distance from their bases (the same triangle, the same field beside it), so each
point's strip, straightened through the field found (``FieldFit``) and cut into cells
half a point wide from its base, is compared cell by cell with the median of its
colour's other points where no checker or die was found. A cell that stands out from
them (by ``STAND_OUT`` times their spread and at least ``DIFFERENT`` Lab units) shows
something the photo does not explain: a hand, an arm, a card, a checker not found.
Unless the light does: a cell showing its colours and edges under more light (a lamp's
pool, a glare) is lit, and a patch of cells under less light, or black points under far
more, with nothing else standing out in it is a shadow or a lamp, not a hand.

A point's count is only sure when the place of its next checker (a diameter beyond the
last one found, or at its base) is seen bare; a point whose next place stands out may
hide more. A patch of ``PATCH`` such cells or more is a hand or something like it over
the field, and the photo is not settled: the points whose checkers or next place it
lies over or beside, up to ``REACH`` points away (a thumb spreads that far from the
fingers), may hold anything.

An arm reaching over the board crosses the case's rail, whatever it then hides on the
field (fingertips over a point's only checker, a hand the colour of the field): a cell
of the rail beside the points' bases that stands out from the rest of the rail is an
arm, and the points beside it may hold anything too.

The same reference tells a bare point's drawing taken for checkers: checkers on a point
change how their places look (their faces, rims and shadows), so a row whose cells look
like the same cells of the bare points of its colour (within ``BARE_LIKE``) is the
point's own drawing (a light triangle's base and body on a dark field outline discs).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.photo_board import FieldFit
from vision.photo_checkers import CLEAR_OUTLINE

POINT_PIXELS = 24       # a point's width in the straightened field
CELL = POINT_PIXELS // 2
CELL_MARGIN = 3         # pixels of a point's width left out on either side of its cells (the rail's or bar's edge)
STAND_OUT = 4.0         # spreads of the other points' cells beyond which a cell stands out ...
DIFFERENT = 20.0        # ... and Lab units (OpenCV 8-bit) at least
SPREAD_FLOOR = 2.0      # Lab units: no cell's reference is tighter than this
SPREAD_CELLS = 3        # bare cells of a colour at one place from the base that give a spread
PATCH = 3               # cells standing out together that make a hand over the field
REACH = 2               # points beside such a patch a hand may lie over
EDGE_WEIGHT = 1.0       # Lab units a cell's mean lightness gradient (per pixel, Sobel) counts as
OCCUPIED = 0.2          # share of a cell a checker or die found may cover for it still to be bare
AROUND = 1.1            # radii round a checker found that are its own
SHADE = 1.3             # ... and within which its shadow, or its side under a tilted camera, may show
BARE_LIKE = 0.75 * DIFFERENT  # a row's cells this close to the bare points' (Lab units) are the point's drawing ...
MOSTLY_BARE_LIKE = 0.6 * DIFFERENT  # ... or half of them this close
MORE_LIGHT = (1.0, 2.5)  # a cell showing its reference's colours times this much light (BGR) is lit, not covered
MAYBE_LIT = (0.5, 4.0)  # a lamp's gain on a patch's colours (a shadow, a lamp over black points): no hand ...
GLARE = tuple(np.arange(0.0, 0.46, 0.05))  # ... nor with a glare's white (BGR 0..1) added to its cells' colours
SATURATED = 0.97        # a BGR channel (0..1) this high may be clipped by the sensor
MIRRORED = 0.75          # a mirrored pairing of the points' colours fits this many times as near as the usual
LIT_GAP = 2             # cells standing out this many cells apart (even) are one patch when the light is judged
SAME_HUE = 0.05         # a lit cell's colours, give or take this share of them, its edges within DIFFERENT
SKIPPED = 1.5           # a row starting this many radii further from its base than the photo's rows skips a place


class Placed(Protocol):
    """A checker found, as far as cover needs it (``vision.photo.PhotoChecker``)."""

    x: float
    y: float
    radius: float
    place: str
    column: int | None
    row: int | None
    along: float
    outline: float


@dataclass(frozen=True)
class Cover:
    """``unsure``: the (column, row) of every point whose next checker's place stands out
    or whose row skips its base, so that its count may hide more (columns 0..11 across the field from its (0, 0)
    corner, row 0 on its y=0 side); ``reached``: the points a patch standing out lies
    over or beside, from their base through their next checker's place, whose checkers
    found may be anything (a hand's knuckles look like checkers), or an arm crossing the
    rail or a cell standing out beside either lies beside; ``hand``: such a patch lies
    anywhere over the field, or such an arm; ``bases``: the points whose checkers found,
    none with a clear outline (``CLEAR_OUTLINE``: a point's drawing outlines less), look
    like the bare points of their colour at their places (the point's drawing, not
    checkers)."""

    unsure: frozenset = frozenset()
    reached: frozenset = frozenset()
    hand: bool = False
    bases: frozenset = frozenset()


def find_cover(image: np.ndarray, fit: FieldFit, checkers: list[Placed], dice_boxes=()) -> Cover:
    """The points of a BGR photo that may hide checkers, given the field found, the checkers
    found on it and the dice's boxes (x, y, w, h), all in the photo's pixels."""
    width = int(round(POINT_PIXELS / fit.point_width))
    a, b = fit.to_image([(0.5, 0.0), (0.5, 1.0)])
    height = int(round(width * np.linalg.norm(b - a) / (fit.point_width_px() / fit.point_width)))
    # straightened pixels, the field with a point's width of the case round it, to the photo's
    m = POINT_PIXELS
    shift = np.array([[1.0, 0.0, -m], [0.0, 1.0, -m], [0.0, 0.0, 1.0]])
    to_image = fit.homography @ np.diag([1.0 / width, 1.0 / height, 1.0]) @ shift
    size = (width + 2 * m, height + 2 * m)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    around = cv2.warpPerspective(lab, to_image, size, flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA,
                                 borderValue=(-1, -1, -1))
    seen_around = cv2.warpPerspective(np.ones(image.shape[:2], np.uint8), to_image, size,
                                      flags=cv2.WARP_INVERSE_MAP | cv2.INTER_NEAREST).astype(bool)
    field = np.s_[m:m + height, m:m + width]
    straight, seen = around[field], seen_around[field]
    edges = np.hypot(cv2.Sobel(straight[..., 0], cv2.CV_32F, 1, 0), cv2.Sobel(straight[..., 0], cv2.CV_32F, 0, 1))
    straight = np.dstack([straight, EDGE_WEIGHT * edges])
    occupied_around = np.zeros(size[::-1], np.uint8)
    shade_around = np.zeros(size[::-1], np.uint8)
    stacks: dict[tuple[int, int], list[tuple[float, float]]] = {}
    radius = CELL
    for c in checkers:
        (u, v), (u2, v2) = fit.to_field([(c.x, c.y), (c.x + c.radius, c.y)])
        radius = float(np.hypot((u2 - u) * width, (v2 - v) * height))
        centre = (int(round(u * width)) + m, int(round(v * height)) + m)
        cv2.circle(occupied_around, centre, int(np.ceil(AROUND * radius)), 1, -1)
        cv2.circle(shade_around, centre, int(np.ceil(SHADE * radius)), 1, -1)
        if c.place == "point":
            along = v * height if c.row == 0 else (1 - v) * height
            stacks.setdefault((c.column, c.row), []).append((along, radius))
    for x, y, w, h in dice_boxes:
        q = fit.to_field([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]) * (width, height) + m
        cv2.fillConvexPoly(occupied_around, np.round(q).astype(np.int32), 1)
    occupied_around = occupied_around.astype(bool)
    occupied = occupied_around[field]
    cells = height // 2 // CELL
    centres = fit.column_centres() * width
    colours, bare = _cells(straight, seen, occupied, centres, cells, height)
    shaded = _shaded(bare, occupied | shade_around[field].astype(bool), centres, cells, height)
    kind, distance, spread, reference = _pairing(colours, bare)
    out = _standing_out(bare, distance, spread) & ~_more_light(colours, reference)
    colours, distance = _aligned(straight, seen, occupied, centres, cells, height,
                                 (bare, colours, distance, spread, reference), out)
    out = _standing_out(bare, distance, spread) & ~_more_light(colours, reference)
    patches = _without_lit_patches(out, _light(colours, reference), shaded)
    rows = {key: (min(along - r for along, r in stack), max(along + r for along, r in stack), len(stack))
            for key, stack in stacks.items()}
    bases = set()
    if rows:
        whole, _ = _cells(straight, seen, np.zeros_like(occupied, bool), centres, cells, height)
        clear = {(c.column, c.row) for c in checkers if c.place == "point" and c.outline >= CLEAR_OUTLINE}
        bases = _bases(whole, bare, kind, rows) - clear
    unsure, reached, hand = set(), set(), False
    # cells from each point's base through the place of its next checker
    span = {}
    for row in range(2):
        for column in range(12):
            end = max((along + r for along, r in stacks.get((column, row), ())), default=0.0)
            span[column, row] = int(np.ceil((end + 2 * radius) / CELL))
            if out[row, column, int(end // CELL):span[column, row]].any():
                unsure.add((column, row))
    half = (1 - fit.bar) / 2 * width
    crossings = _rail_crossings(around, seen_around, occupied_around, (half, width - half))
    for row, (x0, x1) in crossings:
        hand = True
        reached |= {(c, row) for c in range(12) if x0 - POINT_PIXELS < centres[c] < x1 + POINT_PIXELS}
    for row in range(2):
        # an arm in from the other row's side points its fingertips at this row's bases; one
        # seen on no rail came in where the rail is not read (over the bar's hinges, the
        # field's ends) and may lie along the points from their bases
        facing = any(r != row for r, _ in crossings) or not crossings
        count, _, stats, _ = cv2.connectedComponentsWithStats(patches[row].T.astype(np.uint8), connectivity=8)
        for k in range(1, count):
            if stats[k, cv2.CC_STAT_AREA] < PATCH:
                continue
            hand = True
            x, y, w = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP], stats[k, cv2.CC_STAT_WIDTH]
            reached |= {(c, row) for c in range(max(x - REACH, 0), min(x + w + REACH, 12))
                        if facing or y - 1 < span[c, row]}
    # beside a hand, a cell standing out on its own is part of it (a finger, the shade under
    # the palm) wherever it lies on the point, and reaches the points beside it as a patch
    # does: a hand the colour of the field shows in pieces
    near = {c + d for c, _ in reached for d in (-1, 0, 1)}
    reached |= {(int(c) + d, int(row)) for row, c in zip(*np.nonzero(out.any(axis=2))) if c in near
                for d in (-1, 0, 1) if 0 <= c + d < 12}
    return Cover(frozenset(unsure) | _skipped_bases(checkers), frozenset(reached), hand, frozenset(bases))


RAIL = (3, 9)           # straightened pixels beyond the field's long edges where the case's rail is looked at
RAIL_DIFFERENT = 3 * DIFFERENT  # Lab units an arm over the rail differs from it by at least
RAIL_SPREAD = 10.0      # Lab units: a strip beyond the field whose cells spread more is no plain rail
RAIL_SEEN = 0.5         # share of a rail's cells to be seen bare for its colour to be known
GLARE_HUE = 5.0         # Lab units (a, b) from neutral within which a rail and a glare on it are grey


def _rail_crossings(around: np.ndarray, seen: np.ndarray, occupied: np.ndarray,
                    bar: tuple[float, float]) -> list[tuple[int, tuple[int, int]]]:
    """(row, (x0, x1)) where an arm crosses the case's rail beside row ``row`` of the field,
    given the straightened field with ``POINT_PIXELS`` round it (x in the field's own
    straightened pixels, the bar's from ``bar``): a half-point cell of the rail beside the
    points (not beyond the field's ends, where trays and the case's joints are, nor at the
    bar's hinges) that differs from the rail's other cells on that side by
    ``RAIL_DIFFERENT`` and ``STAND_OUT`` times their spread (colours alone, their median: a
    field found a little inside its edge puts the edge's line in the strip's first rows)
    and is no glare on it (``_glare_on``).
    Only where enough of the rail is seen (``RAIL_SEEN``) and it is plain (``RAIL_SPREAD``):
    beyond a field found at the board's outline lies the table, not a rail."""
    m = POINT_PIXELS
    height, width = around.shape[0] - 2 * m, around.shape[1] - 2 * m
    lanes = np.arange(0, width - CELL + 1, CELL)
    lanes = lanes[(lanes + CELL <= bar[0] - CELL / 2) | (lanes >= bar[1] + CELL / 2)]
    out = []
    for row in range(2):
        y0 = m - RAIL[1] if row == 0 else m + height + RAIL[0]
        rows = np.s_[y0:y0 + RAIL[1] - RAIL[0]]
        strip = around[rows]
        cells = [_bare_median(strip, seen[rows], occupied[rows], np.s_[:, x + m:x + m + CELL]) for x in lanes]
        bare = np.array([c is not None for c in cells])
        if bare.mean() < RAIL_SEEN:
            continue
        colours = np.array([c if c is not None else np.zeros(strip.shape[2]) for c in cells])
        d, spread, rail = (a[0, :, 0] for a in _against(colours[None, :, None], bare[None, :, None]))
        if spread[0] <= RAIL_SPREAD:
            crossed = bare & (d > STAND_OUT * spread) & (d > RAIL_DIFFERENT) & ~_glare_on(colours, rail[0])
            out += [(row, (int(x), int(x) + CELL)) for x in lanes[crossed]]
    return out


def _glare_on(cells: np.ndarray, rail: np.ndarray) -> np.ndarray:
    """Which ``cells`` (Lab, N x 3) show a grey ``rail`` (a black case's) under a glare:
    lighter and grey too (a and b within ``GLARE_HUE`` of neutral, as the rail's). A glare
    adds white light; an arm has its skin's own hue (a grey sleeve over a black rail passes
    for a glare, as it does over a black point). On a coloured rail a glare washes the
    rail's hue toward grey, as pale skin over a wooden rail does: no glare is told there."""
    grey = np.linalg.norm(cells[:, 1:3] - 128.0, axis=1) <= GLARE_HUE
    return grey & (cells[:, 0] > rail[0]) & (np.linalg.norm(rail[1:3] - 128.0) <= GLARE_HUE)


def first_checkers(checkers: list[Placed]) -> tuple[dict[tuple[int, int], Placed], float]:
    """Each point's checker nearest its base, by (column, row), and how far from their
    bases (``along``, the photo's pixels) the photo's rows start: their median (a field
    found a little inside or outside the true one moves them all; 0 with none)."""
    firsts: dict[tuple[int, int], Placed] = {}
    for c in checkers:
        key = (c.column, c.row)
        if c.place == "point" and (key not in firsts or c.along < firsts[key].along):
            firsts[key] = c
    return firsts, float(np.median([c.along for c in firsts.values()])) if firsts else 0.0


def _skipped_bases(checkers: list[Placed]) -> frozenset:
    """The (column, row) of the points whose row starts ``SKIPPED`` radii further from its
    base than the photo's rows start (``first_checkers``): a point's first checker lies
    at its base, so one there went unseen or something hides it (fingertips over the
    base)."""
    firsts, typical = first_checkers(checkers)
    return frozenset(key for key, c in firsts.items() if c.along > typical + SKIPPED * c.radius)


def _cells(straight: np.ndarray, seen: np.ndarray, occupied: np.ndarray, centres: np.ndarray, cells: int,
           height: int) -> tuple[np.ndarray, np.ndarray]:
    """Each point's cells from its base: the median of ``straight``'s channels (Lab and the
    weighted gradient) over the part no checker or die covers, (rows, columns, cells,
    channels), and whether the cell is bare (``OCCUPIED`` at most
    covered, wholly inside the photo)."""
    colours = np.zeros((2, 12, cells, straight.shape[2]))
    bare = np.zeros((2, 12, cells), bool)
    for cell, window in _windows(centres, cells, height):
        colour = _bare_median(straight, seen, occupied, window)
        if colour is not None:
            bare[cell] = True
            colours[cell] = colour
    return colours, bare


def _windows(centres: np.ndarray, cells: int, height: int):
    """Each point's cells from its base as ((row, column, cell), window into the straightened
    field): a cell's length along the point, its width less ``CELL_MARGIN`` either side."""
    for row in range(2):
        for column, x in enumerate(centres):
            yield from _point_windows(row, column, x, cells, height)


def _point_windows(row: int, column: int, x: float, cells: int, height: int):
    """The cells of one point whose centre line lies at ``x`` (``_windows``)."""
    x0 = int(round(x - POINT_PIXELS / 2)) + CELL_MARGIN
    for i in range(cells):
        y0 = i * CELL if row == 0 else height - (i + 1) * CELL
        yield (row, column, i), np.s_[y0:y0 + CELL, max(x0, 0):x0 + POINT_PIXELS - 2 * CELL_MARGIN]


def _aligned(straight: np.ndarray, seen: np.ndarray, occupied: np.ndarray, centres: np.ndarray, cells: int,
             height: int, found: tuple[np.ndarray, ...], out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells' colours and distances (``found``: bare, colours, distance, spread and
    reference from ``_pairing``) with each point some of whose cells stand out unexplained
    by the light (``out``) read again moved up to ``CELL_MARGIN`` pixels across, where its
    bare cells look most like its colour's, if that explains them all: a field found a
    little off the board's drawing (a bar found a little narrow) puts a point's cells
    across its triangle's edge where it narrows, and they stand out from the same cells
    of its colour's other points as a hand would. Each cell's distance counts up to
    ``DIFFERENT`` (what covers a cell differs however the point is moved, or only some of
    it hides: a hand's edge); a move that changes which cells are bare is not made, and
    only the cells standing out are read moved, where that brings them nearer their
    colour's (moved, a point's other cells may catch another edge, or lose the light that
    explained them)."""
    bare, colours, distance, spread, reference = found
    colours, distance = colours.copy(), distance.copy()
    for row, column in zip(*np.nonzero(out.any(axis=2))):
        best = None
        for shift in sorted(range(-CELL_MARGIN, CELL_MARGIN + 1), key=abs):
            read = [(cell, _bare_median(straight, seen, occupied, window))
                    for cell, window in _point_windows(row, column, centres[column] + shift, cells, height)]
            if any((colour is not None) != bare[cell] for cell, colour in read):
                continue
            moved = {cell: (colour, float(np.linalg.norm(colour - reference[cell])))
                     for cell, colour in read if colour is not None}
            apart = sum(min(d, DIFFERENT) for _, d in moved.values())
            if best is None or apart < best[0]:
                best = (apart, moved)
        standing = {cell: moved for cell, moved in best[1].items() if out[cell]}
        if all(d <= max(STAND_OUT * spread[cell], DIFFERENT) for cell, (_, d) in standing.items()):
            for cell, (colour, d) in standing.items():
                if d < distance[cell]:
                    colours[cell], distance[cell] = colour, d
    return colours, distance


def _shaded(bare: np.ndarray, shade: np.ndarray, centres: np.ndarray, cells: int, height: int) -> np.ndarray:
    """Which bare cells would not be bare were ``shade`` (the straightened field within
    ``SHADE`` radii of a checker, or covered) counted as covered."""
    shaded = np.zeros_like(bare)
    for cell, window in _windows(centres, cells, height):
        shaded[cell] = bare[cell] and (~shade[window]).mean() < 1 - OCCUPIED
    return shaded


def _bare_median(straight: np.ndarray, seen: np.ndarray, occupied: np.ndarray, window) -> np.ndarray | None:
    """The median of ``straight``'s channels over ``window`` where nothing found covers it,
    if the window is bare (``OCCUPIED`` at most covered) and wholly inside the photo."""
    free = ~occupied[window]
    if free.mean() >= 1 - OCCUPIED and seen[window].all():
        return np.median(straight[window][free], axis=0)
    return None


def _pairing(colours: np.ndarray, bare: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each point's colour (0 or 1, (rows, columns)) and every bare cell's distance from the
    bare cells of its colour's points, their spread there and their median (``_against``;
    infinite, 1 and 0 elsewhere). The points alternate colours along a row's half, either
    a point faces one of the other colour across the field or one of its own, and the
    points beside the bar are of the other colour or (a board whose halves mirror each
    other) of the same: the pairing whose bare cells lie nearer their colour's, on the
    whole, is taken, a mirrored one only where it fits ``MIRRORED`` times as near and
    each half shows two bare points of either colour (few boards are mirrored, and with
    few bare points a pairing that flips a half can pass off the cells standing out on
    them)."""
    seen = bare.any(axis=(0, 2))
    both_halves = all(seen[half][parity::2].sum() >= 2 for half in (slice(0, 6), slice(6, 12)) for parity in (0, 1))
    best = None
    for mirrored, facing_other in itertools.product((False, True) if both_halves else (False,), (True, False)):
        kind = np.array([[(column + row * facing_other + (column >= 6) * mirrored) % 2 for column in range(12)]
                         for row in range(2)])
        distance = np.full(bare.shape, np.inf)
        spread = np.ones(bare.shape)
        reference = np.zeros(colours.shape)
        for k in (0, 1):
            mine = (kind == k)[..., None] & bare
            d, s, r = _against(colours, mine)
            distance = np.where(mine, d, distance)
            spread = np.where(mine, s, spread)
            reference = np.where(mine[..., None], r, reference)
        apart = float(distance[bare].mean()) if bare.any() else 0.0
        if best is None or apart < (MIRRORED if mirrored and not best[-1] else 1.0) * best[0]:
            best = (apart, kind, distance, spread, reference, mirrored)
    return best[1:-1]


def _standing_out(bare: np.ndarray, distance: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Which bare cells stand out from the same cells of the points of their colour (their
    distance and spread from ``_pairing``)."""
    return bare & (distance > STAND_OUT * spread) & (distance > DIFFERENT)


def _light(colours: np.ndarray, reference: np.ndarray, glare=GLARE, edges_lit: bool = True) -> np.ndarray:
    """How much light (a gain on BGR, a glare's in it) shows each cell as its reference's
    colours under a lamp's gain within ``MAYBE_LIT``, within ``SAME_HUE``, a glare's white
    (one of ``glare``) added and what passes the sensor's white clipped (a channel at
    ``SATURATED`` tells nothing of the gain), with its edges within ``DIFFERENT`` (of the
    reference's, or, ``edges_lit``, of them under the light or under none: a cell the
    light's edge crosses shows both; under a glare, down to none: added white flattens
    lightness steps and a clipped channel shows no texture); NaN where none does. A
    glare's white over a black point shows it more than ``MAYBE_LIT`` times as light, as a
    grey sleeve would. A lamp's pool, a glare or a shadow changes how much light falls on
    the field, not its colours or drawing; a hand has its own colours and outline."""
    cell, ref = (_bgr(c[..., :3])[..., None, :] for c in (colours, reference))
    white = np.asarray(glare, np.float64)[:, None]
    scale = np.maximum(np.linalg.norm(ref, axis=-1), 1e-3)
    saturated = cell >= SATURATED
    told = np.where(saturated.all(axis=-1, keepdims=True), True, ~saturated)
    gain_on_ref = ((cell - white) * ref * told).sum(axis=-1) / np.maximum((ref * ref * told).sum(axis=-1), 1e-6)
    lit = np.minimum(gain_on_ref[..., None] * ref + white, 1.0)
    gain = np.linalg.norm(lit, axis=-1) / scale
    edges, own = colours[..., 3:4], reference[..., 3:4]
    flattened = (white > 0)[..., 0] | saturated.any(axis=-1)
    lowest = np.where(flattened, 0.0, np.minimum(gain, 1) * own)
    lit_edges = np.clip(edges, lowest, np.maximum(gain, 1) * own) if edges_lit else own
    fits = ((np.linalg.norm(cell - lit, axis=-1) <= SAME_HUE * np.linalg.norm(lit, axis=-1))
            & (MAYBE_LIT[0] <= gain_on_ref) & (gain_on_ref <= MAYBE_LIT[1])
            & (np.abs(edges - lit_edges) < DIFFERENT))
    first = fits.argmax(axis=-1)[..., None]
    return np.where(fits.any(axis=-1), np.take_along_axis(gain, first, axis=-1)[..., 0], np.nan)


def _more_light(colours: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Which cells show their reference's colours and edges under more light
    (``MORE_LIGHT``, no glare's white): a lamp's pool or a glare on the field, not a hand,
    wherever they lie (a hand has its own colours and outline, and its shadow darkens what
    it falls on)."""
    gain = _light(colours, reference, glare=(0.0,), edges_lit=False)
    return (MORE_LIGHT[0] < gain) & (gain <= MORE_LIGHT[1])


def _without_lit_patches(out: np.ndarray, light: np.ndarray, shaded: np.ndarray) -> np.ndarray:
    """``out`` (cells standing out, (rows, columns, cells)) without the patches (cells
    standing out together along a row, up to ``LIT_GAP`` cells apart) that ``light``
    explains throughout: a shadow cast across the field, or a lamp over a black point. A
    hand's shadow lies beside the hand, whose own colours stand out in the same patch, and
    skin over a dark wooden point can pass for it under more light: a finger or knuckle
    the light does not explain a cell or two away shows the patch is the hand's. A cell
    ``shaded`` (within ``SHADE`` radii of a checker: its shadow or side may show) shows
    neither, and so does one shown more than ``MAYBE_LIT`` times as light (a glare's white
    over a black point, or a grey sleeve), as long as some cell of the patch is lit within
    that."""
    out = out.copy()
    lit = light <= MAYBE_LIT[1]
    explained = np.isfinite(light) | shaded
    join = np.ones((LIT_GAP + 1, LIT_GAP + 1), np.uint8)
    for row in range(out.shape[0]):
        near = cv2.dilate(out[row].astype(np.uint8), join)
        count, labels = cv2.connectedComponents(near, connectivity=8)
        for k in range(1, count):
            patch = (labels == k) & out[row]
            if explained[row][patch].all() and lit[row][patch].any():
                out[row][patch] = False
    return out


def _bgr(lab: np.ndarray) -> np.ndarray:
    """OpenCV 8-bit Lab colours (any shape, channels last) as BGR 0..1."""
    scaled = (lab.reshape(-1, 1, 3) - (0.0, 128.0, 128.0)) * (100 / 255, 1.0, 1.0)
    return cv2.cvtColor(scaled.astype(np.float32), cv2.COLOR_Lab2BGR).reshape(lab.shape)


def _bases(whole: np.ndarray, bare: np.ndarray, kind: np.ndarray,
           rows: dict[tuple[int, int], tuple[float, float, int]]) -> set[tuple[int, int]]:
    """The (column, row) of the points in ``rows`` (each with the span its checkers found
    cover, from the base-most one's near edge to the last one's far edge in straightened
    pixels from the base, and how many they are) whose cells in that span, colours and
    all (``whole``), lie within ``BARE_LIKE`` of the median of the same cells of two or
    more points of the same colour where nothing was found, or, for a lone checker, half
    of them within ``MOSTLY_BARE_LIKE`` (a mottled base under a shadow stands out in one
    cell; a checker's body, its face and rim, in most). A row of two or more is likelier
    checkers: light ones on a light point look like its drawing in all but a cell or two."""
    out = set()
    for (column, row), (start, end, count) in rows.items():
        under = np.s_[max(0, int(start // CELL)):int(np.ceil(end / CELL))]
        mine = whole[row, column, under]
        others = [(r, c) for r in range(2) for c in range(12)
                  if kind[r, c] == kind[row, column] and (c, r) not in rows and bare[r, c, under].all()]
        if len(others) < 2 or not len(mine):
            continue
        reference = np.median([whole[r, c, under] for r, c in others], axis=0)
        distance = np.linalg.norm(mine - reference, axis=-1)
        if distance.max() < BARE_LIKE or (count == 1 and np.median(distance) < MOSTLY_BARE_LIKE):
            out.add((column, row))
    return out


def _against(colours: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every cell's distance from the median of ``group``'s cells at its index, the
    spread of the group's distances there (both (rows, columns, cells)) and that median
    (with the channels). Two cells have no spread to tell: each lies half their
    difference from their median, so where the group has fewer than ``SPREAD_CELLS`` the
    spread is the floor alone (two that differ by twice ``DIFFERENT`` both stand out: one
    is covered, and which is not known)."""
    masked = np.where(group[..., None], colours, np.nan).reshape(-1, *colours.shape[2:])
    with warnings.catch_warnings():      # a cell index no cell of the group has
        warnings.simplefilter("ignore", RuntimeWarning)
        reference = np.nanmedian(masked, axis=0)
        d = np.linalg.norm(colours - reference, axis=-1)
        s = np.nanmedian(np.where(group, d, np.nan).reshape(-1, colours.shape[2]), axis=0)
    s = np.where(group.reshape(-1, colours.shape[2]).sum(axis=0) >= SPREAD_CELLS, np.nan_to_num(s), 0.0)
    return d, np.broadcast_to(1.4826 * s + SPREAD_FLOOR, d.shape), np.broadcast_to(np.nan_to_num(reference),
                                                                                 colours.shape)
