"""Drawing the things that lie on or move over the board canvas: checkers, dice, the
doubling cube, hands and arms, and the clutter of a tournament table.

Everything is drawn on the flat canvas seen from above; ``Lift`` moves a point raised
above the table to where the camera sees it, so tall things show their sides under a
tilted camera and lean away from the point under the lens.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.sim.render_styles import BGR, CheckerLook

SHIFT = 4           # sub-pixel bits for cv2 drawing
ONE = 1 << SHIFT


def _fix(p) -> tuple[int, int]:
    return int(round(p[0] * ONE)), int(round(p[1] * ONE))


def _shade(colour: BGR, gain: float) -> BGR:
    return tuple(int(min(max(c * gain, 0), 255)) for c in colour)


@dataclass(frozen=True)
class Lift:
    """The camera seen from the canvas: ``nadir`` is the canvas point under the lens and
    ``height`` the lens's height above the table, both in canvas pixels."""

    nadir: tuple[float, float]
    height: float

    def __call__(self, p, z: float) -> np.ndarray:
        """Where a point ``z`` pixels above canvas point ``p`` appears on the canvas."""
        n = np.asarray(self.nadir, np.float64)
        p = np.asarray(p, np.float64)
        return n + (p - n) * (self.height / max(self.height - z, 1e-3))

    def many(self, points: np.ndarray, z: float) -> np.ndarray:
        """``__call__`` for an N x 2 array of points at one height."""
        n = np.asarray(self.nadir, np.float64)
        return n + (np.asarray(points, np.float64) - n) * (self.height / max(self.height - z, 1e-3))


# ---------------------------------------------------------------------------- checkers
def draw_checker(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, radius: float, look: CheckerLook,
                 lift: Lift, base_z: float, thickness: float, tint: float, light: np.ndarray) -> tuple[float, float]:
    """A checker lying flat with its bottom ``base_z`` above the table; returns the centre
    of its top face as the camera sees it (canvas pixels). Either target may be ``None``
    to draw only the shadow or only the checker."""
    bottom = lift(centre, base_z)
    top = lift(centre, base_z + thickness)
    if shadow is not None:
        cv2.circle(shadow, _fix(bottom + light * thickness * 1.4), int(radius * 1.02 * ONE), 255, -1,
                   cv2.LINE_AA, SHIFT)
    if canvas is None:
        return float(top[0]), float(top[1])
    side = _shade(look.rim if look.silver else look.face, 0.55 * tint)
    r = int(radius * ONE)
    cv2.circle(canvas, _fix(bottom), r, side, -1, cv2.LINE_AA, SHIFT)
    cv2.line(canvas, _fix(bottom), _fix(top), side, max(int(2 * radius), 1), cv2.LINE_AA)
    face = _shade(look.face, tint)
    cv2.circle(canvas, _fix(top), r, _shade(look.rim, tint), -1, cv2.LINE_AA, SHIFT)
    cv2.circle(canvas, _fix(top), int(radius * 0.86 * ONE), face, -1, cv2.LINE_AA, SHIFT)
    groove = _shade(look.face, 0.8 * tint) if sum(look.face) > 200 else _shade(look.face, 1.6 * tint + 0.2)
    cv2.circle(canvas, _fix(top), int(radius * 0.62 * ONE), groove, max(int(radius * 0.05), 1), cv2.LINE_AA, SHIFT)
    if look.grain:
        for ring, gain in ((0.22, 0.88), (0.4, 1.08), (0.75, 0.9)):
            cv2.circle(canvas, _fix(top), int(radius * ring * ONE), _shade(look.face, gain * tint),
                       max(int(radius * 0.04), 1), cv2.LINE_AA, SHIFT)
    if look.silver:
        cv2.ellipse(canvas, _fix(top), (int(radius * 0.93 * ONE),) * 2, 0, 200, 250, (250, 250, 250),
                    max(int(radius * 0.08), 1), cv2.LINE_AA, SHIFT)
    glint = top - light * radius * 0.45
    cv2.circle(canvas, _fix(glint), int(radius * 0.22 * ONE), _shade(face, 1.12) if sum(face) < 600 else face,
               -1, cv2.LINE_AA, SHIFT)
    return float(top[0]), float(top[1])


