"""The simulated overhead camera: what a camera above a backgammon table sees.

``render(position, dice=..., cube=..., seed=...)`` draws one frame of any position with
dice, the doubling cube, hands and table clutter, under a camera pose, lens, light and
sensor drawn from ``seed`` (or given as ``Conditions``), and returns the BGR image with
its ``FrameTruth``. The same arguments always give the same image.

>>> from engine.position import Position
>>> image, truth = render(Position.initial(), dice=(3, 1), seed=7, size=(320, 180))
>>> image.shape, truth.points[5], [d.value for d in truth.dice]
((180, 320, 3), 5, [3, 1])
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache
from typing import Iterable

import cv2
import numpy as np

from engine.position import BLACK, WHITE, Position
from hardware.sim.render_optics import (CameraModel, CameraPose, Lighting, Sensor, apply_sensor, light_fields,
                                        solve_camera)
from hardware.sim.render_pieces import (SKIN_TONES, HandPose, Lift, cube_marks, die_marks, draw_checker,
                                        draw_checker_on_edge, draw_clock, draw_dice_cup, draw_hand,
                                        draw_score_card, draw_solid, patch_text)
from hardware.sim.render_styles import BGR, STYLES, Style, painted_board, style_named, texture
from hardware.sim.render_spec import (CUBE_FACES, DICE_COLOURS, DIE_RESTS, Clutter, Conditions, Cube, Die, Hand,
                                      Scene)
from hardware.sim.render_truth import Box, CheckerTruth, CubeTruth, DieTruth, FrameTruth
from hardware.sim.scene import (CHECKER_THICKNESS, CUBE_SIZE, HOME_CORNERS, CheckerPlacement, Proportions,
                                checker_placements)

__all__ = ["BoardRenderer", "board_renderer", "render", "STYLES", "CUBE_FACES", "DICE_COLOURS", "DIE_RESTS",
           "Clutter", "Conditions", "Cube", "Die", "Hand", "Scene", "CameraPose", "Lighting", "Sensor",
           "CheckerTruth", "CubeTruth", "DieTruth", "FrameTruth"]

MARKER_SIZE = 1.0       # ArUco marker side, in checker diameters
TABLE_MARGIN = 6.5      # table drawn in perspective around the board, in checker diameters
TOUCHING = 0.12         # share of thrown flat dice that come to rest against a flat die already in their half
BESIDE_CHECKER = 0.15   # ... and of the others that come to rest flat against a checker
LANDING_INSET = 0.4     # checker diameters inside the rail where a thrown die's middle comes to rest


# ----------------------------------------------------------------------------- renderer
@lru_cache(maxsize=16)
def _table_surface(colour: BGR, size: tuple[int, int], seed: int) -> np.ndarray:
    """A tablecloth of ``size`` (w, h): a low-contrast felt in ``colour``, its weave drawn at
    half size (read-only; the table beyond the drawn canvas needs no perspective)."""
    w, h = size
    tex = cv2.resize(texture("felt", ((w + 1) // 2, (h + 1) // 2), seed), (w, h), interpolation=cv2.INTER_LINEAR)
    surface = np.clip(tex[:, :, None] * np.array(colour, np.float32), 0, 255).astype(np.uint8)
    surface.setflags(write=False)
    return surface


@lru_cache(maxsize=8)
def _camera(pose: CameraPose, board_rect: tuple[float, float, float, float],
            size: tuple[int, int]) -> tuple[CameraModel, tuple[np.ndarray, np.ndarray]]:
    """A solved camera and its remap tables, shared by every renderer (a session keeps one
    pose, so the tables are built once)."""
    model = solve_camera(pose, board_rect, size)
    return model, model.remap_tables()


@lru_cache(maxsize=8)
def _light(lighting: Lighting, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray | None]:
    return light_fields(lighting, size)


class BoardRenderer:
    """Renders scenes of one board style, build and home corner at one frame size, caching
    the painted board, the table around it and the camera's remap tables between frames."""

    def __init__(self, style: str = "classic", size: tuple[int, int] = (1280, 720),
                 home: str = "bottom-right", board: Proportions = Proportions()) -> None:
        if home not in HOME_CORNERS:
            raise ValueError(f"home corner must be one of {', '.join(HOME_CORNERS)}, got {home!r}")
        w, h = size
        if w < 64 or h < 36:
            raise ValueError(f"frame size {w}x{h} is too small (at least 64x36)")
        self.style: Style = style_named(style)
        self.size = (int(w), int(h))
        self.home = home
        self.ppd = round(min(h, w * 0.75) / 15.0, 2)
        self.board = board
        painted, self.geometry = painted_board(self.style.name, home, self.ppd, board)
        self.margin = int(round(TABLE_MARGIN * self.ppd))
        self.table = self._paint_table(painted)
        self.background = _table_surface(self.style.table, self.size, 98)

    # ---------------------------------------------------------------- static parts
    def _paint_table(self, board: np.ndarray) -> np.ndarray:
        """The board lying on the tablecloth with its soft shadow, and the margin around it."""
        bh, bw = board.shape[:2]
        m = self.margin
        th, tw = bh + 2 * m, bw + 2 * m
        table = _table_surface(self.style.table, (tw, th), 99).copy()
        small = np.zeros((th // 4 + 1, tw // 4 + 1), np.float32)
        off = self.ppd * 0.25
        x0, y0 = int((m + off) / 4), int((m + off) / 4)
        small[y0:int((m + bh + off) / 4), x0:int((m + bw + off) / 4)] = 1.0
        small = cv2.GaussianBlur(small, (0, 0), self.ppd * 0.3 / 4)
        shadow = cv2.resize(small, (tw, th), interpolation=cv2.INTER_LINEAR)
        keep = (255 * (1 - 0.45 * shadow)).astype(np.uint8)
        table = cv2.multiply(table, cv2.merge([keep, keep, keep]), scale=1 / 255.0)
        table[m:m + bh, m:m + bw] = board
        table.setflags(write=False)
        return table

    def board_to_table(self) -> np.ndarray:
        """The translation from board-canvas pixels to table-canvas pixels."""
        return np.array([[1, 0, self.margin], [0, 1, self.margin], [0, 0, 1]], np.float64)

    def camera(self, pose: CameraPose) -> tuple[CameraModel, tuple[np.ndarray, np.ndarray]]:
        """The camera model for ``pose`` (table-canvas to frame) and its remap tables."""
        x0, y0, x1, y1 = self.geometry.outline
        m = self.margin
        return _camera(pose, (x0 + m, y0 + m, x1 + m, y1 + m), self.size)

    def _light(self, lighting: Lighting) -> tuple[np.ndarray, np.ndarray | None]:
        return _light(lighting, self.size)

    # -------------------------------------------------------------------- placing
    def d(self, at: tuple[float, float]) -> np.ndarray:
        """Board canvas position in checker diameters to table-canvas pixels."""
        return np.asarray(at, float) * self.ppd + self.margin

    def place_dice(self, scene: Scene, conditions: Conditions, layout_seed: int,
                   rng: np.random.Generator) -> tuple[Die, ...]:
        """Fix every unset position, turn and lean of the scene's dice: flat dice land
        clear of checkers and of each other (those ``touching`` and a share ``TOUCHING``
        of the others against a flat die already in their half, a share ``BESIDE_CHECKER``
        of the rest against a checker), cocked dice against a checker or the rail, dice
        ``on_checker`` on top of one."""
        placements = self._placements(scene.position, layout_seed, conditions.messiness)
        s = self.ppd
        occupied = [(np.array(p.centre) / s, 0.5) for p in placements if p.location != "off"]
        beside = rng.spawn(1)[0]    # what dice rest against is drawn apart: the scene's other draws never depend on it
        placed: list[Die] = []
        for die in scene.dice:
            if die.at is not None and die.yaw is not None and (die.rest == "flat" or die.lean is not None):
                placed.append(die)
                occupied.append((np.array(die.at), die.size * 0.75))
                continue
            rect = self._off_board_rect(rng) if die.half == "off" else self.landing_area(die.half)
            at, lean, toward, yaw = die.at, die.lean, die.lean_toward, die.yaw
            neighbour = next((d for d in reversed(placed) if d.half == die.half and d.rest == "flat"), None)
            if (at is None and die.rest == "flat" and neighbour is not None
                    and (die.touching or beside.random() < TOUCHING)):
                at, yaw = self._against(die, neighbour, rect, occupied, beside) or (None, yaw)
            if at is None and die.rest == "flat" and die.half != "off" and beside.random() < BESIDE_CHECKER:
                at, yaw = self._beside_checker(die, rect, placements, occupied, beside) or (None, yaw)
            if at is None:
                at, lean, toward = self._landing(die, rect, placements, occupied, rng)
            if die.rest != "flat" and lean is None:
                lean = float(rng.uniform(0.35, 0.6)) if die.rest == "cocked" else float(rng.uniform(0.1, 0.25))
                toward = float(rng.uniform(0, 2 * np.pi)) if toward is None else toward
            yaw = yaw if yaw is not None else float(rng.uniform(0, np.pi / 2))
            placed.append(replace(die, at=(float(at[0]), float(at[1])), yaw=yaw, lean=lean, lean_toward=toward))
            occupied.append((np.array(at), die.size * 0.75))
        return tuple(placed)

    def _off_board_rect(self, rng: np.random.Generator) -> tuple[float, float, float, float]:
        """A strip of table beside the board's long edge (checker diameters, canvas)."""
        width, height = self.geometry.proportions.board_width, self.geometry.proportions.board_height
        if rng.random() < 0.5:
            return (1.0, -2.0, width - 1.0, -0.8)
        return (1.0, height + 0.8, width - 1.0, height + 2.0)

    @staticmethod
    def _against(die: Die, neighbour: Die, rect, occupied, rng: np.random.Generator):
        """Where the flat ``die`` comes to rest against the flat ``neighbour``, face to face and
        turned alike, inside ``rect`` and clear of everything ``occupied`` but its
        neighbour: (at, yaw), or None when no side of the neighbour has room."""
        yaw = (neighbour.yaw + float(rng.normal(0, 0.04))) % (np.pi / 2)     # a die looks the same a quarter turn on
        apart = (die.size + neighbour.size) / 2
        for side in rng.permutation(4):
            angle = neighbour.yaw + side * np.pi / 2
            along, across = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
            at = (np.array(neighbour.at) + along * apart * float(rng.uniform(1.0, 1.08))
                  + across * apart * float(rng.uniform(-0.4, 0.4)))
            if _free(at, rect, occupied, np.array(neighbour.at), die.size * 0.6):
                return at, yaw
        return None

    def _beside_checker(self, die: Die, rect, placements: list[CheckerPlacement], occupied,
                        rng: np.random.Generator):
        """Where the flat ``die`` comes to rest with a face against a checker on the board inside
        ``rect``, clear of everything else ``occupied``: (at, yaw), or None when no checker
        has room beside it."""
        for c, angle in self._checker_sides(rect, placements, rng):
            at = c + np.array([np.cos(angle), np.sin(angle)]) * (0.5 + die.size * float(rng.uniform(0.5, 0.6)))
            if _free(at, rect, occupied, c, die.size * 0.4):
                return at, (angle + float(rng.normal(0, 0.1))) % (np.pi / 2)
        return None

    def _checker_sides(self, rect, placements: list[CheckerPlacement], rng: np.random.Generator):
        """Tries at a side of a checker on the board inside ``rect`` (give or take half a
        checker), four for each such checker: (checker's centre, angle from it)."""
        x0, y0, x1, y1 = rect
        inside = [np.array(p.centre) / self.ppd for p in placements if p.location != "off" and p.layer == 0]
        inside = [c for c in inside if x0 - 0.5 <= c[0] <= x1 + 0.5 and y0 - 0.5 <= c[1] <= y1 + 0.5]
        for _ in range(4 * len(inside)):
            yield inside[int(rng.integers(len(inside)))], float(rng.uniform(0, 2 * np.pi))

    def landing_area(self, half: str) -> tuple[float, float, float, float]:
        """Where a die thrown into ``half`` ('white'/'black') comes to rest: its field,
        ``LANDING_INSET`` inside the rail (x0, y0, x1, y1 in checker diameters)."""
        x0, y0, x1, y1 = (v / self.ppd for v in self.geometry.field_of(half))
        return x0 + LANDING_INSET, y0 + LANDING_INSET, x1 - LANDING_INSET, y1 - LANDING_INSET

    def _landing(self, die: Die, rect, placements: list[CheckerPlacement], occupied, rng: np.random.Generator):
        x0, y0, x1, y1 = rect
        if die.rest != "flat" and die.half != "off":
            for c, angle in self._checker_sides(rect, placements, rng):
                direction = np.array([np.cos(angle), np.sin(angle)])
                if die.rest == "on_checker":
                    return c + direction * 0.15, float(rng.uniform(0.1, 0.25)), angle
                # leaning on this checker from a free spot of the playing area
                at = c + direction * (0.5 + die.size * 0.45)
                if _free(at, (x0 - 0.2, y0 - 0.2, x1 + 0.2, y1 + 0.2), occupied, c, die.size * 0.4):
                    return at, float(rng.uniform(0.35, 0.6)), angle + np.pi
            if die.rest == "on_checker":
                raise ValueError(f"no checker in {die.half}'s half for a die to lie on")
            if die.rest == "cocked":        # no checker to lean on: against the rail
                top = rng.random() < 0.5
                at, toward = against_the_rail(rect, die.size, top, float(rng.uniform(x0, x1)))
                return at, float(rng.uniform(0.35, 0.6)), toward
        best, best_gap = None, -1.0
        for _ in range(60):
            at = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
            gap = min((np.linalg.norm(at - c) - r for c, r in occupied), default=9.0)
            if gap > die.size * 0.8:
                return at, None, None
            if gap > best_gap:
                best, best_gap = at, gap
        return best, None, None

    def _placements(self, position: Position, layout_seed: int, messiness: float) -> list[CheckerPlacement]:
        return checker_placements(self.geometry, position.white, position.black, layout_seed, messiness)

    # -------------------------------------------------------------------- drawing
    def render_scene(self, scene: Scene, conditions: Conditions, layout_seed: int, noise_seed: int,
                     clutter_seed: int = 0) -> tuple[np.ndarray, FrameTruth]:
        """One frame of a fully placed scene (see ``place_dice``) and its truth."""
        style, s, m = self.style, self.ppd, self.margin
        model, (map1, map2) = self.camera(conditions.pose)
        lift = model.lift
        light_dir = np.array(conditions.lighting.direction, float)
        canvas = self.table.copy()
        if conditions.markers:
            self._stick_markers(canvas)
        rng = np.random.default_rng((layout_seed, 7))
        placements = [replace(p, centre=(p.centre[0] + m, p.centre[1] + m))
                      for p in self._placements(scene.position, layout_seed, conditions.messiness)]
        looks = {"white": style.white, "black": style.black}
        radius = 0.485 * s
        thickness = CHECKER_THICKNESS * s
        tints = {id(p): float(rng.uniform(0.92, 1.06)) for p in placements}

        # ground layer: clutter, checkers on the board, dice and cube
        clutter_items = self._clutter_items(conditions.clutter, clutter_seed, light_dir) if conditions.clutter else []
        shadow = np.zeros(canvas.shape[:2], np.uint8)
        ground = [p for p in placements if p.layer == 0 and not p.on_edge]
        for item in clutter_items:
            item(None, shadow)
        for p in ground:
            draw_checker(None, shadow, p.centre, radius, looks[p.owner], lift, 0.0, thickness, 1.0, light_dir)
        solids = self._solids(scene, lift, light_dir)
        for _, solid in solids:
            solid(None, shadow)
        _apply_shadow(canvas, shadow, 0.45, 0.12 * s)
        for item in clutter_items:
            item(canvas, None)
        tops: dict[int, tuple[float, float]] = {}
        for p in (q for q in placements if q.on_edge):
            x0, y0, x1, y1 = draw_checker_on_edge(canvas, p.centre, radius, thickness, looks[p.owner], lift,
                                                  tints[id(p)])
            tops[id(p)] = ((x0 + x1) / 2, (y0 + y1) / 2)
        for p in ground:
            tops[id(p)] = draw_checker(canvas, None, p.centre, radius, looks[p.owner], lift, 0.0, thickness,
                                       tints[id(p)], light_dir)
        max_layer = max((p.layer for p in placements), default=0)
        for layer in range(1, max_layer + 1):
            upper = [p for p in placements if p.layer == layer]
            shadow[:] = 0
            for p in upper:
                draw_checker(None, shadow, p.centre, radius, looks[p.owner], lift, layer * thickness, thickness,
                             1.0, light_dir * 0.5)
            _apply_shadow(canvas, shadow, 0.35, 0.06 * s)
            for p in upper:
                tops[id(p)] = draw_checker(canvas, None, p.centre, radius, looks[p.owner], lift,
                                           layer * thickness, thickness, tints[id(p)], light_dir)
        # the solid nearer the lens is drawn last: it hides what it stands in front of
        outlines: list = [None] * len(solids)
        for k in sorted(range(len(solids)), key=lambda k: -float(np.linalg.norm(solids[k][0] - lift.nadir))):
            outlines[k] = solids[k][1](canvas, None)

        image = self.background.copy()
        cv2.remap(canvas, map1, map2, cv2.INTER_LINEAR, dst=image, borderMode=cv2.BORDER_TRANSPARENT)

        # hands over everything, drawn in the frame so arms reach in from beyond it
        hand_mask = None
        if scene.hands:
            hand_mask = np.zeros(image.shape[:2], np.uint8)
            shadow_image = np.zeros(image.shape[:2], np.uint8)
            poses = [self._hand_pose(h, scene, placements, rng) for h in scene.hands]
            for pose in poses:
                draw_hand(None, shadow_image, None, pose, lift, light_dir, model.to_image)
            _apply_shadow(image, shadow_image, 0.4, 0.5 * s * self._frame_scale(model))
            for hand, pose in zip(scene.hands, poses):
                if abs(hand.speed) < 0.05:
                    draw_hand(image, None, hand_mask, pose, lift, light_dir, model.to_image)
                else:
                    self._draw_moving_hand(image, hand_mask, pose, hand.speed, model)
        gain, glare = self._light(conditions.lighting)
        image = cv2.multiply(image, gain, scale=1 / 128.0)
        if glare is not None:
            image = cv2.add(image, glare)
        if conditions.clutter is not None and conditions.clutter.overlay:
            _draw_overlay(image, clutter_seed, model.to_image(self.geometry.corners() + m))
        image = apply_sensor(image, conditions.sensor, noise_seed)
        truth = self._truth(scene, conditions, model, placements, tops, outlines, hand_mask, radius)
        return image, truth

    def _marker_quads(self) -> dict[int, np.ndarray]:
        """Each ArUco marker's corners (table canvas) centred on the case corner of its id."""
        half = MARKER_SIZE * self.ppd / 2
        square = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
        return {i: corner + self.margin + square for i, corner in enumerate(self.geometry.corners())}

    def _stick_markers(self, canvas: np.ndarray) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        for marker_id, quad in self._marker_quads().items():
            (x0, y0), (x1, y1) = np.round(quad[0]).astype(int), np.round(quad[2]).astype(int)
            quiet = int(round(0.15 * self.ppd))
            cv2.rectangle(canvas, (x0 - quiet, y0 - quiet), (x1 + quiet, y1 + quiet), (245, 245, 245), -1)
            marker = cv2.aruco.generateImageMarker(dictionary, marker_id, x1 - x0)
            canvas[y0:y1, x0:x1] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)

    def _draw_moving_hand(self, image: np.ndarray, hand_mask: np.ndarray, pose: HandPose, speed: float,
                          model: CameraModel) -> None:
        """A hand moving ``speed`` checker diameters along its arm during the exposure:
        drawn apart, smeared along its motion in the frame and laid over the image."""
        layer = np.zeros_like(image)
        mask = np.zeros(image.shape[:2], np.uint8)
        draw_hand(layer, None, mask, pose, model.lift, np.zeros(2), model.to_image)
        tip = np.array(pose.fingertip)
        axis = tip - np.array(pose.shoulder)
        axis /= max(float(np.linalg.norm(axis)), 1e-6)
        a, b = model.to_image([tip, tip + axis * speed * self.ppd])
        motion = b - a
        length = int(np.ceil(np.linalg.norm(motion)))
        x, y, w, h = cv2.boundingRect(mask)
        if w == 0:
            return
        pad = length + 2
        H, W = mask.shape
        x0, y0, x1, y1 = max(x - pad, 0), max(y - pad, 0), min(x + w + pad, W), min(y + h + pad, H)
        layer_roi = layer[y0:y1, x0:x1].astype(np.float32)
        mask_roi = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
        paint = np.zeros_like(layer_roi)
        alpha = np.zeros_like(mask_roi)
        steps = int(np.clip(length // 3, 1, 8)) + 1
        size = (x1 - x0, y1 - y0)
        for t in np.linspace(0.0, 1.0, steps):
            # the hand a fraction t of the exposure before the end, where it is drawn
            shift = np.float32([[1, 0, -motion[0] * t], [0, 1, -motion[1] * t]])
            paint += cv2.warpAffine(layer_roi, shift, size)
            alpha += cv2.warpAffine(mask_roi, shift, size)
        paint /= steps
        alpha /= steps
        roi = image[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - alpha[:, :, None]) + paint, 0, 255).astype(np.uint8)
        covered = hand_mask[y0:y1, x0:x1]
        covered[alpha > 0.25] = 255

    def _frame_scale(self, model: CameraModel) -> float:
        """Frame pixels per canvas pixel near the board's centre."""
        x0, y0, x1, y1 = self.geometry.outline
        c = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) + self.margin
        a, b = model.to_image([c, c + (self.ppd, 0)])
        return float(np.linalg.norm(b - a) / self.ppd)

    def _solids(self, scene: Scene, lift: Lift, light: np.ndarray):
        """The cube and the dice, each as (canvas centre, drawing closure taking canvas, shadow)."""
        style, s = self.style, self.ppd
        items = []
        if scene.cube is not None:
            cube = scene.cube
            centre = self._cube_centre(cube)
            # set down by hand: a little askew, the same way every time for the same state
            yaw = 0.08 * ((CUBE_FACES.index(cube.face) + ("centre", "white", "black").index(cube.side) * 2) % 7 - 3) / 3

            def draw_cube(canvas, shadow, centre=centre, yaw=yaw, cube=cube):
                return draw_solid(canvas, shadow, centre, CUBE_SIZE * s, yaw, cube_marks(cube.face), "cube",
                                  style.cube, style.cube_text, lift, light)
            items.append((centre, draw_cube))
        for k, die in enumerate(scene.dice):
            marks = die_marks(die.value, np.random.default_rng((die.value, k, int(die.yaw * 1000))))
            body = die.colour or style.die
            ink = die.pips or style.pip
            base_z = CHECKER_THICKNESS * s if die.rest == "on_checker" else 0.0
            centre = self.d(die.at)

            def draw_die(canvas, shadow, die=die, marks=marks, body=body, ink=ink, base_z=base_z, centre=centre):
                lean = die.lean or 0.0
                axis = (die.lean_toward or 0.0) + np.pi / 2
                if not die.moving or canvas is None:
                    return draw_solid(canvas, shadow, centre, die.size * s, die.yaw, marks, "die", body, ink,
                                      lift, light, lean, axis, base_z)
                return _smeared(canvas, centre, die, marks, body, ink, lift, light, s)
            items.append((centre, draw_die))
        return items

    def _cube_centre(self, cube: Cube) -> np.ndarray:
        g, m, s = self.geometry, self.margin, self.ppd
        bx = (g.bar[0] + g.bar[2]) / 2 + m
        if cube.side == "centre":
            return np.array([bx, (g.bar[1] + g.bar[3]) / 2 + m])
        edge = g.side_edge_y(cube.side)
        inward = 1 if edge < g.size[1] / 2 else -1
        return np.array([bx, edge + m + inward * (g.proportions.frame + 0.55) * s])

    def _hand_pose(self, hand: Hand, scene: Scene, placements: list[CheckerPlacement],
                   rng: np.random.Generator) -> HandPose:
        g, s, m = self.geometry, self.ppd, self.margin
        target = hand.target
        if isinstance(target, tuple):
            tip = self.d(target)
        elif target == "dice" and scene.dice:
            tip = np.mean([self.d(d.at) for d in scene.dice], axis=0)
        elif target == "cube" and scene.cube is not None:
            tip = self._cube_centre(scene.cube)
        elif target == "bar" or target in ("dice", "cube"):
            tip = np.array([(g.bar[0] + g.bar[2]) / 2 + m, (g.bar[1] + g.bar[3]) / 2 + m])
        elif isinstance(target, int) and 1 <= target <= 24:
            on_point = [p for p in placements if p.location == target]
            point = g.point(target)
            if on_point:
                far = max(on_point, key=lambda p: np.hypot(p.centre[0] - m - point.base[0],
                                                           p.centre[1] - m - point.base[1]))
                tip = np.array(far.centre)
            else:
                tip = np.array(point.slot(point.length * 0.3)) + m
        else:
            raise ValueError(f"hand target must be a point 1..24, 'bar', 'dice', 'cube' or a position, got {target!r}")
        reach = float(np.clip(hand.reach, 0.0, 1.0))
        x0, y0, x1, y1 = (v + m for v in g.outline)
        edge = hand.edge or ("bottom" if g.side_edge_y(hand.side) > g.size[1] / 2 else "top")
        wander = rng.normal(0, 1.5) * s
        start = {"top": (tip[0] + wander, y0 - 3.0 * s), "bottom": (tip[0] + wander, y1 + 3.0 * s),
                 "left": (x0 - 3.0 * s, tip[1] + wander), "right": (x1 + 3.0 * s, tip[1] + wander)}[edge]
        start = np.array(start)
        fingertip = start + (tip - start) * reach
        shoulder = fingertip + (start - tip) / max(np.linalg.norm(start - tip), 1e-6) * 45.0 * s
        skin = hand.skin or SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        look = (self.style.white if hand.side == "white" else self.style.black) if hand.holding else None
        return HandPose(tuple(shoulder), tuple(fingertip), width=2.0 * s, height=2.5 * s, skin=skin, holding=look)

    def _clutter_items(self, clutter: Clutter, seed: int, light: np.ndarray):
        """Drawing closures for the clock, score cards and cups around the board, their
        shadows falling along ``light`` (a unit vector on the canvas)."""
        rng = np.random.default_rng((seed, 11))
        g, s, m = self.geometry, self.ppd, self.margin
        w, h = g.size
        items = []
        left_side = not g.trays_right
        side_x = (m + w + 2.6 * s) if not left_side else (m - 2.6 * s)
        tray_side_x = (m - 2.6 * s) if not left_side else (m + w + 2.6 * s)
        if clutter.clock:
            c = (side_x + rng.normal(0, 0.3) * s, m + h / 2 + rng.normal(0, 1.0) * s)
            angle = float(90 + rng.normal(0, 8))
            times = (f"{int(rng.integers(0, 30))}:{int(rng.integers(0, 60)):02d}",
                     f"{int(rng.integers(0, 30))}:{int(rng.integers(0, 60)):02d}")
            items.append(lambda cv, sh, c=c, a=angle, t=times: draw_clock(cv, sh, c, 4.0 * s, a, t, light))
        if clutter.score_cards:
            for k, y in enumerate((m + 2.2 * s, m + h - 2.2 * s)):
                c = (tray_side_x + rng.normal(0, 0.4) * s, y + rng.normal(0, 0.5) * s)
                lines = (f"{int(rng.integers(0, 11))} - {int(rng.integers(0, 11))}",
                         f"to {int(rng.choice([5, 7, 9, 11]))}")
                angle = float(rng.normal(0, 10))
                items.append(lambda cv, sh, c=c, a=angle, t=lines: draw_score_card(cv, sh, c, 3.0 * s, a, t, light))
        if clutter.cups:
            lift = Lift((m + w / 2, m + h / 2), 40 * s)
            for edge_y in (m - 2.0 * s, m + h + 2.0 * s):
                c = (m + w * rng.uniform(0.15, 0.85), edge_y + rng.normal(0, 0.3) * s)
                colour = ((30, 50, 90), (20, 20, 25), (40, 40, 120))[int(rng.integers(3))]
                items.append(lambda cv, sh, c=c, col=colour: draw_dice_cup(cv, sh, c, 1.0 * s, col, lift, light))
        return items

    def _truth(self, scene: Scene, conditions: Conditions, model: CameraModel, placements, tops, outlines,
               hand_mask, radius) -> FrameTruth:
        g, m, s = self.geometry, self.margin, self.ppd
        w, h = self.size
        to_table = self.board_to_table()
        board_h = model.homography @ to_table
        board_h = board_h / board_h[2, 2]

        def box_of(points) -> Box:
            pts = model.to_image(points)
            x0, y0 = np.floor(pts.min(axis=0))
            x1, y1 = np.ceil(pts.max(axis=0))
            x0, y0 = max(int(x0), 0), max(int(y0), 0)
            x1, y1 = min(int(x1), w), min(int(y1), h)
            return (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0))

        def centre_of(p) -> tuple[float, float]:
            c = model.to_image([p])[0]
            return (float(c[0]), float(c[1]))

        ring = np.stack([np.cos(np.linspace(0, 2 * np.pi, 12, endpoint=False)),
                         np.sin(np.linspace(0, 2 * np.pi, 12, endpoint=False))], axis=1)
        checkers = []
        if placements:
            tops_xy = np.array([tops[id(p)] for p in placements], float)
            radii = np.array([(radius, CHECKER_THICKNESS * s / 2) if p.on_edge else (radius, radius)
                              for p in placements])
            outlines_xy = tops_xy[:, None, :] + ring[None, :, :] * radii[:, None, :]
            mapped = model.to_image(np.vstack([tops_xy, outlines_xy.reshape(-1, 2)]))
            centres, rings = mapped[:len(placements)], mapped[len(placements):].reshape(len(placements), -1, 2)
            visible = _visible_shares(placements, tops_xy, radius)
            for p, c, r, v in zip(placements, centres, rings, visible):
                x0, y0 = np.floor(r.min(axis=0))
                x1, y1 = np.ceil(r.max(axis=0))
                x0, y0 = max(int(x0), 0), max(int(y0), 0)
                x1, y1 = min(int(x1), w), min(int(y1), h)
                checkers.append(CheckerTruth(p.owner, p.location, p.layer, (float(c[0]), float(c[1])),
                                             (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0)), float(v)))
        layers: dict[int, int] = {}
        for p in placements:
            if isinstance(p.location, int):
                layers[p.location] = max(layers.get(p.location, 0), p.layer + 1)
        dice = []
        solid_index = 1 if scene.cube is not None else 0
        for die, outline in zip(scene.dice, outlines[solid_index:]):
            centre = self.d(die.at)
            on_board = die.half != "off"
            canvas_half = g.half_of(die.at[0] * s) if on_board else None
            if die.moving:
                outline = np.vstack([outline, outline + np.array(die.motion) * s])
            dice.append(DieTruth(die.value, g.right_hand_owner(canvas_half) if on_board else None, canvas_half,
                                 flat=die.rest == "flat" and not die.moving, cocked=die.rest == "cocked",
                                 on_checker=die.rest == "on_checker", moving=die.moving,
                                 centre=centre_of(centre), box=box_of(outline)))
        cube = None
        if scene.cube is not None:
            c = scene.cube
            cube = CubeTruth(c.value, c.face, c.side, centre_of(self._cube_centre(c)), box_of(outlines[0]))
        occluded: list[int] = []
        occluded_bar = False
        occluded_trays: list[str] = []
        hand_on_board = False
        if hand_mask is not None:
            outline = model.to_image(g.corners() + m)
            hand_on_board = _covered(hand_mask, outline, 0.0005)
            for point in g.points:
                if _covered(hand_mask, model.to_image(_strip_corners(point) + m), 0.01):
                    occluded.append(point.number)
            occluded_bar = _covered(hand_mask, model.to_image(_rect_corners(g.bar) + m), 0.01)
            occluded_trays = [name for name, rect in (("white", g.tray_white), ("black", g.tray_black))
                              if _covered(hand_mask, model.to_image(_rect_corners(rect) + m), 0.01)]
        mapped = model.to_image(np.vstack([point.polygon() for point in g.points] + [g.corners()]) + m)
        polygons = {point.number: mapped[3 * i:3 * i + 3] for i, point in enumerate(g.points)}
        corners = mapped[-4:]
        markers = ({i: model.to_image(q) for i, q in self._marker_quads().items()} if conditions.markers else {})
        moving = any(d.moving for d in scene.dice)
        position = scene.position
        return FrameTruth(
            position=position, points=tuple(position.points()),
            bar={"white": position.bar(WHITE), "black": position.bar(BLACK)},
            off={"white": position.off(WHITE), "black": position.off(BLACK)},
            dice=tuple(dice), cube=cube, hand=hand_on_board, occluded_points=tuple(occluded),
            occluded_bar=occluded_bar, occluded_trays=tuple(occluded_trays),
            settled=not hand_on_board and not moving and conditions.sensor.blur < 1.5,
            corners=corners, homography=board_h, distortion=model.distortion, canvas_size=g.size, ppd=s,
            home=self.home, style=self.style.name, size=self.size, checkers=tuple(checkers), layers=layers,
            point_polygons=polygons, conditions=conditions, markers=markers)


