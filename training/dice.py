"""Make the dice networks: the board's (``vision/models/dice``), the photos' (``dice_photo``)
and the board photos' (``dice_board_photo``).

Usage: python -m training.dice --net board|photo|board_photo [--tables 900] [--frames-per-table 4] [--epochs 10]

Patches are cut exactly as the readers cut them (``vision.dice``): around the candidates
the readers find and around every die (shifted, turned and scaled a little), labelled
with the die nearest the patch's middle or as no die when none is near. A board's patch
is turned as its reader turns it, with the camera up (``BoardDice.upright``), give or take
``TURN`` degrees.

- The board's network reads rendered boards: tables (a style, home corner, camera, light,
  sensor and board build drawn from the seed, seeds from ``FIRST_SEED`` on; the bench's
  are never used), each with several frames of positions reached by random play, one to
  four dice of the style's or another colour lying flat (some against another die or a
  checker), cocked against a checker or the rail, or on a checker, and the cube; read
  through a perfect calibration (the renderer's camera). The last tables are held out.
  It answers ``face`` (no die, 1..6), ``rest`` (flat, cocked, on a checker) and
  ``shift`` (where the die's middle lies from the patch's; both trained on dice only),
  and must be fast.
- The photos' network reads the ``train`` split of the labelled dice photos, one photo
  in five held out (the ``test`` split is never read here), dice drawn from scratch
  (any colour, size and pips: the photos hold a few hundred dice). It answers ``face``
  only, and looks at the patch whole (the photos' pips are small and blurred).
- The board photos' network (photo import's) reads all that and rendered boards seen as
  photos (every style, the tournament look most often, under random camera, light and
  clutter; seeds from ``BOARD_PHOTO_SEED`` on, one board in five held out), cut where
  photo import looks for dice: small dice among checkers, and a board's spots (rims, the
  cube's numbers) that are none.

The held-out data fit the temperatures and score the network (the card keeps the
scores). Training varies the patches further (mirror images, and for the photos quarter
turns, which keep every face; the colour channels swapped, which makes dice of other
colours; light, contrast, blur and noise).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from engine.position import BLACK, WHITE, Position
from hardware.sim.render_sequence import random_position
from hardware.sim.renderer import (DICE_COLOURS, STYLES, Conditions, Cube, Die, against_the_rail, board_renderer,
                                   render)
from training.truth import EMPTY, TruthBoard, region_counts
from vision.dice import (BOARD_PHOTO_DIE, DIE_PX, FLAT, IS_DIE, PATCH, PHOTO_DIE_PX, RESTS, BoardDice,
                         board_photo_candidates, frame_patches, net_input, photo_candidates, photo_patch_transform,
                         photo_scaled, read_patch, turned)

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT.parent / "shared" / "data" / "photos" / "dice"
FIRST_SEED = 20_000_000
BOARD_PHOTO_SEED = 21_000_000   # the rendered board photos' seeds
TOURNAMENT = 0.4                # share of the rendered board photos in the tournament look
NETS = {"board": "dice", "photo": "dice_photo", "board_photo": "dice_board_photo"}   # --net: the model it makes
HOMES = ("bottom-right", "bottom-left", "top-right", "top-left")
NEAR, FAR = 0.5, 0.75           # a patch this near a die's middle (die sides) shows it; this far, none
PHOTO_NEAR, PHOTO_FAR = 0.35, 0.6   # ... in a photo, where dice touch: a patch between two shows neither, so the
                                    # surest of a die's patches is the one on its middle
NO_REST = -1                    # rest label of a patch with no die
NO_SHIFT = (np.nan, np.nan)     # ... and its shift
SHIFT_WEIGHT = 4.0              # weight of the shift's loss beside the face's and the rest's
THROWN = ("flat", "flat", "flat", "cocked", "cocked", "on_checker")    # how thrown dice rest, as often as named
RAIL = 0.35                     # share of the cocked dice that lean on the rail
TOUCHING = 0.3                  # share of the flat dice after the first thrown against the die before
TURN = 6.0                      # spread (degrees) of a board patch's turn about the reader's (camera up)


# ------------------------------------------------------------------------ rendered boards
def _table_frames(seed: int, frames: int, bar: float = 0.0, rail: float = 0.0):
    """Frames of one table: (frame, truth, board) for ``frames`` scenes under one camera and
    light; in a share ``bar`` of them, checkers of both sides wait on the bar, a share
    ``rail`` of the cocked dice lean on the rail (the others on a checker, where the half
    has one), and a share ``TOUCHING`` of the flat dice after the first lie against the
    die before them (when it is flat and there is room)."""
    rng = np.random.default_rng(seed)
    style = list(STYLES)[int(rng.integers(len(STYLES)))]
    home = HOMES[int(rng.integers(4))]
    conditions = Conditions.random(rng, float(rng.uniform(0.4, 1.0)))
    empty, _ = render(EMPTY, dice=(), seed=seed, style=style, conditions=conditions, home=home)
    opening = render(Position.initial(), dice=(), seed=seed, style=style, conditions=conditions, home=home)
    board = None
    for k in range(frames):
        position = random_position(rng, int(rng.integers(0, 60)))
        if rng.random() < bar:
            position = _on_the_bar(position, int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        colour = None
        if rng.random() < 0.5:
            colour = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))]
        elif rng.random() < 0.2:
            body = tuple(int(v) for v in rng.integers(0, 256, 3))
            colour = (body, (20, 20, 20) if sum(body) > 380 else (240, 240, 240))
        count = int(rng.choice([1, 2, 2, 2, 3, 4]))
        dice = tuple(Die(int(rng.integers(1, 7)), str(rng.choice(["white", "black"])),
                         str(rng.choice(THROWN)),
                         colour=None if colour is None else colour[0], pips=None if colour is None else colour[1])
                     for _ in range(count))
        dice = tuple(_on_the_rail(d, style, home, conditions, rng)
                     if rail and d.rest == "cocked" and rng.random() < rail else d for d in dice)
        dice = tuple(replace(d, half=dice[i - 1].half, touching=True)
                     if i and d.rest == "flat" and rng.random() < TOUCHING else d for i, d in enumerate(dice))
        value = int(rng.choice([1, 2, 4, 8, 16, 32, 64]))
        cube = None if rng.random() < 0.2 else Cube(value, "centre" if value == 1 else
                                                     str(rng.choice(["white", "black", "centre"])))
        frame_seed = seed * 16 + k
        try:
            frame, truth = render(position, dice=dice, cube=cube, seed=frame_seed, style=style,
                                  conditions=conditions, home=home)
        except ValueError:          # no checker to lie on in that half
            dice = tuple(Die(d.value, d.half, colour=d.colour, pips=d.pips) for d in dice)
            frame, truth = render(position, dice=dice, cube=cube, seed=frame_seed, style=style,
                                  conditions=conditions, home=home)
        if board is None:
            board = TruthBoard(truth, empty, opening)
        yield frame, truth, board


def _on_the_rail(die: Die, style: str, home: str, conditions: Conditions, rng: np.random.Generator) -> Die:
    """``die`` cocked against the rail of its half, as the renderer leans one where the
    half has no checker to lean on."""
    landing = board_renderer(style, (1280, 720), home, conditions.board).landing_area(die.half)
    top = rng.random() < 0.5
    at, toward = against_the_rail(landing, die.size, top, float(rng.uniform(landing[0], landing[2])))
    return replace(die, at=(float(at[0]), float(at[1])), yaw=float(rng.uniform(0, np.pi / 2)),
                   lean=float(rng.uniform(0.35, 0.6)), lean_toward=toward)


def _on_the_bar(position: Position, white: int, black: int) -> Position:
    """``position`` with up to ``white`` and ``black`` more checkers on the bar, each taken
    from the side's fullest point."""
    points = list(position.points())
    bar = [position.bar(WHITE), position.bar(BLACK)]
    for k, (count, sign) in enumerate(((white, 1), (black, -1))):
        for _ in range(count):
            i = int(np.argmax([sign * p for p in points]))
            if sign * points[i] > 0:
                points[i] -= sign
                bar[k] += 1
    return Position.from_points(points, bar=(bar[0], bar[1]))


