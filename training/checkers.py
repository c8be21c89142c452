"""The checker network: how many checkers of which side lie on each point, the bar's
halves and the trays, and whether a hand covers the region.

Data: scenes of the simulated table drawn like the vision bench's (every style, home
corner, camera, light, sensor, board build and clutter), each calibrated on its opening
frame with ``vision.calibration.calibrate`` as at a real table, then frames of positions
reached by random play and of random piles (up to 15 on a point, checkers on the bar and
borne off), with dice thrown (flat, cocked, on checkers), the cube anywhere and hands
over the board; the strips are cut through that calibration (``vision.strips``), so the
network learns the calibration's own errors too. Scene seeds start at ``FIRST_SEED``,
far from every bench's.

Usage:
  python -m training.checkers data --out DIR --scenes N [--first N] [--frames 12] [--hands 0.25]
  python -m training.checkers fit DIR... [--epochs 12] [--held-out 0.06] [--start NET.pt|NET.onnx] [--lr 3e-3]
                                        [--share 1]

The scenes with the highest seeds are held out (fit the temperatures and score the
network); drawing more scenes later keeps the earlier held-out ones in training, so a
network trained further from ``--start`` (the weights the last fit saved beside the
data, or the shipped ``vision/models/checkers.onnx``) is still scored only on scenes it
never saw when they are drawn at higher seeds.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.position import Position, PositionError
from hardware.sim.render_sequence import random_position
from hardware.sim.render_spec import CUBE_FACES, DICE_COLOURS, Cube, Die, Hand
from hardware.sim.renderer import STYLES, Conditions, render
from vision.calibration import CalibrationError, calibrate
from vision.checkers import count_class
from vision.strips import BAR, REGIONS, STRIP_LENGTH, STRIP_WIDTH, TRAY, StripCutter

FIRST_SEED = 30_000_000
HANDS = 0.25
HOMES = ("bottom-right", "bottom-left", "top-right", "top-left")


def piled_position(rng: np.random.Generator) -> Position:
    """A position with each side's checkers in a few piles, some on the bar and borne off."""
    while True:
        points = [0] * 24
        bar = [0, 0]
        free = list(range(1, 25))
        for side, sign in ((0, 1), (1, -1)):
            off = 0 if rng.random() < 0.6 else int(rng.integers(1, 15))
            bar[side] = 0 if rng.random() < 0.8 else int(rng.integers(1, 4))
            left = max(15 - off - bar[side], 0)
            bar[side] = min(bar[side], 15 - off)
            if not left:
                continue
            k = int(rng.integers(1, min(7, left) + 1))
            chosen = rng.choice(free, size=min(k, len(free)), replace=False)
            shares = rng.multinomial(left - len(chosen), rng.dirichlet(np.full(len(chosen), 0.7))) + 1
            for p, n in zip(chosen, shares):
                points[int(p) - 1] = sign * int(n)
                free.remove(int(p))
        try:
            return Position.from_points(points, bar=(bar[0], bar[1]))
        except PositionError:
            continue


def _dice(rng: np.random.Generator) -> tuple[Die, ...]:
    n = int(rng.choice([0, 1, 2, 2, 2, 2]))
    colour = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))] if rng.random() < 0.3 else (None, None)
    out = []
    for _ in range(n):
        rest = str(rng.choice(["flat", "flat", "flat", "on_checker", "cocked"]))
        half = str(rng.choice(["white", "black", "white", "black", "off"]))
        out.append(Die(int(rng.integers(1, 7)), half, rest, colour=colour[0], pips=colour[1]))
    return tuple(out)


def _cube(rng: np.random.Generator) -> Cube | None:
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.55:
        return Cube()
    return Cube(int(rng.choice(CUBE_FACES)), str(rng.choice(["white", "black", "centre"])))


def _hands(rng: np.random.Generator, share: float) -> tuple[Hand, ...]:
    if rng.random() > share:
        return ()
    target = int(rng.integers(1, 25)) if rng.random() < 0.7 else str(rng.choice(["bar", "dice", "cube"]))
    edge = str(rng.choice(["top", "bottom", "left", "right"])) if rng.random() < 0.2 else None
    return (Hand(target=target, side=str(rng.choice(["white", "black"])), reach=float(rng.uniform(0.3, 1.0)),
                 holding=bool(rng.random() < 0.5), edge=edge, speed=float(rng.normal(0, 0.4))),)


