"""Finding and counting checkers on the canonical board.

Checkers are round: their rims are found as circles of a checker's size in the
lightness of the canonical view (a Hough transform of its edges), which works as well
for a checker on a point of its own colour as on any other. A circle is a checker
where the frame differs there from the learned empty board and its rings, from the
centre out past the rim, follow those of a learned checker of its face's colour (a
die, the grain or a point's tip make circles that do not). Where a checker partly
hides another the rings do not follow, but the change is large: such a disc is
``partial`` and only tells of a pile.

Each point's checkers form one row from its base, of one colour: circles fill its
slots; what lies of the other colour, or beyond a gap the row does not fill, is
something else (a die, a checker in a hand). Rows reaching past five checkers, closer
than a checker apart or with partial discs are piles: their count is the range from
the checkers seen to all of the side's checkers, narrowed later by the checker
totals. Borne-off checkers stand on edge in the trays; their count is the filled
length over one checker's thickness.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board_model import ON_EDGE_STEP, ROW, BoardModel
from vision.calibration import Calibration
from vision.circles import checker_circles
from vision.observation import PointRead

LAB_WEIGHTS = np.array((0.5, 1.0, 1.0), np.float32)     # L, a, b in change measures
COLOUR_WEIGHTS = np.array((0.3, 1.0, 1.0), np.float32)  # L counts less: the light varies
CHANGE = 60.0           # mean weighted squared Lab change from the empty board of a checker
FIRST_CHANGE = 120.0    # least change of a faint circle taken for a point's first checker
SLOT_CIRCLE = 0.25      # a circle this near (D) a row's empty slot fills it
OFF_GRID = 0.12         # a checker this far (D) between the row's slots lies on top of the row
FACE_SPREAD = 10.0      # lightness spread over a checker's face beyond which it is not one
FAINT = 300.0           # a change below which a checker's rings must show clearly
STRONG = 600.0          # a change only checkers (or a hand) make
RADIUS = 0.485          # a checker's radius (D)
CENTRE = 12             # index of the unshifted place among the 5 x 5 tried round a circle
ANGLES = np.linspace(0, 2 * np.pi, 32, endpoint=False)
RING_RADII = np.linspace(0.0, 0.85, 18)     # radii (checker radii) of the rings inside a checker
RING_GAIN = (0.5, 1.7)  # light on a checker's rings over the light where they were learned
RING_FIT = 0.25         # share of a checker's ring structure the learned rings may leave unexplained
BARE = 0.3              # a circle whose rings the empty board leaves this little unexplained is the board's
RING_ENERGY = 0.25      # least ring structure of a checker, as a share of the learned one
UNEXPLAINED = 45.0 ** 2  # weighted squared Lab difference from a learned checker it does not explain
TRAY_CHANGE = 18.0      # Lab change that marks a tray's cell as filled
TRAY_FAINT = 8.0        # the same averaged over a checker's thickness, for checkers like their tray
FAINT_TRAY_RUN = 3      # fewest checkers a faint run in a tray is taken for


@dataclass(frozen=True)
class Disc:
    """A checker seen: canonical centre, colour, how much it differs from the empty
    board there (mean weighted squared Lab difference), and whether another checker
    hides part of it."""

    x: float
    y: float
    colour: str
    change: float
    partial: bool = False


@dataclass
class Reading:
    """What one frame shows: the discs found, and per point, the bar and the trays the
    counts read from them (``PointRead``; bar as (min, max) per colour)."""

    discs: list[Disc]
    points: list[PointRead]
    bar: dict[str, tuple[int, int]]
    trays: dict[str, int]


class CheckerField:
    """The learned empty board and checkers of one calibration, ready to read frames."""

    def __init__(self, calibration: Calibration, checkers: int = 15) -> None:
        self.calibration = calibration
        self.model: BoardModel = calibration.model
        self.checkers = checkers
        m = self.model
        s = m.ppd
        self.empty = cv2.cvtColor(calibration.empty, cv2.COLOR_BGR2LAB).astype(np.float32)
        self.faces = {c: np.array(calibration.look(c).lab, np.float32) for c in ("white", "black")}
        self._face_box = (int(0.6 * s) | 1,) * 2
        self._change_box = (int(0.9 * s) | 1,) * 2
        self.empty_faces = cv2.blur(self.empty, self._face_box)
        self.rings = {}
        self.patches = {}
        self.face_spread = {}
        r = int(round(0.55 * s))
        yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
        self._disc = np.hypot(xx, yy) <= r
        for colour in ("white", "black"):
            patch = cv2.cvtColor(calibration.look(colour).patch, cv2.COLOR_BGR2LAB).astype(np.float32)
            c = (patch.shape[0] - 1) / 2
            self.rings[colour] = self._rings(patch[..., 0], np.array([(c, c, 0.0)]))[0]
            ci = int(c)
            self.patches[colour] = patch[ci - r:ci + r + 1, ci - r:ci + r + 1]
            rf = int(round(0.22 * s))
            learned_face = patch[ci - rf:ci + rf + 1, ci - rf:ci + rf + 1, 0]
            self.face_spread[colour] = max(FACE_SPREAD, 2.5 * float(learned_face.std()))
        self._centres = np.array([m.point_base(n)[0] for n in range(1, 25)])  # each point's centre line
        self._lower, self._upper = np.arange(1, 13), np.arange(13, 25)
        fx0, fy0, fx1, fy1 = m.field
        pad = int(0.2 * s)
        self.roi = (max(int(fx0) - pad, 0), max(int(fy0) - pad, 0), int(fx1) + pad, int(fy1) + pad)

    # ------------------------------------------------------------------ reading
    def read(self, lab: np.ndarray) -> Reading:
        """Discs and counts of one frame's canonical view (Lab, float32)."""
        diff = lab - self.empty
        change = cv2.blur((diff * diff) @ LAB_WEIGHTS, self._change_box)
        faces = cv2.blur(lab, self._face_box)
        circles = checker_circles(lab[..., 0], self.model.ppd, self.roi)
        discs, faint = self._discs(lab, change, faces, circles)
        columns = self._columns(discs)
        firsts = self._columns(faint)
        points = [self._point(n, columns.get(n, []), change, faces, circles, firsts.get(n, []))
                  for n in range(1, 25)]
        bar = {c: self._bar(c, columns.get(("bar", c), [])) for c in ("white", "black")}
        trays = {c: self._tray(lab, c) for c in ("white", "black")}
        return Reading(discs, points, bar, trays)

    def _discs(self, lab: np.ndarray, change: np.ndarray, faces: np.ndarray,
               circles: np.ndarray) -> tuple[list[Disc], list[Disc]]:
        """The checkers among the circles, and the faint ones: circles the empty board does
        not draw, on a change too faint (a checker on a point of its colour) for rings
        that do not follow the learned ones."""
        discs: list[Disc] = []
        faint: list[Disc] = []
        if not len(circles):
            return discs, faint
        h, w = change.shape
        # the circle's centre may be a pixel or two off: try the places around it
        offsets = np.array([(dx, dy) for dy in (-2, -1, 0, 1, 2) for dx in (-2, -1, 0, 1, 2)], np.float64)
        shifted = (circles[:, None, :2] + offsets[None]).reshape(-1, 2)
        rings = self._rings(lab[..., 0], shifted).reshape(len(circles), len(offsets), -1)
        # the same rings on the empty board there: a circle the board itself draws
        bare = self._rings(self.empty[..., 0], shifted).reshape(len(circles), len(offsets), -1)
        board = (np.mean((rings - bare) ** 2, axis=-1)
                 < BARE * np.maximum(np.mean(rings * rings, axis=-1), 1e-6))
        xi = np.clip(np.round(circles[:, 0]).astype(int), 0, w - 1)
        yi = np.clip(np.round(circles[:, 1]).astype(int), 0, h - 1)
        amounts = change[yi, xi]
        colours = [self._colour(faces[y, x]) for x, y in zip(xi, yi)]
        for colour in ("white", "black"):
            mine = np.array([c == colour for c in colours])
            if not mine.any():
                continue
            misfit, ringed = self._fits(rings[mine], colour, amounts[mine])
            ringed &= ~board[mine]
            for i, k in zip(np.flatnonzero(mine), range(int(mine.sum()))):
                x, y = circles[i, :2]
                if FIRST_CHANGE <= amounts[i] < STRONG and not ringed[k].any() and not board[i, CENTRE]:
                    faint.append(Disc(float(x), float(y), colour, float(amounts[i])))
                if amounts[i] < CHANGE:
                    continue
                if ringed[k].any():
                    best = int(np.argmin(np.where(ringed[k], misfit[k], np.inf)))
                    discs.append(Disc(float(x + offsets[best, 0]), float(y + offsets[best, 1]), colour,
                                      float(amounts[i])))
                elif amounts[i] >= STRONG:
                    discs.append(Disc(float(x), float(y), colour, float(amounts[i]), partial=True))
        return self._lone_checkers(lab, discs), faint

    def _lone_checkers(self, lab: np.ndarray, discs: list[Disc]) -> list[Disc]:
        """A strong circle whose rings did not follow the learned ones is a checker when
        no other lies within a checker of it (nothing hides part of it) and its face is
        of one colour (a die's pips and a point's edges are not)."""
        s = self.model.ppd
        r = int(round(0.22 * s))
        out = []
        for d in discs:
            if d.partial and not any(o is not d and np.hypot(o.x - d.x, o.y - d.y) < 0.85 * s for o in discs):
                x, y = int(round(d.x)), int(round(d.y))
                face = lab[max(y - r, 0):y + r + 1, max(x - r, 0):x + r + 1, 0]
                if face.size and float(face.std()) <= self.face_spread[d.colour]:
                    d = Disc(d.x, d.y, d.colour, d.change)
            out.append(d)
        return out

    def _fits(self, rings: np.ndarray, colour: str, change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For ring profiles (..., radii): how much of each the learned one of ``colour``
        (under the best light) leaves unexplained, over the profile's own structure; and
        whether that makes it a checker's (the learned rings explain most of it, and it
        has about as much ring as they do: a bare point or field has next to none). Where
        the frame hardly differs from the empty board (a checker on a point of its own
        colour, or the board's grain), the rings must say so clearly."""
        learned = self.rings[colour]
        gain = np.clip((rings @ learned) / max(float(learned @ learned), 1e-6), *RING_GAIN)
        own = np.mean(rings * rings, axis=-1)
        misfit = np.mean((rings - gain[..., None] * learned) ** 2, axis=-1) / np.maximum(own, 1e-6)
        faint = (np.asarray(change) < FAINT)[:, None]
        fit = np.where(faint, RING_FIT * 0.6, RING_FIT)
        energy = np.where(faint, RING_ENERGY * 2.0, RING_ENERGY) * float(np.mean(learned * learned))
        return misfit, (misfit < fit) & (own > energy)

    def _rings(self, light: np.ndarray, circles: np.ndarray) -> np.ndarray:
        """The mean lightness round each circle's centre (x, y, _) at the radii of
        ``RING_RADII`` (checker radii), less its mean over the face."""
        r = RADIUS * self.model.ppd
        circles = np.asarray(circles, np.float64).reshape(-1, np.shape(circles)[-1])
        n = len(circles)
        xs = circles[:, 0][:, None, None] + np.cos(ANGLES)[None, :, None] * RING_RADII[None, None, :] * r
        ys = circles[:, 1][:, None, None] + np.sin(ANGLES)[None, :, None] * RING_RADII[None, None, :] * r
        shape = (n, len(ANGLES) * len(RING_RADII))
        values = cv2.remap(light, xs.reshape(shape).astype(np.float32), ys.reshape(shape).astype(np.float32),
                           cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        profile = values.reshape(n, len(ANGLES), len(RING_RADII)).mean(axis=1)
        return profile - profile[:, RING_RADII < 0.75].mean(axis=1, keepdims=True)

    def _colour(self, lab: np.ndarray) -> str:
        dw = float((((lab - self.faces["white"]) ** 2) * COLOUR_WEIGHTS).sum())
        db = float((((lab - self.faces["black"]) ** 2) * COLOUR_WEIGHTS).sum())
        return "white" if dw <= db else "black"

    def _columns(self, discs: list[Disc]) -> dict:
        """Discs by the point (or the bar's half) they lie on."""
        m = self.model
        s = m.ppd
        bx0, by0, bx1, by1 = m.bar
        mid = (by0 + by1) / 2
        half_w = m.point_width * s / 2 + 0.15 * s
        out: dict = {}
        for d in discs:
            if bx0 <= d.x <= bx1:
                out.setdefault(("bar", "white" if d.y < mid else "black"), []).append(d)
                continue
            numbers = self._upper if d.y < mid else self._lower
            gaps = np.abs(self._centres[numbers - 1] - d.x)
            nearest = int(np.argmin(gaps))
            if gaps[nearest] <= half_w:
                out.setdefault(int(numbers[nearest]), []).append(d)
        return out

    # ------------------------------------------------------------------ points
    def _slot_looks(self, x: float, y: float, colour: str, change: np.ndarray, faces: np.ndarray,
                    circles: np.ndarray) -> bool:
        """Whether a slot inside a row (below a checker seen) that holds no checker found
        holds one of ``colour``: a circle a checker wide there with a face of that colour
        (one whose rings were too faint: a checker on a point of its own colour), or the
        frame differs there from the empty board and its colour is nearer the checker's
        than the empty board's."""
        h, w = change.shape
        xi, yi = min(max(int(round(x)), 0), w - 1), min(max(int(round(y)), 0), h - 1)
        if len(circles):
            near = np.hypot(circles[:, 0] - x, circles[:, 1] - y) < SLOT_CIRCLE * self.model.ppd
            for cx, cy, _ in circles[near]:
                cxi, cyi = min(max(int(round(cx)), 0), w - 1), min(max(int(round(cy)), 0), h - 1)
                if self._colour(faces[cyi, cxi]) == colour:
                    return True
        if change[yi, xi] < CHANGE:
            return False
        face = faces[yi, xi]
        to_checker = float((((face - self.faces[colour]) ** 2) * COLOUR_WEIGHTS).sum())
        to_empty = float((((face - self.empty_faces[yi, xi]) ** 2) * COLOUR_WEIGHTS).sum())
        return to_checker < to_empty and self._colour(face) == colour

    def _point(self, n: int, discs: list[Disc], change: np.ndarray, faces: np.ndarray,
               circles: np.ndarray, faint: list[Disc]) -> PointRead:
        """The point's row from its base: checkers found, slots between them that look
        filled, and a faint circle in the first slot where no checker was found near the
        base (checkers lie from the base up, so that slot holds one)."""
        m = self.model
        s = m.ppd
        x, y, d = m.point_base(n)
        along = sorted((((dd.y - y) * d / s, dd) for dd in discs), key=lambda t: t[0])
        along = [(a, dd) for a, dd in along if a > 0.1]
        if not along or along[0][0] > 1.45:
            first = [dd for dd in faint if abs((dd.y - y) * d / s - 0.5) < SLOT_CIRCLE
                     and abs(dd.x - x) < SLOT_CIRCLE * s and (not along or dd.colour == along[0][1].colour)]
            if first:
                along.insert(0, ((first[0].y - y) * d / s, first[0]))
        if not along:
            return PointRead(n, None, 0, (0, 0), 1.0)
        votes = {"white": 0.0, "black": 0.0}
        for _, dd in along:
            votes[dd.colour] += 0.5 if dd.partial else 1.0
        colour = max(votes, key=votes.get)
        mixed = min(votes.values()) > 0
        along = [(a, dd) for a, dd in along if dd.colour == colour]
        shift = float(np.median([dd.x for _, dd in along])) - x
        row = []
        reach = 0.0
        for a, dd in along:
            while a - reach > 1.45:
                if not self._slot_looks(x + shift, y + d * (reach + 0.5) * s, colour, change, faces, circles):
                    break
                reach += 1.0
            if a - reach > 1.45:
                break
            row.append((a, dd))
            reach = a + 0.5
        if not row:
            return PointRead(n, None, 0, (0, 0), 0.5)
        whole = [a for a, dd in row if not dd.partial]
        confidence = 0.9 if not mixed else 0.3
        seen = [a for a, _ in row]
        crowded = len(seen) > ROW or (len(seen) > 2 and float(np.median(np.diff(seen))) < 0.85)
        if row[-1][0] < min(ROW, self.model.point_length) - 0.7 and not crowded:
            # a short row: no pile (a pile starts with a full row); count the slots filled
            if not whole:
                return PointRead(n, None, 0, (0, 0), 0.3)
            count = int(round(max(whole) - 0.5)) + 1
            if len({int(round(a - 0.5)) for a in whole}) < count:
                confidence = min(confidence, 0.6)
            return PointRead(n, colour, count, (count, count), confidence)
        # a full row: five in a row, or a pile (more checkers overlapping the row, or on it)
        spacing = np.diff(whole) if len(whole) > 1 else np.array([1.0])
        off_grid = any(abs(a - 0.5 - round(a - 0.5)) > OFF_GRID for a in whole)
        partial = any(dd.partial for _, dd in row)
        if len(whole) > ROW or row[-1][0] > ROW + 0.1 or spacing.min() < 0.85 or off_grid or partial:
            # at least the checkers seen; a row squeezed to the tip holds as many as fit
            squeezed = int(round(1 + (whole[-1] - whole[0]) / float(np.median(spacing)))) if len(whole) > 2 else 0
            low = max(ROW + 1, len(whole), squeezed) if len(whole) > ROW or row[-1][0] > ROW + 0.1 or \
                np.median(spacing) < 0.85 else ROW
            return PointRead(n, colour, low, (low, self.checkers), 0.5 * confidence)
        return PointRead(n, colour, ROW, (ROW, ROW), confidence)

    def _bar(self, colour: str, discs: list[Disc]) -> tuple[int, int]:
        """A side's checkers on the bar: a column from the middle outward."""
        s = self.model.ppd
        _, y, d = self.model.bar_base(colour)
        mine = [(dd.y - y) * d / s for dd in discs if dd.colour == colour]
        if not mine:
            return (0, 0)
        count = max(max(int(round(a - 0.5)) for a in mine) + 1, len(mine))
        return (count, count)

    # ------------------------------------------------------------------- trays
    def _tray(self, lab: np.ndarray, colour: str) -> int:
        """Borne-off checkers in a tray: they stand on edge from its outer end inward; the
        length of the run that differs from the empty tray, over one checker's thickness
        (at most all the side's checkers). Checkers much like their tray differ only at
        their rims: there the change averaged over a checker's thickness marks the run,
        and a run that short (under three checkers) is not told from the tray's grain."""
        m = self.model
        s = m.ppd
        x0, y0, x1, y1 = (int(round(v)) for v in m.tray(colour))
        cx = (x0 + x1) // 2
        half = max(int(0.3 * s), 1)
        band = slice(max(cx - half, 0), cx + half + 1)
        diff = lab[y0:y1, band] - self.empty[y0:y1, band]
        change = np.sqrt(((diff * diff) @ LAB_WEIGHTS).mean(axis=1))
        if colour == "white":
            change = change[::-1]             # White's tray fills from its bottom, its outer end
        step = ON_EDGE_STEP * s
        faint = False
        differs = change > TRAY_CHANGE
        start = int(np.argmax(differs)) if differs.any() else len(differs)
        if start > 0.35 * s:
            k = max(int(round(step)), 1)
            differs = np.convolve(change, np.ones(k) / k, mode="same") > TRAY_FAINT
            start = int(np.argmax(differs)) if differs.any() else len(differs)
            if start > 0.35 * s:
                return 0
            faint = True
        run = differs[start:]
        # the run ends where a checker's width in a row does not differ
        gap = max(int(0.15 * s), 1)
        end = len(run)
        for i in range(len(run) - gap + 1):
            if not run[i:i + gap].any():
                end = i
                break
        length = start + end - 0.1 * s
        count = min(max(int(round(length / step)), 0), self.checkers)
        return 0 if faint and count < FAINT_TRAY_RUN else count

    def unexplained(self, lab: np.ndarray, reading: Reading) -> np.ndarray:
        """Within each disc found, the pixels the learned checker (under the light there)
        does not explain: fingers over a checker, a die lying on one."""
        r = self._disc.shape[0] // 2
        h, w = lab.shape[:2]
        out = np.zeros((h, w), bool)
        for d in reading.discs:
            if d.partial:
                continue
            x, y = int(round(d.x)), int(round(d.y))
            if x - r < 0 or y - r < 0 or x + r + 1 > w or y + r + 1 > h:
                continue
            patch = lab[y - r:y + r + 1, x - r:x + r + 1]
            learned = self.patches[d.colour]
            gain = float(np.clip((patch[..., 0] * learned[..., 0])[self._disc].sum()
                                 / max(float((learned[..., 0] ** 2)[self._disc].sum()), 1e-6), 0.5, 1.7))
            diff = patch - learned * np.array((gain, 1.0, 1.0), np.float32)
            out[y - r:y + r + 1, x - r:x + r + 1] |= self._disc & (((diff * diff) @ LAB_WEIGHTS) > UNEXPLAINED)
        return out

    # --------------------------------------------------------------- the frame
    def observe(self, reading: Reading, covered=None) -> tuple[list[PointRead], dict, dict]:
        """Points, bar and borne-off ranges, with what ``covered`` hides read as honest
        ranges and piles narrowed by the checker totals."""
        points = []
        for p in reading.points:
            if covered is not None and covered.points[p.point - 1]:
                points.append(PointRead(p.point, p.color, p.count, (p.count, self.checkers), 0.0, True))
            else:
                points.append(p)
        bar = dict(reading.bar)
        if covered is not None and covered.bar:
            bar = {c: (lo, self.checkers) for c, (lo, _) in bar.items()}
        trays = dict(reading.trays)
        hidden_trays = {} if covered is None else dict(zip(("white", "black"), covered.trays))
        return resolve_totals(points, bar, trays, hidden_trays, self.checkers)


def resolve_totals(points: list[PointRead], bar: dict, trays: dict, hidden_trays: dict, checkers: int):
    """Each side has ``checkers``, on its points, the bar and in its tray. Where those
    seen and the tray's reading fall short, the missing checkers lie in its piles (a
    single pile takes them all; several keep ranges up to the missing number) or a
    covered place; with no pile seen, a full row may hide them or they were missed
    anywhere: every point the side may hold, the bar and the tray get ranges up to the
    missing number. Where they exceed it, a tray read too long or a checker seen that is not
    there: the side's counts and its tray become ranges down to what the total allows.
    Returns (points, bar, off) with off as (min, max) per side."""
    points = list(points)
    bar = dict(bar)
    low = [p.count_range[0] for p in points]
    high = [p.count_range[1] for p in points]
    off = {}
    spread = {}
    for colour in ("white", "black"):
        mine = [p for p in points if p.color == colour]
        seen = sum(p.count_range[0] for p in mine) + bar[colour][0]
        free = max(checkers - seen, 0)
        if hidden_trays.get(colour, False):
            # the tray is covered: it holds what is not seen, or piles and covered places do
            for p in mine:
                if p.count_range[0] != p.count_range[1]:
                    high[p.point - 1] = min(p.count_range[1], p.count_range[0] + free)
            bar[colour] = (bar[colour][0], min(bar[colour][1], bar[colour][0] + free))
            off[colour] = (0, free)
            continue
        tray = min(trays[colour], checkers)
        missing = checkers - seen - tray
        if missing < 0:
            # more than there are: the tray or some of the side's counts read too many
            excess = -missing
            for p in mine:
                low[p.point - 1] = max(p.count_range[0] - excess, 0)
                high[p.point - 1] = p.count_range[0]
            bar[colour] = (max(bar[colour][0] - excess, 0), bar[colour][0])
            off[colour] = (free, tray)
            continue
        off[colour] = (tray, tray)
        piles = [p for p in mine if p.count_range[0] != p.count_range[1]]
        places = piles + ([None] if bar[colour][0] != bar[colour][1] else [])
        if missing == 0:
            for p in piles:
                high[p.point - 1] = p.count_range[0]
            bar[colour] = (bar[colour][0], bar[colour][0])
        elif len(places) == 1 and places[0] is not None and not places[0].occluded \
                and places[0].count_range[0] + missing <= places[0].count_range[1]:
            p = places[0]
            low[p.point - 1] = high[p.point - 1] = p.count_range[0] + missing
        elif places:
            for p in piles:
                high[p.point - 1] = min(p.count_range[1], p.count_range[0] + missing)
            bar[colour] = (bar[colour][0], min(bar[colour][1], bar[colour][0] + missing))
        else:
            # no pile seen: a full row may hide more, or a checker was missed anywhere
            spread[colour] = missing
            off[colour] = (tray, tray + missing)
            bar[colour] = (bar[colour][0], bar[colour][0] + missing)
    for colour, missing in spread.items():
        # checkers missed somewhere: any point the side may hold may hold more
        for i, p in enumerate(points):
            if p.color in (None, colour) or low[i] == 0:
                high[i] = max(high[i], (low[i] if p.color == colour else 0) + missing)
    out = []
    for p, lo, hi in zip(points, low, high):
        if (lo, hi) == p.count_range and (p.count_range[0] == p.count_range[1] or lo != hi):
            out.append(p)
            continue
        count = lo if lo == hi else p.count
        out.append(PointRead(p.point, p.color if hi else None, count, (lo, hi),
                             p.confidence if lo == hi else min(p.confidence, 0.5), p.occluded))
    return out, bar, off
