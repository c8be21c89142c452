"""``bgref legal``: every distinct legal play for a position and a roll."""

from __future__ import annotations

import argparse
import json
import sys

from engine.moves import check_dice, legal_plays
from engine.position import WHITE, Position, Variant


def register(subparsers) -> None:
    p = subparsers.add_parser("legal", help="list every distinct legal play for a Position ID and dice",
                              description="One line per distinct legal play: the play, a tab, the Position ID "
                                          "of the result from the mover's side. Nothing when no play is legal.")
    p.add_argument("position_id", nargs="?", help="GNU Backgammon Position ID, player on roll as gnubg writes it")
    p.add_argument("dice", nargs="*", type=_die, help="the two dice")
    p.add_argument("--variant", choices=[v.value for v in Variant], default="standard")
    p.add_argument("--json", action="store_true", help='print {"plays": [{"play", "position_id"}]}')
    p.add_argument("--batch", metavar="FILE",
                   help='JSON lines {"variant", "position_id", "dice"} in, one {"position_id", "dice", '
                        '"legal_after"} line out per line ("-" reads standard input)')
    p.set_defaults(func=run)


def _die(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 6:
        raise argparse.ArgumentTypeError(f"a die is a number from 1 to 6, not {text!r}")
    return int(text)


def plays_for(position_id: str, dice, variant: str) -> list[tuple[str, str]]:
    """``(play, resulting Position ID)`` for each distinct legal play; empty if none."""
    position = Position.from_position_id(position_id, WHITE, variant)
    plays = legal_plays(position, WHITE, check_dice(tuple(dice)))
    if len(plays) == 1 and not plays[0].play:
        return []
    return [(str(lp.play), lp.position.position_id(WHITE)) for lp in plays]


def run(args) -> int:
    if args.batch:
        return _batch(args.batch)
    if not args.position_id or len(args.dice) != 2:
        raise ValueError("give a Position ID and two dice, e.g. bgref legal 4HPwATDgc/ABMA 3 1")
    plays = plays_for(args.position_id, args.dice, args.variant)
    if args.json:
        print(json.dumps({"plays": [{"play": p, "position_id": i} for p, i in plays]}))
    else:
        for play, pid in plays:
            print(f"{play}\t{pid}")
    return 0


def _batch(path: str) -> int:
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                dice = case["dice"]
                ids = sorted(pid for _, pid in plays_for(case["position_id"], dice, case.get("variant", "standard")))
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path}:{number}: {err}") from None
            print(json.dumps({"position_id": case["position_id"], "dice": dice, "legal_after": ids}))
    return 0