def table_patches(seed: int, frames: int, rng: np.random.Generator) -> tuple[list, list, list, list]:
    """Patches, face labels (0 no die, 1..6), rest labels and shifts of one rendered table:
    a die's shift is where its middle lies from the patch's, in die sides along the
    patch's own axes (``NO_SHIFT`` where no die is)."""
    patches, faces, rests, shifts = [], [], [], []

    def add(patch, face, rest, shift):
        patches.append(patch)
        faces.append(face)
        rests.append(rest)
        shifts.append(shift)

    reader = None
    for frame, truth, board in _table_frames(seed, frames, rail=RAIL):
        if reader is None:
            reader = BoardDice(board.model, board.to_frame, board.empty, board.checkers)
        view = board.view(frame)
        centres = board.die_centres(truth)
        labels = [(d.value, 0 if d.flat else 1 if d.cocked else 2) for d in truth.dice]
        side = reader.die_side
        w, h = reader.model.size

        def nearest(p):
            if not centres:
                return 99.0, None, None
            d = [np.hypot(p[0] - c[0], p[1] - c[1]) / side for c in centres]
            i = int(np.argmin(d))
            return d[i], labels[i], centres[i]

        def label(p, scale=1.0):
            d, lab, centre = nearest(p)
            if d < NEAR or d > FAR:
                angle = reader.upright([p], (frame.shape[1], frame.shape[0]))[0] + float(rng.normal(0, TURN))
                patch = frame_patches(frame, reader.to_frame, [p], reader.die_side, DIE_PX, [angle], [scale])[0]
                if d < NEAR:
                    add(patch, *lab, tuple(turned(np.subtract(centre, p) * scale / side, -angle)))
                else:
                    add(patch, 0, NO_REST, NO_SHIFT)

        for p in reader.candidates(view, rows=region_counts(truth)):
            label(p)
        for c in centres:
            for _ in range(3):
                r, t = 0.4 * side * np.sqrt(rng.random()), rng.uniform(0, 2 * np.pi)
                label((c[0] + r * np.cos(t), c[1] + r * np.sin(t)), float(rng.uniform(0.88, 1.14)))
            t = rng.uniform(0, 2 * np.pi)        # beside the die: no die in the middle
            r = rng.uniform(1.0, 1.6) * side
            label((c[0] + r * np.cos(t), c[1] + r * np.sin(t)))
        x0, y0, x1, y1 = reader.model.field
        for _ in range(2):
            label((rng.uniform(x0, x1), rng.uniform(y0, y1)))
        tops = [k.centre for k in truth.checkers if k.location not in ("off",)]
        for _ in range(2 if tops else 0):
            fx, fy = tops[int(rng.integers(len(tops)))]
            p = board.canonical((fx, fy))
            label((p[0] + rng.normal(0, 0.3 * side), p[1] + rng.normal(0, 0.3 * side)))
        if truth.cube is not None:
            label(board.canonical(truth.cube.centre))
    return patches, faces, rests, shifts


