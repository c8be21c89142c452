"""Real match files: a sample is valid, matches the verified counts and round-trips; mutated copies never crash.

The whole corpus (1,352 files) is checked by ``bench/check_corpus.py --roundtrip``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.commands.records import decode
from engine.match import EndReason, Kind
from engine.records import Action, RecordError, check_match, read_mat, validate, write_mat

MATCHES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "matches"


def _verified() -> list[dict]:
    path = MATCHES / "verification.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


VERIFIED = _verified()


def _sample() -> list[dict]:
    """Every 30th file, plus files of each kind and quirk: Studio, one-point, single games, resignations, caps."""
    chosen = {r["rel"]: r for r in VERIFIED[::30]}
    picks = [
        lambda r: r["kind"] == "Backgammon Studio",
        lambda r: r["match_length"] == 1,
        lambda r: r["match_length"] == 16,
        lambda r: r["resigns"] and r["notes"],
        lambda r: r["backgammons"],
        lambda r: r["post_crawford_games"],
        lambda r: "empty-roll (no legal move)" in r["features"] and r["gnubg_takes"] > 3,
    ]
    for pick in picks:
        for record in [r for r in VERIFIED if pick(r)][:3]:
            chosen[record["rel"]] = record
    return list(chosen.values())


SAMPLE = _sample()
needs_corpus = pytest.mark.skipif(not VERIFIED, reason=f"match corpus not found at {MATCHES}")


def load(record: dict):
    text = (MATCHES / record["rel"]).read_text(encoding="utf-8")
    return text, check_match(read_mat(text, record["rel"]))


def counts(checked) -> dict:
    """The figures verification.jsonl gives for a file, computed from the replayed match."""
    rolls = [t for g in checked.games for t in g.turns if t.turn.action is Action.ROLL and t.play is not None]
    outcomes = [g.outcome for g in checked.games if g.outcome is not None]
    crawford = [i for i, g in enumerate(checked.games) if g.crawford]
    return {
        "gnubg_games": len(checked.games), "gnubg_rolls": checked.turns,
        "mat_plays": sum(1 for t in rolls if t.play), "mat_dances": sum(1 for t in rolls if not t.play),
        "gnubg_doubles": checked.count(Action.DOUBLE), "gnubg_takes": checked.count(Action.TAKE),
        "gnubg_drops": checked.count(Action.DROP), "gnubg_beavers": checked.count(Action.BEAVER),
        "gammons": sum(1 for o in outcomes if o.reason is not EndReason.DROPPED and o.kind is Kind.GAMMON),
        "backgammons": sum(1 for o in outcomes if o.reason is not EndReason.DROPPED and o.kind is Kind.BACKGAMMON),
        "resigns": sum(1 for o in outcomes if o.reason is EndReason.RESIGNED),
        "gnubg_crawford_games": len(crawford),
        "post_crawford_games": len(checked.games) - crawford[0] - 1 if crawford else 0,
        "final_score": list(checked.score),
        "match_complete": bool(checked.record.length) and max(checked.score) >= checked.record.length,
    }


@needs_corpus
def test_the_sample_covers_every_kind_of_file():
    kinds = {r["kind"] for r in SAMPLE}
    assert kinds == {"Backgammon Studio", "Galaxy match", "Galaxy single game"}
    assert 50 <= len(SAMPLE) <= 90


@needs_corpus
@pytest.mark.parametrize("record", SAMPLE, ids=lambda r: r["rel"].split("/")[-1])
def test_corpus_file_is_valid_with_the_verified_counts_and_round_trips(record):
    text, checked = load(record)
    assert counts(checked) == {key: record[key] for key in counts(checked)}
    written = write_mat(checked)
    again = check_match(read_mat(written, "written.mat"))
    assert again.transcript() == checked.transcript()
    assert write_mat(again) == written


# ---------------------------------------------------------------- mutated real files
SMALL = [r for r in VERIFIED if r["gnubg_rolls"] < 60][:12]

_mutation = st.tuples(
    st.sampled_from(["delete", "duplicate", "swap", "char", "insert", "truncate", "bytes"]),
    st.integers(min_value=0, max_value=10 ** 6),
    st.integers(min_value=0, max_value=10 ** 6),
    st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x2FF), max_size=12),
    st.binary(max_size=12),
)


def _mutate(data: bytes, mutations) -> bytes:
    for kind, a, b, text, raw in mutations:
        lines = data.split(b"\n")
        i, j = a % len(lines), b % len(lines)
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[j])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "char" and lines[i]:
            k = b % len(lines[i])
            lines[i] = lines[i][:k] + text.encode("utf-8") + lines[i][k + 1:]
        elif kind == "insert":
            lines.insert(i, text.encode("utf-8"))
        elif kind == "truncate":
            return b"\n".join(lines)[: a % (len(data) + 1)]
        elif kind == "bytes":
            data = b"\n".join(lines)
            k = a % (len(data) + 1)
            return data[:k] + raw + data[k:]
        data = b"\n".join(lines)
    return data


@needs_corpus
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SMALL or [None]), st.lists(_mutation, min_size=1, max_size=4))
def test_mutated_real_files_give_a_line_or_pass_never_a_crash(record, mutations):
    data = _mutate((MATCHES / record["rel"]).read_bytes(), mutations)
    name = "mutated.mat"
    try:
        checked = validate(read_mat(decode(data, name), name))
    except RecordError as err:
        error = err
    else:
        error = checked.error
        if error is None:
            again = check_match(read_mat(write_mat(checked), "again.mat"))
            assert again.transcript() == checked.transcript()
            return
    lines = max(1, data.count(b"\n") + 1)
    assert str(error).startswith(f"{name}:{error.line}: ") and 1 <= error.line <= lines
    assert "\n" not in str(error)
