"""Display link figures over a pty at 115200 baud: latency and throughput, with and without faults.

The simulated unit (hardware/sim/display_unit.py, the firmware's own logic)
sits at the far end of a pty whose cable is paced at 115200 baud (8N1); the
host side is the real ``DisplayLink`` with its threads. For each fault level
(a share of bytes dropped or corrupted, half each, both directions):

* latency: a new text line is set, then the time until the unit shows it,
  one at a time (median and 99th percentile);
* beeps/s: a burst of beeps (not coalesced: each is one acknowledged
  message) and the time until the unit has sounded all, or they are reported lost;
* updates/s: the caller sets a new five-line screen as fast as it can for two
  seconds; the distinct screens the unit showed per second (the link sends
  only the latest, so this is what the cable carries, not what the caller asked);
* bytes/s: what the host put on the cable during that flood.

    python bench/link.py [--messages N] [--faults 0,0.01,0.05]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import DisplayLink, LinkState, MessageLost  # noqa: E402
from hardware.sim.display_unit import SimulatedDisplayUnit  # noqa: E402

BAUD = 115200


def latencies(link: DisplayLink, unit: SimulatedDisplayUnit, count: int) -> list[float]:
    samples = []
    for i in range(count):
        text = (f"latency {i}",)
        start = time.perf_counter()
        link.show_text(text)
        if not unit.wait_until(lambda s: s.text == text, 30):
            raise RuntimeError(f"the unit never showed {text!r}")
        samples.append(time.perf_counter() - start)
    return samples


def beep_rate(link: DisplayLink, unit: SimulatedDisplayUnit, count: int) -> tuple[float, int]:
    """Beeps per second through the link, and how many were reported lost."""
    while not link.events.empty():
        link.events.get_nowait()
    before = unit.snapshot().beeps
    start = time.perf_counter()
    queued = sum(link.beep(frequency=1000 + i, duration=0.001) for i in range(count))
    lost = 0

    def done(snapshot) -> bool:
        nonlocal lost
        while not link.events.empty():
            lost += isinstance(link.events.get_nowait(), MessageLost)
        return snapshot.beeps - before + lost >= queued

    if not unit.wait_until(done, 60):
        raise RuntimeError("beeps neither arrived nor were reported lost")
    return queued / (time.perf_counter() - start), lost


def update_rate(link: DisplayLink, unit: SimulatedDisplayUnit, seconds: float) -> tuple[float, float]:
    """Distinct screens shown per second while the caller floods, and bytes per second sent."""
    seen: set = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            unit.wait_until(lambda s: seen.add(s.text) or stop.is_set(), 0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    sent_before = unit.bytes_to_unit
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < seconds:
        link.show_text([f"flood {i} line {k}" for k in range(5)])
        i += 1
        time.sleep(0.0005)
    link.wait_synced(30)
    elapsed = time.perf_counter() - start
    stop.set()
    watcher.join()
    shown = sum(1 for text in seen if text and text[0].startswith("flood"))
    return shown / elapsed, (unit.bytes_to_unit - sent_before) / elapsed


def run(rate: float, messages: int) -> dict:
    with SimulatedDisplayUnit(baudrate=BAUD, seed=1) as unit, DisplayLink(unit.url) as link:
        if not link.wait_for_state(LinkState.UP, 10):
            raise RuntimeError(f"no link: {link.detail}")
        unit.faults.drop = unit.faults.corrupt = rate / 2
        samples = latencies(link, unit, messages)
        beeps, lost = beep_rate(link, unit, messages)
        updates, bytes_per_second = update_rate(link, unit, 2.0)
    ms = sorted(s * 1000 for s in samples)
    return {
        "faults": f"{rate:.0%} bytes" if rate else "none",
        "median": statistics.median(ms),
        "p99": ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))],
        "beeps": beeps,
        "lost": lost,
        "updates": updates,
        "bytes": bytes_per_second,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200, help="latency samples and beeps per fault level")
    parser.add_argument("--faults", default="0,0.01,0.05", help="comma-separated shares of damaged bytes")
    args = parser.parse_args()
    rows = [run(float(rate), args.messages) for rate in args.faults.split(",")]
    print(f"display link over a pty at {BAUD} baud, {args.messages} messages per row")
    print(f"{'faults':>10} | {'median ms':>9} | {'p99 ms':>7} | {'beeps/s':>7} | {'lost':>4} | {'updates/s':>9} | {'bytes/s':>7}")
    print("-" * 76)
    for r in rows:
        print(
            f"{r['faults']:>10} | {r['median']:9.2f} | {r['p99']:7.1f} | {r['beeps']:7.0f} | {r['lost']:4d} | "
            f"{r['updates']:9.1f} | {r['bytes']:7.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