# ------------------------------------------------------------------------ real photos
def photo_names(split: str) -> list[str]:
    with open(PHOTOS / "split.csv") as fh:
        return [r["filename"] for r in csv.DictReader(fh) if r["split"] == split]


def held_out_photos() -> list[str]:
    """The train split's photos the photos' network is not trained on (every fifth): they
    fit its temperature, and are what its reader is tuned on (never the test split)."""
    return photo_names("train")[::5]


def photo_labels(name: str, width: int, height: int) -> list[tuple[int, float, float, float]]:
    """Labelled dice of a photo as (value, centre x, centre y, box side) in pixels."""
    out = []
    for line in (PHOTOS / "labels" / (Path(name).stem + ".txt")).read_text().split("\n"):
        if line.strip():
            c, cx, cy, w, h = map(float, line.split())
            out.append((int(c) + 1, cx * width, cy * height, max(w * width, h * height)))
    return out


def photo_patches(name: str, rng: np.random.Generator) -> tuple[list, list, list]:
    """Patches, face labels and rest labels (flat: dice in a tray) of one labelled photo.

    A patch around a labelled die shows it at the side the reader would give it: that of
    the candidate on it (a lone die's blob), else the photo's typical die side."""
    image = cv2.imread(str(PHOTOS / "images" / name))
    labels = photo_labels(name, image.shape[1], image.shape[0])
    candidates, die_size = photo_candidates(image)
    if die_size is None:
        die_size = float(np.median([s for *_, s in labels])) * 0.85
    label, kept = _labeller(*photo_scaled(image, die_size), labels)
    for c in candidates:
        label(c, float(rng.uniform(0, 360)) if rng.random() < 0.5 else 0.0)
    for _, x, y, s in labels:
        on = [c for c in candidates if np.hypot(c[0] - x, c[1] - y) < PHOTO_NEAR * s]
        _around(label, x, y, s, min(on, key=lambda c: np.hypot(c[0] - x, c[1] - y))[2] if on else die_size, rng)
        t = rng.uniform(0, 2 * np.pi)
        r = rng.uniform(PHOTO_FAR, 1.5) * s
        label((x + r * np.cos(t), y + r * np.sin(t), die_size, True))
    h, w = image.shape[:2]
    for _ in range(4):
        label((rng.uniform(0, w), rng.uniform(0, h), die_size, True))
    return kept