def labels(truth) -> tuple[np.ndarray, np.ndarray]:
    """Each region's count class and whether a hand covers it."""
    signed = list(truth.points) + [truth.bar["white"], -truth.bar["black"], truth.off["white"], -truth.off["black"]]
    classes = np.array([count_class(v) for v in signed], np.uint8)
    covered = np.zeros(len(REGIONS), bool)
    for p in truth.occluded_points:
        covered[p - 1] = True
    if truth.occluded_bar:
        covered[BAR["white"]] = covered[BAR["black"]] = True
    for side in truth.occluded_trays:
        covered[TRAY[side]] = True
    return classes, covered


def scene(seed: int, frames: int, hands: float = HANDS) -> dict | None:
    """One calibrated scene's strips and labels, or None where calibration fails; a hand
    passes over the board in a ``hands`` share of its frames."""
    rng = np.random.default_rng(seed)
    style = list(STYLES)[int(rng.integers(len(STYLES)))]
    home = HOMES[int(rng.integers(4))]
    difficulty = 1.0 if rng.random() < 0.75 else float(rng.uniform(0.2, 1.0))
    conditions = Conditions.random(rng, difficulty)
    opening, _ = render(Position.initial(), dice=(), seed=seed, style=style, conditions=conditions, home=home)
    try:
        cal = calibrate(opening)
    except CalibrationError:
        return None
    cutter = StripCutter(cal.model, cal.to_frame, cal.empty, cal.white.lab, cal.black.lab)
    strips, classes, covered, settled = [], [], [], []
    for k in range(frames):
        if rng.random() < 0.55:
            position = random_position(rng, int(rng.integers(0, 90)))
        else:
            position = piled_position(rng)
        over, dice, cube = _hands(rng, hands), _dice(rng), _cube(rng)
        try:
            frame, truth = render(position, dice=dice, cube=cube, seed=int(rng.integers(2 ** 31)), style=style,
                                  hand=over or None, home=home, conditions=conditions)
        except ValueError:      # no checker in the die's half to lie on or lean against
            frame, truth = render(position, dice=tuple(replace(d, rest="flat") for d in dice), cube=cube,
                                  seed=int(rng.integers(2 ** 31)), style=style, hand=over or None, home=home,
                                  conditions=conditions)
        strips.append(cutter.cut(frame))
        c, v = labels(truth)
        classes.append(c)
        covered.append(v)
        settled.append(truth.settled)
    return {"strips": np.stack(strips), "classes": np.stack(classes), "covered": np.stack(covered),
            "settled": np.array(settled), "empty": cutter.empty.astype(np.float16), "sides": cutter.sides,
            "style": style, "seed": seed}


def make_data(out: Path, first: int, scenes: int, frames: int, hands: float = HANDS) -> None:
    """Shards of ``scenes`` scenes each written as ``out/scene-SEED.npz``."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for i, seed in enumerate(range(first, first + scenes)):
        path = out / f"scene-{seed}.npz"
        if path.exists() or path.with_suffix(".failed").exists():
            continue
        data = scene(seed, frames, hands)
        if data is None:
            print(f"scene {seed}: calibration failed", flush=True)
            path.with_suffix(".failed").write_text("calibration failed\n")
            continue
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **data)
        tmp.rename(path)
        if i % 10 == 0:
            print(f"{i + 1}/{scenes} scenes, {time.time() - t0:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.checkers", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("data", help="draw scenes of the simulated table")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--first", type=int, default=FIRST_SEED)
    d.add_argument("--scenes", type=int, required=True)
    d.add_argument("--frames", type=int, default=12)
    d.add_argument("--hands", type=float, default=HANDS, help="share of frames with a hand over the board")
    f = sub.add_parser("fit", help="train the network on drawn scenes and export it")
    f.add_argument("folders", type=Path, nargs="+")
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--held-out", type=float, default=0.06)
    f.add_argument("--threads", type=int, default=1)
    f.add_argument("--start", type=Path, help="weights to train further from (a .pt, or an exported .onnx)")
    f.add_argument("--lr", type=float, default=3e-3)
    f.add_argument("--share", type=float, default=1.0, help="of the regions drawn per epoch (below 1: a shorter run)")
    args = ap.parse_args(argv)
    if args.command == "data":
        import cv2
        cv2.setNumThreads(1)
        make_data(args.out, args.first, args.scenes, args.frames, args.hands)
        return 0
    from training.checkers_fit import fit
    fit(args.folders, args.epochs, args.held_out, args.threads, start=args.start, lr=args.lr, share=args.share)
    return 0


if __name__ == "__main__":
    sys.exit(main())