def draw_checker_on_edge(canvas: np.ndarray, centre, radius: float, thickness: float, look: CheckerLook,
                         lift: Lift, tint: float, across_x: bool = True) -> tuple[float, float, float, float]:
    """A borne-off checker standing on edge in a tray: a band ``2 * radius`` long across the
    tray and ``thickness`` wide; returns its box on the canvas (x0, y0, x1, y1)."""
    cx, cy = centre
    hw, ht = (radius, thickness / 2) if across_x else (thickness / 2, radius)
    corners = np.array([(cx - hw, cy - ht), (cx + hw, cy - ht), (cx + hw, cy + ht), (cx - hw, cy + ht)])
    top = np.array([lift(c, radius * 1.6) for c in corners])
    base = np.array([lift(c, 0) for c in corners])
    hull = cv2.convexHull(np.vstack([top, base]).astype(np.float32))
    cv2.fillConvexPoly(canvas, np.round(hull * ONE).astype(np.int32), _shade(look.face, 0.6 * tint), cv2.LINE_AA, SHIFT)
    cv2.fillConvexPoly(canvas, np.round(top * ONE).astype(np.int32), _shade(look.rim, tint), cv2.LINE_AA, SHIFT)
    inner = top.mean(axis=0) + (top - top.mean(axis=0)) * np.array([0.9, 0.45])
    cv2.fillConvexPoly(canvas, np.round(inner * ONE).astype(np.int32), _shade(look.face, tint), cv2.LINE_AA, SHIFT)
    x0, y0 = hull.reshape(-1, 2).min(axis=0)
    x1, y1 = hull.reshape(-1, 2).max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


# -------------------------------------------------------------------- dice and the cube
_PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
FACE_PATCH = 64