def _labeller(small: np.ndarray, scale: float, labels, moving=frozenset()):
    """A function keeping the patch of a candidate (turned by an angle) cut from the photo
    scaled by ``scale`` (``small``), with its face (``_face_at``) and rest labels, unless
    it shows neither a die nor none; and the (patches, faces, rests) it keeps."""
    patches, faces, rests = [], [], []

    def label(c, angle=0.0):
        face = _face_at(c, labels, moving)
        if face is not None:
            faces.append(face)
            rests.append(0 if face else NO_REST)
            patches.append(read_patch(small, photo_patch_transform(c, scale, angle)))

    return label, (patches, faces, rests)


def _around(label, x: float, y: float, s: float, side: float, rng: np.random.Generator) -> None:
    """Three patches (``label``) within 0.3 sides of a labelled die at (x, y), ``s`` wide,
    read at ``side`` give or take a tenth, turned any way."""
    for _ in range(3):
        r, t = 0.3 * s * np.sqrt(rng.random()), rng.uniform(0, 2 * np.pi)
        label((x + r * np.cos(t), y + r * np.sin(t), side * float(rng.uniform(0.9, 1.1)), True),
              float(rng.uniform(0, 360)))


def _face_at(c, labels, moving=frozenset()) -> int | None:
    """The face label of a photo patch centred at ``c``: the value of the labelled die
    (value, x, y, side) within ``PHOTO_NEAR`` of its sides, unless it is in motion (an
    index in ``moving``: neither a die nor none), 0 beyond ``PHOTO_FAR`` of every die,
    None between."""
    d = [np.hypot(c[0] - x, c[1] - y) / s for _, x, y, s in labels] or [99.0]
    i = int(np.argmin(d))
    if d[i] < PHOTO_NEAR:
        return None if i in moving else labels[i][0]
    return 0 if d[i] > PHOTO_FAR else None


# ------------------------------------------------------------------------ rendered board photos
def board_photo_patches(seed: int) -> tuple[list, list, list]:
    """Patches, face labels and rest labels (flat) of one rendered board seen as a photo:
    cut as photo import cuts them (``vision.dice.board_photo_candidates`` for checkers as
    wide as the renderer drew them, give or take a tenth, on the whole frame), and around
    every die still on the board (a die in motion is neither a die nor none)."""
    rng = np.random.default_rng(seed)
    style = "tournament" if rng.random() < TOURNAMENT else list(STYLES)[int(rng.integers(len(STYLES)))]
    size = (1280, 720) if rng.random() < 0.6 else (960, 540)
    colour = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))] if rng.random() < 0.3 else None
    position = random_position(rng, int(rng.integers(0, 60)))
    values = tuple(int(v) for v in rng.integers(1, 7, int(rng.choice([1, 2, 2, 2, 3]))))
    image, truth = render(position, dice=values, seed=seed, style=style, size=size,
                          home=HOMES[int(rng.integers(4))], difficulty=float(rng.uniform(0.0, 0.8)),
                          half=str(rng.choice(["white", "black"])), dice_colour=colour)
    on_board = [max(c.box[2], c.box[3]) for c in truth.checkers if c.location != "off"]
    diameter = float(np.median(on_board)) * float(rng.uniform(0.9, 1.1))
    candidates, _ = board_photo_candidates(image, diameter)
    die_size = BOARD_PHOTO_DIE * diameter
    labels = [(d.value, d.box[0] + d.box[2] / 2, d.box[1] + d.box[3] / 2, max(d.box[2], d.box[3])) for d in truth.dice]
    label, kept = _labeller(*photo_scaled(image, die_size), labels, {i for i, d in enumerate(truth.dice) if d.moving})
    for c in candidates:
        label(c)
    for _, x, y, s in labels:
        _around(label, x, y, s, die_size, rng)
    return kept


