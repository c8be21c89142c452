"""``bgref legal`` and ``bgref show``: the command-line contract."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_legal_lists_plays_with_resulting_ids(capsys):
    code, out, _ = run(capsys, "legal", "4HPwATDgc/ABMA", "3", "1")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 16
    assert "8/5 6/5\t4HPwATCwZ/ABMA" in lines


def test_legal_json_and_hyper(capsys):
    code, out, _ = run(capsys, "legal", "AACgAgAAKgAAAA", "2", "1", "--variant", "hyper", "--json")
    plays = json.loads(out)["plays"]
    assert code == 0 and plays and all(set(p) == {"play", "position_id"} for p in plays)


def test_legal_prints_nothing_when_no_play_is_legal(capsys, shared_data):
    case = next(c for c in map(json.loads, (shared_data / "legal" / "legal_standard.jsonl").open())
                if not c["legal_after"])
    code, out, _ = run(capsys, "legal", case["position_id"], *map(str, case["dice"]))
    assert code == 0 and out == ""


def test_legal_batch_matches_the_reference(capsys, shared_data, tmp_path):
    cases = [json.loads(line) for line in (shared_data / "legal" / "legal_hyper.jsonl").open()][:50]
    batch = tmp_path / "cases.jsonl"
    batch.write_text("".join(json.dumps({k: c[k] for k in ("variant", "position_id", "dice")}) + "\n" for c in cases))
    code, out, _ = run(capsys, "legal", "--batch", str(batch))
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [a["legal_after"] for a in answers] == [c["legal_after"] for c in cases]


@pytest.mark.parametrize("argv, words", [
    (["legal", "notanid", "3", "1"], "not a Position ID"),
    (["legal", "4HPwATDgc/ABMA", "3"], "two dice"),
    (["show", "XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10"], "character"),
    (["show", "abc"], "neither"),
])
def test_bad_input_is_one_clear_line(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code != 0 and words in err and len(err.strip().splitlines()) == 1


def test_die_outside_one_to_six_is_refused():
    result = subprocess.run([sys.executable, "-m", "controller.cli", "legal", "4HPwATDgc/ABMA", "3", "9"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "from 1 to 6" in result.stderr and "Traceback" not in result.stderr


def test_show_prints_the_board_of_each_kind_of_id(capsys):
    code, out, _ = run(capsys, "show", "4HPwATDgc/ABMA:cAkbAAAAAAAA")
    assert code == 0 and "black on roll" in out and "dice 66" in out
    code, out, _ = run(capsys, "show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    assert code == 0 and "pips 167" in out
