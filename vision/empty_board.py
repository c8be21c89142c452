"""The empty board: what the canonical view shows with no checker on it.

Where the calibration frame shows the board bare, the empty board is that frame. Where
checkers hid it, it is rebuilt. Every canonical pixel belongs to a material (the case
with its rim and strip, the field, a point of either colour, the bar or a tray:
``materials``), and the light falling on the board is a smooth field: what shows, over
its material's colour, smoothed from around each hidden place into it (one gain for
all channels, bright materials trusted more). A hidden part of a point or of the field
beside it is copied from the same place on the nearest points of the same colour in
the same quarter that show it (points alternate colours, so an even number of points
away), each brought from the light there to the light here; hidden rim, bar or tray is
its material's colour under the light here. The places checkers may hide reach onto the
rim beside their rows (a checker strays to the side), but a rim's finish and light vary
(a bevel, a worn edge, a lamp's gleam) more than one colour under a smooth light allows:
rim there whose colour is far from both sides' checkers' (``RIM_SEEN``) shows the rim
and is kept as the frame shows it.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.position import Position
from vision.board_model import ROW, BoardModel

CASE, FIELD, ODD_POINT, EVEN_POINT, BAR, TRAY, TABLE = range(7)
DONORS = 2
RIM_SEEN = 30.0         # Lab distance from both sides' checker colours of a rim pixel that shows the rim


def materials(model: BoardModel) -> np.ndarray:
    """The material of each canonical pixel (see the module's constants)."""
    w, h = model.size
    s = model.ppd
    out = np.full((h, w), TABLE, np.uint8)
    cx0, cy0 = np.round(model.corners()[0]).astype(int)
    cx1, cy1 = np.round(model.corners()[2]).astype(int)
    out[cy0:cy1, cx0:cx1] = CASE
    x0, y0, x1, y1 = (int(round(v)) for v in model.field)
    out[y0:y1, x0:x1] = FIELD
    bx0, by0, bx1, by1 = (int(round(v)) for v in model.bar)
    out[by0:by1, bx0:bx1] = BAR
    if model.tray_width > 0:
        for colour in ("white", "black"):
            tx0, ty0, tx1, ty1 = (int(round(v)) for v in model.tray(colour))
            out[ty0:ty1, tx0:tx1] = TRAY
    half = model.point_width * s / 2
    for n in range(1, 25):
        x, y, d = model.point_base(n)
        tip = y + d * model.point_length * s
        poly = np.array([(x - half, y), (x + half, y), (x, tip)]) * 16
        cv2.fillPoly(out, [np.round(poly).astype(np.int32)], ODD_POINT if n % 2 else EVEN_POINT, cv2.LINE_8, 4)
    return out


def _band(model: BoardModel, n: int, count: int) -> tuple[int, int, int, int]:
    """The rectangle (x0, y0, x1, y1) around point ``n``'s row of ``count`` checkers that
    they may hide or shade (a checker strayed to the side, and its shadow)."""
    s = model.ppd
    x, y, d = model.point_base(n)
    reach = (min(count, ROW) + 0.6) if count <= ROW else max(model.point_length, ROW) + 0.6
    y1 = y + d * min(reach, model.field_height / 2) * s
    y0 = y - d * 0.25 * s
    return int(x - 0.9 * s), int(min(y0, y1)), int(np.ceil(x + 0.9 * s)), int(np.ceil(max(y0, y1)))


def occupied(model: BoardModel, position: Position) -> np.ndarray:
    """The canonical pixels the checkers of ``position`` may hide or shade."""
    w, h = model.size
    s = model.ppd
    mask = np.zeros((h, w), bool)
    for n, signed in enumerate(position.points(), start=1):
        if signed:
            x0, y0, x1, y1 = _band(model, n, abs(signed))
            mask[max(y0, 0):y1, max(x0, 0):x1] = True
    bar = np.zeros((h, w), np.uint8)
    for colour, count in (("white", position.bar(0)), ("black", position.bar(1))):
        for cx, cy in model.bar_slots(colour, count):
            cv2.circle(bar, (int(cx), int(cy)), int(0.8 * s), 1, -1)
    mask |= bar.astype(bool)
    for colour, count in zip(("white", "black"), (position.off(0), position.off(1))):
        if count and model.tray_width > 0:
            x0, y0, x1, y1 = (int(round(v)) for v in model.tray(colour))
            mask[y0:y1, max(x0 - int(0.2 * s), 0):x1 + int(0.2 * s)] = True
    return mask


def light_field(image: np.ndarray, kinds: np.ndarray, shown: np.ndarray, ppd: float) -> tuple[np.ndarray, np.ndarray]:
    """The light on the board (a gain per pixel, smooth) and each material's colour, from
    the pixels that ``shown`` marks."""
    inner = np.zeros_like(shown)
    colour = np.zeros((7, 3), np.float32)
    for k in range(7):
        region = (kinds == k).astype(np.uint8)
        core = cv2.erode(region, np.ones((3, 3), np.uint8)).astype(bool) & shown
        inner |= core
        if core.sum() >= 20:
            colour[k] = np.median(image[core], axis=0)
        elif (region.astype(bool) & shown).any():
            colour[k] = np.median(image[region.astype(bool) & shown], axis=0)
    bright = colour[kinds].sum(axis=2)
    ratio = np.where(inner, image.sum(axis=2) / np.maximum(bright, 12.0), 0.0).astype(np.float32)
    weight = (inner * np.clip(bright / 150.0, 0.05, 1.0)).astype(np.float32)
    light = np.ones(shown.shape, np.float32)
    filled = np.zeros(shown.shape, bool)
    for sigma in (0.5 * ppd, 1.2 * ppd, 3.0 * ppd):
        num = cv2.GaussianBlur(ratio * weight, (0, 0), sigma)
        den = cv2.GaussianBlur(weight, (0, 0), sigma)
        ok = (den > 0.1) & ~filled
        light[ok] = num[ok] / den[ok]
        filled |= ok
    return np.clip(light, 0.2, 4.0), colour


def empty_board(canonical: np.ndarray, model: BoardModel, position: Position,
                looks: tuple[tuple[float, float, float], ...]) -> np.ndarray:
    """``canonical`` (BGR) with the checkers of ``position`` taken away; ``looks`` the Lab
    colours of both sides' checkers."""
    hidden = occupied(model, position)
    if not hidden.any():
        return canonical.copy()
    kinds = materials(model)
    image = canonical.astype(np.float32)
    light, colour = light_field(image, kinds, ~hidden, model.ppd)
    out = image.copy()
    flat = colour[kinds] * light[..., None]
    out[hidden] = flat[hidden]
    pts = position.points()
    h, w = hidden.shape
    on_field = (kinds == FIELD) | (kinds == ODD_POINT) | (kinds == EVEN_POINT)
    for n in range(1, 25):
        if not pts[n - 1]:
            continue
        x0, y0, x1, y1 = _band(model, n, abs(pts[n - 1]))
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        quarter = (n - 1) // 6
        donors = sorted((m for m in range(quarter * 6 + 1, quarter * 6 + 7) if (m - n) % 2 == 0 and m != n),
                        key=lambda m: abs(m - n))
        total = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        weight = np.zeros((y1 - y0, x1 - x0), np.float32)
        target = (slice(y0, y1), slice(x0, x1))
        here = light[target]
        for m in donors:
            dx = int(round(model.point_base(m)[0] - model.point_base(n)[0]))
            if x0 + dx < 0 or x1 + dx > w:
                continue
            source = (slice(y0, y1), slice(x0 + dx, x1 + dx))
            usable = (~hidden[source] & on_field[source] & on_field[target] & (weight < DONORS)).astype(np.float32)
            total += image[source] * (here / light[source])[..., None] * usable[..., None]
            weight += usable
        ok = (weight > 0) & hidden[target]
        band = out[target]
        band[ok] = total[ok] / weight[ok][:, None]
        out[target] = band
    lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB).astype(np.float32)
    far = np.min([np.linalg.norm(lab - np.float32(look), axis=2) for look in looks], axis=0)
    seen = hidden & (kinds == CASE) & (far > RIM_SEEN)
    out[seen] = image[seen]
    return np.clip(out, 0, 255).astype(np.uint8)
