"""Photo import: read a position from any photo of a real board, with no calibration.

``import_photo(image)`` finds the checkers as discs (``vision.photo_checkers``) and the
playing field by the drawing of its points (``vision.photo_board``), tells the two
sides' checkers apart by colour, puts every checker on a point, the bar or off the
field, and turns the counts into a ``Position``. One photo cannot say who is who: the
light checkers are taken for White unless ``white='dark'``, and White's home board is
put in the corner that makes the most plausible position (the usual convention that a
player's home board is on their right, then the fewer pips the better) unless ``home``
names it. A board set up the other way round looks the same as its mirror image, so a
chosen orientation is never sure: the read says what it chose and lists the positions
the other corners make.

>>> read = import_photo(cv2.imread("board.jpg"))                     # doctest: +SKIP
>>> read.position, read.orientation                                 # doctest: +SKIP
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.ids import Xgid
from engine.position import WHITE, Position, PositionError
from vision.dice import find_board_photo_dice
from vision.image_check import image_problem
from vision.observation import DieRead, Observation, Occlusion, PointRead
from vision.photo_board import FieldFit, field_colour, find_field
from vision.photo_checkers import (CLEAR_OUTLINE, LOWER_EDGE, Disc, checker_radius, disc_edges, find_discs, lower_rim,
                                   row_rims, split_colours, under_discs, weighted)
from vision.photo_cover import Cover, find_cover, first_checkers
from vision.photo_trays import TrayBand, read_trays

HOMES = ("bottom-right", "bottom-left", "top-right", "top-left")
COLOURS = ("light", "dark")
CHECKERS = 15
ROW = 5                 # checkers that fit in a row along a point
DICE = 4                # dice candidates read at most
TRAY_ROW = 2            # checkers standing in a tray that show a side bearing off into it
DIE_ON_CHECKER = 0.6    # a die read this many radii from a checker's centre is the checker's gloss
WORK_SIDE = 800         # photos are read at most this many pixels on their longer side ...
FINE_RADIUS = 12.0      # ... unless their checkers' radius would then be under this many pixels
SIZED = (0.6, 1.4)      # a checker's diameter lies between these many point widths ...
RADIUS_OF_POINT = 0.47  # ... its radius about this many
BOARD_MARGIN = 0.15     # of the field's longer side: how far beyond it the trays and bar's checkers lie at most
CANDIDATE = 0.35        # outline support for a disc to be considered at all
STRONG = 0.65           # ... to count as a checker on its own anywhere
EVEN_SUPPORT = 0.45     # outline support at which a disc is as likely a checker as not ...
EVEN_SHARE = 0.6        # ... or this share of the clearest checkers' support, if more
SUPPORT_SLOPE = 12.0    # log-odds of a checker per unit of support
COLOUR_COST = 0.4       # ... lost per spread its colour lies from its side's beyond EVEN_COLOUR
EVEN_COLOUR = 1.0       # (a checker's colour lies about a spread from its side's)
GAP_COST = 4.0          # ... lost per share of its outline unseen beyond EVEN_GAP
EVEN_GAP = 5 / 32       # (a checker's neighbours in its row hide about this much of it)
START_COST = 1.0        # ... lost by a row's first checker (a point's base looks a little like one)
ROW_BONUS = 1.0         # ... gained by lying a diameter from the last checker of its row
SKIP_COST = 1.0         # ... lost per checker a row skips
DIE_COST = 3.0          # ... lost where a die was read
FIELD_COST = 3.0        # ... lost by a disc the colour of the field rather than its side's
FIELD_LIKE = 0.5        # (its colour this many times nearer the field's than its side's)
FIELD_HUE_LIKE = 0.25   # ... or its hue this many times nearer the field's hue than its side's, ...
FIELD_HUE = 10.0        # ... where the side's hue lies this far from the field's (weighted Lab)
SHADED_HUE = 1.5        # a disc no lighter than the field whose hue lies this many times nearer its side's is no field
CLOSED = 4 / 32         # the longest unseen arc of a checker off the points (share of the outline)
OPEN = 14 / 32          # ... of one on a point
COLOUR_SPREAD = 5.0     # a checker's colour lies within this many spreads of its side's colour ...
ROW_COLOUR = 9.0        # ... or, in a row (shade and glare vary along it), this many
NEARER = 0.5            # ... or any number, for a clear outline this much nearer its side than the other
SWITCH = 2.0            # a point's checkers lying at most this many times as far from the other side's
                        # colour as from their own are the other side's when their own has over fifteen
ON_LINE = 0.35          # a checker on a point lies within this many point widths of its centre line ...
OFF_LINE_COST = 10.0    # ... or costs this much log-odds per point width further
FIRST_SLOT = 5.0        # the first checker of a point lies within this many radii of the base
NEXT_SLOT = (0.9, 2.6)  # the next one this many radii further (less when piled or squeezed)
REGULAR_STEP = (1.6, 2.5)  # a row's regular spacing, in radii ...
STRAIGHT = 1.0          # ... along the point, the next checker no more than this many radii across from the last
EDGE_SLACK = 2.0        # a disc centred this many radii beyond a point's base still counts as on it
ON_FIELD = 0.25         # ... but one centred less than this many radii inside the base is vouched for by no row
ASIDE = 0.5             # ... but not one this many radii off the line of two outlined ones beside it (_aside)
HOLE = 2.2              # a row may skip this many radii (a checker whose outline did not show)
UNSEEN = 0.3            # confidence of a checker put where a row skips one or a pile's upper layer hides one
UNSURE = 0.25           # a checker less sure than this goes first where a side has more than fifteen ...
PAST_BASE = 1.5         # ... then one centred this many radii nearer the rail than the rows' first checkers
UNDER_COLOUR = 2.5      # a checker under a pile's upper layer is within this many spreads of its side's colour
UNDER_ALONG = 0.9       # ... and lies along the point from the one over it (cosine of the angle)
UNDER_APART = (0.7, 1.5)  # ... at least this many radii from the nearest checker taken, and from a faint one
STACK_SHIFT = 0.25      # diameters: a stack's upper checker lies this far toward the tip from the one under it
STACK_SLACK = 0.02      # steps: an upper row's count fitting its places this much worse than the best may be it
PLAIN_STACK = 0.5       # ... and one fitting them this share of an even row's misfit or better shows plainly
HALF_SLOT = 0.6         # diameters: a step this short in a pile is half its row's (a pyramid's) ...
ON_SLOT = 0.35          # ... whose checkers lie within this many half steps of a slot or a half slot
SLIVER = 0.6            # ... and a disc whose outline shows less than this share of the pile's is a sliver
SQUEEZED_STEP = (0.6, 1.8)  # radii between the rims of a row squeezed onto its point ...
SQUEEZED_EVEN = 1.5         # ... the widest step at most this many times the narrowest (rings on a face are not)
SQUEEZED_ON = 0.35          # ... on whose places its checkers found lie within this share of its shortest step
CUBE_ROOM = 1.4         # no checker lies this many radii from the bar's middle (the cube's place)


class PhotoError(ValueError):
    """The image cannot be read as a photo of a board."""


@dataclass(frozen=True)
class PhotoChecker:
    """One checker found: centre and radius in image pixels, ``colour`` 'light' or 'dark',
    ``confidence`` (0..1) and where it stands: ``column`` 0..11 across the field from the
    fit's first corner and ``row`` 0 (the fit's y=0 side) or 1, or ``place`` 'bar' or 'off'
    (outside the field); ``location`` is White's point number 1..24, 'bar' or 'off'
    once the orientation is chosen; ``outline`` the share of its outline seen as a disc's
    edge (0 for one put where a row or pile hides it); ``by_die`` when a die was read
    with its middle inside the disc (what was outlined may be the die)."""

    x: float
    y: float
    radius: float
    colour: str
    confidence: float
    place: str = "point"
    column: int | None = None
    row: int | None = None
    along: float = 0.0
    location: int | str | None = None
    outline: float = 0.0
    by_die: bool = False


@dataclass(frozen=True)
class PhotoRead:
    """What one photo shows: ``board`` the field's outline (4 x 2 image pixels, or None when
    no field was found), every checker, the points as read (``Observation``), the dice,
    the ``position`` when the counts make a legal one (else None and ``reason``), and the
    ``orientation``: ``home`` (the photo's corner holding White's home board), ``white``
    (which colour was taken for White), ``chosen`` (which of the two were chosen from the
    position rather than given), ``sure`` (both given) and ``alternatives``: for a chosen
    home, the other corners' positions with the same White (``home``, ``white``,
    ``xgid``), most plausible first; the photo alone cannot rule them out."""

    board: np.ndarray | None
    checkers: tuple[PhotoChecker, ...]
    observation: Observation
    position: Position | None
    reason: str | None
    orientation: dict = field(default_factory=lambda: {"home": None, "white": None, "chosen": [], "sure": False,
                                                       "alternatives": []})

    @property
    def counts(self) -> dict[str, int]:
        """Checkers found of each colour."""
        return {c: sum(1 for k in self.checkers if k.colour == c) for c in COLOURS}

    def to_json(self) -> dict:
        """The ``bgref read --json`` contract with ``xgid``, ``orientation``, the board's
        outline, the checkers and, when no position could be made, the ``reason``."""
        out = self.observation.to_json() if self.observation.points else {
            "settled": False, "points": [], "bar": {"white": 0, "black": 0}, "off": {"white": 0, "black": 0},
            "dice": [{"value": d.value, "half": d.half, "flat": d.flat, "box": list(d.box)}
                     for d in self.observation.dice],
            "cube": None, "position_id": None}
        out["position_id"] = None if self.position is None else self.position.position_id(WHITE)
        out["xgid"] = None if self.position is None else Xgid(self.position).encode()
        out["orientation"] = dict(self.orientation)
        out["board"] = None if self.board is None else np.round(self.board, 1).tolist()
        out["checkers"] = [{"x": round(c.x, 1), "y": round(c.y, 1), "radius": round(c.radius, 1),
                            "colour": c.colour, "confidence": round(c.confidence, 3),
                            "location": c.location} for c in self.checkers]
        out["reason"] = self.reason
        return out

    def describe(self) -> str:
        """A few lines of text: counts, orientation and the position or why there is none."""
        n = self.counts
        lines = [f"checkers: {n['light']} light, {n['dark']} dark"
                 + ("" if self.board is not None else " (no board field found)")]
        o = self.orientation
        if o["home"]:
            lines.append(f"White: {o['white']} checkers, home board {o['home']}"
                         + (f" ({' and '.join(o['chosen'])} chosen, not given)" if o["chosen"] else ""))
        if self.position is not None:
            lines.append(f"position {self.position.position_id(WHITE)}  {Xgid(self.position).encode()}")
            lines.extend(f"  or, home board {a['home']}: {a['xgid']}" for a in o["alternatives"])
        else:
            lines.append(f"no position: {self.reason}")
        return "\n".join(lines)

    def annotated(self, image: np.ndarray) -> np.ndarray:
        """``image`` with the field's outline, every checker (circled in its side's colour and
        labelled with its point, 'bar' or 'off') and the dice drawn on it."""
        out = image.copy()
        if self.board is not None:
            cv2.polylines(out, [np.round(self.board).astype(np.int32)], True, (0, 255, 0), 2)
        for c in self.checkers:
            colour = (0, 255, 255) if c.colour == "light" else (255, 0, 255)
            centre = (int(round(c.x)), int(round(c.y)))
            cv2.circle(out, centre, int(round(c.radius)), colour, 2)
            cv2.putText(out, str(c.location if c.location is not None else c.place),
                        (centre[0] - 8, centre[1] + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 2)
        for d in self.observation.dice:
            x, y, w, h = d.box
            cv2.rectangle(out, (x, y), (x + w, y + h), (255, 0, 255), 2)
            cv2.putText(out, str(d.value), (x, y - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
        status = "no position: " + self.reason if self.position is None else (
            f"White {self.orientation['white']}, home {self.orientation['home']}")
        cv2.putText(out, status, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2)
        return out


# ------------------------------------------------------------------------ the pipeline
def import_photo(image: np.ndarray, white: str | None = None, home: str | None = None) -> PhotoRead:
    """Read the position in a photo of a board (BGR). ``white`` ('light'/'dark') says which
    checkers are White's and ``home`` (one of ``HOMES``, corners as the photo is seen)
    where White's home board is; either left None is chosen from the position."""
    if white is not None and white not in COLOURS:
        raise ValueError(f"white must be 'light' or 'dark', got {white!r}")
    if home is not None and home not in HOMES:
        raise ValueError(f"home must be one of {', '.join(HOMES)}, got {home!r}")
    work, scale, radius = _working_copy(image)
    if radius is None:
        return _unread((), "no checkers found")
    edges, discs, strong, fit = _discs_and_field(work, radius)
    if fit is not None and not SIZED[0] <= 2 * radius / fit.point_width_px() <= SIZED[1]:
        work, scale, radius = _sized_to(image, fit, scale)
        if radius is None:
            return _unread((), "no checkers found")
        edges, discs, strong, fit = _discs_and_field(work, radius)
    if len(strong) < 2:
        return _unread((), "no checkers found")
    field = None if fit is None else field_colour(work, fit, np.array([(d.x, d.y, d.radius) for d in strong]))
    dice = _dice(image, 2 * radius / scale, None if fit is None else [h / scale for h in fit.halves()],
                 [(d.x / scale, d.y / scale, d.radius / scale) for d in strong])
    dice_boxes = [tuple(v * scale for v in d.box) for d in dice]
    under = under_discs(work, strong, radius, edges) if fit is not None else []
    found = _select(discs, fit, radius, dice_boxes, field, under)
    checkers = [_scaled(c, 1 / scale) for c in found]
    dice = _off_checkers(dice, checkers)
    if fit is None:
        return PhotoRead(None, tuple(checkers), Observation(False, False, dice=dice), None,
                         "no board field found")
    cover = find_cover(work, fit, found, dice_boxes)
    checkers = [c for c in checkers if (c.column, c.row) not in cover.bases]
    board = FieldFit(fit.corners / scale, fit.bar, fit.tip, fit.score)
    trays = read_trays(image, board, checkers)
    checkers = _fifteen(checkers + _piled_on(image, checkers, board, scale, trays), off_only=True)
    return _read_position(checkers, board, dice, white, home, cover, trays)


