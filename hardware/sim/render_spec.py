"""What lies on the simulated table and the conditions it is seen in: dice, the doubling
cube, hands, clutter, and the camera, light, sensor and board build of ``Conditions``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.position import Position
from hardware.sim.render_optics import CameraPose, Lighting, Sensor
from hardware.sim.render_styles import BGR
from hardware.sim.scene import BOARD_BUILDS, DIE_SIZE, Proportions

CUBE_FACES = (2, 4, 8, 16, 32, 64)
# (body, pips) of dice seen at tables besides the style's own
DICE_COLOURS: tuple[tuple[BGR, BGR], ...] = (
    ((245, 245, 245), (20, 20, 20)), ((40, 40, 190), (240, 240, 240)), ((25, 25, 25), (235, 235, 235)),
    ((200, 230, 240), (30, 30, 30)), ((60, 140, 40), (240, 240, 240)), ((150, 80, 30), (240, 240, 240)),
    ((40, 160, 230), (20, 20, 20)),
)
DIE_RESTS = ("flat", "on_checker", "cocked")


# ------------------------------------------------------------------ what is on the table
@dataclass(frozen=True)
class Die:
    """A die showing ``value``, thrown into ``half``: whose right-hand half of the board
    (``"white"`` or ``"black"``) or ``"off"`` the board. ``rest`` is ``"flat"``,
    ``"on_checker"`` (lying tilted on a checker) or ``"cocked"`` (leaning on a checker or
    the rail). ``at`` (canvas position in checker diameters), ``yaw`` (radians) and
    ``lean`` / ``lean_toward`` (radians) are chosen at random when ``None``; a flat die
    ``touching`` comes to rest against the flat die before it in its half (when it has
    room there). ``motion`` (checker diameters) smears a tumbling die along that vector.
    ``size`` is its side in checker diameters: 0.45 for a 17 mm die beside a 38 mm checker,
    0.36 for a 16 mm precision die beside a tournament board's 44 mm checker."""

    value: int
    half: str = "white"
    rest: str = "flat"
    at: tuple[float, float] | None = None
    yaw: float | None = None
    lean: float | None = None
    lean_toward: float | None = None
    colour: BGR | None = None
    pips: BGR | None = None
    motion: tuple[float, float] = (0.0, 0.0)
    touching: bool = False
    size: float = DIE_SIZE

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"a die shows 1..6, got {self.value}")
        if self.half not in ("white", "black", "off"):
            raise ValueError(f"die half must be 'white', 'black' or 'off', got {self.half!r}")
        if self.rest not in DIE_RESTS:
            raise ValueError(f"die rest must be one of {', '.join(DIE_RESTS)}, got {self.rest!r}")
        if not 0.2 <= self.size <= 0.8:
            raise ValueError(f"a die's side is 0.2..0.8 checker diameters, got {self.size}")

    @property
    def moving(self) -> bool:
        return bool(np.hypot(*self.motion) > 0.05)


@dataclass(frozen=True)
class Cube:
    """The doubling cube: ``value`` 1 (centred, the 64 face up), or 2..64 owned by ``side``
    (``"white"``/``"black"``); ``side="centre"`` with a value above 1 shows that face in the
    middle (as after a beaver or before it is pushed across)."""

    value: int = 1
    side: str = "centre"

    def __post_init__(self) -> None:
        if self.value != 1 and self.value not in CUBE_FACES:
            raise ValueError(f"cube value must be 1 or one of {CUBE_FACES}, got {self.value}")
        if self.side not in ("centre", "white", "black"):
            raise ValueError(f"cube side must be 'centre', 'white' or 'black', got {self.side!r}")
        if self.value == 1 and self.side != "centre":
            raise ValueError("a cube at 1 is centred")

    @property
    def face(self) -> int:
        """The number on the top face (64 for a centred cube at 1)."""
        return 64 if self.value == 1 else self.value


@dataclass(frozen=True)
class Hand:
    """A player's hand over the board: the ``side`` whose arm it is reaches toward
    ``target`` (White's point number 1..24, ``"bar"``, ``"dice"``, ``"cube"``, or a canvas
    position in checker diameters) and is ``reach`` (0..1) of the way there from the edge;
    ``holding`` draws a checker in its fingers. The arm comes in over the player's own
    edge of the board unless ``edge`` names another (``"top"``, ``"bottom"``, ``"left"``,
    ``"right"`` of the canonical view), as a spectator's or an arbiter's does. ``speed``
    is how far (checker diameters) the hand travels while the shutter is open, reaching in
    (positive) or drawing back (negative): a moving hand is smeared along its arm."""

    target: int | str | tuple[float, float] = "dice"
    side: str = "white"
    reach: float = 1.0
    holding: bool = False
    skin: BGR | None = None
    edge: str | None = None
    speed: float = 0.0

    def __post_init__(self) -> None:
        if self.side not in ("white", "black"):
            raise ValueError(f"hand side must be 'white' or 'black', got {self.side!r}")
        if self.edge not in (None, "top", "bottom", "left", "right"):
            raise ValueError(f"hand edge must be top, bottom, left or right, got {self.edge!r}")


