"""What covers the board: hands and arms, and a camera that moved.

A hand or an arm is what neither the empty board nor the checkers, dice and cube found
explain, and is large: the pixels that differ from the learned empty board, less the
places of the checkers counted, the dice and cube read, the shadows (the empty board
darkened, its colour kept: a hand's beside it, a cup's on the rim) and anything smaller
than a die, leave connected regions; one larger than ``HAND_AREA`` square diameters, or
any that crosses the case's rim onto the field (an arm reaches in over it; a cup or a
card put down beside the case changes the table and perhaps the rim, never the field),
is a hand; so is an arm on the table whose fingers, too like the rim to change it, show
their outline on the rim, joined to the arm (``FINGERS``); none is a hand where neither
it nor its margin reaches anything read (a hand resting on the rim, a cup set against
the case). Every point (across its own width, that of its checkers' row), the bar and the
trays under such a region are covered (read only as honest ranges, and the frame is not
settled); those only within ``HAND_MARGIN`` of it are in its margin, where the edges of
fingers the change missed may lie (the reader leaves those seen where the checker network
sees no hand); fingers found by their outline alone cover their whole margin. Points
across the rim from a change on the table (an arm whose fingers, the colour of the case,
may rest on the checkers at its edge unseen) are in the margin too, hand or not.

A camera that moved no longer sees the rim and the field's lines where the
calibration put them: the edges of the frame's canonical view are compared with the
empty board's along the rim and the bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.board_model import ON_EDGE_STEP, ROW
from vision.calibration import Calibration
from vision.strips import REGIONS, region_axes

LAB_WEIGHTS = np.array((0.5, 1.0, 1.0), np.float32)
CHANGE = 600.0            # squared Lab difference (weighted) that counts as changed
REBUILT = 2.5             # ... times this where the empty board was rebuilt
STILL = 0.45              # ... times this on the rim and the table round the case
ARM_AREA = 0.3            # square diameters of change on the table that may be an arm
HAND_AREA = 3.0           # square diameters of unexplained change that make a hand on their own
PART_AREA = 0.8           # ... that make a hand with an arm's outline or coming in at the case's edge
OUTLINE = 8.0             # diameters of new edges round such a region that are an arm's outline
EDGE = 60.0               # colour gradient of an edge
RIM_AREA = 0.12           # square diameters of unexplained change on the rim that make a hand
REACH_AREA = 0.2          # square diameters of change on the table round the case of an arm reaching in
IN_PLACE = 0.45           # edge correlation below which the camera moved
FINGER_REACH = 1.5        # diameters beyond an arm reaching in where its fingers' outline may show on the rim
FINGERS = 2.0             # diameters of such outline that make it a hand
HAND_MARGIN = 0.5         # diameters round a hand of its margin: where edges of fingers the change missed may lie
ACROSS_ROW = 0.85         # half-width (diameters) across a row's checker within which a change is theirs
OUTLINED, BESIDE = 2, 1   # what the checkers counted account for: their outlines too, or a change only
SHADOW_DEEPEST = 0.6      # L* + 16 of a shadowed pixel at least this share of the empty board's
SHADOW_FAINTEST = 0.97    # ... and at most this
SHADOW_HUE = 5.0          # a*, b* off the empty board's scaled by as much, within this ...
SHADOW_SHARE = 0.15       # ... and this share of the empty board's chroma
THING = 0.6               # half the side, in diameters, of what a die or the cube accounts for
TRAY_LEAN = 0.5           # diameters beyond a tray's sides and end its checkers' tops may show (a diameter high)


@dataclass(frozen=True)
class Covered:
    """Where something unexplained covers the board: the ``regions`` (booleans in
    ``vision.strips.REGIONS`` order) under it, those only its margin reaches or that lie
    beside a change on the table reaching to the case (``margin``: the edges of fingers
    the change may have missed, fingers the colour of the case), whether it is a ``hand``
    and the ``share`` of the board it covers."""

    regions: np.ndarray
    margin: np.ndarray
    hand: bool
    share: float


class Coverage:
    """Finds hands over, and the camera's movement against, one calibrated board."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.model = calibration.model
        m = self.model
        s = m.ppd
        self.empty = cv2.cvtColor(calibration.empty, cv2.COLOR_BGR2LAB).astype(np.float32)
        w, h = m.size
        case = np.zeros((h, w), np.uint8)
        (cx0, cy0), (cx1, cy1) = np.round(m.corners()[[0, 2]]).astype(int)
        case[cy0:cy1, cx0:cx1] = 1
        self.case = case.astype(bool)
        self.surround = ~self.case
        rim = case.copy()
        fx0, fy0, fx1, fy1 = (int(round(v)) for v in m.field)
        tx0 = int(round(m.tray("black")[0]))
        rim[fy0:fy1, fx0:fx1] = 0
        if m.tray_width > 0:
            rim[fy0:fy1, tx0:int(round(m.tray("black")[2]))] = 0
        self.rim = rim.astype(bool)
        self.unit = s * s
        self.region_masks = []
        for n in range(1, 25):
            x, y, d = m.point_base(n)
            mask = np.zeros((h, w), np.uint8)
            y1 = y + d * m.point_length * s
            cv2.rectangle(mask, (int(x - 0.5 * m.point_width * s), int(min(y, y1))),
                          (int(x + 0.5 * m.point_width * s), int(max(y, y1))), 1, -1)
            self.region_masks.append(mask.astype(bool))
        bx0, by0, bx1, by1 = (int(round(v)) for v in m.bar)
        self.bar_mask = np.zeros((h, w), bool)
        self.bar_mask[by0:by1, bx0:bx1] = True
        trays = {}
        for colour in ("white", "black"):
            x0, y0, x1, y1 = (int(round(v)) for v in m.tray(colour))
            trays[colour] = np.zeros((h, w), bool)
            trays[colour][y0:y1, x0:x1] = True
        for region in REGIONS[24:]:
            self.region_masks.append(self.bar_mask if region[0] == "bar" else trays[region[1]])
        self._reference = self._structure(self.empty)
        band = cv2.dilate(self.rim.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        band |= cv2.dilate(self.bar_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        self._static = band
        self._open = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(0.3 * s) | 1, int(0.3 * s) | 1))
        # where the empty board was rebuilt it is less sure: a larger change is needed
        # the table round the case and the rim hold still and show an arm faintly
        self._change = np.full((h, w), CHANGE, np.float32)
        self._change[self.surround | self.rim] = CHANGE * STILL
        if calibration.rebuilt is not None:
            self._change[calibration.rebuilt] = CHANGE * REBUILT
        self._near = np.ones((5, 5), np.uint8)
        reach = int(round((max(m.rim_x, m.rim_y) + 0.7) * s)) | 1
        self._across = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        self._empty_edges = cv2.dilate(self._gradient(self.empty), np.ones((5, 5), np.uint8))
        band = int(round(0.3 * s))
        inner = np.zeros((h, w), np.uint8)
        inner[cy0 + band:cy1 - band, cx0 + band:cx1 - band] = 1
        self.edge_band = self.case & ~inner.astype(bool)
        self._disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(1.3 * s) | 1, int(1.3 * s) | 1))
        reach = int(2 * FINGER_REACH * s) | 1
        self._finger_reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        margin = int(HAND_MARGIN * s) | 1
        self._margin = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (margin, margin))
        readable = np.any(self.region_masks, axis=0).astype(np.uint8)
        self._near_readable = cv2.dilate(readable, self._margin).astype(bool)

    # -------------------------------------------------------------- the camera
    @staticmethod
    def _structure(lab: np.ndarray) -> np.ndarray:
        light = cv2.GaussianBlur(lab[..., 0], (0, 0), 1.2)
        edges = np.abs(cv2.Sobel(light, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(light, cv2.CV_32F, 0, 1))
        return cv2.GaussianBlur(edges, (0, 0), 1.2)

    def board_in_place(self, lab: np.ndarray) -> bool:
        """Whether the rim's and bar's edges still lie where the calibration found them."""
        a = self._structure(lab)[self._static]
        b = self._reference[self._static]
        a = a - a.mean()
        b = b - b.mean()
        corr = float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6))
        return corr > IN_PLACE

    # ------------------------------------------------------------------ hands
    def find(self, lab: np.ndarray, explained: np.ndarray) -> Covered:
        """What covers the board in a frame whose checkers account for ``explained``
        (``explained_mask``)."""
        outlined = explained == OUTLINED
        explained = explained > 0
        diff = lab - self.empty
        change = (diff * diff) @ LAB_WEIGHTS
        changed = (cv2.blur(change, (3, 3)) > self._change).astype(np.uint8)
        changed[explained] = 0
        changed[self._shadowed(lab, changed > 0)] = 0
        # lines a pixel or two wide (the board's edges a shade off) are no hand; an arm
        # fainter where it crosses the rim still joins its hand
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self._open)
        changed = morphology_where_set(changed, cv2.MORPH_CLOSE, self._disc)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        hand_mask = np.zeros(changed.shape, bool)
        outlined_fingers = np.zeros(changed.shape, bool)
        hand = False
        edges = None
        # what changed on the table round the case, reaching toward the case: an arm
        # there joins what changed inside across a rim it hardly changes
        table = np.isin(labels, [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] / self.unit >= ARM_AREA])
        arm = table & self.surround
        if arm.any():
            arm = morphology_where_set(arm.astype(np.uint8), cv2.MORPH_DILATE, self._across).astype(bool)
        for i in range(1, count):
            area = stats[i, cv2.CC_STAT_AREA] / self.unit
            if area < RIM_AREA:
                continue
            region = labels == i
            inside = float(region[self.case].sum()) / self.unit
            on_rim = float(region[self.rim].sum()) / self.unit
            outside = area - inside
            on_field = inside - on_rim
            # a cup or a card put down beside the case changes the table and perhaps the
            # rim, never the field: an arm reaches over the field
            reaching = on_field >= RIM_AREA and (
                outside >= REACH_AREA or (inside >= PART_AREA * 0.6 and bool((region & self.case & arm).any())))
            if not reaching and outside >= REACH_AREA and on_rim > 0:
                # fingers the colour of the rim change it too little to show, but their
                # outline does, beside the arm that reaches in
                if edges is None:
                    edges = self._new_edges(lab) & ~outlined
                fingers = self._fingers(region, edges)
                reaching = np.count_nonzero(fingers) / self.model.ppd >= FINGERS
                if reaching:
                    region = region | fingers
                    outlined_fingers |= fingers
            if not (inside >= HAND_AREA or (on_rim >= RIM_AREA and on_field >= RIM_AREA) or reaching):
                if inside < PART_AREA:
                    continue
                # smaller: a hand if it shows an outline the board has not (an arm's
                # edges and shading) or comes in at the case's edge onto the field (a cup
                # set against the case, seen from aside, stands over the rim alone)
                if edges is None:
                    edges = self._new_edges(lab) & ~outlined
                outline = float(np.count_nonzero(edges & cv2.dilate(region.astype(np.uint8), self._near).astype(bool)))
                at_edge = on_field >= RIM_AREA and bool((region & self.edge_band).any())
                if outline / self.model.ppd < OUTLINE and not at_edge:
                    continue
            if not (region & self._near_readable).any():
                continue        # on the rim and the table only: it hides nothing read (a cup set against the case)
            hand = True
            hand_mask |= region
        none = np.zeros(len(REGIONS), bool)
        beside_arm = np.array([(arm & m).any() for m in self.region_masks]) if arm.any() else none
        if not hand:
            return Covered(none, beside_arm, False, 0.0)
        margin = cv2.dilate(hand_mask.astype(np.uint8), self._margin).astype(bool)
        under_mask = hand_mask
        if outlined_fingers.any():
            # fingers seen only by their outline surely reach as far as the margin
            under_mask |= margin & (cv2.dilate(outlined_fingers.astype(np.uint8), self._margin) > 0)
        under = np.array([(under_mask & m).any() for m in self.region_masks])
        near = np.array([(margin & m).any() for m in self.region_masks])
        return Covered(under, (near | beside_arm) & ~under, hand, float(margin.mean()))

    def _shadowed(self, lab: np.ndarray, where: np.ndarray) -> np.ndarray:
        """Which of the pixels ``where`` show the empty board in a shadow: less light on
        the same colour, so lightness and both chroma axes (CIE L* + 16, a*, b*) shrink by
        one factor, between ``SHADOW_DEEPEST`` and ``SHADOW_FAINTEST``."""
        e, f = self.empty[where], lab[where]
        factor = (f[:, 0] / 2.55 + 16) / (e[:, 0] / 2.55 + 16)
        same = (factor > SHADOW_DEEPEST) & (factor < SHADOW_FAINTEST)
        for k in (1, 2):
            chroma = e[:, k] - 128
            same &= np.abs(f[:, k] - 128 - factor * chroma) < SHADOW_HUE + SHADOW_SHARE * np.abs(chroma)
        out = np.zeros(where.shape, bool)
        out[where] = same
        return out

    def _fingers(self, region: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """The new edges on the rim within ``FINGER_REACH`` of ``region``, off its own
        outline (a cup's or a card's outline is its own; fingers' lie beyond it) but joined
        to it (fingers run on from the hand; a checker's shadow beside a tray does not)."""
        out = np.zeros_like(edges)
        x, y, w, h = cv2.boundingRect(region.astype(np.uint8))
        pad = self._finger_reach.shape[0] // 2 + 3
        y0, y1 = max(y - pad, 0), min(y + h + pad, region.shape[0])
        x0, x1 = max(x - pad, 0), min(x + w + pad, region.shape[1])
        r = region[y0:y1, x0:x1].astype(np.uint8)
        own = cv2.dilate(r, self._near)
        beyond = edges[y0:y1, x0:x1] & (cv2.dilate(r, self._finger_reach) > 0) & (own == 0) & self.rim[y0:y1, x0:x1]
        if beyond.any():
            _, labels = cv2.connectedComponents(cv2.dilate(beyond.astype(np.uint8), self._near) | own)
            joined = np.unique(labels[own > 0])
            out[y0:y1, x0:x1] = beyond & np.isin(labels, joined[joined > 0])
        return out

    def _new_edges(self, lab: np.ndarray) -> np.ndarray:
        """Strong colour edges the empty board has nowhere near."""
        gradient = self._gradient(lab)
        return (gradient > EDGE) & (gradient > 2.0 * self._empty_edges)

    @staticmethod
    def _gradient(lab: np.ndarray) -> np.ndarray:
        smooth = cv2.GaussianBlur(lab, (0, 0), 1.0)
        gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0)
        gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
        return cv2.sqrt(cv2.transform(gx * gx + gy * gy, np.ones((1, 3), np.float32)))


