"""The board reader on rendered frames: accuracy and read time.

Usage: python bench/vision.py [--frames 500] [--first-seed 100000] [--sized-dice 240] [--quiet]

For each seed: style, home corner and camera/light/sensor/board-build conditions are
drawn; the reader is calibrated on a frame of the opening position under those
conditions, then reads a frame of a position reached by random legal play, with two
dice thrown and, on every fourth frame, a hand over the board. Seeds from 100000 on
were never used while tuning.

Measures: per point, on the points no hand covers (and apart, in the frames with no hand
and beside a hand, where a point read as a range for the hand's margin counts as missed);
whole position, on the frames the truth calls settled (no hand, no moving die, no camera
shake: the only frames a referee takes a position from); confident wrong, the share of
frames called settled whose ranges exclude the true position (a count, the bar or a tray
read certain and wrong: a false alarm at the table; must be 0); the points a hand covers
read certain (one a finger only touches may show all its checkers) and read certain and
wrong (must be 0); frames called settled while a hand covers a point, the bar or a tray
(must be 0; a hand resting on the case's rim only, over nothing the reader reads, is
counted apart); the share of hand-free frames called settled (a reader that never settles
is useless); shaken (motion-blurred) frames called settled, read after the same frame
unshaken (as a camera sees it just before it shakes); and the read time at 1280x720
on one core, for the board alone and for the whole observation with dice and cube. A
reader at a table reads thousands of frames after one calibration: the per-frame time is
taken on a reader that has read the frame before, then the opening (the previous frame it
tells motion by), as a reader has long loaded its networks, found the point under the lens
and learned the table's dice size; the first read of a new reader, with all that work
done once per calibration, is shown apart.

Dice of other sizes: the first ``--sized-dice`` seeds again, their dice now as wide as
one of ``vision.dice.SIZES`` in turn (a tournament's 16 mm precision dice beside 44 mm
checkers are 0.36 of a checker), in the frames the truth calls settled: each die read
right by a new reader (which looks for 0.45 dice until lone dice in a still frame teach
it the table's size, and then reads the frame again), and by a reader whose calibration
holds the table's size (as one does once it has learned it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.position import Position  # noqa: E402
from hardware.sim.render_sequence import random_position  # noqa: E402
from hardware.sim.renderer import STYLES, Conditions, Die, Hand, render  # noqa: E402
from vision.calibration import CalibrationError, calibrate  # noqa: E402
from vision.dice import SIZES  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

HOMES = ("bottom-right", "bottom-left", "top-right", "top-left")


def scene(seed: int, shaken: bool = True, dice_size: float | None = None):
    """The calibration frame and the frame to read for one seed, with their truths; the
    frame as a camera that does not shake sees it unless ``shaken``; its dice ``dice_size``
    checker diameters wide if given."""
    rng = np.random.default_rng(seed)
    style = list(STYLES)[seed % len(STYLES)]
    home = HOMES[(seed // len(STYLES)) % 4]
    conditions = Conditions.random(rng, 1.0)
    if not shaken:
        conditions = replace(conditions, sensor=replace(conditions.sensor, blur=0.0))
    opening, opening_truth = render(Position.initial(), dice=(), seed=seed, style=style, conditions=conditions,
                                    home=home)
    position = random_position(rng, int(rng.integers(0, 80)))
    hand = Hand(target=int(rng.integers(1, 25))) if seed % 4 == 0 else None
    dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    if dice_size is not None:
        dice = tuple(Die(value, size=dice_size) for value in dice)
    frame, truth = render(position, dice=dice, seed=seed + 7_000_000, style=style, conditions=conditions,
                          home=home, hand=hand)
    return opening, opening_truth, frame, truth


def _steady_read(reader: BoardReader, before: np.ndarray, frame: np.ndarray) -> float:
    """Seconds ``reader`` takes to read ``frame`` after reading ``before``, once it has read
    ``frame`` itself (what it does once per table is done)."""
    reader.read(frame)
    reader.read(before)
    t0 = time.perf_counter()
    reader.read(frame)
    return time.perf_counter() - t0


def unmatched_dice(dice, truth) -> tuple[list, list[int]]:
    """The dice ``truth`` shows that no die read (``dice``) matches by value, and the
    values read that match none."""
    read = sorted(d.value for d in dice)
    missed = []
    for d in truth.dice:
        if d.value in read:
            read.remove(d.value)
        else:
            missed.append(d)
    return missed, read


def sized_dice(count: int, first_seed: int) -> dict[float, Counter]:
    """For each of ``SIZES``: the dice shown in settled frames of seeds ``first_seed`` on
    (each seed's dice of the size its turn gives), those a new reader read right, and those
    a reader calibrated with that size read right."""
    stats: dict[float, Counter] = {size: Counter() for size in SIZES}
    for seed in range(first_seed, first_seed + count):
        size = SIZES[(seed // 4) % len(SIZES)]     # every size alike in the frames with no hand
        opening, _, frame, truth = scene(seed, dice_size=size)
        if not truth.settled:
            continue
        try:
            cal = calibrate(opening)
        except CalibrationError:
            continue
        stats[size]["dice"] += len(truth.dice)
        for name, known in (("new reader", None), ("size known", size)):
            dice = BoardReader(replace(cal, dice_size=known)).read(frame).dice
            stats[size][name] += len(truth.dice) - len(unmatched_dice(dice, truth)[0])
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--first-seed", type=int, default=100000)
    ap.add_argument("--sized-dice", type=int, default=240, help="seeds read again with dice of every size")
    ap.add_argument("--quiet", action="store_true", help="no line per wrong frame")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    stats: Counter = Counter()
    per_style: dict[str, list[int]] = {s: [0, 0] for s in STYLES}
    board_times, read_times, first_times = [], [], []
    for seed in range(args.first_seed, args.first_seed + args.frames):
        opening, _, frame, truth = scene(seed)
        stats["frames"] += 1
        try:
            cal = calibrate(opening)
        except CalibrationError as e:
            stats["calibration failed"] += 1
            if not args.quiet:
                print(f"seed {seed}: calibration failed: {e}")
            continue
        t0 = time.perf_counter()
        obs = BoardReader(cal).read(frame)
        first_times.append(time.perf_counter() - t0)
        read_times.append(_steady_read(BoardReader(cal), opening, frame))
        board = BoardReader(cal)
        board._read_dice_and_cube = lambda *_: ([], None, None)     # the board alone
        board_times.append(_steady_read(board, opening, frame))
        if truth.hand and not (truth.occluded_points or truth.occluded_bar or truth.occluded_trays):
            stats["rim hand frames"] += 1
            stats["settled while on the rim"] += int(obs.settled)
        elif truth.hand:
            stats["hand frames"] += 1
            stats["settled while occluded"] += int(obs.settled)
            if obs.settled and not args.quiet:
                print(f"seed {seed}: settled while a hand covers the board")
        else:
            stats["clear frames"] += 1
            stats["clear frames settled"] += int(obs.settled)
            if not truth.settled:
                stats["shaken frames"] += 1
                shaken = BoardReader(cal)
                shaken.read(scene(seed, shaken=False)[2])
                stats["shaken frames settled"] += int(shaken.read(frame).settled)
        if not obs.board_visible:
            stats["not visible"] += 1
            continue
        covered = set(truth.occluded_points)
        wrong = []
        for p in obs.points:
            if p.point in covered:
                stats["covered points"] += 1
                stats["covered points read certain"] += int(p.certain)
                stats["covered points read wrong"] += int(p.certain and p.signed != truth.points[p.point - 1])
                continue
            stats["points"] += 1
            right = p.certain and p.signed == truth.points[p.point - 1]
            stats["points right"] += int(right)
            apart = "beside a hand" if truth.hand else "hand-free"
            stats[f"{apart} points"] += 1
            stats[f"{apart} points right"] += int(right)
            per_style[truth.style][0] += int(right)
            per_style[truth.style][1] += 1
            if not right:
                wrong.append(f"{p.point}:{truth.points[p.point - 1]:+d}/read {p.signed:+d}{p.count_range}")
        if obs.settled:
            stats["frames called settled"] += 1
            excluded = not obs.admits(truth.position)
            stats["confident wrong"] += int(excluded)
            if excluded and not args.quiet:
                print(f"seed {seed} {truth.style}: ranges exclude the position {' '.join(wrong)}")
        if truth.settled:
            stats["settled frames"] += 1
            right = obs.to_position() == truth.position
            stats["positions right"] += int(right)
            if not right and not args.quiet:
                print(f"seed {seed} {truth.style}: position wrong ({'settled' if obs.settled else 'unsettled'}; "
                      f"bar {obs.bar} off {obs.off} truth bar {truth.bar} off {truth.off}) {' '.join(wrong)}")
            missed, read = unmatched_dice(obs.dice, truth)
            stats["dice"] += len(truth.dice)
            stats["dice right"] += len(truth.dice) - len(missed)
            if missed and not args.quiet:
                shown = [f"{d.value} ({'flat' if d.flat else 'cocked' if d.cocked else 'on a checker'})"
                         for d in missed]
                print(f"seed {seed} {truth.style}: dice {', '.join(shown)} not read; read {read or 'no other'}")
            if truth.cube is not None:
                stats["cubes"] += 1
                stats["cubes right"] += int(obs.cube is not None and obs.cube.value == truth.cube.face
                                            and obs.cube.side == truth.cube.side)

    def share(a: str, b: str) -> str:
        return f"{stats[a] / stats[b]:.2%}" if stats[b] else "n/a"

    def ms(times: list[float], q: float | None = None) -> str:
        if not times:
            return "n/a"
        return f"{(statistics.median(times) if q is None else np.percentile(times, q)) * 1000:.1f}"

    print(f"{args.frames} rendered frames, seeds {args.first_seed}..{args.first_seed + args.frames - 1}")
    print(f"{'measure':<38}{'value':>12}{'target':>10}")
    rows = [("per point (no hand over it)", share("points right", "points"), ">=99.9%"),
            ("... in hand-free frames", share("hand-free points right", "hand-free points"), ""),
            ("... beside a hand", share("beside a hand points right", "beside a hand points"), ""),
            ("whole position (settled frames)", share("positions right", "settled frames"), ">=99%"),
            ("confident wrong (ranges exclude it)", share("confident wrong", "frames called settled"), "0"),
            ("each die (settled frames)", share("dice right", "dice"), ">=99.9%"),
            ("cube (settled frames)", share("cubes right", "cubes"), ">=99%"),
            ("points a hand covers read certain", f"{stats['covered points read certain']}/{stats['covered points']}", ""),
            ("... of them wrong", f"{stats['covered points read wrong']}", "0"),
            ("settled while a hand covers", f"{stats['settled while occluded']}/{stats['hand frames']}", "0"),
            ("settled, a hand on the rim only", f"{stats['settled while on the rim']}/{stats['rim hand frames']}", ""),
            ("hand-free frames called settled", share("clear frames settled", "clear frames"), ""),
            ("shaken frames called settled", f"{stats['shaken frames settled']}/{stats['shaken frames']}", ""),
            ("calibration failed", str(stats["calibration failed"]), ""),
            ("board not visible", str(stats["not visible"]), ""),
            ("board read ms median", ms(board_times), ""),
            ("board read ms p95", ms(board_times, 95), ""),
            ("whole read ms median (dice, cube)", ms(read_times), "<=30"),
            ("whole read ms p95", ms(read_times, 95), ""),
            ("first read of a reader ms median", ms(first_times), "")]
    for name, value, target in rows:
        print(f"{name:<38}{value:>12}{target:>10}")
    print("per point by style: " + "  ".join(f"{s} {r / n:.2%}" for s, (r, n) in per_style.items() if n))
    if args.sized_dice:
        sized = sized_dice(args.sized_dice, args.first_seed)
        last = args.first_seed + args.sized_dice - 1
        print(f"\ndice of other sizes (seeds {args.first_seed}..{last}, settled frames)")
        print(f"{'die side (checker diameters)':<30}{'dice':>6}{'new reader':>12}{'size known':>12}")
        for size, n in sized.items():
            print(f"{size:<30.2f}{n['dice']:>6}{n['new reader'] / max(n['dice'], 1):>12.1%}"
                  f"{n['size known'] / max(n['dice'], 1):>12.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