def _working_copy(image: np.ndarray, seen: float | None = None) -> tuple[np.ndarray, float, float | None]:
    """The photo at the scale it is read at, that scale and the checkers' radius in it (None
    when nothing round stands out): at most ``WORK_SIDE`` pixels on its longer side,
    unless a board far off in a wide frame would leave its checkers under ``FINE_RADIUS``
    pixels: then as near that as the photo's own resolution allows. The checkers' radius
    in the photo is ``seen`` when known, else looked for at twice the scale, since at
    ``WORK_SIDE`` their outlines are a few pixels wide (small ones do not show, large ones
    measure a fifth too large or small); a photo no wider than that is searched as it is."""
    problem = image_problem(image, "photo")
    if problem:
        raise PhotoError(problem)
    h, w = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    if scale < 1.0 and seen is None:
        search = min(1.0, 2 * scale)
        found = checker_radius(_resized(image, search))
        if found is None:
            return _resized(image, scale), scale, None
        seen = found / search
    if scale < 1.0 and seen * scale < FINE_RADIUS:
        scale = min(1.0, FINE_RADIUS / seen)
    work = _resized(image, scale)
    return work, scale, checker_radius(work) if seen is None else seen * scale


def _discs_and_field(work: np.ndarray, radius: float) -> tuple[list[np.ndarray], list[Disc], list[Disc],
                                                                FieldFit | None]:
    """The discs of ``radius`` in the working copy (their edges, all candidates, the
    strong ones) and the field the strong ones and the points' drawing make."""
    edges = disc_edges(work, radius)
    discs = find_discs(work, radius, CANDIDATE, edges=edges)
    strong = [d for d in discs if d.support >= STRONG]
    fit = find_field(work, np.array([(d.x, d.y) for d in strong]), radius) if len(strong) >= 2 else None
    return edges, discs, strong, fit


def _sized_to(image: np.ndarray, fit: FieldFit, scale: float) -> tuple[np.ndarray, float, float | None]:
    """The working copy, its scale and the checkers' radius found again within the board
    ``fit`` found (in the working copy at ``scale``) and between the sizes its points
    allow: what round things stand beside a small board (cups, a clock, an overlay's
    letters) may outnumber its checkers' outlines."""
    width = fit.point_width_px() / scale
    work, scale_now, _ = _working_copy(image, RADIUS_OF_POINT * width)
    corners = fit.corners * (scale_now / scale)
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    margin = BOARD_MARGIN * max(x1 - x0, y1 - y0)
    board = work[int(max(0, y0 - margin)):int(y1 + margin), int(max(0, x0 - margin)):int(x1 + margin)]
    width *= scale_now
    return work, scale_now, checker_radius(board, SIZED[0] * width / 2, SIZED[1] * width / 2)


def _resized(image: np.ndarray, scale: float) -> np.ndarray:
    return image if scale >= 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def _unread(dice: tuple[DieRead, ...], reason: str) -> PhotoRead:
    return PhotoRead(None, (), Observation(False, False, dice=dice), None, reason)


