"""Frame sequences of the simulated table, paced like a camera.

``TableCamera`` is a camera fixed over one board for a whole session: the pose, lens and
light stay put while the table changes. Each action (``roll``, ``pick_up_dice``,
``move``, ``set_cube``, ``hold``) queues the frames a camera at ``fps`` would take of it;
``frames()`` renders the queue lazily, each frame with its ``FrameTruth`` and timestamp.

>>> from engine.position import Position
>>> cam = TableCamera(style="felt", seed=3, fps=10, size=(320, 180))
>>> cam.roll((3, 1), half="white")
>>> [f.truth.settled for f in cam.frames()][-1]
True
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Iterable, Iterator

import numpy as np

from engine.moves import legal_plays
from engine.position import BLACK, WHITE, Position, Side
from hardware.sim.render_pieces import SKIN_TONES
from hardware.sim.render_styles import BGR
from hardware.sim.renderer import STYLES, Conditions, Cube, Die, FrameTruth, Hand, Scene, board_renderer, render

EXPOSURE = 0.5      # fraction of the frame interval the shutter is open


@dataclass(frozen=True)
class Frame:
    """One camera frame: the BGR image, what is true about it, when it was taken (seconds
    from the session's start) and its number in the session."""

    image: np.ndarray
    truth: FrameTruth
    timestamp: float
    index: int


class TableCamera:
    """A simulated camera over one table for a session.

    ``conditions`` ``None`` draws pose, lens and light from ``seed`` at ``difficulty``
    (0 clean .. 1 hard); the sensor's noise differs from frame to frame. The board starts
    with ``position`` (the opening position by default) and ``cube`` (centred).
    """

    def __init__(self, style: str = "classic", seed: int = 0, fps: float = 15.0,
                 size: tuple[int, int] = (1280, 720), home: str = "bottom-right",
                 conditions: Conditions | None = None, difficulty: float = 0.6,
                 position: Position | None = None, cube: Cube | None = Cube()) -> None:
        if fps <= 0:
            raise ValueError(f"frames per second must be positive, got {fps}")
        self.seed = seed
        self.fps = float(fps)
        rng = np.random.default_rng((seed, 1))
        conditions = conditions or Conditions.random(rng, difficulty)
        self.renderer = board_renderer(style, size, home, conditions.board)
        self.conditions = replace(conditions, sensor=replace(conditions.sensor, blur=0.0))
        self.layout_seed = int(rng.integers(2 ** 31))
        self.clutter_seed = int(rng.integers(2 ** 31))
        self._rng = np.random.default_rng((seed, 2))
        self._scene = Scene(position or Position.initial(), (), cube, ())
        self._queue: deque[tuple[Scene, Conditions]] = deque()
        self._index = 0

    # ---------------------------------------------------------------- the table now
    @property
    def scene(self) -> Scene:
        """What lies on the table after every queued action."""
        return self._scene

    def _push(self, scene: Scene) -> None:
        self._queue.append((scene, self.conditions))

    def _count(self, seconds: float) -> int:
        return max(int(round(seconds * self.fps)), 1)

    def _queue_still(self, seconds: float) -> None:
        for _ in range(self._count(seconds)):
            self._push(self._scene)

    def hold(self, seconds: float = 0.5) -> None:
        """Nothing happens for ``seconds``: settled frames of the table as it is."""
        self._queue_still(seconds)

    def set_position(self, position: Position, seconds: float = 0.0) -> None:
        """Put the checkers in ``position`` at once (setting up a board), then hold."""
        self._scene = replace(self._scene, position=position)
        if seconds > 0:
            self._queue_still(seconds)

    # ------------------------------------------------------------------------- dice
    def roll(self, dice: Iterable[int], half: str | Iterable[str] = "white", flat: bool = True,
             cocked: bool = False, tumble: float = 0.6, settle: float = 0.5, keep: bool = False,
             colour: tuple[BGR, BGR] | None = None) -> None:
        """Throw ``dice`` into ``half`` (whose right-hand half, or ``"off"`` the board; one
        half per die when a die strays into the wrong half): they tumble with motion blur
        for ``tumble`` seconds, then lie still for ``settle``. ``cocked`` leans the last die
        on a checker or the rail; ``flat=False`` (without ``cocked``) leaves it lying on a
        checker. ``keep`` leaves the dice already on the table where they lie (the other
        player's opening die, an early roll). ``colour`` is a ``(body, pips)`` pair of BGR
        colours (the style's dice by default)."""
        values = [int(v) for v in dice]
        halves = [half] * len(values) if isinstance(half, str) else list(half)
        if len(halves) != len(values):
            raise ValueError(f"{len(values)} dice but {len(halves)} halves")
        rest = "cocked" if cocked else ("flat" if flat else "on_checker")
        lying = self._scene.dice if keep else ()
        body, pips = colour or (None, None)
        wanted = tuple(Die(v, h, rest if i == len(values) - 1 else "flat", colour=body, pips=pips)
                       for i, (v, h) in enumerate(zip(values, halves)))
        placed = self.renderer.place_dice(replace(self._scene, dice=lying + wanted), self.conditions,
                                          self.layout_seed, self._rng)[len(lying):]
        g = self.renderer.geometry
        thrower = next((h for h in halves if h in ("white", "black")), "white")
        edge = g.side_edge_y(thrower) / g.ppd
        inward = 1.0 if edge < g.size[1] / g.ppd / 2 else -1.0
        steps = self._count(tumble)
        starts = [np.array([d.at[0] + self._rng.normal(0, 1.0), edge + inward * 1.5]) for d in placed]
        spins = [float(self._rng.uniform(4, 10)) for _ in placed]
        for k in range(steps):
            t0, t1 = k / steps, (k + EXPOSURE) / steps
            tumbling = []
            for die, start, spin in zip(placed, starts, spins):
                p0 = start + (np.array(die.at) - start) * (1 - (1 - t0) ** 2)
                p1 = start + (np.array(die.at) - start) * (1 - (1 - t1) ** 2)
                motion = (float(p1[0] - p0[0]), float(p1[1] - p0[1]))
                # a die that no longer visibly moves already shows the face it lands on
                rolling = k < steps - 2 and Die(die.value, die.half, motion=motion).moving
                value = int(self._rng.integers(1, 7)) if rolling else die.value
                tumbling.append(Die(value, die.half, "flat", at=(float(p0[0]), float(p0[1])),
                                    yaw=die.yaw + spin * (1 - t0), colour=die.colour, pips=die.pips,
                                    motion=motion))
            self._push(replace(self._scene, dice=lying + tuple(tumbling)))
        self._scene = replace(self._scene, dice=lying + tuple(placed))
        self._queue_still(settle)

    def pick_up_dice(self, seconds: float = 0.8, side: str | None = None,
                     halves: Iterable[str] | None = None) -> None:
        """A hand reaches for the dice, takes them and withdraws (ending the turn); with
        ``halves``, only the dice lying in those halves are taken."""
        taken = [d for d in self._scene.dice if halves is None or d.half in tuple(halves)]
        if not taken:
            raise ValueError("there are no dice on the table to pick up")
        side = side or next((d.half for d in taken if d.half in ("white", "black")), "white")
        target = tuple(float(v) for v in np.mean([d.at for d in taken], axis=0))
        self._reach(side, [target], seconds / 2, holding=False)
        self._scene = replace(self._scene, dice=tuple(d for d in self._scene.dice if d not in taken))
        self._withdraw(side, target, seconds / 2, holding=False)

    # --------------------------------------------------------------------- checkers
    def move(self, from_position: Position, to_position: Position, seconds: float = 1.2,
             settle: float = 0.5, side: str | None = None) -> None:
        """A hand moves checkers from ``from_position`` to ``to_position``: it reaches
        the points checkers leave, carries them to the points they reach, withdraws, and
        the new position settles for ``settle`` seconds. The mover is the side whose pip
        count drops unless ``side`` is given."""
        if side is None:
            side = "white" if to_position.pip_count(WHITE) < from_position.pip_count(WHITE) else "black"
        mover = WHITE if side == "white" else BLACK
        before, after = from_position.side(mover), to_position.side(mover)
        sources = [self._spot(mover, p) for p in range(25, 0, -1) if after[p] < before[p]]
        targets = [self._spot(mover, p) for p in range(25, -1, -1) if after[p] > before[p]]
        self._scene = replace(self._scene, position=from_position)
        self._reach(side, sources or targets or [self._spot(mover, 13)], seconds * 0.45, holding=False)
        self._scene = replace(self._scene, position=to_position)
        path = targets or sources or [self._spot(mover, 13)]
        self._reach(side, path, seconds * 0.25, holding=False, start_reach=1.0)
        self._withdraw(side, path[-1], seconds * 0.3, holding=False)
        self._queue_still(settle)

    def set_cube(self, value: int, side: str = "centre", seconds: float = 0.8) -> None:
        """A hand turns the cube to ``value`` and puts it on ``side`` (``"centre"`` at 1)."""
        cube = Cube(value, side)
        hand_side = side if side in ("white", "black") else "white"
        target = self._cube_spot()
        self._reach(hand_side, [target], seconds / 2, holding=False)
        self._scene = replace(self._scene, cube=cube)
        self._withdraw(hand_side, self._cube_spot(), seconds / 2, holding=False)

    # ---------------------------------------------------------------------- camera
    def bump(self, seconds: float = 0.2, strength: float = 1.0) -> None:
        """Someone knocks the camera stand: a few blurred frames while it swings, then the
        camera stays in a new pose (a few degrees turned and tilted, shifted and nearer or
        farther, scaled by ``strength``) for the rest of the session."""
        pose = self.conditions.pose
        rng = self._rng
        new = replace(pose, rotation=pose.rotation + float(rng.normal(0, 3.0)) * strength,
                      tilt=float(np.clip(pose.tilt + rng.normal(0, 2.0) * strength, 0, 20)),
                      fill=float(np.clip(pose.fill * (1 + rng.normal(0, 0.04) * strength), 0.3, 0.97)),
                      offset=tuple(float(v) for v in np.clip(np.array(pose.offset)
                                                             + rng.normal(0, 0.15, 2) * strength, -1, 1)))
        steps = self._count(seconds)
        for k in range(steps):
            f = (k + 1) / (steps + 1)
            swing = replace(new, rotation=pose.rotation + (new.rotation - pose.rotation) * f
                            + float(np.sin(f * 9)) * strength,
                            tilt=pose.tilt + (new.tilt - pose.tilt) * f)
            shaken = replace(self.conditions, pose=swing,
                             sensor=replace(self.conditions.sensor, blur=8.0 * strength + 2.0,
                                            blur_angle=float(rng.uniform(0, 180))))
            self._queue.append((self._scene, shaken))
        self.conditions = replace(self.conditions, pose=new)

    # ------------------------------------------------------------------------ hands
    def _spot(self, side: Side, own_point: int) -> tuple[float, float]:
        """Where a hand goes for a side's point (own numbering; 25 bar, 0 the tray), in
        checker diameters on the board canvas."""
        g = self.renderer.geometry
        if own_point == 25:
            x0, y0, x1, y1 = g.bar
            return ((x0 + x1) / 2 / g.ppd, (y0 + y1) / 2 / g.ppd)
        if own_point == 0:
            x0, y0, x1, y1 = g.tray_white if side == WHITE else g.tray_black
            return ((x0 + x1) / 2 / g.ppd, (y0 + y1) / 2 / g.ppd)
        number = own_point if side == WHITE else 25 - own_point
        point = g.point(number)
        count = self._scene.position.side(side)[own_point]
        x, y = point.slot(min(max(count, 1), 5) * g.ppd * 0.9)
        return (x / g.ppd, y / g.ppd)

    def _cube_spot(self) -> tuple[float, float]:
        cube = self._scene.cube or Cube()
        c = (self.renderer._cube_centre(cube) - self.renderer.margin) / self.renderer.ppd
        return (float(c[0]), float(c[1]))

    def _arm_travel(self, side: str, target: tuple[float, float]) -> float:
        """How far (checker diameters) a fingertip goes from off the board to ``target``."""
        g = self.renderer.geometry
        return abs(g.side_edge_y(side) / g.ppd - target[1]) + 3.0

    def _reach(self, side: str, path: list[tuple[float, float]], seconds: float, holding: bool,
               start_reach: float = 0.0) -> None:
        """Frames of a hand going along ``path`` (its reach rising from ``start_reach``),
        smeared by its speed while it moves."""
        n = self._count(seconds)
        before = start_reach
        for k in range(n):
            f = (k + 1) / n
            leg = min(int(f * len(path)), len(path) - 1)
            reach = start_reach + (1 - start_reach) * min(f * 1.6, 1.0)
            speed = (reach - before) * self._arm_travel(side, path[leg]) * EXPOSURE
            hand = Hand(target=path[leg], side=side, reach=reach, holding=holding, skin=self._skin(side),
                        speed=speed)
            self._push(replace(self._scene, hands=(hand,)))
            before = reach

    def _withdraw(self, side: str, target: tuple[float, float], seconds: float, holding: bool) -> None:
        n = self._count(seconds)
        travel = self._arm_travel(side, target)
        for k in range(n):
            reach = 1.0 - (k + 1) / n * 1.2
            if reach <= 0:
                break
            hand = Hand(target=target, side=side, reach=reach, holding=holding, skin=self._skin(side),
                        speed=-1.2 / n * travel * EXPOSURE)
            self._push(replace(self._scene, hands=(hand,)))

    def _skin(self, side: str) -> BGR:
        return SKIN_TONES[(self.seed * 2 + (side == "black")) % len(SKIN_TONES)]

    # ----------------------------------------------------------------------- frames
    def pending(self) -> int:
        """Frames queued and not yet rendered."""
        return len(self._queue)

    def frames(self) -> Iterator[Frame]:
        """Render and yield the queued frames in order (the queue empties as it goes)."""
        while self._queue:
            scene, conditions = self._queue.popleft()
            index = self._index
            self._index += 1
            image, truth = self.renderer.render_scene(scene, conditions, self.layout_seed,
                                                      noise_seed=self.seed * 7919 + index,
                                                      clutter_seed=self.clutter_seed)
            timestamp = index / self.fps
            yield Frame(image, replace(truth, seed=self.seed, timestamp=timestamp), timestamp, index)


def random_turn(rng: np.random.Generator, position: Position, side: Side) -> tuple[tuple[int, int], Position]:
    """A roll and the position after a legal play of it, both drawn from ``rng``."""
    dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    plays = legal_plays(position, side, dice)
    return dice, plays[int(rng.integers(len(plays)))].position


def random_position(rng: np.random.Generator, plies: int) -> Position:
    """A position reached by ``plies`` random legal plays from the opening (fewer when a
    side bears off all its checkers first)."""
    position, side = Position.initial(), WHITE
    for _ in range(plies):
        _, position = random_turn(rng, position, side)
        if position.winner() is not None:
            break
        side = side.opponent
    return position


def bearoff_position(rng: np.random.Generator) -> Position:
    """A position from random play once a side has borne off, up to 15 plies later, the
    game still on: checkers in the trays and piles on the home boards."""
    while True:
        position, side, later = Position.initial(), WHITE, int(rng.integers(0, 16))
        while True:
            _, after = random_turn(rng, position, side)
            if after.winner() is not None:
                break
            position, side = after, side.opponent
            if position.off(WHITE) or position.off(BLACK):
                if not later:
                    return position
                later -= 1


def hand_photo(seed: int) -> tuple[np.ndarray, FrameTruth, Position]:
    """A clean 960 x 540 photo of a position from random play with a player's hand reaching
    over a point, the board's style by ``seed`` and the rest drawn from it: the photos a
    hand over the board is checked with."""
    rng = np.random.default_rng(seed)
    position = random_position(rng, int(rng.integers(0, 40)))
    hand = Hand(target=int(rng.integers(1, 25)), reach=float(rng.uniform(0.4, 1.0)),
                side=str(rng.choice(["white", "black"])))
    image, truth = render(position, dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))), seed=seed,
                          style=list(STYLES)[seed % len(STYLES)], size=(960, 540), hand=hand,
                          conditions=Conditions.clean())
    return image, truth, position


def play_random_game(camera: TableCamera, seed: int = 0, max_turns: int | None = None) -> Iterator[Frame]:
    """Frames of a whole game of random legal plays on ``camera``: each turn a roll into
    the roller's right-hand half, the move by hand, and the dice picked up. Ends when a
    side has borne off all its checkers (or after ``max_turns``)."""
    rng = np.random.default_rng((seed, 3))
    position = camera.scene.position
    side = WHITE if rng.random() < 0.5 else BLACK
    turns = 0
    camera.hold(0.5)
    yield from camera.frames()
    while position.winner() is None and (max_turns is None or turns < max_turns):
        dice, after = random_turn(rng, position, side)
        name = "white" if side == WHITE else "black"
        camera.roll(dice, half=name)
        yield from camera.frames()
        if after != position:
            camera.move(position, after, side=name)
            yield from camera.frames()
        camera.pick_up_dice(side=name)
        camera.hold(0.3)
        yield from camera.frames()
        position = after
        side = side.opponent
        turns += 1
