"""GNU Backgammon imports what bgref writes with the same plays, cube actions and results.

Runs only where GNU Backgammon is installed (Debian package ``gnubg``, which
puts it in /usr/games). bgref writes each match as .mat; gnubg imports it,
saves it as SGF and exports it as .mat again. gnubg's SGF must hold the same
moves, cube actions, scores, Crawford games and results as bgref's own SGF
export, and gnubg's .mat export must be bgref's file line for line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.records import check_match, read_mat, write_mat, write_sgf
from test_records_mat import MIXED

GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games:/usr/local/games")
MATCHES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "matches"

pytestmark = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (Debian package gnubg) is not installed")

def _corpus_sample() -> list[tuple[str, str]]:
    path = MATCHES / "verification.jsonl"
    if not path.is_file():
        return []
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    picks = [
        lambda r: r["kind"] == "Backgammon Studio",       # bar/off words, merged moves, repeats
        lambda r: bool(r["notes"]),                       # capped match-winning points
        lambda r: r["resigns"] > 0,                       # Losses lines
        lambda r: r["match_length"] == 1,
        lambda r: r["kind"] == "Galaxy single game",
        lambda r: r["post_crawford_games"] > 0,
        lambda r: r["backgammons"] > 0,
        lambda r: r["gnubg_games"] >= 8,
    ]
    chosen: dict[str, str] = {}
    for pick in picks:
        for record in [r for r in records if pick(r)][:3]:
            chosen[record["rel"]] = (MATCHES / record["rel"]).read_text(encoding="utf-8")
    return sorted(chosen.items())


def _games(sgf: str) -> list[dict]:
    """Per game: the root properties that describe the match and the list of moves."""
    games = []
    for tree in re.split(r"\)\s*\(", sgf.strip().strip("()")):
        root, *nodes = tree.split("\n;")
        props = dict(re.findall(r"(MI|RE|RU|PW|PB)((?:\[(?:[^\]\\]|\\.)*\])+)", root))
        moves = []
        for node in nodes:
            m = re.match(r"PL\[([WB])\]DI\[(\d\d)\]", node) or re.match(r"([WB])\[([^\]]*)\]", node)
            player, value = m.groups()
            if value[:2].isdigit():
                dice = "".join(sorted(value[:2], reverse=True))
                value = (dice, tuple(sorted(value[i:i + 2] for i in range(2, len(value), 2))))
            moves.append((player, value))
        games.append({"props": props, "moves": moves})
    return games


def _body(mat: str) -> list[str]:
    lines = mat.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().endswith("point match"))
    return lines[start:]


def test_gnubg_imports_bgref_files_as_written(tmp_path):
    sources = [("mixed.mat", MIXED)] + _corpus_sample()
    commands = []
    expected = []
    for index, (name, text) in enumerate(sources):
        checked = check_match(read_mat(text, name))
        (tmp_path / f"{index}.mat").write_text(write_mat(checked), encoding="utf-8")
        expected.append((name, write_mat(checked), write_sgf(checked)))
        commands += [f"import mat {index}.mat", f"save match {index}.sgf", f"export match mat {index}.out.mat"]
    run = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    complaints = [line for line in (run.stdout + run.stderr).splitlines()
                  if re.search(r"warning|invalid|unrecognised|illegal|error", line, re.IGNORECASE)]
    assert not complaints
    for index, (name, mat, sgf) in enumerate(expected):
        theirs = _games((tmp_path / f"{index}.sgf").read_text(encoding="utf-8"))
        ours = _games(sgf)
        assert len(theirs) == len(ours), name
        for number, (their_game, our_game) in enumerate(zip(theirs, ours), start=1):
            assert their_game["props"] == our_game["props"], f"{name} game {number}"
            assert their_game["moves"] == our_game["moves"], f"{name} game {number}"
        assert _body((tmp_path / f"{index}.out.mat").read_text(encoding="utf-8")) == _body(mat), name
