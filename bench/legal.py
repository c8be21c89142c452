"""Legal-play generation speed: the reference cases, and OpenSpiel side by side.

Prints a table: cases per second, median, 99th percentile and worst case over
every case of ``../shared/data/legal``; then, when the ``open-spiel`` package is
installed, the same games replayed from the opening in both engines (OpenSpiel
cannot be set to an arbitrary position), timing each turn's legal moves.
Target on one core: >= 3,000 cases/s and no case over 20 ms.

    python bench/legal.py [--games 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.moves import legal_plays, legal_position_ids  # noqa: E402
from engine.position import BLACK, WHITE, Position  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "legal"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def reference_cases() -> list[tuple[float, str]]:
    timings = []
    for name in ("legal_standard.jsonl", "legal_hyper.jsonl"):
        for line in (DATA / name).read_text().splitlines():
            case = json.loads(line)
            position = Position.from_position_id(case["position_id"], WHITE, case["variant"])
            dice = tuple(case["dice"])
            start = time.perf_counter()
            ids = legal_position_ids(position, WHITE, dice)
            elapsed = time.perf_counter() - start
            assert ids == case["legal_after"], case["position_id"]
            timings.append((elapsed, f"{case['position_id']} {dice[0]}{dice[1]} ({len(ids)} results)"))
    return timings


def row(name: str, times: list[float], extra: str = "") -> str:
    total = sum(times)
    return (f"| {name:<34} | {len(times):>6} | {len(times) / total:>10,.0f} | {statistics.median(times) * 1e3:>8.3f} "
            f"| {percentile(times, 0.99) * 1e3:>8.3f} | {max(times) * 1e3:>8.3f} | {extra}")


HEADER = ("| engine / set                       |  cases |    cases/s | median ms |   p99 ms | worst ms | note\n"
          "|------------------------------------|--------|------------|-----------|----------|----------|-----")


def _openspiel_position(state) -> tuple[Position, int, tuple[int, int]]:
    """OpenSpiel's board as a bgref position: its player 0 is White, moving from index 0 to 23."""
    white, black = [0] * 26, [0] * 26
    for i in range(24):
        white[24 - i] = state.board(0, i)
        black[i + 1] = state.board(1, i)
    text = state.to_string()
    bar = re.search(r"^Bar:(.*)$", text, re.M).group(1)
    white[25], black[25] = bar.count("x"), bar.count("o")
    white[0], black[0] = 15 - sum(white), 15 - sum(black)
    dice = re.search(r"^Dice: (\d)(\d)", text, re.M)
    return Position(tuple(white), tuple(black)), state.current_player(), (int(dice.group(1)), int(dice.group(2)))


def openspiel_side_by_side(games: int, seed: int) -> tuple[list[float], list[float]] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    ours, theirs = [], []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            start = time.perf_counter()
            actions = state.legal_actions()
            theirs.append(time.perf_counter() - start)
            if "Extra turn: 0" in state.to_string():
                position, player, dice = _openspiel_position(state)
                start = time.perf_counter()
                legal_plays(position, WHITE if player == 0 else BLACK, dice)
                ours.append(time.perf_counter() - start)
            state.apply_action(rng.choice(actions))
    return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    timings = reference_cases()
    times = [t for t, _ in timings]
    worst = max(timings)
    print(HEADER)
    print(row("bgref, reference cases", times, f"worst: {worst[1]}; over 20 ms: {sum(t > 0.02 for t in times)}"))
    side = openspiel_side_by_side(args.games, args.seed)
    if side is None:
        print("| OpenSpiel                          | not installed (pip install open-spiel) for the side-by-side run")
    else:
        ours, theirs = side
        print(row(f"bgref, {args.games} games from the opening", ours, "full turn: every distinct result"))
        print(row(f"OpenSpiel, same games", theirs, "legal_actions(): one decision (doubles: two half-turns)"))


if __name__ == "__main__":
    main()