@dataclass(frozen=True)
class Clutter:
    """A tournament table around the board: a game clock, score cards, dice cups and a
    broadcast overlay strip across the bottom of the frame."""

    clock: bool = True
    score_cards: bool = True
    cups: bool = True
    overlay: bool = False


@dataclass(frozen=True)
class Conditions:
    """Everything about the camera and the room: pose and lens, light, sensor, how
    carelessly the checkers are placed (0..1), the clutter on the table, the build of the
    board (its proportions: real boards differ in rim, bar, tray and point sizes), and
    whether ArUco markers (``DICT_4X4_50`` ids 0..3) are stuck on the case's corners,
    centred on them, in the order top-left, top-right, bottom-right, bottom-left of the
    canonical view."""

    pose: CameraPose = CameraPose()
    lighting: Lighting = Lighting()
    sensor: Sensor = Sensor()
    messiness: float = 0.3
    clutter: Clutter | None = None
    board: Proportions = Proportions()
    markers: bool = False

    @classmethod
    def clean(cls) -> Conditions:
        """Straight down, no distortion, even white light, no noise: the easiest frame."""
        return cls(messiness=0.0)

    @classmethod
    def random(cls, rng: np.random.Generator, difficulty: float = 1.0) -> Conditions:
        """Conditions of a real table, harder as ``difficulty`` goes from 0 to 1."""
        d = float(np.clip(difficulty, 0.0, 1.0))
        pose = CameraPose(
            tilt=float(rng.uniform(0, 20 * d)), azimuth=float(rng.uniform(0, 360)),
            rotation=float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 6 * d)) if rng.random() < 0.7
            else float(rng.uniform(0, 360)),
            fill=float(rng.uniform(0.95 - 0.35 * d, 0.95)),
            offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
            distortion=float(rng.uniform(0, 0.12 * d)))
        temperature = rng.normal(0, 0.08 * d)
        glare = tuple((float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)), float(rng.uniform(20, 120)),
                       float(rng.uniform(30, 110) * d)) for _ in range(int(rng.integers(0, 3 if d else 1))))
        shadows = ()
        if rng.random() < 0.4 * d:
            x = float(rng.uniform(-0.2, 0.6))
            shadows = (((x, -0.1), (x + 0.5, -0.1), (x + float(rng.uniform(0.2, 0.6)), 1.1), (x - 0.1, 1.1)),)
        lighting = Lighting(
            gains=(float(1 - temperature), 1.0, float(1 + temperature)),
            gradient=(float(rng.normal(0, 0.12 * d)), float(rng.normal(0, 0.12 * d))),
            vignette=float(rng.uniform(0, 0.35 * d)),
            shadows=shadows, shadow_depth=float(rng.uniform(0.15, 0.4)),
            glare=glare, direction=_unit(rng.normal(size=2)))
        sensor = Sensor(noise=float(rng.uniform(0, 6 * d)),
                        blur=float(rng.uniform(2, 6)) if rng.random() < 0.1 * d else 0.0,
                        blur_angle=float(rng.uniform(0, 180)),
                        jpeg_quality=int(rng.integers(50, 95)) if rng.random() < 0.5 * d else 0)
        clutter = None
        if rng.random() < 0.4 * d:
            clutter = Clutter(clock=bool(rng.random() < 0.8), score_cards=bool(rng.random() < 0.7),
                              cups=bool(rng.random() < 0.7), overlay=bool(rng.random() < 0.3))
        board = Proportions()
        if rng.random() < 0.7 * d:
            builds = sorted(BOARD_BUILDS)
            board = BOARD_BUILDS[builds[int(rng.integers(len(builds)))]]
        return cls(pose, lighting, sensor, float(rng.uniform(0.1, 0.5 + 0.5 * d)), clutter, board)


def _unit(v) -> tuple[float, float]:
    v = np.asarray(v, float)
    n = np.linalg.norm(v)
    return (0.6, 0.8) if n < 1e-9 else (float(v[0] / n), float(v[1] / n))


@dataclass(frozen=True)
class Scene:
    """What lies on the table at one instant (everything placed, nothing random left)."""

    position: Position
    dice: tuple[Die, ...] = ()
    cube: Cube | None = Cube()
    hands: tuple[Hand, ...] = ()
