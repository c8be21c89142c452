"""Validate the whole shared match corpus: time, turns per second, and that every file passes.

Reads every file listed in ``../shared/data/matches/verification.jsonl``,
replays it with the engine (``engine.records.validate``) and compares games,
turns, doubles, takes, drops and the final score with the verified figures.
With ``--roundtrip`` each match is also written in GNU Backgammon's dialect,
read back and replayed again (the transcripts must be equal), and exported
as SGF. Prints a table; the exit status is 1 if any file fails.
Target on one core: the ~134,000 turns validated in under 60 s.

    python bench/check_corpus.py [--roundtrip] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.records import Action, RecordError, read_mat, validate, write_mat, write_sgf  # noqa: E402

MATCHES = Path(__file__).resolve().parents[2] / "shared" / "data" / "matches"


def figures(checked) -> dict:
    return {"games": len(checked.games), "turns": checked.turns, "doubles": checked.count(Action.DOUBLE),
            "takes": checked.count(Action.TAKE), "drops": checked.count(Action.DROP),
            "final_score": list(checked.score)}


def verified(record: dict) -> dict:
    return {"games": record["gnubg_games"], "turns": record["gnubg_rolls"], "doubles": record["gnubg_doubles"],
            "takes": record["gnubg_takes"], "drops": record["gnubg_drops"], "final_score": record["final_score"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roundtrip", action="store_true", help="also write, re-read and export every match")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--data", type=Path, default=MATCHES, help="corpus folder holding verification.jsonl")
    args = parser.parse_args()

    listing = args.data / "verification.jsonl"
    if not listing.is_file():
        print(f"corpus not found: {listing}", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in listing.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.limit:
        records = records[:args.limit]
    texts = [(r, (args.data / r["rel"]).read_text(encoding="utf-8")) for r in records]

    failures: list[str] = []
    read_time = check_time = trip_time = 0.0
    slowest = (0.0, "")
    games = turns = 0
    for record, text in texts:
        name = record["rel"]
        start = time.perf_counter()
        try:
            parsed = read_mat(text, name)
        except RecordError as err:
            failures.append(str(err))
            continue
        read_done = time.perf_counter()
        checked = validate(parsed)
        check_done = time.perf_counter()
        read_time += read_done - start
        check_time += check_done - read_done
        slowest = max(slowest, (check_done - read_done, name))
        if checked.error is not None:
            failures.append(str(checked.error))
            continue
        games += len(checked.games)
        turns += checked.turns
        got, want = figures(checked), verified(record)
        if got != want:
            failures.append(f"{name}: figures {got} differ from the verified {want}")
            continue
        if args.roundtrip:
            start = time.perf_counter()
            again = validate(read_mat(write_mat(checked), f"{name} (written)"))
            write_sgf(checked)
            trip_time += time.perf_counter() - start
            if again.error is not None or again.transcript() != checked.transcript():
                failures.append(f"{name}: the written match differs when read back: {again.error or 'transcript'}")

    total = read_time + check_time
    rows = [
        ("files", f"{len(texts)}"),
        ("games", f"{games}"),
        ("turns (rolls, dances included)", f"{turns}"),
        ("read (parse) time", f"{read_time:.2f} s"),
        ("validate time", f"{check_time:.2f} s"),
        ("read + validate", f"{total:.2f} s  (target < 60 s)"),
        ("turns per second (read + validate)", f"{turns / total:,.0f}" if total else "-"),
        ("slowest file to validate", f"{slowest[0] * 1000:.0f} ms  {slowest[1]}"),
    ]
    if args.roundtrip:
        rows.append(("write + re-read + re-validate + SGF", f"{trip_time:.2f} s"))
    rows.append(("failures", f"{len(failures)}"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    for failure in failures[:50]:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
