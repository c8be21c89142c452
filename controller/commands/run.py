"""``bgref run``: the referee service at a table, or at the simulated table."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from controller.config import Config, load
from controller.table import DEMO_MATCH, real_table, simulated_table


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run the referee at the table (the simulated table with --sim or when none is configured)",
        description="Runs the referee service: camera, vision, referee, LEDs, display unit and match files. "
                    "Without --config, or with --sim, it runs the simulated table playing a real recorded "
                    "match and shows in the terminal the board as read, the signals, the LEDs and the display.")
    p.add_argument("--config", metavar="FILE", help="TOML configuration (see controller/config.py)")
    p.add_argument("--sim", action="store_true", help="run the simulated table even if devices are configured")
    p.add_argument("--match", metavar="FILE", default=str(DEMO_MATCH), help="the match the simulated players play")
    p.add_argument("--speed", type=float, default=1.0, help="simulated table: times real time (default 1)")
    p.add_argument("--seed", type=int, default=0, help="simulated table: camera, board and players")
    p.add_argument("--style", default="classic", help="simulated table: board style")
    p.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until the end)")
    p.add_argument("--verbose", action="store_true", help="log the service's warnings")
    p.set_defaults(func=run)


def run(args) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR, format="%(name)s: %(message)s")
    if args.config:
        config = load(args.config)
    else:
        work = Path(tempfile.mkdtemp(prefix="bgref-sim-"))
        config = Config(journal_dir=work / "journal", record_dir=work / "matches")
    simulated = args.sim or not args.config
    table = (simulated_table(config, Path(args.match), seed=args.seed, speed=args.speed, style=args.style)
             if simulated else real_table(config))
    service = table.service
    try:
        service.start()
        while table.running() and (not args.frames or service.frames < args.frames):
            service.step()
    except KeyboardInterrupt:
        pass
    finally:
        table.close()
    where = Path(config.record_dir)
    print(f"\n{service.frames} frames; the match is recorded in {where}")
    stopped = getattr(table, "stopped", lambda: None)()
    if stopped:
        print(f"the simulated table stopped: {stopped}")
        return 1
    return 0
