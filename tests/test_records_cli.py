"""``bgref check`` and ``bgref convert``: the stable command contract."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from engine.records import check_match, read_mat
from test_records_mat import MIXED as VALID

ILLEGAL = VALID.replace("  2) 64: 13/7 24/20", "  2) 64: 13/7 21/17")


REASON = "9: game 1, move 2, 64: 13/7 21/17 is illegal: there is no checker on point 21"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("valid.mat", VALID), ("illegal.mat", ILLEGAL)):
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")
    paths["binary.mat"] = tmp_path / "binary.mat"
    paths["binary.mat"].write_bytes(b"3 point match\n\x89PNG\x00\x1a\n")
    paths["latin1.mat"] = tmp_path / "latin1.mat"
    paths["latin1.mat"].write_bytes(VALID.replace("alice", "J\xfcrgen").encode("latin-1"))
    return paths


def test_check_is_silent_and_exits_0_for_valid_files(files, capsys):
    assert main(["check", str(files["valid.mat"]), str(files["latin1.mat"])]) == 0
    assert capsys.readouterr().out == ""


def test_check_prints_file_line_reason_and_exits_1(files, capsys):
    path = files["illegal.mat"]
    assert main(["check", str(files["valid.mat"]), str(path)]) == 1
    assert capsys.readouterr().out == f"{path}:{REASON}\n"


def test_check_reports_unreadable_files_per_file(files, capsys):
    missing = files["valid.mat"].with_name("missing.mat")
    assert main(["check", str(files["binary.mat"]), str(missing), str(files["valid.mat"])]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{files['binary.mat']}:2: binary data (a NUL byte): not a .mat text file",
                   f"{missing}: cannot read the file: No such file or directory"]


def test_check_json_gives_one_object_per_file(files, capsys):
    assert main(["check", "--json", str(files["valid.mat"]), str(files["illegal.mat"])]) == 1
    valid, illegal = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert valid == {"file": str(files["valid.mat"]), "valid": True, "games": 3, "turns": 10, "doubles": 3,
                     "takes": 1, "drops": 2, "results": [[1, 2], [0, 1], [1, 1]], "final_score": [1, 3],
                     "errors": []}
    assert illegal["valid"] is False and illegal["games"] == 0 and illegal["final_score"] == [0, 0]
    assert illegal["errors"] == [f"{files['illegal.mat']}:{REASON}"]


def test_check_variant_overrides_the_file(files, capsys):
    assert main(["check", "--variant", "hyper", str(files["valid.mat"])]) == 1
    assert ":8: game 1, move 1, 31: 8/5 6/5 is illegal: there is no checker on point 8" in capsys.readouterr().out


@pytest.mark.parametrize("out_name, option, start", [
    ("copy.mat", [], '; [Site "Kitchen table"]\n; [EventDate "2024.08.06"]\n\n 3 point match\n'),
    ("copy.sgf", [], "(;FF[4]GM[6]CA[UTF-8]AP[bgref]MI[length:3][game:0][ws:0][bs:0]PW[alice]PB[bob]"),
    ("copy.txt", ["--to", "sgf"], "(;FF[4]GM[6]"),
])
def test_convert_writes_mat_or_sgf(files, tmp_path, out_name, option, start):
    out = tmp_path / out_name
    assert main(["convert", str(files["valid.mat"]), str(out), *option]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith(start)
    if out_name.endswith(".mat"):
        assert check_match(read_mat(text)).transcript() == check_match(read_mat(VALID)).transcript()


def test_convert_to_standard_output(files, capsys):
    assert main(["convert", str(files["valid.mat"]), "-"]) == 0
    assert "  2) 64: 24/20 13/7*             66: \n" in capsys.readouterr().out


def test_convert_refuses_an_invalid_record_in_one_line(files, tmp_path, capsys):
    assert main(["convert", str(files["illegal.mat"]), str(tmp_path / "x.mat")]) == 2
    assert capsys.readouterr().err == f"bgref convert: {files['illegal.mat']}:{REASON}\n"
    assert not (tmp_path / "x.mat").exists()
