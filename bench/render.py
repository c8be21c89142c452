"""Speed of the simulated camera: milliseconds per rendered frame.

Usage: python bench/render.py [--frames N] [--size 1280x720]

Two cases per style: "random" renders frames of random positions each with its own
camera pose, light, sensor and board build (as a vision benchmark does: the remap tables
are rebuilt every frame), "session" renders a TableCamera's frames over one fixed pose
(as the referee simulator does). Painting a style's boards (once per build, then cached)
is timed apart. Single-threaded OpenCV, so the numbers are per core.
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

from engine.position import BLACK, WHITE, Position  # noqa: E402
from hardware.sim.render_sequence import TableCamera, random_turn  # noqa: E402
from hardware.sim.render_styles import STYLES  # noqa: E402
from hardware.sim.renderer import board_renderer, render  # noqa: E402
from hardware.sim.scene import BOARD_BUILDS  # noqa: E402


def random_positions(n: int, seed: int) -> list[Position]:
    """Positions reached by random legal plays from the opening."""
    rng = np.random.default_rng(seed)
    out, position, side = [], Position.initial(), WHITE
    while len(out) < n:
        _, position = random_turn(rng, position, side)
        side = BLACK if side == WHITE else WHITE
        out.append(position)
        if position.winner() is not None:
            position, side = Position.initial(), WHITE
    return out


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40, help="frames per style and case")
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    cv2.setNumThreads(1)
    positions = random_positions(args.frames, 1)
    print(f"{'style':<12} {'case':<8} {'median ms':>10} {'p95 ms':>8} {'frames':>7}")
    for style in STYLES:
        times = []
        for build in BOARD_BUILDS.values():
            t = time.perf_counter()
            board_renderer(style, size, "bottom-right", build)          # painted once, then shared
            times.append((time.perf_counter() - t) * 1000)
        print(f"{style:<12} {'paint':<8} {statistics.median(times):>10.1f} {percentile(times, 95):>8.1f} "
              f"{len(times):>7}")
        times = []
        for i, position in enumerate(positions):
            t = time.perf_counter()
            render(position, dice=(int(1 + i % 6), int(1 + (i * 5) % 6)), seed=10_000 + i, style=style,
                   size=size, hand=i % 4 == 0)
            times.append((time.perf_counter() - t) * 1000)
        print(f"{style:<12} {'random':<8} {statistics.median(times):>10.1f} {percentile(times, 95):>8.1f} "
              f"{len(times):>7}")
        camera = TableCamera(style=style, seed=3, size=size, fps=15)
        for k, position in enumerate(positions[: max(args.frames // 10, 2)]):
            camera.roll((3, 5), half=("white", "black")[k % 2], tumble=0.3, settle=0.1)
            camera.move(camera.scene.position, position, seconds=0.4, settle=0.1)
            camera.pick_up_dice(seconds=0.3)
        times = []
        frames = camera.frames()
        while True:
            t = time.perf_counter()
            if next(frames, None) is None:
                break
            times.append((time.perf_counter() - t) * 1000)
        print(f"{style:<12} {'session':<8} {statistics.median(times):>10.1f} {percentile(times, 95):>8.1f} "
              f"{len(times):>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
