"""Dice reading on the real dice photos: detection precision/recall and value accuracy.

Usage: python bench/dice.py [--split test|train|all] [--verbose]

A detection matches a labelled die when their centres are closer than half the
labelled box side; each label is matched at most once. "Per die" is the share of
labelled dice found *and* read with the right value.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice import find_dice  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / "dice"


def load_labels(path: Path, width: int, height: int) -> list[tuple[int, float, float, float]]:
    """Labelled dice as (value, centre x, centre y, side) in pixels."""
    out = []
    for line in path.read_text().split("\n"):
        if line.strip():
            c, cx, cy, w, h = map(float, line.split())
            out.append((int(c) + 1, cx * width, cy * height, max(w * width, h * height)))
    return out


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
    with open(DATA / "split.csv") as fh:
        rows = list(csv.DictReader(fh))
    return [r["filename"] for r in rows if split == "all" or r["split"] == split]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=["test", "train", "all"], default="test")
    ap.add_argument("--verbose", action="store_true", help="list every miss and misread")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no dice photos at {DATA}", file=sys.stderr)
        return 2
    names = photos(args.split)
    n_label = n_found = n_right = n_extra = 0
    per_value = {v: [0, 0] for v in range(1, 7)}
    confusion = np.zeros((7, 7), int)  # [truth][read], read 0 = missed
    times = []
    for name in names:
        image = cv2.imread(str(DATA / "images" / name))
        labels = load_labels(DATA / "labels" / (Path(name).stem + ".txt"), image.shape[1], image.shape[0])
        t0 = time.perf_counter()
        found = find_dice(image)
        times.append(time.perf_counter() - t0)
        pairs, extra = match(found, labels)
        n_label += len(labels)
        n_extra += len(extra)
        for (value, lx, ly, _), die in pairs:
            per_value[value][1] += 1
            confusion[value][die.value if die else 0] += 1
            if die is not None:
                n_found += 1
                if die.value == value:
                    n_right += 1
                    per_value[value][0] += 1
            if args.verbose and (die is None or die.value != value):
                print(f"{name}: die {value} at ({lx:.0f},{ly:.0f}) read {die.value if die else 'nothing'}")
        if args.verbose:
            for die in extra:
                print(f"{name}: extra die {die.value} at {die.box}")
    n_det = n_found + n_extra
    print(f"split {args.split}: {len(names)} photos, {n_label} labelled dice")
    print(f"{'measure':<28}{'value':>10}")
    print(f"{'detection recall':<28}{n_found / n_label:>10.2%}")
    print(f"{'detection precision':<28}{(n_found / n_det if n_det else 0):>10.2%}")
    print(f"{'value accuracy (found)':<28}{(n_right / n_found if n_found else 0):>10.2%}")
    print(f"{'per die (found and right)':<28}{n_right / n_label:>10.2%}")
    print(f"{'read time median (ms)':<28}{statistics.median(times) * 1000:>10.1f}")
    print("per face: " + "  ".join(f"{v}: {r}/{n}" for v, (r, n) in per_value.items()))
    print("confusion (rows truth 1..6; columns missed, read 1..6):")
    for v in range(1, 7):
        print(f"  {v}: " + " ".join(f"{c:4d}" for c in confusion[v]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
