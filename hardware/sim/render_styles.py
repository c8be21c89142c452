"""Board and checker styles of the simulated camera, and the painting of the empty board.

A style names the colours (BGR) and surface textures of a real kind of board. The empty
board is painted once per style, home corner and scale and then reused for every frame.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.sim.scene import BoardGeometry, Proportions, board_geometry

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class CheckerLook:
    """A side's checkers: top ``face`` colour, ``rim`` ring colour, whether the rim is
    polished metal (``silver``) that catches the light, and whether the face shows the
    rings of turned wood (``grain``)."""

    face: BGR
    rim: BGR
    silver: bool = False
    grain: bool = False


@dataclass(frozen=True)
class Style:
    """How a board looks: case, playing field, points, checkers, dice and cube; some
    boards outline their points and inlay an ``ornament`` in the middle of each half."""

    name: str
    case: BGR
    case_texture: str          # "wood", "leather", "plain"
    field: BGR
    field_texture: str         # "wood", "felt", "leather", "plain"
    point_dark: BGR
    point_light: BGR
    bar: BGR
    tray: BGR
    white: CheckerLook         # the checkers of the side called White
    black: CheckerLook
    die: BGR = (245, 245, 245)
    pip: BGR = (20, 20, 20)
    cube: BGR = (235, 235, 230)
    cube_text: BGR = (25, 25, 25)
    table: BGR = (60, 90, 120)
    point_outline: BGR | None = None
    ornament: BGR | None = None


STYLES: dict[str, Style] = {s.name: s for s in (
    Style("classic", case=(30, 60, 100), case_texture="wood", field=(120, 175, 215),
          field_texture="wood", point_dark=(25, 50, 85), point_light=(170, 215, 240),
          bar=(30, 60, 100), tray=(25, 50, 85),
          white=CheckerLook((225, 235, 240), (200, 212, 220)),
          black=CheckerLook((35, 32, 30), (60, 58, 55)), table=(70, 100, 140)),
    Style("felt", case=(25, 35, 45), case_texture="wood", field=(45, 105, 30),
          field_texture="felt", point_dark=(40, 40, 185), point_light=(215, 230, 235),
          bar=(30, 40, 50), tray=(35, 80, 25),
          white=CheckerLook((230, 238, 240), (205, 215, 220)),
          black=CheckerLook((40, 40, 190), (30, 30, 150)), table=(110, 120, 125)),
    Style("redblack", case=(22, 22, 24), case_texture="leather", field=(30, 30, 34),
          field_texture="leather", point_dark=(45, 40, 185), point_light=(150, 150, 155),
          bar=(18, 18, 20), tray=(26, 26, 28),
          white=CheckerLook((230, 235, 238), (210, 215, 220)),
          black=CheckerLook((35, 35, 175), (25, 25, 140)), table=(95, 125, 150),
          point_outline=(225, 225, 225)),
    Style("brown", case=(35, 65, 105), case_texture="wood", field=(150, 195, 225),
          field_texture="wood", point_dark=(30, 60, 110), point_light=(110, 160, 205),
          bar=(35, 65, 105), tray=(30, 55, 95),
          white=CheckerLook((150, 200, 235), (120, 170, 210)),
          black=CheckerLook((25, 45, 80), (40, 65, 100)), table=(150, 160, 165)),
    Style("tournament", case=(20, 20, 20), case_texture="leather", field=(195, 225, 235),
          field_texture="leather", point_dark=(30, 30, 30), point_light=(40, 40, 175),
          bar=(22, 22, 22), tray=(28, 28, 28),
          white=CheckerLook((235, 240, 242), (200, 200, 205), silver=True),
          black=CheckerLook((30, 30, 32), (190, 190, 195), silver=True),
          die=(240, 240, 240), table=(55, 70, 85)),
    Style("blue", case=(90, 50, 25), case_texture="leather", field=(120, 50, 20),
          field_texture="felt", point_dark=(50, 45, 200), point_light=(220, 230, 235),
          bar=(80, 45, 20), tray=(100, 55, 25),
          white=CheckerLook((225, 235, 240), (205, 215, 222)),
          black=CheckerLook((50, 50, 210), (35, 35, 170)), table=(170, 175, 180)),
    Style("inlaid", case=(25, 45, 75), case_texture="wood", field=(110, 150, 180),
          field_texture="wood", point_dark=(20, 35, 60), point_light=(175, 210, 230),
          bar=(25, 45, 75), tray=(30, 55, 85),
          white=CheckerLook((160, 205, 230), (130, 175, 205), grain=True),
          black=CheckerLook((35, 55, 95), (25, 40, 70), grain=True), table=(120, 130, 135),
          point_outline=(40, 70, 110), ornament=(30, 50, 90)),
)}


def style_named(name: str) -> Style:
    """The style called ``name``, with a clear error listing the known ones."""
    try:
        return STYLES[name]
    except KeyError:
        raise ValueError(f"unknown board style {name!r}; known: {', '.join(STYLES)}") from None


def _style_seed(name: str, salt: str) -> int:
    return zlib.crc32(f"{name}/{salt}".encode())


def texture(kind: str, size: tuple[int, int], seed: int, vertical: bool = False) -> np.ndarray:
    """A float32 brightness field around 1.0 of ``size`` (w, h) for a surface ``kind``."""
    w, h = size
    rng = np.random.default_rng(seed)
    if kind == "plain":
        return np.ones((h, w), np.float32)
    if kind == "felt":
        fine = rng.normal(1.0, 0.05, (h, w)).astype(np.float32)
        coarse = cv2.resize(rng.normal(0.0, 0.04, (max(h // 24, 2), max(w // 24, 2))).astype(np.float32),
                            (w, h), interpolation=cv2.INTER_CUBIC)
        return cv2.GaussianBlur(fine, (3, 3), 0) + coarse
    if kind == "leather":
        blotch = cv2.resize(rng.normal(0.0, 0.05, (max(h // 6, 2), max(w // 6, 2))).astype(np.float32),
                            (w, h), interpolation=cv2.INTER_CUBIC)
        grain = cv2.GaussianBlur(rng.normal(0.0, 0.05, (h, w)).astype(np.float32), (0, 0), 1.2)
        return 1.0 + blotch + grain
    if kind == "wood":
        along, across = (h, w) if vertical else (w, h)
        warp = cv2.resize(rng.normal(0.0, 1.0, (max(across // 40, 2), max(along // 120, 2))).astype(np.float32),
                          (along, across), interpolation=cv2.INTER_CUBIC)
        y = np.arange(across, dtype=np.float32)[:, None]
        freq = rng.uniform(0.25, 0.45)
        rings = np.sin(y * freq + warp * 6.0) + 0.5 * np.sin(y * freq * 2.7 + warp * 3.0)
        streak = cv2.resize(rng.normal(0.0, 0.04, (across, max(along // 60, 2))).astype(np.float32),
                            (along, across), interpolation=cv2.INTER_LINEAR)
        field = 1.0 + 0.06 * rings + streak
        return np.ascontiguousarray(field.T) if vertical else field.astype(np.float32)
    raise ValueError(f"unknown texture {kind!r}")


def _fill_rect(canvas: np.ndarray, rect: tuple[float, float, float, float], colour: BGR,
               kind: str, seed: int, vertical: bool = False) -> None:
    x0, y0, x1, y1 = (int(round(v)) for v in rect)
    if x1 <= x0 or y1 <= y0:
        return
    tex = texture(kind, (x1 - x0, y1 - y0), seed, vertical)
    canvas[y0:y1, x0:x1] = np.clip(tex[:, :, None] * np.array(colour, np.float32), 0, 255).astype(np.uint8)


def _inlay(canvas: np.ndarray, field: tuple[float, float, float, float], ppd: float, colour: BGR,
           ground: BGR) -> None:
    """A diamond medallion in the middle of a half, between the points' tips."""
    cx, cy = (field[0] + field[2]) / 2, (field[1] + field[3]) / 2
    for scale, fill in ((1.0, colour), (0.7, ground), (0.4, colour)):
        rx, ry = 1.1 * ppd * scale, 0.6 * ppd * scale
        diamond = np.array([(cx - rx, cy), (cx, cy - ry), (cx + rx, cy), (cx, cy + ry)]) * 16
        cv2.fillConvexPoly(canvas, np.round(diamond).astype(np.int32), fill, cv2.LINE_AA, shift=4)


