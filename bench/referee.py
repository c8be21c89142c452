"""The whole referee on replayed real matches: decision latency, frame rate, memory, alarms.

For each match, the simulated players play it in front of the simulated camera
(1280x720, 15 frames a second) with injected mistakes; vision reads every frame
and the referee judges. Printed per run and in total:

- decision latency: from the first frame in which the dice are seen picked up
  to the frame whose reading produced the referee's decision, plus the time
  spent on that frame (target <= 100 ms median);
- frames per second the pipeline sustains (vision + referee, rendering excluded;
  target >= 15 at 1280x720);
- peak memory: of this process (renderer included), and of the service alone: ``bgref run``
  on a folder of recorded frames of a random game, as on a Pi with a camera (target <= 200 MB);
- false alarms per 1,000 moves (target 0) and caught mistakes (target 100%);
- plays the players had to pick on MENU because the camera could not settle them.

    python bench/referee.py [--matches 3] [--mistakes 0.1] [--eyes vision|truth]

``--eyes truth`` reads the renderer's own truth instead of vision, to measure
the referee and the players apart from vision.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from controller.replay import replay  # noqa: E402
from controller.referee import Referee  # noqa: E402
from engine.position import Position  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

MATCHES = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches" / "bglab"
DEFAULT = ["match4318142.txt", "match8496707.txt", "match5554945.txt", "match1988527.txt", "match6686465.txt"]


class Timed:
    """Eyes that time each reading and remember, per frame, whether the dice were really picked up."""

    def __init__(self, kind: str):
        self.kind = kind
        self.reader = None
        self.costs: list[float] = []
        self.frames: list[tuple[float, bool]] = []   # (timestamp, dice gone and nothing covering the board)

    def __call__(self, frame):
        start = time.perf_counter()
        if self.kind == "truth":
            from training.truth import TruthReader
            reader = TruthReader()
            reader.truth = frame.truth
            obs = reader.read(frame.image, frame.timestamp)
        else:
            if self.reader is None:
                self.reader = BoardReader(calibrate(frame.image, Position.initial()))
            obs = self.reader.read(frame.image, frame.timestamp)
        self.costs.append(time.perf_counter() - start)
        self.frames.append((frame.timestamp, not frame.truth.dice and frame.truth.settled))
        return obs


def latencies(eyes: Timed, events: list[dict], decide_costs: dict[float, float]) -> list[float]:
    """For each play, seconds from the first frame with the dice gone to the decision."""
    out = []
    times = [t for t, _ in eyes.frames]
    for event in events:
        if event["type"] not in ("play", "accepted"):
            continue
        decided = event["t"]
        k = max(i for i, t in enumerate(times) if t <= decided + 1e-6)
        j = k
        while j > 0 and eyes.frames[j - 1][1]:
            j -= 1
        out.append(decided - times[j] + eyes.costs[k] + decide_costs.get(decided, 0.0))
    return out


def service_memory(frames: int = 200) -> float:
    """Peak memory (MB) of ``bgref run`` reading ``frames`` recorded frames of a random game."""
    from hardware.sim.render_sequence import TableCamera, play_random_game
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "frames"
        folder.mkdir()
        camera = TableCamera(seed=3, fps=15.0, size=(1280, 720), difficulty=0.3)
        for n, frame in enumerate(play_random_game(camera, seed=3)):
            if n == frames:
                break
            cv2.imwrite(str(folder / f"{n:05d}.jpg"), frame.image)
        config = Path(tmp) / "bgref.toml"
        config.write_text(f'[camera]\nsource = "{folder}"\ncalibration = "calibration.json"\n'
                          f'[paths]\njournal_dir = "journal"\nrecord_dir = "matches"\n')
        # the service reports its own high-water mark (VmHWM, kB): the peak the kernel keeps in
        # ru_maxrss counts the parent's pages from before the service's exec
        report = ("import re, sys; from controller.cli import main; code = main(sys.argv[1:]); "
                  "print(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1], file=sys.stderr); "
                  "sys.exit(code)")
        done = subprocess.run([sys.executable, "-c", report, "run", "--config", str(config), "--frames", str(frames)],
                              cwd=Path(__file__).resolve().parents[1], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, check=True)
    return int(done.stderr.split()[-1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--mistakes", type=float, default=0.1)
    ap.add_argument("--eyes", choices=["vision", "truth"], default="vision")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    decide: dict[float, float] = {}
    original = Referee.feed

    def timed_feed(self, item, t=None):
        start = time.perf_counter()
        result = original(self, item, t)
        if result.events:
            decide[round(self.last_t, 3)] = time.perf_counter() - start
        return result

    Referee.feed = timed_feed
    all_latency, all_costs, alarms = [], [], []
    totals = {"moves": 0, "injected": 0, "caught": 0, "false": 0, "same": 0, "picked": 0}
    print("| match | turns | frames | same match | injected | caught | false alarms | picked on MENU "
          "| latency median ms | latency p99 ms | read fps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, name in enumerate(DEFAULT[:args.matches]):
        eyes = Timed(args.eyes)
        with tempfile.TemporaryDirectory() as tmp:
            result = replay(MATCHES / name, Path(tmp) / "out.mat", seed=args.seed + n, mistakes=args.mistakes,
                            size=(1280, 720), fps=15.0, eyes=eyes)
        lat = latencies(eyes, result.log.events, decide)
        t = result.tally
        fps = len(eyes.costs) / sum(eyes.costs) if eyes.costs else 0.0
        all_latency += lat
        all_costs += eyes.costs
        totals["moves"] += t.turns
        totals["injected"] += t.injected
        totals["caught"] += t.caught
        totals["false"] += t.false_alarms
        totals["same"] += result.same_match
        totals["picked"] += t.picked
        alarms += [f"{name} at {at:.1f} s: {what}" for at, what in t.alarms]
        p99 = sorted(lat)[min(len(lat) - 1, int(0.99 * len(lat)))] * 1e3 if lat else float("nan")
        print(f"| {name} | {t.turns} | {result.frames} | {result.same_match} | {t.injected} | {t.caught} | "
              f"{t.false_alarms} | {t.picked} | {statistics.median(lat) * 1e3 if lat else float('nan'):.0f} | {p99:.0f} | "
              f"{fps:.1f} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lat = sorted(all_latency)
    print()
    print(f"eyes: {args.eyes}; matches recorded exactly: {totals['same']} of {args.matches}")
    if lat:
        print(f"decision latency: median {statistics.median(lat) * 1e3:.0f} ms, "
              f"p99 {lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1e3:.0f} ms (target <= 100 ms median)")
    if all_costs:
        print(f"pipeline: {len(all_costs) / sum(all_costs):.1f} frames/s sustained "
              f"(median read {statistics.median(all_costs) * 1e3:.1f} ms; target >= 15 fps)")
    print(f"peak memory of this process (renderer included): {peak:.0f} MB")
    print(f"peak memory of the service (bgref run on recorded frames): {service_memory():.0f} MB (target <= 200 MB)")
    moves = max(totals["moves"], 1)
    print(f"false alarms: {totals['false']} in {totals['moves']} moves = {1000 * totals['false'] / moves:.1f} "
          f"per 1,000 (target 0)")
    for alarm in alarms:
        print(f"  false alarm: {alarm}")
    print(f"plays the players picked on MENU (the camera could not settle them): {totals['picked']} in "
          f"{totals['moves']} moves")
    caught = 100 * totals["caught"] / totals["injected"] if totals["injected"] else 100.0
    print(f"mistakes caught: {totals['caught']} of {totals['injected']} = {caught:.0f}% (target 100%)")


if __name__ == "__main__":
    main()
