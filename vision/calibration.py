"""Calibration: where the board lies in the camera's frame and what its checkers look like.

Found from one frame with no markers (``calibrate``): the board's field is located by
its lines (``vision.outline``), and the field's corners, the lens's barrel distortion
and the board's proportions are fitted to the frame's edges (``vision.board_fit``).
A known position (the opening unless told otherwise) then says which way round the
board lies: of the four mirror images of the fitted field, the one whose checker slots
(spaced by the checkers measured on its rows) split best into the position's two
colours and empty points, under a smooth light, wins; of the fitted fields that show the
position, the one through which the checker network reads the frame as the position
(``CheckerCounter.misread``) is taken, and when none is there is no calibration (a
field a rim's width off can show the layout yet misread every frame). The opening is
symmetric across the board's long axis with the colours exchanged, so for it the
lighter checkers are White unless told otherwise. Optional ArUco markers (DICT_4X4_50,
ids 0..3 on the case's corners) help on difficult boards. With no position given and
a frame that is not the opening, ``calibrate_any`` takes the position photo import
reads in it.

The checkers' size is measured on the rows of the position, the rim and the trays on
the case; the calibration then keeps the field's place in the frame, the lens, the
board's proportions (a ``BoardModel``), what each side's checkers look like, and an
image of the empty board in the canonical view (occupied points filled in from empty
points of the same colour and direction) against which later frames are compared.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from engine.position import Position
from vision.board_fit import BoardPose, Lens
from vision.board_model import ROW, BoardModel
from vision.circles import checker_circles
from vision.dice import SIZES
from vision.empty_board import empty_board, occupied
from vision.image_check import image_problem
from vision.nets import Network
from vision.outline import locate_fields, subpixel_peak
from vision.photo import import_photo
from vision.strips import region_name

FORMAT = 2
PPD = 20.0              # canonical pixels per checker diameter for reading
PATCH = 1.3             # side of a checker's learned appearance patch (D)
COLOURS = ("white", "black")
MARGIN = 0.8            # table shown round the case in the canonical view (D)
FIELDS = 3              # fitted fields tried first, the best supported ...
MORE_FIELDS = 8         # ... and in all when none of those reads the position
FIT_LEVEL = 0.78        # layout score below which the frame does not show the position (a right
                        # field scores 0.87 or more, the wrong way round 0.68 at most)
LOG_LIGHTNESS = 170.0   # lightness L (0..255) scores as 170 log(L + 42): same spread at mid-grey


class CalibrationError(ValueError):
    """The frame does not show a board that can be calibrated."""


@dataclass(frozen=True)
class CheckerLook:
    """What one side's checkers look like from above: the mean Lab colour of their faces
    and its covariance, and the mean BGR appearance of a checker centred in a patch
    ``PATCH`` diameters wide at the calibration's scale."""

    lab: tuple[float, float, float]
    covariance: np.ndarray
    patch: np.ndarray

    def to_json(self) -> dict:
        return {"lab": list(self.lab), "covariance": self.covariance.tolist(), "patch_png": _png(self.patch)}

    @classmethod
    def from_json(cls, data: dict) -> CheckerLook:
        return cls(tuple(float(v) for v in data["lab"]), np.array(data["covariance"], np.float64),
                   _unpng(data["patch_png"]))