def against_the_rail(landing, size: float, top: bool, x: float) -> tuple[np.ndarray, float]:
    """A die ``size`` wide cocked against the rail beyond the ``top`` or bottom of its
    ``landing`` area (``BoardRenderer.landing_area``), its middle at ``x``: where it lies
    and the direction it leans toward."""
    x0, y0, x1, y1 = landing
    y = y0 - LANDING_INSET + size * 0.45 if top else y1 + LANDING_INSET - size * 0.45
    return np.array([x, y]), -np.pi / 2 if top else np.pi / 2


def _free(at: np.ndarray, rect, occupied, leaning_on: np.ndarray, gap: float) -> bool:
    """Whether a die at ``at`` lies inside ``rect`` and at least ``gap`` clear of all that is
    ``occupied`` (centre, radius) but what it leans on (centred at ``leaning_on``)."""
    x0, y0, x1, y1 = rect
    return (x0 <= at[0] <= x1 and y0 <= at[1] <= y1
            and all(np.linalg.norm(at - centre) >= radius + gap
                    for centre, radius in occupied if np.linalg.norm(centre - leaning_on) > 1e-6))


def _visible_shares(placements: list[CheckerPlacement], tops: np.ndarray, radius: float) -> np.ndarray:
    """For each checker, the share of its top face (canvas) that no checker drawn after it
    covers: the ones on higher layers, and later ones of an overlapping row."""
    order = sorted(range(len(placements)), key=lambda i: (not placements[i].on_edge, placements[i].layer, i))
    rank = np.empty(len(placements), int)
    rank[order] = np.arange(len(placements))
    r, a = np.meshgrid(np.sqrt(np.linspace(0.05, 0.95, 5)), np.linspace(0, 2 * np.pi, 12, endpoint=False))
    disc = np.stack([r.ravel() * np.cos(a.ravel()), r.ravel() * np.sin(a.ravel())], axis=1) * radius
    shares = np.ones(len(placements))
    flat = np.array([not p.on_edge for p in placements])
    for i in np.nonzero(flat)[0]:
        above = np.nonzero(flat & (rank > rank[i]) & (np.linalg.norm(tops - tops[i], axis=1) < 2 * radius))[0]
        if len(above):
            samples = tops[i] + disc
            hidden = (np.linalg.norm(samples[:, None, :] - tops[above][None, :, :], axis=2) < radius).any(axis=1)
            shares[i] = 1.0 - hidden.mean()
    return shares