@lru_cache(maxsize=256)
def face_patch(mark: int, kind: str, body: BGR, ink: BGR) -> np.ndarray:
    """A square face (BGRA) of a die (``kind="die"``, ``mark`` 1..6 pips) or of the doubling
    cube (``kind="cube"``, ``mark`` a number such as 64), rounded corners transparent."""
    n = FACE_PATCH
    patch = np.zeros((n, n, 4), np.uint8)
    radius = n // 7
    cv2.rectangle(patch, (radius, 0), (n - 1 - radius, n - 1), (*body, 255), -1)
    cv2.rectangle(patch, (0, radius), (n - 1, n - 1 - radius), (*body, 255), -1)
    for cx in (radius, n - 1 - radius):
        for cy in (radius, n - 1 - radius):
            cv2.circle(patch, (cx, cy), radius, (*body, 255), -1, cv2.LINE_AA)
    rim = _shade(body, 0.82)
    cv2.rectangle(patch, (2, 2), (n - 3, n - 3), (*rim, 255), 2)
    if kind == "die":
        for u, v in _PIPS[mark]:
            cv2.circle(patch, (int(n / 2 + u * n * 0.27), int(n / 2 + v * n * 0.27)), int(n * 0.085),
                       (*ink, 255), -1, cv2.LINE_AA)
    else:
        text = str(mark)
        scale = 1.5 if len(text) == 1 else 1.05
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
        cv2.putText(patch, text, ((n - tw) // 2, (n + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (*ink, 255), 3,
                    cv2.LINE_AA)
    patch.setflags(write=False)
    return patch


def _rotation(yaw: float, tilt: float, tilt_axis: float) -> np.ndarray:
    """Yaw about the vertical, then a lean of ``tilt`` about a horizontal axis at ``tilt_axis``."""
    cy, sy = np.cos(yaw), np.sin(yaw)
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    ax = np.array([np.cos(tilt_axis), np.sin(tilt_axis), 0.0])
    k = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    lean = np.eye(3) + np.sin(tilt) * k + (1 - np.cos(tilt)) * (k @ k)
    return lean @ rz


# face normal, in-plane axes (u, v) of the unrotated cube; index 0 is the top.
_FACES = (
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    ((1, 0, 0), (0, 1, 0), (0, 0, -1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, -1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, -1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
)


def draw_solid(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, size: float, yaw: float,
               marks: tuple[int, ...],
               kind: str, body: BGR, ink: BGR, lift: Lift, light: np.ndarray, tilt: float = 0.0,
               tilt_axis: float = 0.0, base_z: float = 0.0) -> np.ndarray:
    """A die or cube of edge ``size`` resting at ``centre`` (canvas pixels), its faces
    showing ``marks`` (top, bottom, +x, -x, +y, -y before rotation), turned by ``yaw`` and
    leaning ``tilt`` radians; returns the outline of its visible faces (canvas pixels).
    Either target may be ``None`` to draw only the shadow or only the solid."""
    rot = _rotation(yaw, tilt, tilt_axis)
    h = size / 2
    corners = np.array([(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)]) @ rot.T
    lowest = corners[:, 2].min()
    origin = np.array([centre[0], centre[1], base_z - lowest])
    camera = np.array([lift.nadir[0], lift.nadir[1], lift.height])

    def project(points3: np.ndarray) -> np.ndarray:
        return np.array([lift(p[:2], p[2]) for p in points3])

    ground = project(np.c_[corners[:, :2] + origin[:2], np.full(8, base_z)])
    hull_ground = cv2.convexHull(ground.astype(np.float32)).reshape(-1, 2)
    if shadow is not None:
        cv2.fillConvexPoly(shadow, np.round((hull_ground + light * size * 0.5) * ONE).astype(np.int32), 255,
                           cv2.LINE_AA, SHIFT)
    drawn = []
    for (normal, u, v), mark in zip(_FACES, marks):
        n = rot @ np.array(normal, float)
        centre3 = origin + n * h
        if np.dot(camera - centre3, n) <= 0:
            continue
        eu, ev = rot @ np.array(u, float), rot @ np.array(v, float)
        quad3 = np.array([centre3 + (-eu - ev) * h, centre3 + (eu - ev) * h,
                          centre3 + (eu + ev) * h, centre3 + (-eu + ev) * h])
        quad = project(quad3).astype(np.float32)
        brightness = 0.55 + 0.45 * max(float(np.dot(n, np.array([-light[0], -light[1], 1.6]) / 1.9)), 0.0)
        if canvas is not None:
            _paste_face(canvas, face_patch(mark, kind, body, ink), quad, min(brightness, 1.05))
        drawn.append(quad)
    return cv2.convexHull(np.vstack(drawn)).reshape(-1, 2)


def _paste_face(canvas: np.ndarray, patch: np.ndarray, quad: np.ndarray, brightness: float) -> None:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    h, w = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return
    n = FACE_PATCH - 1
    src = np.array([(0, 0), (n, 0), (n, n), (0, n)], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    warped = cv2.warpPerspective(patch, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA
                                 if FACE_PATCH > 2 * (x1 - x0) else cv2.INTER_LINEAR)
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    colour = warped[:, :, :3].astype(np.float32) * brightness
    roi[:] = (roi * (1 - alpha) + np.clip(colour, 0, 255) * alpha).astype(np.uint8)


def die_marks(value: int, rng: np.random.Generator) -> tuple[int, ...]:
    """Faces of a die showing ``value`` on top (opposite faces sum to seven)."""
    others = [v for v in range(1, 7) if v not in (value, 7 - value) and v < 7 - v]
    a, b = rng.permutation(others)[:2]
    return (value, 7 - value, int(a), int(7 - a), int(b), int(7 - b))


def cube_marks(value: int) -> tuple[int, ...]:
    """Faces of the doubling cube with ``value`` on top."""
    faces = [2, 4, 8, 16, 32, 64]
    i = faces.index(value)
    opposite = faces[(i + 3) % 6]
    rest = [f for f in faces if f not in (value, opposite)]
    return (value, opposite, *rest)


# ------------------------------------------------------------------- hands and clutter
SKIN_TONES: tuple[BGR, ...] = ((150, 180, 225), (120, 160, 210), (95, 135, 190), (70, 105, 160),
                               (50, 75, 120), (170, 195, 235))


@dataclass(frozen=True)
class HandPose:
    """An arm reaching from ``shoulder`` (well off the board) to ``fingertip`` (canvas
    pixels), ``width`` the forearm's width, ``height`` above the table, ``skin`` its
    colour, and ``holding`` a checker look when the hand carries one."""

    shoulder: tuple[float, float]
    fingertip: tuple[float, float]
    width: float
    height: float
    skin: BGR
    holding: CheckerLook | None = None


def _capsule(a: np.ndarray, b: np.ndarray, ra: float, rb: float, n: int = 8) -> np.ndarray:
    """The outline of a tapered rod from ``a`` (radius ``ra``) to ``b`` (radius ``rb``)."""
    d = b - a
    angle = np.arctan2(d[1], d[0])
    back = angle + np.linspace(np.pi / 2, 3 * np.pi / 2, n)
    front = angle + np.linspace(-np.pi / 2, np.pi / 2, n)
    return np.vstack([a + ra * np.c_[np.cos(back), np.sin(back)], b + rb * np.c_[np.cos(front), np.sin(front)]])


def hand_parts(hand: HandPose) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    """The arm, palm, four fingers and thumb as rods ``(a, b, ra, rb)`` on the canvas."""
    s = np.array(hand.shoulder, float)
    t = np.array(hand.fingertip, float)
    axis = t - s
    length = max(float(np.linalg.norm(axis)), 1e-6)
    d = axis / length
    nrm = np.array([-d[1], d[0]])
    w = hand.width
    wrist = t - d * w * 2.0
    knuckles = t - d * w * 0.95
    parts = [(s, wrist, w * 0.62, w * 0.42), (wrist + d * w * 0.2, knuckles, w * 0.5, w * 0.55)]
    for k, offset in enumerate((-0.36, -0.12, 0.12, 0.36)):
        short = 0.15 if k in (0, 3) else 0.0
        parts.append((knuckles + nrm * w * offset, t + nrm * w * offset * 0.85 - d * w * short, w * 0.11, w * 0.09))
    thumb = wrist + d * w * 0.55 + nrm * w * 0.4
    parts.append((thumb, thumb + (d * 0.55 + nrm * 0.6) * w * 0.85, w * 0.13, w * 0.1))
    return parts


def draw_hand(image: np.ndarray | None, shadow: np.ndarray | None, mask: np.ndarray | None, hand: HandPose,
              lift: Lift, light: np.ndarray, to_image) -> None:
    """An arm and hand drawn straight into the frame: each rod shaded as a rounded body,
    its soft shadow cast on the table into ``shadow`` and its silhouette into ``mask``
    (both frame-sized, 255 where covered). ``to_image`` maps canvas points to frame
    pixels; ``None`` skips a target."""
    parts = hand_parts(hand)
    tone = np.array(hand.skin, float)
    d = np.array(hand.fingertip, float) - np.array(hand.shoulder, float)
    d /= max(float(np.linalg.norm(d)), 1e-6)
    across = np.array([-d[1], d[0]])
    # (outline on the canvas, height, colour or None for the mask and shadow only)
    shapes: list[tuple[np.ndarray, float, BGR | None]] = []
    for gain, scale in ((0.62, 1.0), (0.82, 0.8), (0.97, 0.55), (1.08, 0.25)):
        colour = _shade(tuple(tone), gain)
        for a, b, ra, rb in parts:
            shift = across * (1 - scale) * ra * 0.3
            shapes.append((_capsule(a + shift, b + shift, ra * scale, rb * scale), hand.height, colour))
    nail = _shade(tuple(tone), 1.18)
    for a, b, ra, rb in parts[2:6]:
        tip = b - (b - a) / max(np.linalg.norm(b - a), 1e-6) * rb * 0.6
        shapes.append((_capsule(tip, tip + (b - a) * 0.01, rb * 0.55, rb * 0.55), hand.height, nail))
    if hand.holding is not None:
        grip = np.array(hand.fingertip, float) - d * hand.width * 0.3
        r = hand.width * 0.5
        for colour, radius in ((hand.holding.rim, r), (hand.holding.face, r * 0.82)):
            shapes.append((_capsule(grip, grip + d * 0.01, radius, radius, 16), hand.height * 0.8, colour))
        for a, b, ra, rb in parts[3:5]:
            shapes.append((_capsule(a + d * hand.width * 0.3, b, ra, rb), hand.height, tuple(tone)))
    off = light * hand.height * 0.5
    shadows = [_capsule(a + off, b + off, ra, rb) for a, b, ra, rb in parts]
    # one trip through the lens for every outline
    lifted = [lift.many(poly, z) for poly, z, _ in shapes] + shadows
    sizes = [len(poly) for poly in lifted]
    mapped = np.round(to_image(np.vstack(lifted)) * ONE).astype(np.int32)
    polys = np.split(mapped, np.cumsum(sizes)[:-1])
    frame_shapes, frame_shadows = polys[:len(shapes)], polys[len(shapes):]
    if shadow is not None:
        cv2.fillPoly(shadow, frame_shadows, 255, cv2.LINE_AA, SHIFT)
    if mask is not None:
        outer = [poly for poly, (_, _, colour) in zip(frame_shapes, shapes)][:len(parts)]
        outer += [poly for poly, (_, z, _) in zip(frame_shapes, shapes) if z != hand.height][:1]
        cv2.fillPoly(mask, outer, 255, cv2.LINE_AA, SHIFT)
    if image is not None:
        for poly, (_, _, colour) in zip(frame_shapes, shapes):
            cv2.fillPoly(image, [poly], colour, cv2.LINE_AA, SHIFT)


def _table_box(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, size: tuple[float, float],
               angle: float, colour: BGR, shadow_offset: np.ndarray, shadow_level: int) -> np.ndarray:
    """A flat box lying on the table turned by ``angle`` degrees, and its shadow; returns
    the rotation that takes the box's own axes to the canvas."""
    box = cv2.boxPoints(((float(centre[0]), float(centre[1])), size, angle))
    if shadow is not None:
        cv2.fillConvexPoly(shadow, np.round((box + shadow_offset) * ONE).astype(np.int32), shadow_level,
                           cv2.LINE_AA, SHIFT)
    if canvas is not None:
        cv2.fillConvexPoly(canvas, np.round(box * ONE).astype(np.int32), colour, cv2.LINE_AA, SHIFT)
    return cv2.getRotationMatrix2D((0, 0), -angle, 1.0)[:, :2]


def draw_clock(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, size: float, angle: float,
               times: tuple[str, str], light: np.ndarray) -> None:
    """A two-sided game clock: a dark case with two lit displays and two buttons."""
    w, h = size, size * 0.45
    rot = _table_box(canvas, shadow, centre, (w, h), angle, (40, 40, 45), light * size * 0.12, 255)
    if canvas is None:
        return
    for k, sign in enumerate((-1, 1)):
        c = np.array(centre) + rot @ np.array([sign * w * 0.24, h * 0.1])
        screen = cv2.boxPoints(((float(c[0]), float(c[1])), (w * 0.38, h * 0.42), angle))
        cv2.fillConvexPoly(canvas, np.round(screen * ONE).astype(np.int32), (150, 185, 160), cv2.LINE_AA, SHIFT)
        patch_text(canvas, times[k], c, w * 0.3, angle, (30, 30, 30))
        button = np.array(centre) + rot @ np.array([sign * w * 0.24, -h * 0.36])
        cv2.circle(canvas, _fix(button), int(h * 0.1 * ONE), (60, 60, 200) if k else (200, 200, 200), -1,
                   cv2.LINE_AA, SHIFT)


def draw_score_card(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, size: float, angle: float,
                    lines: tuple[str, ...], light: np.ndarray) -> None:
    """A paper score card with a few lines of writing."""
    w, h = size * 0.7, size
    rot = _table_box(canvas, shadow, centre, (w, h), angle, (238, 242, 245), light * size * 0.03, 160)
    if canvas is None:
        return
    for i, line in enumerate(lines):
        c = np.array(centre) + rot @ np.array([0.0, (i - (len(lines) - 1) / 2) * h * 0.22])
        patch_text(canvas, line, c, w * 0.8, angle, (90, 40, 20))


def draw_dice_cup(canvas: np.ndarray | None, shadow: np.ndarray | None, centre, radius: float, colour: BGR, lift: Lift,
                  light: np.ndarray) -> None:
    """A leather dice cup standing open end up: its side, rim and dark inside."""
    height = radius * 2.0
    base, top = lift(centre, 0), lift(centre, height)
    if shadow is not None:
        cv2.circle(shadow, _fix(base + light * height * 0.6), int(radius * 1.05 * ONE), 255, -1, cv2.LINE_AA, SHIFT)
    if canvas is None:
        return
    cv2.circle(canvas, _fix(base), int(radius * ONE), _shade(colour, 0.6), -1, cv2.LINE_AA, SHIFT)
    cv2.line(canvas, _fix(base), _fix(top), _shade(colour, 0.7), max(int(2 * radius), 1), cv2.LINE_AA, SHIFT)
    cv2.circle(canvas, _fix(top), int(radius * ONE), _shade(colour, 1.1), -1, cv2.LINE_AA, SHIFT)
    cv2.circle(canvas, _fix(top), int(radius * 0.82 * ONE), _shade(colour, 0.3), -1, cv2.LINE_AA, SHIFT)


def patch_text(canvas: np.ndarray, text: str, centre, width: float, angle: float, colour: BGR) -> None:
    """Write ``text`` about ``width`` pixels wide, centred and turned by ``angle`` degrees."""
    scale = 1.0
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    pad = 4
    patch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(patch, text, (pad, th + pad), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 2, cv2.LINE_AA)
    k = width / patch.shape[1]
    ph, pw = patch.shape
    m = cv2.getRotationMatrix2D((pw / 2, ph / 2), angle, k)
    m[:, 2] += np.array(centre) - (pw / 2, ph / 2)
    h, w = canvas.shape[:2]
    r = int(max(pw, ph) * k) + 2
    x0, y0 = max(int(centre[0]) - r, 0), max(int(centre[1]) - r, 0)
    x1, y1 = min(int(centre[0]) + r, w), min(int(centre[1]) + r, h)
    if x1 <= x0 or y1 <= y0:
        return
    m[:, 2] -= (x0, y0)
    alpha = cv2.warpAffine(patch, m, (x1 - x0, y1 - y0)).astype(np.float32)[:, :, None] / 255.0
    roi = canvas[y0:y1, x0:x1]
    roi[:] = (roi * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)