# ------------------------------------------------------------------------ drawn dice
#: Pip centres per face value, in face sides about the face's centre, in units of the pip spacing.
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _colour(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 256, 3).astype(np.float32)


def _draw_die(canvas: np.ndarray, centre, side: float, angle: float, value: int, rng: np.random.Generator) -> None:
    """A die seen from above on ``canvas`` (float BGR): a body of any colour with rounded
    corners, often a side face in view, pips of a contrasting colour, lit unevenly."""
    body = _colour(rng)
    light = float(body.mean())
    pip = np.float32([235, 235, 235]) if light < 110 or rng.random() < 0.3 else np.float32([25, 25, 25])
    if rng.random() < 0.25:
        pip = _colour(rng)
    c, s = np.cos(angle), np.sin(angle)
    turn = np.array([[c, -s], [s, c]])
    if rng.random() < 0.6:                           # a side face, in shade, seen past the top
        shift = turn @ np.array([rng.uniform(-0.12, 0.12), rng.uniform(-0.12, 0.12)]) * side
        cv2.fillConvexPoly(canvas, cv2.boxPoints(((centre[0] + shift[0], centre[1] + shift[1]), (side, side),
                                                  np.degrees(angle))).astype(np.int32),
                           (body * rng.uniform(0.45, 0.8)).tolist(), cv2.LINE_AA)
    corners = cv2.boxPoints((tuple(centre), (side, side), np.degrees(angle)))
    round_ = rng.uniform(0.05, 0.2) * side
    inner = cv2.boxPoints((tuple(centre), (side - 2 * round_, side - 2 * round_), np.degrees(angle)))
    cv2.fillConvexPoly(canvas, np.round(inner).astype(np.int32), body.tolist(), cv2.LINE_AA)
    for a, b in zip(corners, np.roll(corners, 1, axis=0)):     # thick inset edges: their round ends round the corners
        cv2.line(canvas, tuple(np.round(a + (np.array(centre) - a) * round_ / side * 1.4).astype(int)),
                 tuple(np.round(b + (np.array(centre) - b) * round_ / side * 1.4).astype(int)), body.tolist(),
                 max(int(round(2 * round_)), 1), cv2.LINE_AA)
    spacing = rng.uniform(0.23, 0.3) * side
    radius = rng.uniform(0.07, 0.12) * side
    for px, py in PIPS[value]:
        x, y = turn @ (np.array([px, py]) * spacing) + centre
        cv2.circle(canvas, (int(round(x * 4)), int(round(y * 4))), int(round(radius * 4)), pip.tolist(), -1,
                   cv2.LINE_AA, 2)