def _rect_corners(rect) -> np.ndarray:
    x0, y0, x1, y1 = rect
    return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], float)


def _strip_corners(point) -> np.ndarray:
    """The rectangle a point's checkers occupy (canvas pixels)."""
    hw = point.width / 2
    return np.array([point.slot(0, -hw), point.slot(0, hw), point.slot(point.length, hw),
                     point.slot(point.length, -hw)], float)


def _covered(mask: np.ndarray, polygon: np.ndarray, fraction: float) -> bool:
    """Whether more than ``fraction`` of ``polygon`` (frame pixels) is set in ``mask``."""
    x, y, w, h = cv2.boundingRect(np.round(polygon).astype(np.int32))
    H, W = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 <= x0 or y1 <= y0:
        return False
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(region, np.round(polygon - (x0, y0)).astype(np.int32), 255)
    area = np.count_nonzero(region)
    hidden = np.count_nonzero(cv2.bitwise_and(region, mask[y0:y1, x0:x1]))
    return area > 0 and hidden > fraction * area


def _apply_shadow(canvas: np.ndarray, mask: np.ndarray, depth: float, sigma: float) -> None:
    """Darken ``canvas`` under the soft (blurred) ``mask`` by up to ``depth``. Wide
    blurs are done on a quarter-size copy: a soft shadow has no detail to lose."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return
    pad = int(3 * sigma) + 2
    H, W = mask.shape
    x0, y0, x1, y1 = max(x - pad, 0), max(y - pad, 0), min(x + w + pad, W), min(y + h + pad, H)
    region = mask[y0:y1, x0:x1]
    if sigma > 3 and min(region.shape) > 16:
        small = cv2.resize(region, ((x1 - x0) // 4 or 1, (y1 - y0) // 4 or 1), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
        soft = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    else:
        soft = cv2.GaussianBlur(region, (0, 0), max(sigma, 0.5))
    keep = cv2.subtract(255, cv2.multiply(soft, depth, dtype=cv2.CV_8U))
    roi = canvas[y0:y1, x0:x1]
    roi[:] = cv2.multiply(roi, cv2.merge([keep, keep, keep]), scale=1 / 255.0)


def _smeared(canvas, centre, die: Die, marks, body, ink, lift: Lift, light, s: float) -> np.ndarray:
    """A tumbling die: the die drawn along its motion and averaged, as a slow shutter sees it."""
    motion = np.array(die.motion) * s
    steps = 7
    pad = int(die.size * s * 2) + 2
    lo = np.minimum(centre, centre + motion) - pad
    hi = np.maximum(centre, centre + motion) + pad
    H, W = canvas.shape[:2]
    x0, y0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
    x1, y1 = min(int(hi[0]), W), min(int(hi[1]), H)
    if x1 <= x0 or y1 <= y0:
        return np.array([centre, centre + motion])
    base = canvas[y0:y1, x0:x1].copy()
    acc = np.zeros(base.shape, np.float32)
    local_lift = Lift((lift.nadir[0] - x0, lift.nadir[1] - y0), lift.height)
    outlines = []
    for k in range(steps):
        f = k / (steps - 1)
        tmp = base.copy()
        c = centre + motion * f - (x0, y0)
        outline = draw_solid(tmp, None, c, die.size * s, die.yaw + f * 2.5, marks, "die", body, ink,
                             local_lift, light, 0.5 * np.sin(f * 9), f * 4.0, 0.0)
        outlines.append(outline + (x0, y0))
        acc += tmp
    canvas[y0:y1, x0:x1] = (acc / steps).astype(np.uint8)
    return np.vstack(outlines)


def _draw_overlay(image: np.ndarray, seed: int, board: np.ndarray) -> None:
    """A broadcast caption strip (names, score, match length) across the top or bottom of
    the frame, wherever it clears the ``board`` outline (frame pixels), as a director
    places it; left out when the board fills the frame."""
    rng = np.random.default_rng((seed, 13))
    h, w = image.shape[:2]
    band = max(int(h * 0.08), 8)
    gap = int(h * 0.03)
    top, bottom = float(board[:, 1].min()), float(board[:, 1].max())
    if h - bottom >= band + gap:
        y0 = h - band - gap
    elif top >= band + gap:
        y0 = gap
    else:
        return
    roi = image[y0:y0 + band, int(w * 0.05):int(w * 0.95)]
    roi[:] = (roi * 0.25 + np.array((60, 25, 10)) * 0.75).astype(np.uint8)
    names = ("ANDERSEN", "KAZAROV", "MORIYAMA", "OKAFOR", "DELACROIX", "SILVA")
    a, b = rng.choice(len(names), 2, replace=False)
    text = f"{names[a]}  {int(rng.integers(0, 11))}   -   {int(rng.integers(0, 11))}  {names[b]}   (11)"
    patch_text(image, text, (w / 2, y0 + band / 2), w * 0.6, 0.0, (240, 240, 240))


# ---------------------------------------------------------------------- plain function
_RENDERERS: OrderedDict[tuple, BoardRenderer] = OrderedDict()


def board_renderer(style: str, size: tuple[int, int], home: str, board: Proportions = Proportions()) -> BoardRenderer:
    """A shared renderer for a style, frame size, home corner and board build (kept across calls)."""
    key = (style, tuple(size), home, board)
    if key not in _RENDERERS:
        _RENDERERS[key] = BoardRenderer(style, size, home, board)
        if len(_RENDERERS) > 24:
            _RENDERERS.popitem(last=False)
    _RENDERERS.move_to_end(key)
    return _RENDERERS[key]


def _as_dice(dice: Iterable[int | Die] | None, half: str, colour: tuple[BGR, BGR] | None) -> tuple[Die, ...]:
    body, pips = colour or (None, None)
    return tuple(d if isinstance(d, Die) else Die(int(d), half, colour=body, pips=pips) for d in dice or ())


def _as_cube(cube: Cube | int | tuple[int, str] | None) -> Cube | None:
    if cube is None or isinstance(cube, Cube):
        return cube
    if isinstance(cube, tuple):
        return Cube(int(cube[0]), str(cube[1]))
    return Cube(int(cube), "centre") if int(cube) == 1 else Cube(int(cube), "white")


def _as_hands(hand: bool | Hand | Iterable[Hand] | None, rng: np.random.Generator) -> tuple[Hand, ...]:
    if hand is None or hand is False:
        return ()
    if hand is True:
        hands = []
        for _ in range(2 if rng.random() < 0.25 else 1):
            target = int(rng.integers(1, 25)) if rng.random() < 0.7 else "bar"
            edge = ("top", "bottom", "left", "right")[int(rng.integers(4))] if rng.random() < 0.2 else None
            hands.append(Hand(target=target, side=("white", "black")[int(rng.integers(2))],
                              reach=float(rng.uniform(0.6, 1.0)), holding=bool(rng.random() < 0.5), edge=edge))
        return tuple(hands)
    if isinstance(hand, Hand):
        return (hand,)
    return tuple(hand)


def render(position: Position, dice: Iterable[int | Die] | None = (),
           cube: Cube | int | tuple[int, str] | None = Cube(),
           seed: int = 0, style: str | None = None, hand: bool | Hand | Iterable[Hand] | None = None,
           size: tuple[int, int] = (1280, 720), home: str = "bottom-right",
           conditions: Conditions | None = None, difficulty: float = 1.0,
           half: str = "white", dice_colour: tuple[BGR, BGR] | None = None) -> tuple[np.ndarray, FrameTruth]:
    """One camera frame of ``position`` with ``dice`` (values thrown into ``half``, or
    ``Die`` objects), the ``cube`` (``Cube``, a value, ``(value, side)`` or ``None`` for
    no cube in view) and ``hand`` (``True`` for one or two random hands, or ``Hand``
    objects). ``style`` ``None`` picks one at random; ``conditions`` ``None`` draws
    camera, light, sensor and board build from ``seed`` at ``difficulty`` (0 clean .. 1
    hard), and then also dice of another colour now and then; ``dice_colour`` is a
    ``(body, pips)`` pair of BGR colours for the dice given as values."""
    rng = np.random.default_rng(seed)
    style = style or list(STYLES)[int(rng.integers(len(STYLES)))]
    if conditions is None:
        conditions = Conditions.random(rng, difficulty)
        if dice_colour is None and rng.random() < 0.35 * difficulty:
            dice_colour = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))]
    renderer = board_renderer(style, size, home, conditions.board)
    layout_seed = int(rng.integers(2 ** 31))
    scene = Scene(position, _as_dice(dice, half, dice_colour), _as_cube(cube), _as_hands(hand, rng))
    scene = replace(scene, dice=renderer.place_dice(scene, conditions, layout_seed, rng))
    image, truth = renderer.render_scene(scene, conditions, layout_seed, int(rng.integers(2 ** 31)),
                                         int(rng.integers(2 ** 31)))
    return image, replace(truth, seed=seed)