@dataclass(frozen=True)
class Calibration:
    """The board's place in the frame, its proportions and its colours.

    ``corners`` are the field's corners (top-left, top-right, bottom-right, bottom-left
    of the canonical view) in the ideal image the ``lens`` straightens the frame into.
    ``rebuilt`` marks where the empty board had to be rebuilt (checkers hid it in the
    calibration frame): there it is less sure. ``dice_size`` is the side of the table's
    dice in checker diameters once a reader has learned it (one of ``vision.dice.SIZES``).
    """

    corners: np.ndarray
    lens: Lens
    model: BoardModel
    white: CheckerLook
    black: CheckerLook
    empty: np.ndarray                   # canonical view of the empty board (BGR, model.ppd)
    rebuilt: np.ndarray | None = field(default=None, compare=False, repr=False)
    dice_size: float | None = None
    _maps: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def frame_size(self) -> tuple[int, int]:
        return self.lens.size

    @property
    def pose(self) -> BoardPose:
        return BoardPose(self.corners, self.lens, _shape_of(self.model))

    @property
    def case_corners(self) -> np.ndarray:
        """The case's corners in the frame (top-left, top-right, bottom-right, bottom-left
        of the canonical view)."""
        return self.to_frame(self.model.corners())

    def look(self, colour: str) -> CheckerLook:
        return self.white if colour == "white" else self.black

    # ------------------------------------------------------------- coordinates
    def canonical_to_field(self, points: np.ndarray, ppd: float | None = None) -> np.ndarray:
        m = self.model
        s = ppd or m.ppd
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        x0, y0 = m.origin
        return np.stack([(pts[:, 0] / s - x0) / m.field_width, (pts[:, 1] / s - y0) / m.field_height], 1)

    def to_frame(self, points: np.ndarray, ppd: float | None = None) -> np.ndarray:
        """Canonical pixels (at ``ppd``, the model's scale by default) to frame pixels."""
        return self.pose.to_frame(self.canonical_to_field(points, ppd))

    def to_canonical(self, frame_points: np.ndarray, ppd: float | None = None) -> np.ndarray:
        """Frame pixels to canonical pixels (at ``ppd``)."""
        m = self.model
        s = ppd or m.ppd
        f = self.pose.to_field(frame_points)
        x0, y0 = m.origin
        return np.stack([(f[:, 0] * m.field_width + x0) * s, (f[:, 1] * m.field_height + y0) * s], 1)

    def maps(self, ppd: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` tables from the frame to the canonical view at ``ppd`` (cached)."""
        s = float(ppd or self.model.ppd)
        if s not in self._maps:
            w, h = self.model.at(s).size
            u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
            xy = self.to_frame(np.stack([u.ravel(), v.ravel()], 1), s).reshape(h, w, 2).astype(np.float32)
            self._maps[s] = cv2.convertMaps(np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1]),
                                            cv2.CV_16SC2)
        return self._maps[s]

    def view(self, frame: np.ndarray, ppd: float | None = None) -> np.ndarray:
        """The frame seen on the canonical board, straightened and at ``ppd``."""
        m1, m2 = self.maps(ppd)
        return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    # --------------------------------------------------------------------- files
    def to_json(self) -> dict:
        return {"format": FORMAT, "corners": self.corners.tolist(), "lens_k": self.lens.k,
                "frame_size": list(self.lens.size), "model": self.model.to_json(),
                "white": self.white.to_json(), "black": self.black.to_json(), "empty_png": _png(self.empty),
                "rebuilt_png": None if self.rebuilt is None else _png(self.rebuilt.astype(np.uint8) * 255),
                "dice_size": self.dice_size}

    @classmethod
    def from_json(cls, data: dict) -> Calibration:
        try:
            if data.get("format") != FORMAT:
                raise CalibrationError(f"calibration format {data.get('format')!r} is not {FORMAT}; calibrate again")
            model = BoardModel.from_json(data["model"])
            empty = _unpng(data["empty_png"])
            if empty.shape[:2] != model.size[::-1]:
                raise CalibrationError("calibration's empty-board image does not fit its board")
            size = tuple(int(v) for v in data["frame_size"])
            rebuilt = None
            if data.get("rebuilt_png"):
                rebuilt = _unpng(data["rebuilt_png"])[..., 0] > 127
                if rebuilt.shape != empty.shape[:2]:
                    raise CalibrationError("calibration's rebuilt-board mask does not fit its board")
            dice_size = data.get("dice_size")
            if dice_size is not None and dice_size not in SIZES:
                raise CalibrationError(f"calibration's dice_size {dice_size!r} is none of the sizes dice are read at "
                                       f"({', '.join(map(str, SIZES))} checker diameters)")
            return cls(np.array(data["corners"], np.float64).reshape(4, 2), Lens(float(data["lens_k"]), size),
                       model, CheckerLook.from_json(data["white"]), CheckerLook.from_json(data["black"]), empty,
                       rebuilt, dice_size)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, CalibrationError):
                raise
            raise CalibrationError(f"calibration data is incomplete or malformed ({err})") from err

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json()))

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
        except json.JSONDecodeError as err:
            raise CalibrationError(f"{path}: not a calibration file ({err.msg})") from err
        if not isinstance(data, dict):
            raise CalibrationError(f"{path}: not a calibration file")
        return cls.from_json(data)


def _png(image: np.ndarray) -> str:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise CalibrationError("could not encode an image of the calibration")
    return base64.b64encode(data.tobytes()).decode()


def _unpng(text: str) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(base64.b64decode(text), np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise CalibrationError("calibration holds a damaged image")
    return image


def _shape_of(model: BoardModel):
    from vision.board_fit import BoardShape

    fw, fh = model.field_width, model.field_height
    return BoardShape(bar=model.bar_width / fw, tip=model.point_length / fh, rim_x=model.rim_x / fw,
                      rim_y=model.rim_y / fh, strip=model.strip / fw, tray=model.tray_width / fw)


# ------------------------------------------------------------------ the canonical view
def canonical_view(frame: np.ndarray, pose: BoardPose, model: BoardModel) -> np.ndarray:
    """The frame on the canonical board of ``model`` placed by ``pose`` (no caching)."""
    w, h = model.size
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    s = model.ppd
    x0, y0 = model.origin
    f = np.stack([(u.ravel() / s - x0) / model.field_width, (v.ravel() / s - y0) / model.field_height], 1)
    xy = pose.to_frame(f).reshape(h, w, 2).astype(np.float32)
    return cv2.remap(frame, xy[..., 0], xy[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def model_from_shape(pose: BoardPose, d_x: float, d_y: float, ppd: float = PPD, **outer) -> BoardModel:
    """A board model from the fitted field (``pose.shape``) and the checker diameter in
    field units across (``d_x``) and along (``d_y``) the points."""
    shape = pose.shape
    fw, fh = 1.0 / d_x, 1.0 / d_y
    length = shape.tip * fh
    return BoardModel(ppd=ppd, point_width=(1 - shape.bar) / 12 * fw, bar_width=shape.bar * fw,
                      point_length=length, tip_gap=fh - 2 * length, **outer)


def nominal_model(pose: BoardPose, ppd: float = PPD) -> BoardModel:
    """The model a fitted field implies for checkers 1/1.1 of a point wide and points
    five checkers long: good enough to find the checkers and measure them."""
    return model_from_shape(pose, (1 - pose.shape.bar) / 12 / 1.1, pose.shape.tip / 5.0, ppd)


# --------------------------------------------------------------- sampling checker slots
def disc_means(image_lab: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """Mean of ``image_lab`` over a square ``2 * radius`` wide around each centre (N x 2)."""
    k = max(int(round(2 * radius)) | 1, 3)
    blurred = cv2.blur(image_lab, (k, k))
    h, w = image_lab.shape[:2]
    xy = np.round(np.asarray(centres).reshape(-1, 2)).astype(int)
    xy[:, 0] = np.clip(xy[:, 0], 0, w - 1)
    xy[:, 1] = np.clip(xy[:, 1], 0, h - 1)
    return blurred[xy[:, 1], xy[:, 0]].reshape(*np.asarray(centres).shape[:-1], image_lab.shape[2])


def layout_masks(position: Position) -> tuple[np.ndarray, np.ndarray]:
    """Which row slots hold a White and which a Black checker in ``position`` (24 x ROW
    booleans; points with more than five checkers fill their row)."""
    white = np.zeros((24, ROW), bool)
    black = np.zeros((24, ROW), bool)
    for i, signed in enumerate(position.points()):
        n = min(abs(signed), ROW)
        (white if signed > 0 else black)[i, :n] = signed != 0
    return white, black


def slot_features(canonical: np.ndarray, model: BoardModel) -> np.ndarray:
    """Per row slot (24 x ROW x 4): mean Lab colour and edge strength over a disc 0.6
    diameters wide (a checker's rings give edges an empty point lacks)."""
    lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
    grad = np.sqrt(cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(lab[..., 0], cv2.CV_32F, 0, 1) ** 2)
    return disc_means(np.dstack([lab, 0.5 * grad[..., None]]), model.slots, 0.3 * model.ppd)


def layout_score(features: np.ndarray, slots: np.ndarray, white: np.ndarray, black: np.ndarray) -> float:
    """How well slot features split into the layout's groups (0..1, higher is better):
    White's checkers, Black's, and the empty slots of each kind of point at each
    distance from the base.

    The light on the board is taken out first: it multiplies what shows, so lightness
    counts by its logarithm, and it varies smoothly, so the score is the share of the
    variance left by a quadratic in the slots' places (24 x ROW x 2, any unit) that the
    groups explain (a board lit from one side no longer looks like checkers out of place)."""
    empty = ~(white | black)
    parity = (np.arange(24) % 2 == 0)[:, None].repeat(ROW, axis=1)
    index = np.arange(ROW)[None, :].repeat(24, axis=0)
    groups = [white, black] + [empty & (parity == p) & (index == i) for p in (False, True) for i in range(ROW)]
    groups = [g.ravel() for g in groups if g.any()]
    flat = features.reshape(-1, features.shape[-1]).astype(np.float64)
    flat[:, 0] = LOG_LIGHTNESS * np.log(flat[:, 0] + LOG_LIGHTNESS - 128.0)
    xy = np.asarray(slots, np.float64).reshape(-1, 2)
    x, y = ((xy - xy.mean(axis=0)) / np.maximum(xy.std(axis=0), 1e-9)).T
    light = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)
    layout = np.hstack([np.stack(groups, axis=1).astype(np.float64), light[:, 1:]])

    def unexplained(design: np.ndarray) -> float:
        coef, *_ = np.linalg.lstsq(design, flat, rcond=None)
        return float(((flat - design @ coef) ** 2).sum())

    return 1.0 - unexplained(layout) / max(unexplained(light), 1e-9)


FLIPS = {(False, False): [0, 1, 2, 3], (True, False): [1, 0, 3, 2],
         (False, True): [3, 2, 1, 0], (True, True): [2, 3, 0, 1]}


def _is_colour_symmetric(position: Position) -> bool:
    """True when the position looks the same across the board's long axis with colours swapped."""
    pts = position.points()
    return all(pts[i] == -pts[23 - i] for i in range(24)) and position.bar(0) == position.bar(1)


def orient(frame: np.ndarray, pose: BoardPose, position: Position, white: str = "light") -> tuple[BoardPose, float]:
    """The mirror image of the fitted field that shows ``position`` (White's home board
    bottom-right), and how well it does (see ``layout_score``). Each mirror image is
    scored on slots spaced by the checkers measured on its rows: boards differ in how
    many checkers their points hold, and slots spaced by the points' length drift off a
    row of five."""
    w_mask, b_mask = layout_masks(position)
    best: tuple[float, BoardPose, np.ndarray] | None = None
    for order in FLIPS.values():
        flipped = BoardPose(pose.corners[order], pose.lens, pose.shape)
        model = model_from_shape(flipped, *measure_checkers(frame, flipped, position), 12.0)
        colours = slot_features(canonical_view(frame, flipped, model), model)
        score = layout_score(colours, model.slots, w_mask, b_mask)
        if best is None or score > best[0]:
            best = (score, flipped, colours)
    assert best is not None
    score, pose, colours = best
    if _is_colour_symmetric(position):
        lighter = colours[w_mask][:, 0].mean() > colours[b_mask][:, 0].mean()
        if lighter != (white == "light"):
            pose = BoardPose(pose.corners[FLIPS[(False, True)]], pose.lens, pose.shape)
    return pose, score


# ---------------------------------------------------------------- measuring the board
def _along_profiles(lab: np.ndarray, model: BoardModel, number: int, length: float, half_band: float) -> np.ndarray:
    """The colour gradient along point ``number``'s axis, averaged across a band: one
    value per canonical pixel from the base outward."""
    x, y, d = model.point_base(number)
    s = model.ppd
    x0, x1 = int(round(x - half_band * s)), int(round(x + half_band * s)) + 1
    n = int(length * s)
    rows = np.arange(n) * d + int(round(y)) + (0 if d > 0 else -1)
    rows = np.clip(rows, 0, lab.shape[0] - 1)
    strip = lab[rows, max(x0, 0):x1]
    grad = np.abs(np.diff(strip, axis=0)).sum(axis=2).mean(axis=1)
    return grad


def measure_checkers(frame: np.ndarray, pose: BoardPose, position: Position) -> tuple[float, float]:
    """The checker diameter in field units across and along the points, from the rows
    of ``position``: along, the period of the rings down each row; across, the width of
    each checker at its centre."""
    model = nominal_model(pose)
    s = model.ppd
    lab = cv2.GaussianBlur(cv2.cvtColor(canonical_view(frame, pose, model), cv2.COLOR_BGR2LAB).astype(np.float32),
                           (0, 0), 0.8)
    counts = [abs(v) for v in position.points()]
    # the rows' rings repeat every checker: the period with the strongest Fourier response
    periods = np.arange(0.75, 1.3, 0.002) * s
    power = np.zeros(len(periods))
    for n, count in enumerate(counts, start=1):
        if not 2 <= count <= ROW:
            continue
        g = _along_profiles(lab, model, n, count, 0.25)
        g = g - g.mean()
        a = np.arange(len(g))
        phase = np.exp(2j * np.pi * a[None, :] / periods[:, None])
        power += np.abs(phase @ g) ** 2
    period = float(periods[int(np.argmax(power))]) if power.any() else s
    d_y = period / s / model.field_height
    # widths across, at each checker's centre row
    widths = []
    gx = np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    for n, count in enumerate(counts, start=1):
        for i in range(min(count, ROW)):
            x, y, d = model.point_base(n)
            cy = y + d * (0.5 + i) * period
            r0, r1 = int(round(cy - 0.15 * s)), int(round(cy + 0.15 * s)) + 1
            c0, c1 = int(round(x - 0.75 * s)), int(round(x + 0.75 * s)) + 1
            if r0 < 0 or c0 < 0 or r1 > gx.shape[0] or c1 > gx.shape[1]:
                continue
            prof = gx[r0:r1, c0:c1].mean(axis=0)
            mid = len(prof) // 2
            lo, hi = int(0.3 * s), int(0.68 * s)
            left = mid - lo - int(np.argmax(prof[mid - hi:mid - lo + 1][::-1]))
            right = mid + lo + int(np.argmax(prof[mid + lo:mid + hi + 1]))
            widths.append(subpixel_peak(prof, right) - subpixel_peak(prof, left))
    width = float(np.median(widths)) if widths else s
    d_x = width / s / model.field_width
    return d_x, d_y


def measure_case(frame: np.ndarray, pose: BoardPose, model: BoardModel) -> dict:
    """The rims, the strip and the trays (diameters) from the case's lines beside the field."""
    s = 16.0
    probe = replace(model, ppd=s, rim_x=3.2, rim_y=1.5, strip=0.0, tray_width=0.0)
    lab = cv2.GaussianBlur(cv2.cvtColor(canonical_view(frame, pose, probe), cv2.COLOR_BGR2LAB).astype(np.float32),
                           (0, 0), 1.0)
    fx0, fy0, fx1, fy1 = (int(round(v)) for v in probe.field)
    gx = np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    gy = np.abs(cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)).sum(axis=2)
    rows = slice(fy0 + int(0.5 * s), fy1 - int(0.5 * s))
    cols = slice(fx0 + int(0.5 * s), fx1 - int(0.5 * s))
    px = gx[rows].mean(axis=0)
    py = gy[:, cols].mean(axis=1)

    def strongest(profile, start, direction, lo, hi):
        idx = [start + direction * k for k in range(int(lo * s), int(hi * s) + 1)]
        idx = [i for i in idx if 0 < i < len(profile) - 1]
        if not idx:
            return None, 0.0
        vals = profile[idx]
        j = int(np.argmax(vals))
        return abs(idx[j] - start) / s, float(vals[j] / (np.median(profile) + 1e-6))

    rim_left, _ = strongest(px, fx0, -1, 0.25, 1.3)
    rim_top, _ = strongest(py, fy0, -1, 0.25, 1.3)
    rim_bottom, _ = strongest(py, fy1, 1, 0.25, 1.3)
    rim_x = rim_left if rim_left is not None else model.rim_x
    rims_y = [r for r in (rim_top, rim_bottom) if r is not None]
    rim_y = float(np.mean(rims_y)) if rims_y else model.rim_y
    # right of the field: strip, tray and rim, or the rim alone on a board without trays
    inner = px[1:-1]
    peaks = [i + 1 for i in np.flatnonzero((inner >= px[:-2]) & (inner > px[2:]))
             if i + 1 >= fx1 + 0.15 * s]
    best = None
    for a in peaks:
        strip = (a - fx1) / s
        if strip > 0.8:
            break
        for b in peaks:
            tray = (b - a) / s
            if not 0.9 <= tray <= 2.1:
                continue
            for c in peaks:
                rim = (c - b) / s
                if not 0.25 <= rim <= 1.3:
                    continue
                score = min(px[a], px[b], px[c])
                if best is None or score > best[0]:
                    best = (score, subpixel_peak(px, a), subpixel_peak(px, b), subpixel_peak(px, c))
    level = np.median(px[fx1:]) + 1e-6
    if best is not None and best[0] / level > 3.0:
        _, a, b, c = best
        return {"rim_x": rim_x, "rim_y": rim_y, "strip": float((a - fx1) / s), "tray_width": float((b - a) / s)}
    # trays the case's colour: only the case's edge shows how wide they are
    edge, strength = strongest(px, fx1, 1, rim_x + 1.1, 3.2)
    if edge is not None and strength > 3.0:
        strip = min(0.35, 0.2 * (edge - rim_x))
        return {"rim_x": rim_x, "rim_y": rim_y, "strip": strip, "tray_width": float(edge - rim_x - strip)}
    # no line shows: assume the usual trays (a board without them simply never fills them)
    return {"rim_x": rim_x, "rim_y": rim_y, "strip": 0.35, "tray_width": 1.35}


# ---------------------------------------------------------------- what checkers look like
def learn_checkers(canonical: np.ndarray, model: BoardModel, position: Position) -> tuple[CheckerLook, CheckerLook]:
    """Each side's checker look from the single-row checkers of ``position``."""
    s = model.ppd
    lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
    half = int(round(PATCH * s / 2))
    circles = checker_circles(lab[..., 0], s)
    looks = []
    for sign in (1, -1):
        patches, faces = [], []
        for n, signed in enumerate(position.points(), start=1):
            if signed * sign <= 0:
                continue
            for i in range(min(abs(signed), ROW)):
                x, y = model.slot(n, 0.5 + i)
                if len(circles):
                    # centred on the checker's rim where it strayed from the slot
                    near = np.hypot(circles[:, 0] - x, circles[:, 1] - y)
                    j = int(np.argmin(near))
                    if near[j] < 0.35 * s:
                        x, y = circles[j, :2]
                cx, cy = int(round(x)), int(round(y))
                if cy - half < 0 or cx - half < 0 or cy + half + 1 > canonical.shape[0] \
                        or cx + half + 1 > canonical.shape[1]:
                    continue
                patches.append(canonical[cy - half:cy + half + 1, cx - half:cx + half + 1].astype(np.float32))
                r = int(0.3 * s)
                faces.append(lab[cy - r:cy + r + 1, cx - r:cx + r + 1].reshape(-1, 3))
        if not patches:
            raise CalibrationError(f"the position has no {'White' if sign > 0 else 'Black'} checker to learn from")
        face = np.vstack(faces).astype(np.float64)
        mean = face.mean(axis=0)
        cov = np.cov(face.T) + np.eye(3) * 4.0
        patch = np.clip(np.median(np.stack(patches), axis=0), 0, 255).astype(np.uint8)
        looks.append(CheckerLook(tuple(float(v) for v in mean), cov, patch))
    return looks[0], looks[1]


# ------------------------------------------------------------------------ calibration
def calibrate(frame: np.ndarray, position: Position | None = None, white: str = "light",
              markers: bool = True) -> Calibration:
    """Calibrate from one frame showing ``position`` (the opening position by default).

    ``white`` says which checkers are White when the layout cannot tell: 'light' or 'dark'.
    Of the fitted fields whose layout shows the position, the first through which the
    checker network reads the frame as the position is taken (``MORE_FIELDS`` are fitted
    when none of the best ``FIELDS`` does). Raises CalibrationError when no board in the
    frame shows the position, or when the checkers read through every field that shows its
    layout differ from it somewhere: a field a rim's width off can show the layout, and a
    calibration taken from it would misread the board frame after frame.
    """
    from vision.checkers import NETWORK, CheckerCounter

    _check_frame(frame)
    if white not in ("light", "dark"):
        raise ValueError(f"white must be 'light' or 'dark', got {white!r}")
    position = position or Position.initial()
    fits = locate_fields(frame, FIELDS)
    if not fits:
        raise CalibrationError("no backgammon board found in the frame")
    best_score = 0.0
    fewest: list | None = None
    tried: list[np.ndarray] = []
    network = Network(NETWORK)      # one for every field tried: each holds its own working memory
    for more in (False, True):
        if more:
            fits = locate_fields(frame, MORE_FIELDS)
        for fit in fits:
            if any(np.abs(fit.pose.corners - t).max() < 3 for t in tried):
                continue
            tried.append(fit.pose.corners)
            pose, score = orient(frame, fit.pose, position, white)
            best_score = max(best_score, score)
            if score < FIT_LEVEL:
                continue
            calibration = _calibration(frame, pose, position)
            misread = CheckerCounter(calibration, network=network).misread(frame, position)
            if not misread:
                return calibration
            if fewest is None or len(misread) < len(fewest):
                fewest = misread
    if fewest is None:
        raise CalibrationError(f"the frame does not show the expected position on a board (fit {best_score:.2f})")
    raise CalibrationError(f"checkers read otherwise on {_listed([region_name(r) for r in fewest])} of the "
                           "board found: set the position up exactly and clear the board of hands, dice and "
                           "cups, or re-seat the camera")


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _calibration(frame: np.ndarray, pose: BoardPose, position: Position) -> Calibration:
    """The calibration of a frame showing ``position`` on the field at ``pose``."""
    d_x, d_y = measure_checkers(frame, pose, position)
    model = model_from_shape(pose, d_x, d_y)
    model = replace(model, margin=MARGIN, **measure_case(frame, pose, model))
    canonical = canonical_view(frame, pose, model)
    white_look, black_look = learn_checkers(canonical, model, position)
    hidden = occupied(model, position)
    empty = empty_board(canonical, model, position, (white_look.lab, black_look.lab))
    return Calibration(pose.corners, pose.lens, model, white_look, black_look, empty, hidden)


def calibrate_any(frame: np.ndarray, white: str = "light") -> tuple[Calibration, Position]:
    """Calibrate from a frame of whatever position it shows, none given: the opening when
    the frame shows it, else the position photo import reads in it (``white`` the colour
    taken for White; White's home board where that position puts it). Returns the
    calibration and the position it was made from; CalibrationError when neither works."""
    try:
        return calibrate(frame, white=white), Position.initial()
    except CalibrationError as not_opening:
        read = import_photo(frame, white=white)
        if read.position is None:
            raise CalibrationError(f"{not_opening}, and no position could be read in it: {read.reason}") from None
        return calibrate(frame, read.position, white=white), read.position


def _check_frame(frame: np.ndarray) -> None:
    problem = image_problem(frame)
    if problem:
        raise CalibrationError(problem)
