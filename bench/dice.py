"""Dice and cube reading: real dice photos and rendered boards.

Usage: python bench/dice.py [--split test|train|all|held] [--verbose] [--frames 300] [--first-seed 300000]
                            [--touching-frames 100] [--touching-first-seed 320000] [--die-size 0.45]
                            [--tables 0] [--throws 6] [--tables-first-seed 330000]

Real photos: a detection matches a labelled die when their centres are closer than
half the labelled box side; each label is matched at most once. "Per die" is the share
of labelled dice found *and* read with the right value.

Rendered boards (seeds from 300000 on were never used while tuning): every frame draws
a style, home corner, camera, light, sensor and board build, a position reached by
random play, two dice (flat, cocked against a checker or lying on one) and the cube
(any face, any side, or none), and is read through a perfect calibration (the
renderer's own camera) with the checkers' true counts (where two checkers of a row meet
is no pip), so the figures are the dice and cube readers' alone. A die is
right when its value and half are; its rest (flat, cocked, on a checker) is counted
apart, and so are the dice the referee would get wrong by it: a cocked die or one on a
checker read flat (a roll let stand that must be rolled again) and a flat die read not
flat (a good roll called again). Frames the renderer calls unsettled (motion blur: the
referee waits for a settled one) are counted apart, for the dice and for the cube. A
die read with the wrong value or half is "read wrong", apart from dice not read at all;
how well the confidence tells them apart is the share of each read with at least
``CONFIDENT``. Each rest (flat, cocked, on a checker) has its share of
dice found, of dice read with the right value and half, and of those also read with the
right rest. A second table does the same with both dice lying flat in one half, the
second against the first (as thrown dice often come to rest; seeds from 320000 on).
Every frame there is a table of its own; ``--tables`` reads tables of ``--throws`` throws
each (seeds from 330000 on), each table's by one reader, as a table's camera reads a match.
Read times are this process's CPU time (other work on the machine inflates wall time)
of a frame read by readers that have read the table's empty board before (as a table's
readers read every frame: what they do once, such as loading their networks, is done)
and the frame itself: a table's first lone dice teach the dice reader their size (the
frame read again where they change it), so a frame's first read is timed apart; the dice
and the cube together have 8 ms of the 30 a whole frame may take at 1280x720.
``--die-size`` draws every die that many checker diameters wide (the renderer's 0.45 a 17 mm
die beside a 38 mm checker; 16 mm precision dice beside a tournament board's 44 mm checkers
are 0.36); the reader looks for dice 0.45 wide until two lone dice of a table teach it
their size.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.position import Position  # noqa: E402
from hardware.sim.render_sequence import random_position  # noqa: E402
from hardware.sim.renderer import STYLES, Conditions, Cube, Die, FrameTruth, render  # noqa: E402
from hardware.sim.scene import DIE_SIZE  # noqa: E402
from training.dice import held_out_photos, photo_labels  # noqa: E402
from training.truth import EMPTY, TruthBoard, matched, region_counts  # noqa: E402
from vision.dice import find_dice  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / "dice"
CONFIDENT = 0.5         # a die read with this confidence is one the referee may take at its word


def match(found, labels):
    """Greedy nearest-centre matching; returns [(label, die or None)] and unmatched dice."""
    pairs = []
    for die in found:
        x, y, w, h = die.box
        cx, cy = x + w / 2, y + h / 2
        for i, (_, lx, ly, side) in enumerate(labels):
            d = np.hypot(cx - lx, cy - ly)
            if d < side / 2:
                pairs.append((d, i, die))
    pairs.sort(key=lambda p: p[0])
    used_l, used_d, result = set(), set(), {}
    for d, i, die in pairs:
        if i in used_l or id(die) in used_d:
            continue
        used_l.add(i)
        used_d.add(id(die))
        result[i] = die
    extra = [d for d in found if id(d) not in used_d]
    return [(lab, result.get(i)) for i, lab in enumerate(labels)], extra


def photos(split: str) -> list[str]:
    """The photos of a split: ``test`` (never trained or tuned on), ``train``, ``all``, or
    ``held`` (the train photos the photos' network was not trained on, to tune on)."""
    if split == "held":
        return held_out_photos()
    with open(DATA / "split.csv") as fh:
        rows = list(csv.DictReader(fh))
    return [r["filename"] for r in rows if split == "all" or r["split"] == split]


def photo_table(split: str, verbose: bool) -> None:
    names = photos(split)
    n_label = n_found = n_right = n_extra = 0
    per_value = {v: [0, 0] for v in range(1, 7)}
    confusion = np.zeros((7, 7), int)  # [truth][read], read 0 = missed
    times = []
    right_confidences, wrong_confidences = [], []
    for name in names:
        image = cv2.imread(str(DATA / "images" / name))
        labels = photo_labels(name, image.shape[1], image.shape[0])
        t0 = time.process_time()
        found = find_dice(image)
        times.append(time.process_time() - t0)
        pairs, extra = match(found, labels)
        n_label += len(labels)
        n_extra += len(extra)
        for (value, lx, ly, _), die in pairs:
            per_value[value][1] += 1
            confusion[value][die.value if die else 0] += 1
            if die is not None:
                n_found += 1
                (right_confidences if die.value == value else wrong_confidences).append(die.confidence)
                if die.value == value:
                    n_right += 1
                    per_value[value][0] += 1
            if verbose and (die is None or die.value != value):
                print(f"{name}: die {value} at ({lx:.0f},{ly:.0f}) read {die.value if die else 'nothing'}")
        if verbose:
            for die in extra:
                print(f"{name}: extra die {die.value} at {die.box}")
    n_det = n_found + n_extra
    print(f"real photos, split {split}: {len(names)} photos, {n_label} labelled dice")
    print(f"{'measure':<28}{'value':>10}")
    print(f"{'detection recall':<28}{n_found / n_label:>10.2%}")
    print(f"{'detection precision':<28}{(n_found / n_det if n_det else 0):>10.2%}")
    print(f"{'value accuracy (found)':<28}{(n_right / n_found if n_found else 0):>10.2%}")
    print(f"{'per die (found and right)':<28}{n_right / n_label:>10.2%}")
    print(f"{'wrong, confidence>=' + str(CONFIDENT):<28}{sum(c >= CONFIDENT for c in wrong_confidences):>10d}")
    print(f"{'right, confidence>=' + str(CONFIDENT):<28}"
          f"{(np.mean(np.array(right_confidences) >= CONFIDENT) if right_confidences else 0):>10.2%}")
    print(f"{'read time median (ms)':<28}{statistics.median(times) * 1000:>10.1f}")
    print("per face: " + "  ".join(f"{v}: {r}/{n}" for v, (r, n) in per_value.items()))
    print("confusion (rows truth 1..6; columns missed, read 1..6):")
    for v in range(1, 7):
        print(f"  {v}: " + " ".join(f"{c:4d}" for c in confusion[v]))


HOMES = ("bottom-right", "bottom-left", "top-right", "top-left")
RESTS = ("flat", "flat", "flat", "flat", "cocked", "on_checker")


class Throw(NamedTuple):
    """One throw's frame on a rendered table, as ``_tables`` yields it."""

    seed: int
    style: str
    home: str
    frame: np.ndarray
    truth: FrameTruth
    board: TruthBoard
    empty: np.ndarray
    throw: int


def _tables(first_seed: int, tables: int, throws: int, touching: bool, die_size: float):
    """The frames of ``throws`` throws on each of ``tables`` rendered tables from seed
    ``first_seed`` on (a table's seed draws its style, home corner, camera, light and sensor;
    its first frame is the one that seed draws alone), each with its seed, style, home
    corner, truth, the table's perfect calibration and empty board, and its throw (0 for the first)."""
    for table in range(first_seed, first_seed + tables):
        rng = np.random.default_rng(table)
        style = list(STYLES)[table % len(STYLES)]
        home = HOMES[(table // len(STYLES)) % 4]
        conditions = Conditions.random(rng, 1.0)
        for throw in range(throws):
            seed = table if throw == 0 else int(rng.integers(2 ** 31))
            draw = rng if throw == 0 else np.random.default_rng(seed)
            position = random_position(draw, int(draw.integers(0, 60)))
            dice = tuple(Die(int(draw.integers(1, 7)), str(draw.choice(["white", "black"])),
                             str(draw.choice(RESTS)), size=die_size) for _ in range(2))
            if touching:
                dice = (replace(dice[0], rest="flat"), replace(dice[1], half=dice[0].half, rest="flat",
                                                               touching=True))
            value = int(draw.choice([1, 2, 4, 8, 16, 32, 64]))
            cube = None if draw.random() < 0.1 else Cube(value, "centre" if value == 1 else
                                                         str(draw.choice(["white", "black", "centre"])))
            try:
                frame, truth = render(position, dice=dice, cube=cube, seed=seed, style=style,
                                      conditions=conditions, home=home)
            except ValueError:          # no checker to lie on in that half
                dice = tuple(Die(d.value, d.half, size=d.size) for d in dice)
                frame, truth = render(position, dice=dice, cube=cube, seed=seed, style=style,
                                      conditions=conditions, home=home)
            if throw == 0:
                empty, _ = render(EMPTY, dice=(), seed=seed, style=style, conditions=conditions, home=home)
                opening = render(Position.initial(), dice=(), seed=seed, style=style, conditions=conditions,
                                 home=home)
                board = TruthBoard(truth, empty, opening)
            yield Throw(seed, style, home, frame, truth, board, empty, throw)


def rendered_table(frames: int, first_seed: int, verbose: bool, touching: bool = False,
                   die_size: float = DIE_SIZE, throws: int = 1) -> None:
    """The dice and cube read on ``frames`` rendered tables, ``throws`` frames each, each
    table's read by one dice reader and one cube reader; with ``touching``, both dice flat
    in one half, the second against the first; every die ``die_size`` checker diameters wide."""
    counts = {k: 0 for k in ("dice", "right", "found", "rest right", "extra", "cubes", "cube right",
                             "no cube", "no cube right", "blurred dice", "blurred right", "read flat",
                             "read leaning", "cube wrong", "blurred cubes", "blurred cube right")}
    by_rest = {r: {"dice": 0, "found": 0, "right": 0, "rest right": 0} for r in ("flat", "cocked", "on_checker")}
    by_throw = {k: {"dice": 0, "right": 0} for k in ("first", "later")}
    dice_ms, cube_ms, first_ms = [], [], []
    confidences: dict[bool, list[float]] = {True: [], False: []}      # of dice read right / wrong
    for seed, style, home, frame, truth, board, empty, throw in _tables(first_seed, frames, throws, touching,
                                                                          die_size):
        if throw == 0:
            reader, cube_reader = board.dice(), board.cube()
            cube_reader.locate(empty, board.empty)      # a table's readers read every frame: their networks
            reader.read(empty, board.empty)             # are loaded, the camera's nadir found, before this one
        view = board.view(frame)
        t0 = time.process_time()        # as the board reader does: the cube first, then the dice
        located = cube_reader.locate(frame, view)
        t1 = time.process_time()
        reads = reader.read(frame, view, None if located is None else located[1], region_counts(truth))
        t2 = time.process_time()
        reader.read(frame, view, None if located is None else located[1], region_counts(truth))
        t3 = time.process_time()
        cube_read = None if located is None else located[0]
        cube_ms.append((t1 - t0) * 1000)
        first_ms.append((t2 - t1) * 1000)
        dice_ms.append((t3 - t2) * 1000)
        pairs = matched(reads, truth.dice)
        for t, r in pairs:
            right = r is not None and r.value == t.value and r.half == t.half
            if not truth.settled:
                counts["blurred dice"] += 1
                counts["blurred right"] += int(right)
                continue
            rest = "cocked" if t.cocked else "on_checker" if t.on_checker else "flat"
            counts["dice"] += 1
            counts["found"] += int(r is not None)
            counts["right"] += int(right)
            by_throw["later" if throw else "first"]["dice"] += 1
            by_throw["later" if throw else "first"]["right"] += int(right)
            if r is not None:
                confidences[right].append(r.confidence)
            rest_right = right and r.flat == t.flat and r.on_checker == t.on_checker
            for key, hit in (("dice", True), ("found", r is not None), ("right", right), ("rest right", rest_right)):
                by_rest[rest][key] += int(hit)
            if r is not None:
                counts["read flat"] += int(rest != "flat" and r.flat)
                counts["read leaning"] += int(rest == "flat" and not r.flat)
            counts["rest right"] += int(rest_right)
            if verbose and not rest_right:
                print(f"seed {seed} {style} {home}: die {t.value} {t.half} {rest} read "
                      f"{None if r is None else (r.value, r.half, r.flat, r.on_checker)}")
        if truth.settled:
            counts["extra"] += len(reads) - sum(r is not None for _, r in pairs)
            if verbose:
                for r in reads:
                    if all(r is not q for _, q in pairs):
                        print(f"seed {seed} {style} {home}: a die read where none lies: {r.value} at {r.box} "
                              f"({r.confidence:.2f})")
        if truth.cube is None:
            counts["no cube"] += 1
            counts["no cube right"] += int(cube_read is None)
        elif not truth.settled:
            counts["blurred cubes"] += 1
            counts["blurred cube right"] += int(cube_read is not None and (cube_read.value, cube_read.side)
                                                == (truth.cube.face, truth.cube.side))
        else:
            counts["cubes"] += 1
            ok = cube_read is not None and (cube_read.value, cube_read.side) == (truth.cube.face, truth.cube.side)
            counts["cube right"] += int(ok)
            counts["cube wrong"] += int(cube_read is not None and not ok)
            if verbose and not ok:
                print(f"seed {seed} {style} {home}: cube {truth.cube.face} {truth.cube.side} read {cube_read}")

    both = [a + b for a, b in zip(dice_ms, cube_ms)]

    def share(a: str, b: str) -> str:
        return f"{counts[a] / counts[b]:.2%}" if counts[b] else "n/a"

    tables = f"{frames} tables of {throws} throws" if throws > 1 else f"{frames} frames"
    print(f"\nrendered boards{', two dice touching' if touching else ''}: {tables}, "
          f"seeds {first_seed}..{first_seed + frames - 1}, perfect calibration, dice {die_size} checkers wide")
    print(f"{'measure':<38}{'value':>20}{'target':>10}")
    rows = [("each die: value and half", share("right", "dice"), ">=99.9%"),
            *((f"  a table's {k} throws" if k == "later" else f"  a table's {k} throw",
               f"{c['right'] / c['dice']:.2%}" if c["dice"] else "n/a", "") for k, c in by_throw.items()
              if throws > 1),
            ("each die: found", share("found", "dice"), ""),
            ("each die: read wrong (value/half)", f"{counts['found'] - counts['right']}", "0"),
            (f"  wrong read with confidence>={CONFIDENT}", str(sum(c >= CONFIDENT for c in confidences[False])), "0"),
            (f"  right read with confidence>={CONFIDENT}",
             f"{np.mean(np.array(confidences[True]) >= CONFIDENT):.2%}" if confidences[True] else "n/a", ""),
            ("each die: also flat/cocked/on checker", share("rest right", "dice"), ">=99.9%"),
            *((f"  {rest}: found / value / and rest", "/".join(f"{c[k] / c['dice']:.1%}" if c["dice"] else "n/a"
                                                             for k in ("found", "right", "rest right")), "")
              for rest, c in by_rest.items()),
            ("  cocked or on a checker, read flat",
             f"{counts['read flat']}/{by_rest['cocked']['dice'] + by_rest['on_checker']['dice']}", "0"),
            ("  flat, read not flat", f"{counts['read leaning']}/{by_rest['flat']['dice']}", "0"),
            ("dice read where none lie", str(counts["extra"]), "0"),
            ("dice in blurred frames right", share("blurred right", "blurred dice"), ""),
            ("cube: face and side", share("cube right", "cubes"), ">=99%"),
            ("cube: read wrong", str(counts["cube wrong"]), "0"),
            ("cube in blurred frames right", share("blurred cube right", "blurred cubes"), ""),
            ("no cube: none read", share("no cube right", "no cube"), ""),
            ("dice read ms median", f"{statistics.median(dice_ms):.1f}", ""),
            ("  first read (may learn dice size)", f"{statistics.median(first_ms):.1f}", ""),
            ("cube read ms median", f"{statistics.median(cube_ms):.1f}", ""),
            ("dice and cube ms median / 90%", f"{statistics.median(both):.1f} / {np.percentile(both, 90):.1f}",
             "<=8")]
    for name, value, target in rows:
        print(f"{name:<38}{value:>20}{target:>10}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=["test", "train", "all", "held"], default="test")
    ap.add_argument("--frames", type=int, default=300, help="rendered frames (0: none)")
    ap.add_argument("--first-seed", type=int, default=300000)
    ap.add_argument("--touching-frames", type=int, default=100, help="rendered frames of two dice touching")
    ap.add_argument("--touching-first-seed", type=int, default=320000)
    ap.add_argument("--die-size", type=float, default=DIE_SIZE,
                    help="each rendered die's side in checker diameters (0.36: tournament dice and checkers)")
    ap.add_argument("--tables", type=int, default=0,
                    help="rendered tables of several throws, each read by one reader (0: none)")
    ap.add_argument("--throws", type=int, default=6, help="throws on each of those tables")
    ap.add_argument("--tables-first-seed", type=int, default=330000)
    ap.add_argument("--verbose", action="store_true", help="list every miss and misread")
    args = ap.parse_args()
    try:
        Die(1, size=args.die_size)
    except ValueError as err:
        ap.error(f"--die-size: {err}")
    cv2.setNumThreads(1)
    if DATA.is_dir():
        photo_table(args.split, args.verbose)
    else:
        print(f"no dice photos at {DATA}: real-photo table skipped", file=sys.stderr)
    if args.frames:
        rendered_table(args.frames, args.first_seed, args.verbose, die_size=args.die_size)
    if args.tables:
        rendered_table(args.tables, args.tables_first_seed, args.verbose, die_size=args.die_size,
                       throws=args.throws)
    if args.touching_frames:
        rendered_table(args.touching_frames, args.touching_first_seed, args.verbose, touching=True,
                       die_size=args.die_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