def _scaled(c: PhotoChecker, f: float) -> PhotoChecker:
    return replace(c, x=c.x * f, y=c.y * f, radius=c.radius * f)


# ------------------------------------------------------------------ which discs are checkers
def _select(discs: list[Disc], fit: FieldFit | None, radius: float, dice_boxes=(),
            field: np.ndarray | None = None, under: list[Disc] = ()) -> list[PhotoChecker]:
    """The discs that are checkers, with their colour and place.

    A disc's colour must belong to one of the two sides (learned from the discs with the
    clearest outlines). On the field, each disc belongs to its nearest point and checkers
    lie in a row from the point's base (``_row``). Off the field and on the bar only a
    clear, closed outline will do, of a colour close to its side's off the field (cups and
    clocks stand there) and of its side's on the bar (a dark checker on a dark bar shows
    its rim more than its face; one whose outline is clearer still may be lit as much as
    a row along a point), and no die unless the die was read in its middle (a
    glossy checker's highlight); nothing in the bar's middle, where the cube waits. How
    clear an outline must be is judged against the photo's clearest ones.
    """
    covering = [[b for b in dice_boxes if b[0] <= d.x <= b[0] + b[2] and b[1] <= d.y <= b[1] + b[3]]
                for d in discs]
    on_die = [bool(boxes) for boxes in covering]
    near_die = [any(np.hypot(x + w / 2 - d.x, y + h / 2 - d.y) < d.radius for x, y, w, h in dice_boxes)
                for d in discs]
    # no die read over a disc, or only in its middle (a glossy checker's highlight)
    clear_of_dice = [all(_in_middle(b, d) for b in boxes) for d, boxes in zip(discs, covering)]
    strong = [d for d, die in zip(discs, on_die) if d.support >= STRONG and not die]
    labels, distances, centres = split_colours(strong, discs + list(under))
    under_distances, distances, labels = distances[len(discs):], distances[:len(discs)], labels[:len(discs)]
    distance = distances[np.arange(len(discs)), labels]
    field_like = _field_like(discs, centres, field)
    row_colours = _row_colours(discs, distances, centres)
    places = [_place(d, fit, radius) for d in discs]
    # how clear a checker's outline is depends on the photo: judge each against the clearest
    clearest = np.sort([d.support for d in discs])[::-1][:CHECKERS]
    reference = float(np.median(clearest)) if len(clearest) else 1.0
    taken: set[int] = set()
    rows: dict[tuple[int, int], list[int]] = {}
    for i, d in enumerate(discs):
        place, column, row = places[i][:3]
        if place == "point":
            if d.gap <= OPEN:
                rows.setdefault((column, row), []).append(i)
        elif place != "cube" and clear_of_dice[i] and d.support >= STRONG and d.gap <= CLOSED:
            spreads = COLOUR_SPREAD / 2 if place == "off" else (
                ROW_COLOUR if d.support >= CLEAR_OUTLINE else COLOUR_SPREAD)
            if distance[i] <= spreads:
                taken.add(i)
    labels = labels.copy()
    read = {key: _row(members, discs, places, distances, row_colours, near_die, field_like, radius, reference)
            for key, members in rows.items()}

    def row_of(key: tuple[int, int], side: int, lit: set[int]) -> tuple[int, set[int]]:
        return _row(rows[key], discs, places, distances, row_colours, near_die, field_like, radius, reference,
                    (side,), lit)

    others = [labels[i] for i in taken]
    read = _balanced(read, others, lambda key, side: row_of(key, side, read[key][1]), distances)
    read = _continued(read, others, lambda key, side: row_of(
        key, side, {j for j in rows[key] if discs[j].support >= CLEAR_OUTLINE}))
    sides = {}
    for key, (side, row_discs) in read.items():
        for i in row_discs:
            labels[i], distance[i] = side, distances[i, side]
        taken |= row_discs
        if row_discs:
            sides[key] = side
    out = []
    for i in sorted(taken, key=lambda j: -discs[j].support):
        d = discs[i]
        place, column, row, _, along = places[i]
        confidence = float(np.clip(min((d.support - CANDIDATE) / (STRONG - CANDIDATE),
                                       1.0 - distance[i] / (2 * COLOUR_SPREAD)), 0.0, 1.0))
        out.append(PhotoChecker(d.x, d.y, d.radius, "light" if labels[i] == 1 else "dark", confidence,
                                place, column, row, along, outline=d.support, by_die=near_die[i]))
    out += _under_layers(under, under_distances, _field_like(list(under), centres, field), out, sides, fit, radius)
    out += _hidden_in_rows(out, radius)
    return _fifteen(out)


def _fifteen(checkers: list[PhotoChecker], off_only: bool = False) -> list[PhotoChecker]:
    """At most fifteen checkers of each colour (``checkers`` clearest first): beyond that,
    discs off the field (a letter of an overlay, a clock's knob) go first, then those
    under ``UNSURE`` (a point's grey base outlined as clearly as a checker, far from its
    side's colour), then those centred ``PAST_BASE`` radii nearer the rail than the
    photo's rows start (a glare on the case beside a base), then those round a die read
    (two dice lying together outline a disc that a row beside them takes in), then the
    faintest; with
    ``off_only`` those off the field alone (more than fifteen on the board make no
    position)."""
    typical = first_checkers(checkers)[1]
    out = []
    for colour in COLOURS:
        mine = sorted((k for k in checkers if k.colour == colour),
                      key=lambda k: (k.place == "off", k.confidence < UNSURE,
                                     k.place == "point" and k.along < typical - PAST_BASE * k.radius, k.by_die))
        out += mine[:max(CHECKERS, sum(k.place != "off" for k in mine)) if off_only else CHECKERS]
    return out


def _under_layers(under, distances, field_like, taken, sides, fit, radius) -> list[PhotoChecker]:
    """The checkers under a pile's upper layer (``under``, from ``under_discs``): on a point
    whose row was read (``sides``: (column, row) to side) with ``ROW`` - 1 checkers or
    more (no one piles a shorter row), on the field (``ON_FIELD`` radii inside the base
    at least: the case's edge outlines crescents past a row's first checker), of the
    row's colour within ``UNDER_COLOUR`` spreads, not the field's, lying along the point
    from the nearest checker of the row (within ``UNDER_ALONG``: a checker's own side
    seen at a slant, or its shadow, shows as a crescent away from the camera, whichever
    way the point runs), not where a checker was already taken (at least ``UNDER_APART``
    radii from the row's nearest checker, and from any of its checkers outlined under
    ``EVEN_SUPPORT``: nearer, what shows of it is a sliver its outline places far from
    where it lies, and a faint disc the row took is that checker's sliver), nor between
    two checkers of the row (outlined at least ``EVEN_SUPPORT``) a step apart (nearer one
    of the row's usual steps than two, and within ``NEXT_SLOT``: no room under them; the
    waist between two checkers of a flat row outlines a disc)."""
    out = []
    for u, distance, like in zip(under, distances, field_like):
        place, column, row, _, along = _place(u, fit, radius)
        side = sides.get((column, row))
        if place != "point" or along < ON_FIELD * radius or side is None or distance[side] > UNDER_COLOUR \
                or like[side]:
            continue
        mates = [c for c in taken if (c.place, c.column, c.row) == ("point", column, row)]
        if len(mates) < ROW - 1:
            continue
        gaps = [float(np.hypot(u.x - c.x, u.y - c.y)) for c in mates]
        apart, nearest = min(zip(gaps, mates), key=lambda pair: pair[0])
        if apart < UNDER_APART[0] * radius or abs(along - nearest.along) < UNDER_ALONG * apart \
                or any(c.outline < EVEN_SUPPORT and gap < UNDER_APART[1] * radius for gap, c in zip(gaps, mates)):
            continue
        clear = sorted(c.along for c in mates if c.outline >= EVEN_SUPPORT)
        before = max((a for a in clear if a < along), default=-np.inf)
        after = min((a for a in clear if a > along), default=np.inf)
        if len(clear) > 1 and after - before <= min(NEXT_SLOT[1] * radius, 1.5 * float(np.median(np.diff(clear)))):
            continue
        colour = "light" if side == 1 else "dark"
        out.append(PhotoChecker(u.x, u.y, u.radius, colour, UNSEEN, place, column, row, along))
    return out


def _point_rows(checkers: list[PhotoChecker]) -> dict[tuple[int, int], list[PhotoChecker]]:
    """The checkers on the points, by (column, row), in the order given."""
    rows: dict[tuple[int, int], list[PhotoChecker]] = {}
    for c in checkers:
        if c.place == "point":
            rows.setdefault((c.column, c.row), []).append(c)
    return rows


