"""Photo import (``vision.photo.import_photo``) on real board photos and on rendered boards.

Usage: python bench/boards.py [--verbose] [--renders 56] [--hard 28] [--difficulty 0.5] [--tournament 30]
                             [--far-tournament 30] [--hd-tournament 20] [--hands 60] [--bearoffs 40]
                             [--tournament-bearoffs 30] [--first-seed 200000]

Real photos (../shared/data/photos/boards, 49 photos, 27 with all 30 checkers boxed): no
point is labelled, so what is scored is what the labels allow: the number of checkers of
each colour against the labelled boxes (light_p, dark_p), and detection against the
boxes: a found checker matches a box when its centre lies inside it, each box and
checker matched at most once (maximum matching). "colour" is the share of matched
checkers given the box's colour. "wrong pos." counts the complete photos read as a
position whose colour counts differ from the labels': a confident wrong position, the
worst outcome. Tables for all photos and for the complete ones. No die's value is
labelled: the dice read are matched to the labelled dice boxes (which also box a cube or
dice in a tray now and then).

Rendered boards with a player's hand over points (clean conditions): the covered points
read as a sure count, and wrongly (must be 0), the photos called settled, the positions
made and how many of them are wrong.

Rendered boards (hardware/sim/renderer.py, clean conditions, every style and home corner,
positions reached by random legal play from seeds never used while tuning): the whole
position read right (White and home given), positions read wrong (given, not None), per
point, the dice read right (where the renderer put them, with their value) and read
where none lies, and with ``white``/``home`` left
to be chosen on the layouts where the home board is on White's right (the only ones the
choice can find: a mirrored board looks the same). Then rendered boards under random
camera poses, light, sensor noise and table clutter (``--difficulty``), White and the
frame's home corner given, with the wrong positions likewise, and the same for tournament
boards alone (black case, cream field, the look of a tournament table's camera) at 1280 x 720,
at ``--difficulty`` and at difficulty 1 (the board as little as 60 % of the frame, cups, a
clock and an overlay beside it, tilt up to 20 degrees), and at ``--difficulty`` at 1920 x 1080,
the full frame of most tournament cameras.
Last, positions in the bear-off (random play past a side's first checker borne off) in clean
conditions: checkers standing in the trays, piles on the home boards; and the same on
tournament boards at 1280 x 720 under ``--difficulty``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.position import BLACK, WHITE  # noqa: E402
from hardware.sim.render_sequence import bearoff_position, hand_photo, random_position  # noqa: E402
from hardware.sim.renderer import STYLES, Conditions, render  # noqa: E402
from vision.photo import HOMES, import_photo  # noqa: E402

PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / "boards"
LIGHT, DARK, DICE = 4, 2, 3   # YOLO classes of the labelled checkers and dice
USUAL_HOMES = ("bottom-right", "top-left")  # home board on White's right as White sits


def load_boxes(path: Path, width: int, height: int) -> list[tuple[str, float, float, float, float]]:
    """Labelled checkers and dice as (name, centre x, centre y, width, height) in pixels,
    name 'light', 'dark' or 'die' (other classes and polygon outlines are skipped)."""
    names = {LIGHT: "light", DARK: "dark", DICE: "die"}
    out = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) != 5 or int(fields[0]) not in names:
            continue
        c, cx, cy, w, h = (float(v) for v in fields)
        out.append((names[int(c)], cx * width, cy * height, w * width, h * height))
    return out


def match(centres: list[tuple[float, float]], boxes) -> list[tuple[int, int]]:
    """A maximum one-to-one matching of centres to the boxes they lie in: (centre, box) pairs."""
    inside = [[j for j, (_, bx, by, bw, bh) in enumerate(boxes)
               if abs(x - bx) <= bw / 2 and abs(y - by) <= bh / 2] for x, y in centres]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in inside[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(centres)):
        augment(i, set())
    return [(i, j) for j, i in owner.items()]


def photo_rows(verbose: bool) -> list[dict]:
    rows = []
    for image_path in sorted((PHOTOS / "images").glob("*.jpg")):
        image = cv2.imread(str(image_path))
        labelled = load_boxes(PHOTOS / "labels" / (image_path.stem + ".txt"), image.shape[1], image.shape[0])
        boxes = [b for b in labelled if b[0] != "die"]
        dice_boxes = [b for b in labelled if b[0] == "die"]
        start = time.perf_counter()
        read = import_photo(image)
        seconds = time.perf_counter() - start
        found = read.checkers
        pairs = match([(c.x, c.y) for c in found], boxes)
        row = {"photo": image_path.stem[:24], "complete": len(boxes) == 30,
               "labelled": {c: sum(1 for b in boxes if b[0] == c) for c in ("light", "dark")},
               "found": read.counts, "boxes": len(boxes), "checkers": len(found), "matched": len(pairs),
               "same colour": sum(1 for i, j in pairs if found[i].colour == boxes[j][0]),
               "seconds": seconds, "position": read.position is not None, "dice boxes": len(dice_boxes),
               "dice": len(read.observation.dice), "dice matched": len(match(
                   [(x + w / 2, y + h / 2) for x, y, w, h in (d.box for d in read.observation.dice)], dice_boxes))}
        row["exact"] = row["found"] == row["labelled"]
        rows.append(row)
        if verbose:
            lab, got = row["labelled"], row["found"]
            print(f"{row['photo']:<26} light {got['light']:>2}/{lab['light']:<2} dark {got['dark']:>2}/{lab['dark']:<2} "
                  f"{'exact' if row['exact'] else '     '} matched {row['matched']:>2}/{row['boxes']:<2} "
                  f"found {row['checkers']:>2}  {seconds:.1f} s  {read.reason or ''}", flush=True)
    return rows


def summarise(name: str, rows: list[dict]) -> None:
    matched = sum(r["matched"] for r in rows)
    found = sum(r["checkers"] for r in rows)
    boxes = sum(r["boxes"] for r in rows)
    error = sum(abs(r["found"][c] - r["labelled"][c]) for r in rows for c in ("light", "dark"))
    print(f"{name:<16} {len(rows):>6} {sum(r['exact'] for r in rows):>12} {error:>12} "
          f"{matched / max(found, 1):>10.1%} {matched / max(boxes, 1):>8.1%} "
          f"{sum(r['same colour'] for r in rows) / max(matched, 1):>8.1%} "
          f"{sum(r['position'] for r in rows):>10} "
          f"{sum(r['position'] and r['complete'] and not r['exact'] for r in rows):>11} "
          f"{statistics.median(r['seconds'] for r in rows):>9.1f}")



def score_dice(stats: dict, read, truth) -> None:
    """Adds a rendered photo's dice to ``stats``: the dice shown, those read where they lie
    with their value ("dice right"), and the dice read where none lies ("dice extra")."""
    boxes = [("die", x + w / 2, y + h / 2, w, h) for x, y, w, h in (d.box for d in truth.dice)]
    seen = read.observation.dice
    pairs = match([(x + w / 2, y + h / 2) for x, y, w, h in (d.box for d in seen)], boxes)
    stats["dice"] = stats.get("dice", 0) + len(boxes)
    stats["dice right"] = stats.get("dice right", 0) + sum(seen[i].value == truth.dice[j].value for i, j in pairs)
    stats["dice extra"] = stats.get("dice extra", 0) + len(seen) - len(pairs)


def dice_text(s: dict) -> str:
    return f"dice {s['dice right']}/{s['dice']} read right ({s['dice right'] / max(s['dice'], 1):.1%}), " \
           f"{s['dice extra']} read where none lies"


def positions_text(s: dict) -> str:
    n = max(s["frames"], 1)
    return (f"{s['frames']} frames, position right {s['right'] / n:.1%}, wrong {s['wrong']}, "
            f"per point {s['points right'] / (24 * n):.1%}; {dice_text(s)}")


def render_rows(count: int, first_seed: int, verbose: bool) -> dict:
    stats = {"frames": 0, "right": 0, "wrong": 0, "points right": 0, "usual": 0, "chosen right": 0}
    for seed in range(first_seed, first_seed + count):
        rng = np.random.default_rng(seed)
        style = list(STYLES)[seed % len(STYLES)]
        home = HOMES[(seed // len(STYLES)) % len(HOMES)]
        position = random_position(rng, int(rng.integers(0, 40)))
        image, truth = render(position, dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))), seed=seed,
                              style=style, size=(960, 540), conditions=Conditions.clean(), home=home)
        read = import_photo(image, white="light", home=home)
        score_dice(stats, read, truth)
        points = [p.signed for p in read.observation.points] if read.observation.points else [None] * 24
        stats["frames"] += 1
        stats["right"] += read.position == position
        stats["wrong"] += read.position is not None and read.position != position
        stats["points right"] += sum(a == b for a, b in zip(points, position.points()))
        if home in USUAL_HOMES:
            chosen = import_photo(image)
            stats["usual"] += 1
            stats["chosen right"] += chosen.position == position and chosen.orientation["home"] == home
        if verbose and read.position != position:
            print(f"seed {seed} {style} {home}: {read.reason or 'wrong position'}", flush=True)
    return stats


def home_in_frame(truth) -> str:
    """The frame corner to name White's home board by, as ``bgref read --home`` takes it:
    the reader picks the field corner whose direction from the field's middle leans most
    to the corner named, so this is the name under which that rule, on the true field,
    picks the corner beside White's ace point (on a board turned near 45 degrees two
    names lean alike, and the home quarter's middle may lean to the other)."""
    polygons = truth.point_polygons
    centre = np.mean(np.vstack(list(polygons.values())), axis=0)
    corners = {n: max(polygons[n], key=lambda q: float(np.linalg.norm(q - centre))) - centre for n in (1, 12, 13, 24)}
    unit = {n: d / np.linalg.norm(d) for n, d in corners.items()}
    names = {(x, y): ("bottom" if y > 0 else "top") + "-" + ("right" if x > 0 else "left")
             for x in (-1, 1) for y in (-1, 1)}
    picks = [w for w in names if max(unit, key=lambda n: float(np.dot(unit[n], w))) == 1]
    return names[max(picks or names, key=lambda w: float(np.dot(unit[1], w)))]