def drawn_patches(count: int, die_px: float, rng: np.random.Generator) -> tuple[list, list, list]:
    """``count`` patches of dice drawn from scratch (any colour, pips, size, turn, light,
    a neighbour or two in view) and as many without a die in the middle: face labels and
    rest labels (flat)."""
    patches, faces, rests = [], [], []
    k = 3                                            # drawn at three times the patch's scale
    n = PATCH * k
    for i in range(2 * count):
        canvas = np.empty((n, n, 3), np.float32)
        canvas[:] = _colour(rng) * rng.uniform(0.6, 1.0)
        if rng.random() < 0.5:                       # a tray's edge, a checker, a line
            cv2.circle(canvas, (int(rng.uniform(0, n)), int(rng.uniform(0, n))), int(rng.uniform(0.5, 2) * die_px * k),
                       _colour(rng).tolist(), -1 if rng.random() < 0.5 else int(rng.integers(2, 8)), cv2.LINE_AA)
        side = die_px * k * rng.uniform(0.85, 1.15)
        middle = np.array([(n - 1) / 2, (n - 1) / 2])
        for _ in range(int(rng.integers(0, 3))):     # neighbours, a die or more away
            t = rng.uniform(0, 2 * np.pi)
            at = middle + np.array([np.cos(t), np.sin(t)]) * side * rng.uniform(1.05, 1.8)
            _draw_die(canvas, at, side * rng.uniform(0.85, 1.15), rng.uniform(0, np.pi / 2), int(rng.integers(1, 7)),
                      rng)
        value = int(rng.integers(1, 7)) if i % 2 == 0 else 0
        if value:
            r, t = 0.3 * side * np.sqrt(rng.random()), rng.uniform(0, 2 * np.pi)
            _draw_die(canvas, middle + r * np.array([np.cos(t), np.sin(t)]), side, rng.uniform(0, np.pi / 2), value,
                      rng)
        gain = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.8, 1.3), n, dtype=np.float32)
        canvas *= gain[:, None, None] if rng.random() < 0.5 else gain[None, :, None]
        patch = cv2.resize(np.clip(canvas, 0, 255).astype(np.uint8), (PATCH, PATCH), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.3:
            ok, jpeg = cv2.imencode(".jpg", patch, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
            patch = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        patches.append(patch)
        faces.append(value)
        rests.append(0 if value else NO_REST)
    return patches, faces, rests


# ------------------------------------------------------------------------ data set
def make_data(net: str, tables: int, frames: int, held_out_tables: int, drawn: int, seed: int, boards: int = 0,
              log=print) -> dict:
    """Every patch of the board's network (``net`` "board": rendered tables), the photos'
    ("photo": labelled photos and ``drawn`` dice drawn from scratch, trained on only) or
    the board photos' ("board_photo": those and ``boards`` rendered board photos):
    arrays ``x`` (N, PATCH, PATCH, 3) uint8, ``face``, ``rest``, ``shift`` (the board's
    network's) and ``held`` (True for held-out data)."""
    rng = np.random.default_rng(seed)
    parts = {"x": [], "face": [], "rest": [], "shift": [], "held": [], "rendered": []}

    def put(p, f, r, held, rendered=False, shifts=None):
        parts["x"] += p
        parts["face"] += f
        parts["rest"] += r
        parts["shift"] += shifts or [NO_SHIFT] * len(p)
        parts["held"] += [held] * len(p)
        parts["rendered"] += [rendered] * len(p)

    t0 = time.time()
    if net in ("photo", "board_photo"):
        held_photos = set(held_out_photos())
        for name in photo_names("train"):
            put(*photo_patches(name, rng), name in held_photos)
        put(*drawn_patches(drawn, PHOTO_DIE_PX, rng), False)
        log(f"photos and drawn dice: {len(parts['x'])} patches ({time.time() - t0:.0f} s)")
        for b in range(boards if net == "board_photo" else 0):
            put(*board_photo_patches(BOARD_PHOTO_SEED + b), b % 5 == 4, True)
            if (b + 1) % 100 == 0:
                log(f"board photos: {b + 1}/{boards}, {len(parts['x'])} patches ({time.time() - t0:.0f} s)")
    else:
        for t in range(tables + held_out_tables):
            p, f, r, shifts = table_patches(FIRST_SEED + t, frames, rng)
            put(p, f, r, t >= tables, shifts=shifts)
            if (t + 1) % 50 == 0:
                log(f"tables: {t + 1}/{tables + held_out_tables}, {len(parts['x'])} patches ({time.time() - t0:.0f} s)")
    return {"x": np.array(parts["x"], np.uint8), "face": np.array(parts["face"], np.int64),
            "rest": np.array(parts["rest"], np.int64), "shift": np.array(parts["shift"], np.float32),
            "held": np.array(parts["held"], bool),
            "rendered": np.array(parts["rendered"], bool)}


def augment(x: np.ndarray, rng: np.random.Generator, turns: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A batch of uint8 patches varied: mirrored left to right and, with ``turns``, turned
    by quarter turns (a board patch is not: the camera is up in it), colour channels
    swapped, light and contrast, blur and noise; and which of them were mirrored."""
    out = np.empty_like(x)
    mirrored = rng.random(len(x)) < 0.5
    for i, p in enumerate(x):
        if turns:
            p = np.rot90(p, int(rng.integers(4)))
        if mirrored[i]:
            p = p[:, ::-1]
        if rng.random() < 0.4:
            p = p[:, :, rng.permutation(3)]
        p = p.astype(np.float32)
        if rng.random() < 0.2:
            p = cv2.GaussianBlur(p, (0, 0), float(rng.uniform(0.4, 0.8)))
        p = p * float(rng.uniform(0.6, 1.3)) + float(rng.normal(0, 15))
        p = p * rng.uniform(0.9, 1.1, 3).astype(np.float32)
        if rng.random() < 0.5:
            p = p + rng.normal(0, float(rng.uniform(1, 7)), p.shape).astype(np.float32)
        out[i] = np.clip(p, 0, 255).astype(np.uint8)
    return out, mirrored


# ------------------------------------------------------------------------ the network
def build(heads: dict[str, int], fine: bool = False, layout: bool = False):
    """The network: a few small convolutions, then one linear head per entry of ``heads``
    (name: classes); ``forward`` returns their scores in order. The first convolution
    reads the patch at half scale, or with ``fine`` two wider ones read it whole (slower,
    and surer of small, blurred pips: the photos' dice). The heads read the last features
    averaged over the patch, or with ``layout`` where they lie (an eighth of the patch
    apart): which die lies in the middle and which beside it, and how far off."""
    import torch
    from torch import nn

    def block(i, o, stride=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU())

    if fine:
        layers = [block(3, 24), block(24, 24), nn.MaxPool2d(2), block(24, 48), block(48, 48), nn.MaxPool2d(2),
                  block(48, 64), nn.MaxPool2d(2), block(64, 96)]
    else:
        layers = [block(3, 16, 2), block(16, 24), nn.MaxPool2d(2), block(24, 32), nn.MaxPool2d(2), block(32, 64)]
    width = layers[-1][0].out_channels * ((PATCH // 8) ** 2 if layout else 1)

    class PatchNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(*layers, *(() if layout else (nn.AdaptiveAvgPool2d(1),)), nn.Flatten())
            self.heads = nn.ModuleList(nn.Linear(width, n) for n in heads.values())

        def forward(self, x: torch.Tensor):
            h = self.features(x)
            return tuple(head(h) for head in self.heads)

    return PatchNet()


def logits(model, x: np.ndarray, batch: int = 512) -> list[np.ndarray]:
    """The model's scores of every head for patches ``x`` (uint8)."""
    import torch
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append([z.numpy() for z in model(torch.from_numpy(net_input(list(x[i:i + batch]))))])
    return [np.concatenate(z) for z in zip(*out)]


def scores(face_p: np.ndarray, rest_p: np.ndarray | None, face: np.ndarray, rest: np.ndarray,
           shifts: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
    """Held-out figures: no-die patches called dice, dice missed, dice read with the wrong
    face, rests (a flat die read not flat, a leaning one read flat), and how far (die
    sides) a die's middle is put from where it lies (``shifts``: read and true)."""
    die = 1 - face_p[:, 0] >= IS_DIE
    value = np.argmax(face_p[:, 1:], axis=1) + 1
    dice = face > 0
    out = {"patches": len(face), "dice": int(dice.sum()),
           "no die read as a die": round(float(die[~dice].mean()), 4),
           "die missed": round(float((~die[dice]).mean()), 4),
           "face wrong (dice found)": round(float((value[dice & die] != face[dice & die]).mean()), 4)}
    if rest_p is not None:
        flat = rest_p[:, 0] >= FLAT
        for k, name in enumerate(RESTS):
            sel = dice & die & (rest == k)
            out[f"{name} read {'not flat' if k == 0 else 'flat'}"] = round(float(flat[sel].mean() if k else
                                                                                 1 - flat[sel].mean()), 4)
    if shifts is not None:
        miss = np.hypot(*(shifts[0][dice] - shifts[1][dice]).T)
        out["middle off (die sides), median / 95%"] = [round(float(np.median(miss)), 3),
                                                       round(float(np.percentile(miss, 95)), 3)]
    return out


def arguments(doc: str, tables: int, epochs: int) -> argparse.ArgumentParser:
    """The options every network's training takes: how many tables of how many frames
    (and how many held out), epochs, seed, where the patches are kept, where it is written."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--tables", type=int, default=tables)
    ap.add_argument("--held-out-tables", type=int, default=100)
    ap.add_argument("--frames-per-table", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, help="keep the patches in (or read them from) this .npz")
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models")
    return ap


def patch_set(args: argparse.Namespace, make) -> dict:
    """The patches kept in ``args.data`` if it exists, else ``make()``'s (kept there if given)."""
    if args.data and args.data.exists():
        return dict(np.load(args.data))
    data = make()
    if args.data:
        np.savez(args.data, **data)
    return data


def main(argv: list[str] | None = None) -> int:
    ap = arguments(__doc__, 900, 10)
    ap.add_argument("--net", choices=list(NETS), default="board")
    ap.add_argument("--drawn", type=int, default=3000, help="dice drawn from scratch for the photos' network")
    ap.add_argument("--boards", type=int, default=1000, help="rendered board photos for the board photos' network")
    args = ap.parse_args(argv)
    import torch
    from torch import nn

    from training.kit import export, fit_temperature, train
    from vision.nets import Output
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    data = patch_set(args, lambda: make_data(args.net, args.tables, args.frames_per_table, args.held_out_tables,
                                              args.drawn, args.seed, args.boards))
    board, rendered = args.net == "board", args.net == "board_photo"
    fit, held = ~data["held"], data["held"]
    xs, face, rest = data["x"][fit], torch.from_numpy(data["face"][fit]), torch.from_numpy(data["rest"][fit])
    shift = data["shift"][fit]
    print(f"{len(xs)} training patches ({int((face > 0).sum())} dice), {int(held.sum())} held out")
    heads = {"face": 7, "rest": len(RESTS), "shift": 2} if board else {"face": 7}
    model = build(heads, fine=not board, layout=board)
    rng = np.random.default_rng(args.seed)
    face_loss = nn.CrossEntropyLoss()
    rest_loss = nn.CrossEntropyLoss(ignore_index=NO_REST)
    shift_loss = nn.SmoothL1Loss(beta=0.1)

    def step(idx):
        x, mirrored = augment(xs[idx], rng, turns=not board)
        z = model(torch.from_numpy(net_input(list(x))))
        if not board:
            return face_loss(z[0], face[idx])
        wanted = shift[idx].copy()
        wanted[mirrored, 0] *= -1       # a mirrored patch shows its die's middle mirrored
        die = ~np.isnan(wanted[:, 0])
        if not die.any():       # a batch without a die (the last may be small) has no rest or middle to learn
            return face_loss(z[0], face[idx])
        where = shift_loss(z[2][die], torch.from_numpy(wanted[die]))
        return face_loss(z[0], face[idx]) + rest_loss(z[1], rest[idx]) + SHIFT_WEIGHT * where

    train(model, step, len(xs), args.epochs, batch=128, lr=3e-3, seed=args.seed)
    z = logits(model, data["x"][held])
    dice = data["rest"][held] != NO_REST
    temperatures = [fit_temperature(z[0], data["face"][held])]
    if board:
        temperatures.append(fit_temperature(z[1][dice], data["rest"][held][dice]))
    p = [_softmax(zz / t) for zz, t in zip(z[:2], temperatures)]
    made = {"command": command("training.dice", args),
            "data": (f"rendered tables of seeds {FIRST_SEED}..{FIRST_SEED + args.tables - 1}, "
                     f"{args.frames_per_table} frames each; held out: the next {args.held_out_tables}" if board else
                     "train split of shared/data/photos/dice, held out: every fifth photo of it; "
                     f"{args.drawn} dice drawn from scratch (training.dice.drawn_patches)"
                     + (f"; {args.boards} rendered board photos of seeds {BOARD_PHOTO_SEED}.. "
                        "(training.dice.board_photo_patches), held out: every fifth" if rendered else "")),
            "input": f"BGR patch {PATCH}x{PATCH}, a die {DIE_PX if board else PHOTO_DIE_PX:g} px wide in its middle"
                     + (", turned with the camera up (vision.dice.BoardDice.upright)" if board else "")
                     + " (vision.dice.net_input)",
            "faces": "0 no die, 1..6", "epochs": args.epochs, "seed": args.seed,
            "patches": {"training": int(fit.sum()), "held out": int(held.sum())},
            "held out": scores(p[0], p[1] if board else None, data["face"][held], data["rest"][held],
                               (z[2], data["shift"][held]) if board else None)}
    if rendered:
        drawn = data["rendered"][held]
        made["held out rendered board photos"] = scores(p[0][drawn], None, data["face"][held][drawn],
                                                        data["rest"][held][drawn])
    if board:
        made["rests"] = list(RESTS)
    print(json.dumps(made["held out"], indent=1))
    outputs = [Output(name, "softmax", n, t) for (name, n), t in zip(heads.items(), temperatures)]
    if board:
        outputs.append(Output("shift", "linear", 2))
    export(model, NETS[args.net], (3, PATCH, PATCH), outputs, made, args.out)
    return 0


def command(module: str, args: argparse.Namespace) -> str:
    """The command that makes the same network again (where the patches are kept and the
    network is written change nothing)."""
    return " ".join([f"python -m {module}"] + [f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
                                               if k not in ("data", "out")])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    sys.exit(main())