def _hidden_in_rows(checkers: list[PhotoChecker], radius: float) -> list[PhotoChecker]:
    """Checkers a row skips: a row of checkers on a point has no holes, so where two of its
    checkers lie more than a diameter and a half apart the ones between went unseen; they
    are put evenly between, with a low confidence."""
    out = []
    for row in _point_rows(checkers).values():
        row.sort(key=lambda c: c.along)
        for a, b in zip(row, row[1:]):
            missing = int(round((b.along - a.along) / (2 * radius))) - 1
            if (b.along - a.along) <= NEXT_SLOT[1] * radius or missing < 1 or a.colour != b.colour:
                continue
            for k in range(1, missing + 1):
                f = k / (missing + 1)
                out.append(PhotoChecker(a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), radius, a.colour, UNSEEN,
                                        "point", a.column, a.row, a.along + f * (b.along - a.along)))
    return out


def _piled_on(image: np.ndarray, checkers: list[PhotoChecker], fit: FieldFit, scale: float,
              trays: Sequence[TrayBand]) -> list[PhotoChecker]:
    """Checkers hidden in a pile on a point: in a row squeezed onto it (``_squeezed``, its
    rims counted from its tip-most checker's centre, ``row_rims``), under a pyramid
    (``_under_pyramid``), or in a stack: a second row put on a row of ``ROW`` (each
    checker ``STACK_SHIFT`` toward the tip from the one under it) hides all of the lower
    row but a crescent at the base and the checkers past its end. Where that crescent shows past the base-most checker found
    (``lower_rim``), or was found as a checker of its own (one partly under another: a
    tilted camera shows the lower row beside the upper one), one lies hidden under each
    checker of the upper row (``_stack_uppers``), less those found beyond the row a stack
    shows (``_stack_hides``).
    A colour's hidden checkers are counted when they are just what it is short of, less
    those standing in the trays (``_in_trays``; a colour whose checkers all lie in one
    quarter of the field may be all home), with its discs off the field or without them
    (then those are no checkers: ``_fifteen`` drops them), its stacks' upper rows counted
    to fit that where their places allow (``_hidden_wanted``); short of more, a checker
    went unseen elsewhere too; of fewer, a crescent was a row's first checker's shadow or
    rim, unless a stack's upper row shows plainly (``_plain_upper``): its checkers are
    hidden whatever the colour lacks, and a colour past fifteen makes no position (a
    checker taken elsewhere is none: a point's own drawing beside a row). Its pyramids'
    and squeezed rows' alone are counted when those are at least that: their shape is
    firmer evidence than a count, so one hiding more means a checker taken is none, and
    the colour's count past fifteen makes no position. Stacks' hidden checkers are
    put a diameter apart from the base, of the row's colour, at ``UNSEEN`` confidence.
    ``checkers`` and ``fit`` in image pixels, their ``along`` at the working ``scale``."""
    shaped: dict[str, list[PhotoChecker]] = {colour: [] for colour in COLOURS}
    # each stack's places for hidden checkers (base first), its upper row's fit by count
    # and the checkers found on its point
    stacks: dict[str, list[tuple[list[PhotoChecker], dict[int, float], int]]] = {colour: [] for colour in COLOURS}

    def base_of(c: PhotoChecker) -> tuple[float, float]:
        """The nearest point of the base of ``c``'s point."""
        x, y = fit.to_image([(fit.to_field([(c.x, c.y)])[0][0], float(c.row))])[0]
        return float(x), float(y)

    def on_another(c: PhotoChecker) -> bool:
        return lower_rim(image, c.x, c.y, c.radius, base_of(c))

    for (column, row), stack in _point_rows(checkers).items():
        stack.sort(key=lambda c: c.along)
        first, top = stack[0], stack[-1]
        under = None
        if top.outline > 0:           # found, not put where a row skips one
            base = base_of(top)
            under = _squeezed(stack, row_rims(image, top.x, top.y, top.radius, base), base, scale)
        if under is None:
            under = _under_pyramid(stack, scale, on_another)
        if under is not None:
            shaped[first.colour] += under
            continue
        # the crescent under the base-most upper checker found as a checker of its own
        crescent = int(first.outline == 0)
        if len(stack) < ROW or not (crescent or on_another(first)):
            continue
        upper = stack[crescent]
        base = base_of(upper)
        reach = float(np.hypot(base[0] - upper.x, base[1] - upper.y))
        under_stack = []
        for k in range(crescent, ROW):
            f = (2 * k + 1) * upper.radius / reach
            under_stack.append(PhotoChecker(
                base[0] + f * (upper.x - base[0]), base[1] + f * (upper.y - base[1]), upper.radius, upper.colour,
                UNSEEN, "point", column, row, upper.along - (1 - f) * reach * scale))
        stacks[upper.colour].append((under_stack, _stack_uppers(stack[crescent:crescent + ROW]), len(stack)))
    short = {colour: CHECKERS - sum(1 for c in checkers if c.colour == colour)
             - _in_trays(trays, colour, _one_quarter(checkers, colour)) for colour in COLOURS}
    off = {colour: sum(1 for c in checkers if c.colour == colour and c.place == "off") for colour in COLOURS}
    counted = []
    for colour in COLOURS:
        firm = len(shaped[colour])
        wanted = {short[colour] - firm, short[colour] + off[colour] - firm}
        hidden = _hidden_wanted([(fits, seen) for _, fits, seen in stacks[colour]], wanted)
        if hidden is not None:
            counted += shaped[colour]
            counted += [c for (under, _, _), n in zip(stacks[colour], hidden) for c in under[:n]]
            continue
        if firm >= short[colour]:
            counted += shaped[colour]
        counted += [c for under, fits, seen in stacks[colour] for c in under[:_plain_upper(fits, seen)]]
    return counted


def _plain_upper(fits: dict[int, float], seen: int) -> int:
    """How many checkers a stack plainly hides (``fits`` from ``_stack_uppers``, ``seen``
    checkers found on its point): those under its best count of a row with a lower one
    showing past it (``_stack_hides``), when that fits the places ``PLAIN_STACK`` times as
    well as an even row or better (else none)."""
    best = _best_upper(fits)
    return _stack_hides(best, seen) if best and fits[best] <= PLAIN_STACK * fits[max(fits)] else 0


def _stack_hides(upper: int, seen: int) -> int:
    """How many checkers a stack of ``upper`` checkers on a row of ``ROW`` hides when
    ``seen`` were found on its point: one under each upper checker, less those found
    beyond the ``ROW`` a stack shows (a crescent found as a disc of its own)."""
    return max(0, min(upper, ROW + upper - seen))


def _best_upper(fits: dict[int, float]) -> int:
    """A stack's best count of an upper row with a lower one showing past it (fewer than
    its row's checkers; ``fits`` from ``_stack_uppers``), 0 for a row of one."""
    return min((n for n in fits if n < max(fits)), key=fits.get, default=0)


def _hidden_wanted(stacks: list[tuple[dict[int, float], int]], wanted: set[int]) -> tuple[int, ...] | None:
    """How many checkers each stack hides (``stacks``: each one's misfit by count of its
    upper row, from ``_stack_uppers``, and the checkers found on its point; ``_stack_hides``)
    so that together they hide one of the ``wanted`` numbers, or None: with each stack's
    best count of a row with a lower one showing past it (fewer than its row's
    checkers), else with the counts that fit their places within ``STACK_SLACK`` of each
    stack's best, the best fitting first. A row wholly of upper checkers lies as evenly
    as one with a single upper checker at its base: only what the colour lacks tells
    them apart."""
    def hides(counts) -> tuple[int, ...]:
        return tuple(_stack_hides(n, seen) for n, (_, seen) in zip(counts, stacks))

    best = hides(_best_upper(f) for f, _ in stacks)
    if sum(best) in wanted:
        return best
    near = [[n for n in f if f[n] <= min(f.values()) + STACK_SLACK] for f, _ in stacks]
    choices = [c for c in itertools.product(*near) if sum(hides(c)) in wanted]
    fitting = min(choices, key=lambda c: sum(f[n] for (f, _), n in zip(stacks, c)), default=None)
    return None if fitting is None else hides(fitting)


def _in_trays(trays: Sequence[TrayBand], colour: str, all_home: bool) -> int:
    """How many of a colour's checkers stand in the trays: those in rows of ``TRAY_ROW`` or
    more, and once the side is all home a lone one too (one face alone may be a case's
    hinge or a die)."""
    return sum(b.count for b in trays if b.colour == colour and (all_home or b.count >= TRAY_ROW))