def hard_rows(count: int, first_seed: int, difficulty: float, style: str | None = None,
              size: tuple[int, int] = (960, 540)) -> dict:
    """Rendered boards under random camera, light and sensor conditions and table clutter,
    in ``style`` (None: every style in turn)."""
    stats = {"frames": 0, "right": 0, "wrong": 0, "points right": 0}
    for seed in range(first_seed, first_seed + count):
        rng = np.random.default_rng(seed)
        position = random_position(rng, int(rng.integers(0, 40)))
        image, truth = render(position, dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))), seed=seed,
                              style=style or list(STYLES)[seed % len(STYLES)], size=size, difficulty=difficulty)
        read = import_photo(image, white="light", home=home_in_frame(truth))
        score_dice(stats, read, truth)
        points = [p.signed for p in read.observation.points] if read.observation.points else [None] * 24
        stats["frames"] += 1
        stats["right"] += read.position == position
        stats["wrong"] += read.position is not None and read.position != position
        stats["points right"] += sum(a == b for a, b in zip(points, position.points()))
    return stats


def bearoff_rows(count: int, first_seed: int, difficulty: float | None = None) -> dict:
    """Rendered boards in the bear-off: checkers standing in the trays, piles on the home
    boards; in clean conditions (style and home corner by seed), or tournament boards at
    1280 x 720 under ``difficulty``'s camera, light and clutter. The whole position read
    right (White and home given), wrong, per point, and both sides' borne-off checkers
    read as a sure count and right."""
    stats = {"frames": 0, "right": 0, "wrong": 0, "points right": 0, "off right": 0}
    for seed in range(first_seed, first_seed + count):
        rng = np.random.default_rng(seed)
        position = bearoff_position(rng)
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        if difficulty is None:
            home = HOMES[(seed // len(STYLES)) % len(HOMES)]
            image, _ = render(position, dice=dice, seed=seed, style=list(STYLES)[seed % len(STYLES)],
                              size=(960, 540), conditions=Conditions.clean(), home=home)
        else:
            image, truth = render(position, dice=dice, seed=seed, style="tournament", size=(1280, 720),
                                  difficulty=difficulty)
            home = home_in_frame(truth)
        read = import_photo(image, white="light", home=home)
        points = [p.signed for p in read.observation.points] if read.observation.points else [None] * 24
        stats["frames"] += 1
        stats["right"] += read.position == position
        stats["wrong"] += read.position is not None and read.position != position
        stats["points right"] += sum(a == b for a, b in zip(points, position.points()))
        stats["off right"] += all(read.observation.off[side] == (position.off(s), position.off(s))
                                  for side, s in (("white", WHITE), ("black", BLACK)))
    return stats


def hand_rows(count: int, first_seed: int) -> dict:
    """Rendered boards in clean conditions with a player's hand reaching over a point: the
    points it covers (the renderer's truth) read as a sure count, and wrongly (a confident
    misread: must be 0); the photos called settled; positions made, and wrong."""
    stats = {"frames": 0, "covered": 0, "covered sure": 0, "covered wrong": 0, "settled": 0, "positions": 0,
             "wrong": 0}
    for seed in range(first_seed, first_seed + count):
        image, truth, position = hand_photo(seed)
        if not truth.occluded_points:
            continue
        read = import_photo(image, white="light", home=home_in_frame(truth))
        stats["frames"] += 1
        stats["settled"] += read.observation.settled
        stats["positions"] += read.position is not None
        stats["wrong"] += read.position is not None and read.position != position
        for p in read.observation.points:
            if p.point in truth.occluded_points:
                stats["covered"] += 1
                stats["covered sure"] += p.certain
                stats["covered wrong"] += p.certain and p.signed != truth.points[p.point - 1]
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--renders", type=int, default=56)
    ap.add_argument("--hard", type=int, default=28, help="rendered frames under random conditions")
    ap.add_argument("--difficulty", type=float, default=0.5)
    ap.add_argument("--tournament", type=int, default=30,
                    help="rendered tournament boards (the look of a tournament table's camera), 1280 x 720")
    ap.add_argument("--far-tournament", type=int, default=30,
                    help="rendered tournament boards at difficulty 1 (far off, tilted, cluttered), 1280 x 720")
    ap.add_argument("--hd-tournament", type=int, default=20,
                    help="rendered tournament boards at 1920 x 1080 (a tournament camera's full frame)")
    ap.add_argument("--hands", type=int, default=60, help="rendered frames with a hand over the board")
    ap.add_argument("--bearoffs", type=int, default=40, help="rendered frames in the bear-off, checkers in the trays")
    ap.add_argument("--tournament-bearoffs", type=int, default=30,
                    help="rendered tournament boards in the bear-off, 1280 x 720")
    ap.add_argument("--first-seed", type=int, default=200000)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if not PHOTOS.is_dir():
        print(f"no photos at {PHOTOS}")
        return 1
    rows = photo_rows(args.verbose)
    print(f"\n{'photos':<16} {'count':>6} {'exact counts':>12} {'count error':>12} {'precision':>10} "
          f"{'recall':>8} {'colour':>8} {'positions':>10} {'wrong pos.':>11} {'median s':>9}")
    summarise("all", rows)
    summarise("all 30 boxed", [r for r in rows if r["complete"]])
    print(f"dice (no values labelled): {sum(r['dice matched'] for r in rows)} of {sum(r['dice boxes'] for r in rows)} "
          f"labelled dice boxes found (some are cubes or dice off the field), "
          f"{sum(r['dice'] - r['dice matched'] for r in rows)} dice read outside every box")
    if args.renders:
        s = render_rows(args.renders, args.first_seed, args.verbose)
        n = max(s["frames"], 1)
        print(f"\nclean renders: {s['frames']} frames, position right {s['right'] / n:.1%}, wrong {s['wrong']}, "
              f"per point {s['points right'] / (24 * n):.1%}, "
              f"with the orientation chosen from the position {s['chosen right'] / max(s['usual'], 1):.1%} "
              f"(of {s['usual']} frames whose home board is on White's right); {dice_text(s)}")
    if args.hard:
        s = hard_rows(args.hard, args.first_seed + 50000, args.difficulty)
        print(f"renders at difficulty {args.difficulty} (tilt, any turn, lens, light, noise, clutter; no hands): "
              f"{positions_text(s)}")
    if args.tournament:
        s = hard_rows(args.tournament, args.first_seed + 80000, args.difficulty, "tournament", (1280, 720))
        print(f"tournament boards at difficulty {args.difficulty}, 1280 x 720: {positions_text(s)}")
    if args.far_tournament:
        s = hard_rows(args.far_tournament, args.first_seed + 160000, 1.0, "tournament", (1280, 720))
        print(f"tournament boards at difficulty 1.0, 1280 x 720: {positions_text(s)}")
    if args.hd_tournament:
        s = hard_rows(args.hd_tournament, args.first_seed + 180000, args.difficulty, "tournament", (1920, 1080))
        print(f"tournament boards at difficulty {args.difficulty}, 1920 x 1080: {positions_text(s)}")
    if args.hands:
        s = hand_rows(args.hands, args.first_seed + 110000)
        print(f"renders with a hand over points: {s['frames']} frames, {s['covered']} points covered, "
              f"read sure {s['covered sure']}, sure and wrong {s['covered wrong']} (target 0), "
              f"called settled {s['settled']}, positions {s['positions']} of which wrong {s['wrong']}")
    if args.bearoffs:
        print(f"renders in the bear-off: {bearoff_text(bearoff_rows(args.bearoffs, args.first_seed + 140000))}")
    if args.tournament_bearoffs:
        s = bearoff_rows(args.tournament_bearoffs, args.first_seed + 150000, args.difficulty)
        print(f"tournament boards in the bear-off at difficulty {args.difficulty}, 1280 x 720: {bearoff_text(s)}")
    return 0


def bearoff_text(s: dict) -> str:
    """A line of ``bearoff_rows``' figures."""
    n = max(s["frames"], 1)
    return (f"{s['frames']} frames, position right {s['right'] / n:.1%}, wrong {s['wrong']}, "
            f"per point {s['points right'] / (24 * n):.1%}, borne-off checkers read sure and right "
            f"{s['off right'] / n:.1%}")


if __name__ == "__main__":
    sys.exit(main())
