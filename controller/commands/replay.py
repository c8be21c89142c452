"""``bgref replay``: a recorded match played at the simulated table, through vision and the referee."""

from __future__ import annotations

import json
import sys

from controller.replay import replay


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="play a recorded match at the simulated table and record what the referee saw",
        description="The simulated players play MATCH_FILE in front of the simulated camera; vision reads "
                    "every frame, the referee judges and the recorder writes OUT (and OUT's .sgf). OUT must "
                    "record the same match. Exit 0 when it does, 1 when it does not.")
    p.add_argument("match_file", help="a .mat match file")
    p.add_argument("--out", required=True, help="the .mat file to record to")
    p.add_argument("--seed", type=int, default=0, help="camera, board, light and players (default 0)")
    p.add_argument("--journal", metavar="DIR", help="keep the journal here: a killed replay resumes when run again")
    p.add_argument("--mistakes", type=float, default=0.0, metavar="RATE",
                   help="chance per turn that a player makes an illegal move or a bad roll (default 0)")
    p.add_argument("--style", default="classic", help="board style of the simulated table")
    p.add_argument("--size", default="1280x720", help="camera frame size WxH (default 1280x720)")
    p.add_argument("--difficulty", type=float, default=0.3, help="camera and light conditions, 0 clean .. 1 hard")
    p.add_argument("--json", action="store_true", help='end with {"turns", "injected", "caught", '
                                                       '"false_alarms", "seconds"}')
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must be WIDTHxHEIGHT, not {args.size!r}") from None
    result = replay(args.match_file, args.out, seed=args.seed, journal_dir=args.journal, mistakes=args.mistakes,
                    size=(width, height), difficulty=args.difficulty, style=args.style)
    t = result.tally
    print(f"{t.turns} turns, {result.frames} frames in {result.seconds:.1f} s; mistakes injected {t.injected}, "
          f"caught {t.caught} ({t.accepted} accepted, then taken back), missed {t.missed}; "
          f"false alarms {t.false_alarms}; plays the players picked on MENU {t.picked}")
    if result.same_match:
        print(f"{args.out} records the same match")
    else:
        print(f"{args.out} differs from {args.match_file}:", file=sys.stderr)
        for line in result.differences:
            print(f"  {line}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.summary()))
    return 0 if result.same_match else 1
