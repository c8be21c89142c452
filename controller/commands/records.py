"""``bgref check`` and ``bgref convert``: validate match records and convert them.

``bgref check FILE... [--json] [--variant V]`` replays every file with the
engine. It prints nothing for a valid file and ``FILE:LINE: reason`` for the
first problem of each invalid one; the exit status is 0 when every file is
valid and 1 otherwise. With ``--json`` it prints one JSON object per file::

    {"file", "valid", "games", "turns", "doubles", "takes", "drops",
     "results": [[winner, points], ...], "final_score": [a, b], "errors": [...]}

where winner 0 is the left player of the file and 1 the right one, points
are full game values (cube x single/gammon/backgammon, as GNU Backgammon
records them) and the counts cover the games accepted before any problem.

``bgref convert IN OUT [--to mat|sgf]`` writes a valid record in GNU
Backgammon's own ``.mat`` dialect or as GNU Backgammon SGF (chosen from
OUT's extension when ``--to`` is not given; ``-`` is standard output).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.position import Variant
from engine.records import Action, CheckedMatch, RecordError, check_match, read_mat, validate, write_mat, write_sgf


def register(subparsers) -> None:
    variants = [v.value for v in Variant]
    check = subparsers.add_parser(
        "check", help="validate every roll, play, cube action and result of .mat match files",
        description="Replay each match with the rules engine. Prints FILE:LINE: reason for the first problem "
                    "of each invalid file; exit status 0 when all files are valid, 1 otherwise.")
    check.add_argument("files", nargs="+", metavar="FILE", help=".mat (or .txt) match record")
    check.add_argument("--json", action="store_true", help="print one JSON object per file")
    check.add_argument("--variant", choices=variants, help="variant to play (default: the file's Variation header, "
                                                           "else standard)")
    check.set_defaults(func=run_check)

    convert = subparsers.add_parser(
        "convert", help="write a valid .mat record as GNU Backgammon .mat or SGF",
        description="Read and validate IN, then write it in GNU Backgammon's .mat dialect or its SGF format.")
    convert.add_argument("input", metavar="IN", help=".mat (or .txt) match record")
    convert.add_argument("output", metavar="OUT", help="file to write, '-' for standard output")
    convert.add_argument("--to", choices=["mat", "sgf"], help="output format (default: from OUT's extension)")
    convert.add_argument("--variant", choices=variants, help="variant to play (default: from the file)")
    convert.set_defaults(func=run_convert)


def decode(data: bytes, source: str) -> str:
    """Text of a record: UTF-8, else Latin-1; a NUL byte means binary data (refused at its line)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise RecordError(source, data.count(b"\n", 0, nul) + 1, "binary data (a NUL byte): not a .mat text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def load(path: str, variant: str | None) -> CheckedMatch:
    """Read and replay one file; raises :class:`RecordError` if it cannot be read at all."""
    return validate(read_mat(decode(Path(path).read_bytes(), path), path, variant))


def summary(path: str, checked: CheckedMatch | None, error: str | None) -> dict:
    """The ``--json`` object of one file."""
    if checked is None:
        return {"file": path, "valid": False, "games": 0, "turns": 0, "doubles": 0, "takes": 0, "drops": 0,
                "results": [], "final_score": [0, 0], "errors": [error]}
    return {
        "file": path, "valid": checked.valid, "games": len(checked.games), "turns": checked.turns,
        "doubles": checked.count(Action.DOUBLE), "takes": checked.count(Action.TAKE),
        "drops": checked.count(Action.DROP),
        "results": [[int(winner), points] for winner, points in checked.results],
        "final_score": list(checked.score), "errors": [] if checked.valid else [str(checked.error)],
    }


def run_check(args) -> int:
    status = 0
    for path in args.files:
        checked, error = None, None
        try:
            checked = load(path, args.variant)
            if checked.error is not None:
                error = str(checked.error)
        except RecordError as err:
            error = str(err)
        except OSError as err:
            error = f"{path}: cannot read the file: {err.strerror or err}"
        if error is not None:
            status = 1
        if args.json:
            print(json.dumps(summary(path, checked, error)))
        elif error is not None:
            print(error)
    return status


def run_convert(args) -> int:
    target = args.to or ("sgf" if args.output.lower().endswith(".sgf") else "mat")
    checked = check_match(read_mat(decode(Path(args.input).read_bytes(), args.input), args.input, args.variant))
    text = write_sgf(checked) if target == "sgf" else write_mat(checked)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8", newline="\n")
    return 0