def _inner_shadow(canvas: np.ndarray, rect: tuple[float, float, float, float], width: int) -> None:
    """Darken the inside edges of a recessed area (field or tray) as the rim's shadow."""
    x0, y0, x1, y1 = (int(round(v)) for v in rect)
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    h, w = roi.shape[:2]
    yy = np.minimum(np.arange(h), np.arange(h)[::-1])[:, None].astype(np.float32)
    xx = np.minimum(np.arange(w), np.arange(w)[::-1])[None, :].astype(np.float32)
    d = np.minimum(yy, xx)
    gain = 1.0 - 0.35 * np.clip(1.0 - d / max(width, 1), 0, 1) ** 2
    canvas[y0:y1, x0:x1] = (roi * gain[:, :, None]).astype(np.uint8)


@lru_cache(maxsize=24)
def painted_board(style_name: str, home: str, ppd: float,
                  proportions: Proportions = Proportions()) -> tuple[np.ndarray, BoardGeometry]:
    """The empty board of a style and build (read-only BGR image of the canvas) and its geometry."""
    style = style_named(style_name)
    g = board_geometry(home, ppd, proportions)
    w, h = g.size
    canvas = np.zeros((h, w, 3), np.uint8)
    _fill_rect(canvas, g.outline, style.case, style.case_texture, _style_seed(style_name, "case"))
    for i, field in enumerate((g.field_left, g.field_right)):
        _fill_rect(canvas, field, style.field, style.field_texture,
                   _style_seed(style_name, f"field{i}"), vertical=True)
    _fill_rect(canvas, g.bar, style.bar, style.case_texture, _style_seed(style_name, "bar"), vertical=True)
    for i, tray in enumerate((g.tray_white, g.tray_black)):
        _fill_rect(canvas, tray, style.tray, style.field_texture, _style_seed(style_name, f"tray{i}"))
    point_tex = texture("wood" if style.field_texture == "wood" else "leather", (w, h),
                        _style_seed(style_name, "points"), vertical=True)
    layer = canvas.copy()
    for point in g.points:
        colour = style.point_dark if point.dark else style.point_light
        poly = np.round(point.polygon() * 16).astype(np.int32)
        cv2.fillPoly(layer, [poly], colour, cv2.LINE_AA, shift=4)
    mask = np.any(layer != canvas, axis=2)
    shaded = np.clip(layer.astype(np.float32) * point_tex[:, :, None], 0, 255).astype(np.uint8)
    canvas[mask] = shaded[mask]
    if style.point_outline is not None:
        polys = [np.round(point.polygon() * 16).astype(np.int32) for point in g.points]
        cv2.polylines(canvas, polys, True, style.point_outline, max(int(g.ppd * 0.04), 1), cv2.LINE_AA, shift=4)
    if style.ornament is not None:
        for field in (g.field_left, g.field_right):
            _inlay(canvas, field, g.ppd, style.ornament, style.field)
    edge = max(int(g.ppd * 0.18), 2)
    for rect in (g.field_left, g.field_right, g.tray_white, g.tray_black):
        _inner_shadow(canvas, rect, edge)
    # the hinge down the middle of the bar
    bx = int(round((g.bar[0] + g.bar[2]) / 2))
    cv2.line(canvas, (bx, 0), (bx, h - 1), tuple(int(c * 0.55) for c in style.bar), max(int(g.ppd * 0.04), 1))
    canvas.setflags(write=False)
    return canvas, g