def _one_quarter(checkers: list[PhotoChecker], colour: str) -> bool:
    """Whether a colour's checkers all lie on the points of one quarter of the field (six
    points of one row on one side of the bar): all home, whichever corner is its home."""
    quarters = {(c.row, c.column // 6) if c.place == "point" else c.place for c in checkers if c.colour == colour}
    return len(quarters) == 1 and "bar" not in quarters and "off" not in quarters


def _along_row(row: list[PhotoChecker]) -> tuple[np.ndarray, np.ndarray]:
    """The unit vector from a row's first checker to its last, and each checker's distance
    from the first along it (pixels)."""
    first = row[0]
    way = np.array([row[-1].x - first.x, row[-1].y - first.y])
    way /= max(float(np.linalg.norm(way)), 1e-9)
    return way, np.array([(c.x - first.x) * way[0] + (c.y - first.y) * way[1] for c in row])


def _stack_uppers(row: list[PhotoChecker]) -> dict[int, float]:
    """How well each count of checkers in the upper row of a stack whose first ``ROW``
    checkers seen from the point's base are ``row`` fits their places: the upper row's
    checkers lie a diameter apart from ``STACK_SHIFT`` past the base slot, the lower
    row's that show past them a diameter apart on their slots, so the step from the one
    to the other is short. The base-most checker seen is the upper one and the crescent
    under it merged, read halfway between them. Each count's misfit is the root mean
    square of the places' distances from its pattern (least squares, the row's start and
    step free), in steps."""
    t = _along_row(row)[1]
    index = np.arange(len(row))
    fits = {}
    for count in range(1, len(row) + 1):
        slots = index + np.where(index < count, STACK_SHIFT, 0.0)
        slots[0] = STACK_SHIFT / 2
        model = np.stack([np.ones(len(row)), slots], axis=1)
        (start, step), *_ = np.linalg.lstsq(model, t, rcond=None)
        fits[count] = float(np.sqrt(np.mean((model @ (start, step) - t) ** 2)) / max(abs(step), 1e-9))
    return fits


def _under_pyramid(stack: list[PhotoChecker], scale: float,
                   on_another=lambda c: False) -> list[PhotoChecker] | None:
    """The checkers a pyramid hides, or None when ``stack`` (a point's checkers from its
    base) is none: a row with a shorter row on it, each upper checker in the hollow
    between two lower ones, a half step along from them (the step: the median of the
    pile's steps from ``HALF_SLOT`` diameters to a row's longest, then the one that puts
    the checkers on their slots best), every checker found on a slot or a half slot
    (``ON_SLOT``) and none more than a slot from the next. An upper checker lies on the
    two under it, and neither row has holes, so the lower row runs from the base to past
    the upper row's last, its last checker half in view beyond it and found (else the
    "upper" checker ends a row with a gap), the upper row from its first to its last;
    the slots of either where none was found hide one (the upper row covers all but
    slivers of the lower one's). Only a pile of more than ``ROW``. The slots are fitted
    to the checkers whose whole outline shows, as every upper one's does; a disc found
    with a faint outline (under ``SLIVER`` times the pile's median) is a lower checker's
    sliver, off its slot toward the part that shows, and stands for the hidden lower
    checker within a slot of it. The first clear checker lies at the base (a lower one,
    within three quarters of a step), or is an upper one whose base checker went unseen
    under it: then it lies further, but that checker within half a step (touching the
    base), and shows as a crescent toward the base (``on_another``: whether a checker
    lies under the one given)."""
    seen = [c.outline for c in stack if c.outline > 0]
    faint = [0 < c.outline < SLIVER * float(np.median(seen)) for c in stack]
    clear = [c for c, f in zip(stack, faint) if not f]
    if len(clear) < 3 or any(c.colour != clear[0].colour for c in stack):
        return None
    first = clear[0]
    way, t = _along_row(clear)
    slivers = [(c.x - first.x) * way[0] + (c.y - first.y) * way[1] for c, f in zip(stack, faint) if f]
    steps = np.diff(t) / (2 * first.radius)
    whole = steps[(steps >= HALF_SLOT) & (steps <= NEXT_SLOT[1] / 2)]
    estimate = 2 * first.radius * float(np.median(whole) if len(whole) else 2 * np.median(steps))
    row_misfit = np.inf     # the farthest a checker lies from its slot (pixels) in the pile read as one even row
    # (slot of the first clear one, most room before the base checker, least before the first: steps)
    for first_slot, base_room, first_room in ((0, 0.75, -np.inf), (1, 0.5, 0.75)):
        from_base = t + first_slot * estimate / 2          # from the base checker's place
        step = from_base[-1] / max(round(from_base[-1] / estimate), 1)   # the last lies on the lower row
        slots = np.round(2 * from_base / step).astype(int)
        origin = 0.0
        if slots[-1] > 0:                # the slot 0 and step that put them on their slots best
            origin, step = np.linalg.lstsq(np.stack([np.ones(len(t)), slots / 2], axis=1), from_base, rcond=None)[0]
        halves = 2 * (from_base - origin) / step
        slots = np.round(halves).astype(int)
        if (np.abs(halves - slots).max() > ON_SLOT or len(set(slots)) < len(slots) or np.diff(slots).max() > 3
                or slots[0] != first_slot or first.along / scale <= first_room * step
                or first.along / scale + origin - first_slot * estimate / 2 > base_room * step
                or (first_slot and not on_another(first))):
            continue
        lower = {int(k) // 2 for k in slots if k % 2 == 0}
        upper = {int(k) // 2 for k in slots if k % 2 == 1}
        misfit = float(np.abs(halves - slots).max()) * step / 2
        if not upper:
            row_misfit = misfit
        if not upper or not lower or max(lower) <= max(upper) or misfit >= row_misfit:
            continue
        missing = [2 * k for k in range(max(lower) + 1) if k not in lower]
        for sliver in slivers:
            half = 2 * (sliver + first_slot * estimate / 2 - origin) / step
            near = [k for k in missing if k % 2 == 0 and abs(k - half) <= 2]
            if near:
                missing.remove(min(near, key=lambda k: abs(k - half)))
        missing += [2 * k + 1 for k in range(min(upper), max(upper) + 1) if k not in upper]
        if len(stack) + len(missing) <= ROW:
            continue
        at = [origin - first_slot * estimate / 2 + k * step / 2 for k in missing]
        return [PhotoChecker(first.x + a * way[0], first.y + a * way[1], first.radius, first.colour, UNSEEN,
                             "point", first.column, first.row, first.along + a * scale) for a in at]
    return None


def _squeezed(stack: list[PhotoChecker], rims: list[float], base: tuple[float, float],
              scale: float) -> list[PhotoChecker] | None:
    """The checkers a row squeezed onto its point hides, or None when ``stack`` (a point's
    checkers from its base, of one colour, two found at least) is none: more than ``ROW``
    checkers, each but the tip-most showing a crescent under the next, so that from the
    tip-most one's centre toward ``base`` (the nearest point of its point's base) a rim
    crosses every ``SQUEEZED_STEP`` (``rims``, from ``row_rims``) about evenly
    (``SQUEEZED_EVEN``: touching checkers with rings inlaid on their faces show a ring and
    a rim by turns): its own within ``LOWER_EDGE``, the last within a radius of the base,
    and a checker's centre lies a radius (the tip-most one's rim's distance) tipward of
    each. Every checker found lies on one of those places (``SQUEEZED_ON``), no two on one;
    one put where its row skips one (``_hidden_in_rows``) takes the nearest place left, and
    each place left after them hides one."""
    top = stack[-1]
    radius = top.radius
    way = np.array([base[0] - top.x, base[1] - top.y], float)
    reach = float(np.linalg.norm(way))
    steps = np.diff(rims)
    found = [c for c in stack if c.outline > 0]
    if (len(rims) <= max(ROW, len(stack)) or len(found) < 2 or any(c.colour != top.colour for c in stack)
            or not LOWER_EDGE[0] * radius <= rims[0] <= LOWER_EDGE[1] * radius
            or steps.min() < SQUEEZED_STEP[0] * radius or steps.max() > SQUEEZED_STEP[1] * radius
            or steps.max() > SQUEEZED_EVEN * steps.min() or rims[-1] < reach - radius):
        return None
    way /= reach
    places = np.array(rims) - rims[0]
    left = set(range(len(places)))
    for c in sorted(stack, key=lambda c: c.outline == 0):       # those found first
        a = float(np.hypot(c.x - top.x, c.y - top.y))
        k = min(left, key=lambda k: abs(places[k] - a))
        if c.outline > 0 and abs(places[k] - a) > SQUEEZED_ON * steps.min():
            return None
        left.remove(k)
    return [PhotoChecker(top.x + places[k] * way[0], top.y + places[k] * way[1], radius, top.colour, UNSEEN,
                         "point", top.column, top.row, top.along - places[k] * scale) for k in sorted(left)]


def _evidence(d: Disc, distance: float, reference: float) -> float:
    """How much a disc's look says it is a checker (log-odds): its outline's support, judged
    against the photo's clearest outlines (``reference``), less how far its colour lies
    from its side's (``distance``) and how long an arc of its outline went unseen."""
    return (SUPPORT_SLOPE * (d.support - _even_support(reference)) - COLOUR_COST * (distance - EVEN_COLOUR)
            - GAP_COST * (d.gap - EVEN_GAP))


def _even_support(reference: float) -> float:
    """The outline support at which a disc is as likely a checker as not, in a photo whose
    clearest outlines have ``reference``."""
    return max(EVEN_SUPPORT, EVEN_SHARE * reference)


def _field_like(discs: list[Disc], centres: np.ndarray, field: np.ndarray | None) -> np.ndarray:
    """For each disc and side (N x 2), whether its colour lies ``FIELD_LIKE`` times nearer
    the field's colour (``field``, Lab; None when unknown) than that side's (``centres``,
    from ``split_colours``): a round patch of the field, not a checker. So does one whose
    hue (a*, b*) lies ``FIELD_HUE_LIKE`` times nearer the field's than the side's, where
    the side's hue stands ``FIELD_HUE`` from the field's, however light: the field in a
    checker's shadow or a lit patch of its grain (on a cream field, shade or light makes
    it nearly a white checker's colour, but not its hue). A disc no lighter than the field
    whose hue lies ``SHADED_HUE`` times nearer the side's than the field's is that side's
    checker in shade, not the field: shade darkens the field but keeps its hue, and only
    a glare, which lightens it, takes its hue away."""
    if field is None or not discs:
        return np.zeros((len(discs), 2), bool)
    colours, field = weighted([d.lab for d in discs]), weighted(field)
    to_field = np.linalg.norm(colours - field, axis=1)
    like = to_field[:, None] < FIELD_LIKE * np.linalg.norm(colours[:, None] - centres[None], axis=2)
    hue_to_field = np.linalg.norm(colours[:, 1:] - field[1:], axis=1)
    hue_to_side = np.linalg.norm(colours[:, None, 1:] - centres[None, :, 1:], axis=2)
    shaded = (SHADED_HUE * hue_to_side < hue_to_field[:, None]) & (colours[:, :1] <= field[0])
    like &= ~shaded
    hue = ((hue_to_field[:, None] < FIELD_HUE_LIKE * hue_to_side)
           & (np.linalg.norm(centres[:, 1:] - field[1:], axis=1) >= FIELD_HUE)[None])
    return like | hue


def _row(members: list[int], discs: list[Disc], places, distances, row_colours, near_die, field_like, radius: float,
         reference: float, sides=(0, 1), lit: set[int] = frozenset()) -> tuple[int, set[int]]:
    """The discs on one point that are checkers: the best row among them, as (side label,
    its discs). A row is of one side's colour (each disc within ``ROW_COLOUR`` of it, or
    plainly nearer it: ``row_colours``, from ``_row_colours``) and runs from the point's base (its first disc
    within ``FIRST_SLOT`` radii of it) through discs each ``NEXT_SLOT`` radii from the
    last (less when piled or squeezed; a step of about a diameter along the point, at most
    ``STRAIGHT`` across it, is the row's regular spacing and adds ``ROW_BONUS``, which a
    disc half a point aside, where an inlay or the field's grain outlines one, does not
    gain however far along it lies; a longer step skips unseen checkers at ``SKIP_COST``
    each). A row's worth is the sum of its discs' evidence (``_evidence``, their colour
    judged against the row's side) and of its steps, less ``START_COST``; the best row is
    taken when its worth is positive.
    A row has no holes: a disc below one seen clearly on its own (positive evidence) on
    the point's line (within ``ON_LINE``: between two points' tips the field's grain
    outlines discs of a light side's colour) counts at worst as even, however faint its
    outline (dark checkers on a dark point), unless it lies half off the field (less than
    ``ON_FIELD`` radii inside the base: the case's edge and corner outline faint discs
    there), is the field's colour (its grain: a cream field outlines discs of a light
    side's colour) or lies aside between two outlined ones (``_aside``: a pile's edge
    outlines one there), and only where the row needs it: one the row may step straight
    past at no loss is none (longer steps are weighed first and a shorter one must be
    worth more); past the last clear one only the evidence of each disc and its step
    count, but the step from a clear one to a disc whose outline is under what a
    checker's needs (``_even_support``) counts nothing, so the faint disc a bare point's
    base, or the body of a point of the checkers' colour, makes beside the row's last
    checker stays out, while a row of faint discs (dark checkers on a dark point) is
    still one. So a clear one alone makes a row and a disc whose colour lies between the
    sides' takes its row's. A clear disc whose colour is plainly the other side's
    (``NEARER``) joins a row only where the row's colour vouches for the row (a clear
    disc of that colour, or two as likely checkers as not: a row whose first checker
    stands in shade), not beside one faint disc (a point of the row's colour outlines one
    on its body beside the other side's checker); discs ``lit`` are exempt. A disc round
    a die read (``near_die``: the die's middle inside it) costs ``DIE_COST``: alone it is
    the die, in a row of checkers it is one, and it vouches for no faint disc below it (a
    die thrown onto a point beyond its checkers). A disc the colour of the field
    (``field_like``) costs ``FIELD_COST``: on a field the colour of one side's checkers
    (cream and white) the field's grain outlines discs of nearly that colour beside the
    points. The discs ``lit`` (a row read as the other side's: a point holds one side's
    checkers) count at most ``ROW_COLOUR`` from the side, however far their colour lies
    (black checkers lit grey under a lamp's glare)."""
    best_row: tuple[float, int, set[int]] = (0.0, sides[0], set())
    even_support = _even_support(reference)
    for side in sides:
        colour = {j: min(row_colours[j, side], ROW_COLOUR) if j in lit else row_colours[j, side] for j in members}
        own = [discs[j].support for j in members if distances[j][side] <= COLOUR_SPREAD]
        row_vouched = any(v >= CLEAR_OUTLINE for v in own) or sum(v >= even_support for v in own) >= 2
        plainly_other = {j for j in members if not row_vouched and j not in lit and discs[j].support >= CLEAR_OUTLINE
                         and distances[j][1 - side] <= NEARER * distances[j][side]}
        order = sorted((j for j in members if colour[j] <= ROW_COLOUR and j not in plainly_other),
                       key=lambda j: places[j][4])
        along = [places[j][4] for j in order]
        outlined = [discs[j].support >= even_support for j in order]
        worth = [_evidence(discs[j], colour[j], reference) - DIE_COST * near_die[j]
                 - FIELD_COST * field_like[j, side] - OFF_LINE_COST * max(0.0, places[j][3] - ON_LINE) for j in order]
        vouching = [w > 0 and places[j][3] <= ON_LINE for w, j in zip(worth, order)]
        centres = np.array([(discs[j].x, discs[j].y) for j in order], float).reshape(-1, 2)
        aside = _aside(along, centres, outlined, radius)
        # rest[a][vouched]: the best worth of a row's part from disc a on toward the tip,
        # ``vouched`` when that part holds a clear disc; nxt: the disc after a in it
        rest: list[dict[bool, float]] = [{} for _ in order]
        nxt: list[dict[bool, tuple[int, bool] | None]] = [{} for _ in order]
        for a in reversed(range(len(order))):
            rest[a][vouching[a]], nxt[a][vouching[a]] = worth[a], None
            for b in reversed(range(a + 1, len(order))):
                step = along[b] - along[a]
                if not NEXT_SLOT[0] * radius <= step <= (NEXT_SLOT[1] + HOLE) * radius:
                    continue
                skipped = max(0, int(round(step / (2 * radius))) - 1) if step > NEXT_SLOT[1] * radius else 0
                across_squared = float(np.sum((centres[b] - centres[a]) ** 2)) - step ** 2
                regular = (REGULAR_STEP[0] * radius <= step <= REGULAR_STEP[1] * radius
                           and across_squared <= (STRAIGHT * radius) ** 2)
                link = ROW_BONUS if regular else 0.0
                for vouched, value in rest[b].items():
                    even = (vouched and along[a] >= ON_FIELD * radius and not field_like[order[a], side]
                            and not aside[a])
                    faint_after_clear = worth[a] > 0 and not (vouched or outlined[b])
                    v = ((max(worth[a], 0.0) if even else worth[a]) + (0.0 if faint_after_clear else link)
                         - SKIP_COST * skipped + value)
                    state = vouched or vouching[a]
                    if v > rest[a].get(state, -np.inf):
                        rest[a][state], nxt[a][state] = v, (b, vouched)
        for a in range(len(order)):
            if along[a] > FIRST_SLOT * radius:
                continue
            for vouched, value in rest[a].items():
                if value - START_COST > best_row[0]:
                    row, at = set(), (a, vouched)
                    while at is not None:
                        row.add(order[at[0]])
                        at = nxt[at[0]][at[1]]
                    best_row = (value - START_COST, side, row)
    return best_row[1], best_row[2]


def _side_counts(read: dict, others: list[int]) -> np.ndarray:
    """Each side's checkers (by label): those in the rows ``read`` (point -> (side, discs))
    and ``others`` (the sides of the checkers off the points)."""
    return np.bincount(np.array(others + [side for side, row in read.values() for _ in row], int), minlength=2)


def _balanced(read: dict, others: list[int], row_of, distances: np.ndarray) -> dict:
    """The rows ``read`` (point -> (side, discs)) with a side that has more than fifteen
    checkers while the other has fewer (``others``: the sides of the checkers off the
    points) made whole: the rows whose colour lies nearest the other side's, no more than
    ``SWITCH`` times as far from it as from their own, are read as the other side's
    (``row_of(point, side)``, the row's discs of that side's colour lit apart) while that
    leaves it no more than fifteen. A point holds one side's checkers and a side has
    fifteen: pale grey checkers lit toward cream ones are the grey side's when the cream
    side already has its fifteen, and so are black ones lit grey by a glare along the row."""
    counts = _side_counts(read, others)
    full = int(counts.argmax())
    if counts[full] <= CHECKERS or counts[1 - full] >= CHECKERS:
        return read
    read = dict(read)
    nearness = {key: float(np.median([distances[i, full] / max(distances[i, 1 - full], 1e-6) for i in row]))
                for key, (side, row) in read.items() if side == full and row}
    for key in sorted(nearness, key=lambda k: -nearness[k]):
        if counts[full] <= CHECKERS or nearness[key] * SWITCH < 1.0:
            break
        side, row = row_of(key, 1 - full)
        if row and counts[1 - full] + len(row) <= CHECKERS:
            counts[full] -= len(read[key][1])
            counts[1 - full] += len(row)
            read[key] = (side, row)
    return read


def _continued(read: dict, others: list[int], row_of) -> dict:
    """The rows ``read`` (point -> (side, discs)) of a side with fewer than fifteen
    checkers (``others``: the sides of the checkers off the points), each read again with
    the clear discs on its point (``CLEAR_OUTLINE``) lit apart (``row_of(point, side)``)
    and taken when that only adds discs, while the side has no more than fifteen: clear
    discs continuing a row are its side's whatever their colour (a point holds one side's
    checkers: black ones lit grey by a glare toward the row's tip)."""
    counts = _side_counts(read, others)
    read = dict(read)
    for key, (side, row) in sorted(read.items()):
        if not row or counts[side] >= CHECKERS:
            continue
        longer = row_of(key, side)[1]
        if longer > row and counts[side] + len(longer) - len(row) <= CHECKERS:
            counts[side] += len(longer) - len(row)
            read[key] = (side, longer)
    return read


def _aside(along: list[float], centres: np.ndarray, outlined: list[bool], radius: float) -> list[bool]:
    """For each of a point's discs (in order along it), whether it lies between two outlined
    ones, each less than ``REGULAR_STEP[0]`` radii from it along the point, and more than
    ``ASIDE`` radii off the line joining them: no hole of a row there (a checker squeezed
    between two lies on their line; a pile's edge outlines a disc half a point aside,
    overlapping both)."""
    limit = REGULAR_STEP[0] * radius
    out = []
    for a in range(len(along)):
        p = next((p for p in reversed(range(a)) if outlined[p] and along[a] - along[p] < limit), None)
        q = next((q for q in range(a + 1, len(along)) if outlined[q] and along[q] - along[a] < limit), None)
        if p is None or q is None:
            out.append(False)
            continue
        (dx, dy), (ex, ey) = centres[q] - centres[p], centres[a] - centres[p]
        out.append(bool(abs(dx * ey - dy * ex) > ASIDE * radius * max(float(np.hypot(dx, dy)), 1e-9)))
    return out


def _row_colours(discs: list[Disc], distances: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """How far (spreads) each disc's colour counts from each side's in a row (N x 2): its
    distance (``distances``), but no more than ``ROW_COLOUR`` for a clear outline
    (``CLEAR_OUTLINE``) that lies at most ``NEARER`` times as far from that side as from the
    other, in spreads or in colour itself (``centres``, the sides' weighted Lab): a checker
    lit apart from the rest (a white one under a lamp among grey ones) is still plainly of
    its side, and so is a white checker in the case's shade, many spreads of checkers that
    look alike from the white ones but far nearer them than the black ones."""
    if not discs:
        return np.zeros((0, 2))
    apart = np.linalg.norm(weighted([d.lab for d in discs])[:, None] - centres[None], axis=2)
    clear = np.array([d.support >= CLEAR_OUTLINE for d in discs])[:, None]
    plainly = (distances <= NEARER * distances[:, ::-1]) | (apart <= NEARER * apart[:, ::-1])
    return np.where(clear & plainly, np.minimum(distances, ROW_COLOUR), distances)


def _place(d: Disc, fit: FieldFit | None, radius: float) -> tuple[str, int | None, int | None, float, float]:
    """(place, column, row, distance from the column's centre line in point widths, distance
    from the row's base in image pixels) of a disc: 'point' (on the field), 'bar', 'cube'
    (the bar's middle) or 'off' (outside the field). A disc centred up to ``EDGE_SLACK``
    radii beyond a base is on its point, its distance from the base negative (the field
    found a little inside the true one: its row still runs on from there)."""
    if fit is None:
        return "off", None, None, 1.0, 0.0
    u, v = fit.to_field([(d.x, d.y)])[0]
    half = (1 - fit.bar) / 2
    base = fit.to_image([(u, 0.0 if v < 0.5 else 1.0)])[0]
    along = float(np.hypot(d.x - base[0], d.y - base[1])) * (-1.0 if min(v, 1 - v) < 0 else 1.0)
    if not (-0.01 <= u <= 1.01) or along < -EDGE_SLACK * radius:
        return "off", None, None, 1.0, 0.0
    if half <= u <= 1 - half:
        # the doubling cube waits in the bar's middle; checkers on the bar lie further out
        middle = fit.to_image([(0.5, 0.5)])[0]
        if np.hypot(d.x - middle[0], d.y - middle[1]) < CUBE_ROOM * radius:
            return "cube", None, None, 1.0, 0.0
        return "bar", None, None, 0.0, 0.0
    centres = fit.column_centres()
    column = int(np.argmin(np.abs(centres - u)))
    return "point", column, int(v >= 0.5), float(abs(centres[column] - u) / fit.point_width), along


# ------------------------------------------------------------------------ the position
def _read_position(checkers: list[PhotoChecker], fit: FieldFit, dice, white, home,
                   cover: Cover = Cover(), trays: Sequence[TrayBand] = ()) -> PhotoRead:
    """Counts per point and the orientation that makes the best position of them, the
    points ``cover`` names read as ranges, ``trays`` the checkers seen standing in them."""
    stacks = _point_rows(checkers)
    mixed = [key for key, stack in stacks.items() if len({c.colour for c in stack}) > 1]
    counts = {c: sum(1 for k in checkers if k.colour == c) for c in COLOURS}
    reason = None
    if mixed:
        reason = f"checkers of both colours on {len(mixed)} point(s)"
    elif any(n > CHECKERS for n in counts.values()):
        reason = "more than 15 checkers of one colour: " + ", ".join(f"{n} {c}" for c, n in counts.items())
    choices = []
    for w in ([white] if white else list(COLOURS)):
        for h in ([home] if home else list(HOMES)):
            choices.append(_orient(checkers, stacks, fit, dice, w, h, cover, trays))
    choices.sort(key=lambda ch: ch[0])
    read = choices[0][1]
    chosen = [name for name, given in (("home", home), ("white", white)) if not given]
    alternatives = [{"home": r.orientation["home"], "white": r.orientation["white"], "xgid": Xgid(r.position).encode()}
                    for _, r in choices[1:]
                    if r.position is not None and r.orientation["white"] == read.orientation["white"]]
    orientation = dict(read.orientation, chosen=chosen, sure=not chosen,
                       alternatives=alternatives if "home" in chosen and not reason and read.position else [])
    return PhotoRead(read.board, read.checkers, read.observation, None if reason else read.position,
                     "; ".join(r for r in (read.reason, reason) if r) or None, orientation)


def _numbers(indices) -> str:
    """Point indices (0..23) as the points' numbers, for a reason's text."""
    return ", ".join(str(i + 1) for i in indices)


def _home_corner(fit: FieldFit, home: str) -> tuple[int, int]:
    """The field corner (u, v in {0, 1}) that appears in the photo's ``home`` corner."""
    centre = fit.to_image([(0.5, 0.5)])[0]
    want = np.array([1.0 if home.endswith("right") else -1.0, 1.0 if home.startswith("bottom") else -1.0])
    best, corner = -np.inf, (1, 1)
    for u in (0, 1):
        for v in (0, 1):
            d = fit.to_image([(u, v)])[0] - centre
            s = float(np.dot(d / (np.linalg.norm(d) + 1e-9), want))
            if s > best:
                best, corner = s, (u, v)
    return corner


def _point_number(column: int, row: int, corner: tuple[int, int]) -> int:
    """White's point number of a field column (0..11 from u=0) and row (0 at v=0), White's
    home board being the quarter at field corner ``corner``."""
    k = column if corner[0] == 0 else 11 - column       # columns counted from the home end
    return k + 1 if row == corner[1] else 24 - k


def _conventional(fit: FieldFit, corner: tuple[int, int]) -> bool:
    """True when the home board is on White's right as White sits at its own side."""
    u, v = corner
    a = fit.to_image([(0.5, v)])[0]
    facing = fit.to_image([(0.5, 1 - v)])[0] - a
    right = np.array([-facing[1], facing[0]])
    toward = fit.to_image([(u, v)])[0] - a
    return float(np.dot(right, toward)) > 0


def _orient(checkers, stacks, fit: FieldFit, dice, white: str, home: str, cover: Cover,
            trays: Sequence[TrayBand]):
    """(rank, PhotoRead) for White's checkers being ``white`` and its home in ``home``.
    Checkers not found may lie in a pile or on a point whose next checker's place stands
    out or whose row skips its base (``cover.unsure``); on a point something unexplained
    lies over (``cover.reached``) anything may, and what was found there may be no
    checker: no count is sure there. Where a single pile of a side that has borne off
    none can hold what it lacks, and nothing else may, the pile's count is the likeliest
    (what shows and what is lacking), its range still honest and no position made. A
    side's checkers standing in the trays (in rows of ``TRAY_ROW`` or more; a lone one
    too once the side is all home) check what it lacks: just those were borne off and
    nothing is hidden (a side not all home was hit after bearing off, so only a row
    standing will do); fewer leave the rest to the piles (to its one pile,
    and a position made, when the side is all home and bears off into a tray with a row
    standing); more leave the side unsure."""
    corner = _home_corner(fit, home)
    unsure = {_point_number(column, row, corner) - 1 for column, row in cover.unsure}
    reached = {_point_number(column, row, corner) - 1 for column, row in cover.reached}
    owner = {white: "white", ("dark" if white == "light" else "light"): "black"}
    signed = [0] * 24
    confidence = [1.0] * 24
    for (column, row), stack in stacks.items():
        n = _point_number(column, row, corner)
        colour = owner[stack[0].colour]
        signed[n - 1] = len(stack) if colour == "white" else -len(stack)
        confidence[n - 1] = min(c.confidence for c in stack)
    bar = {"white": 0, "black": 0}
    for c in checkers:
        if c.place == "bar":
            bar[owner[c.colour]] += 1
    located = []
    for c in checkers:
        loc: int | str = c.place
        if c.place == "point":
            loc = _point_number(c.column, c.row, corner)
        located.append(replace(c, location=loc))
    ranges = [(abs(n), abs(n)) for n in signed]
    off: dict[str, tuple[int, int]] = {}
    unsure_text: list[str] = []
    for side, sign in (("white", 1), ("black", -1)):
        missing = CHECKERS - sum(n * sign for n in signed if n * sign > 0) - bar[side]
        home_board = range(0, 6) if sign > 0 else range(18, 24)
        all_home = bar[side] == 0 and all(i in home_board for i, n in enumerate(signed) if n * sign > 0)
        # once all are home the tray may hold what is missing, and so may a row one short
        # of full: a pile whose row lost a checker from sight to the layer on it
        piles = [i for i, n in enumerate(signed) if n * sign >= (ROW - 1 if all_home else ROW)]
        hiding = sorted(i for i in unsure if signed[i] * sign >= 0 and i not in piles)
        off[side] = (max(0, missing), max(0, missing))
        colour = next(c for c, o in owner.items() if o == side)
        standing = _in_trays(trays, colour, all_home)
        if standing > max(0, missing):
            # a pile or a stray disc read too high, or what stands in a tray is no checker
            unsure_text.append(f"{CHECKERS - missing} {colour} checkers found and {standing} standing in a tray")
            continue
        if missing <= 0 or standing == missing or (all_home and not piles and not hiding and not reached):
            continue
        # checkers not found: hidden in a pile or under what covers a point, borne off
        # (only once all are home) or simply unseen; no count is sure, the piles, the
        # covered points and the tray get honest ranges
        off[side] = (standing, missing)
        for i in piles + hiding:
            ranges[i] = (abs(signed[i]), max(ranges[i][1], abs(signed[i]) + missing - standing))
            confidence[i] = min(confidence[i], 0.3)
        if len(piles) == 1 and not hiding and not reached and (standing or not all_home):
            # the one place that can hold them but for those standing in a tray (none borne
            # off where no tray shows any and some are not home): its likeliest count
            signed[piles[0]] += sign * (missing - standing)
            if all_home and standing >= TRAY_ROW:
                continue        # a tray in use for a side bearing off: the rest lie in its one pile
        where = [f"piles on points {_numbers(piles)}"] if piles else []
        where += [f"what lies over points {_numbers(hiding)}"] if hiding else []
        hidden = "the rest" if standing else "them"
        unsure_text.append(f"{missing} {colour} checker{'s' if missing > 1 else ''} not found"
                           + (f", {standing} standing in a tray" if standing else "")
                           + (f" ({' or '.join(where)} may hide {hidden})" if where else ""))
    for i in reached:
        ranges[i] = (0, CHECKERS)
        confidence[i] = 0.0
    if reached:
        unsure_text.insert(0, f"something over points {_numbers(sorted(reached))} (a hand?) may hide checkers")
    points = tuple(PointRead(i + 1, None if n == 0 else ("white" if n > 0 else "black"), abs(n), ranges[i],
                             confidence[i], i in reached) for i, n in enumerate(signed))
    halves = _dice_halves(dice, fit, corner)
    observation = Observation(settled=not cover.hand, board_visible=True, points=points,
                              bar={s: (bar[s], bar[s]) for s in bar}, off=off, dice=halves,
                              occlusion=Occlusion(hand=cover.hand))
    position, reason = None, None
    if unsure_text:
        reason = "; ".join(unsure_text)
    else:
        try:
            position = Position.from_points(signed, bar=(bar["white"], bar["black"]))
        except PositionError as err:
            reason = str(err)
    pips = position.pip_count(WHITE) + position.pip_count(1) if position else 10 ** 6
    rank = (position is None, white != "light", not _conventional(fit, corner), pips, HOMES.index(home))
    read = PhotoRead(fit.corners, tuple(located), observation, position, reason, {"home": home, "white": white})
    return rank, read


def _dice(image: np.ndarray, diameter: float, halves: list[np.ndarray] | None, checkers=()) -> list[DieRead]:
    """The dice on the ``halves`` of the field (image polygons; anywhere when None) of a
    board whose checkers are ``diameter`` pixels wide, at most the ``DICE`` surest;
    ``checkers`` the circles (x, y, radius) of the checkers found."""
    found = find_board_photo_dice(image, diameter, surface=halves, checkers=checkers)     # surest first
    return [DieRead(d.value, None, d.flat, False, tuple(int(v) for v in d.box), d.confidence)
            for d in found[:DICE]]


def _in_middle(box, c) -> bool:
    """Whether a die's box is centred in a checker's middle (``c`` has x, y and radius)."""
    x, y, w, h = box
    return bool(np.hypot(x + w / 2 - c.x, y + h / 2 - c.y) < DIE_ON_CHECKER * c.radius)


def _off_checkers(dice: list[DieRead], checkers: list[PhotoChecker]) -> tuple[DieRead, ...]:
    """The dice whose middle lies on no checker found (a glossy checker's highlights can
    pass for pips; a row of checkers outweighs one such read)."""
    return tuple(d for d in dice if not any(_in_middle(d.box, c) for c in checkers))


def _dice_halves(dice, fit: FieldFit, corner: tuple[int, int]) -> tuple[DieRead, ...]:
    """The dice with ``half``: 'white' in the half holding White's home board (White's
    right hand), 'black' in the other, None off the field."""
    out = []
    for d in dice:
        x, y, w, h = d.box
        u, v = fit.to_field([(x + w / 2, y + h / 2)])[0]
        half = None
        if 0 <= u <= 1 and 0 <= v <= 1:
            half = "white" if (u >= 0.5) == (corner[0] == 1) else "black"
        out.append(DieRead(d.value, half, d.flat, d.on_checker, d.box, d.confidence))
    return tuple(out)