def morphology_where_set(mask: np.ndarray, operation: int, kernel: np.ndarray) -> np.ndarray:
    """``cv2.morphologyEx`` of a uint8 ``mask`` by ``kernel`` (a dilation or a closing),
    worked only round what is set: beyond twice the kernel's reach of it, both leave 0
    (a frame's change is mostly none, and these kernels are a checker wide and more)."""
    x, y, w, h = cv2.boundingRect(mask)
    out = np.zeros_like(mask)
    if w == 0:
        return out
    pad = 2 * (max(kernel.shape) // 2 + 1)
    y0, y1 = max(y - pad, 0), min(y + h + pad, mask.shape[0])
    x0, x1 = max(x - pad, 0), min(x + w + pad, mask.shape[1])
    out[y0:y1, x0:x1] = cv2.morphologyEx(mask[y0:y1, x0:x1], operation, kernel)
    return out


def explained_mask(model, highest: np.ndarray, shape, things: Sequence[tuple[float, float]] = ()) -> np.ndarray:
    """The canonical pixels the checkers counted account for (``highest``: each region's
    largest possible count, in ``vision.strips.REGIONS`` order): ``OUTLINED`` where their
    outlines may lie, a disc a little larger than a checker in each slot of a row (with
    its shadow), the whole row of a pile, the bar's column and the filled part of each
    tray (``TRAY_LEAN`` over its sides and end: its checkers stand up), and a square
    round each of the ``things`` read (the canonical centres of the dice and the cube),
    leaning and shadow included; ``BESIDE`` (a change there, not an outline, is theirs)
    the band beside a row's checkers, who lie a little off their point's centre line."""
    mask = np.zeros(shape, np.uint8)
    s = model.ppd
    for x, y in things:
        cv2.rectangle(mask, (int(round(x - THING * s)), int(round(y - THING * s))),
                      (int(round(x + THING * s)), int(round(y + THING * s))), OUTLINED, -1)
    r = int(round(0.7 * s))
    beside = (r, int(round(ACROSS_ROW * s)))
    rows = []
    for region, count in zip(REGIONS, highest):
        if count <= 0:
            continue
        base, along, across = region_axes(model, region)
        if isinstance(region, int) and count <= ROW:
            angle = float(np.degrees(np.arctan2(along[1], along[0])))
            for i in range(int(count)):
                x, y = base + along * (i + 0.5) * s
                centre = (int(round(x)), int(round(y)))
                cv2.ellipse(mask, centre, beside, angle, 0, 360, BESIDE, -1)
                rows.append(centre)
            continue
        if isinstance(region, int):
            length, half = max(model.point_length, ROW) + 0.4, 0.75
        elif region[0] == "bar":
            length, half = min(count + 1.5, model.field_height / 2), 0.75
        else:
            base = base - along * TRAY_LEAN * s
            length, half = (count + 1.5) * ON_EDGE_STEP + 0.2 + TRAY_LEAN, model.tray_width / 2 + TRAY_LEAN
        side, reach = across * half * s, along * length * s
        corners = np.array([base - side, base + side, base + side + reach, base - side + reach])
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), OUTLINED)
    for centre in rows:
        cv2.circle(mask, centre, r, OUTLINED, -1)
    return mask
