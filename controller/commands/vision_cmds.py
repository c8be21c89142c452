"""``bgref calibrate``, ``bgref read`` and ``bgref dice``: vision from the command line.

- ``bgref calibrate IMAGE --out CAL.json [--source SPEC] [--position ID] [--white light|dark]``:
  without ``--position``, the opening or else the position photo import reads in the frame
- ``bgref read IMAGE --calibration CAL.json [--json] [--annotate OUT.png]``
- ``bgref read IMAGE [--white light|dark] [--home CORNER] [--json] [--annotate OUT.png]``:
  with no calibration, photo import (``vision.photo``) of any photo of a board
- ``bgref dice IMAGE [--json]``

Bad input (an unreadable or empty file, a black or overexposed frame, a frame that does
not show the calibrated board) is an error or a not-settled observation, never a guess.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from engine.position import WHITE, Position
from vision.calibration import Calibration, calibrate, calibrate_any
from vision.dice import find_dice
from vision.observation import Observation
from vision.photo import HOMES, import_photo
from vision.reader import BoardReader


def register(subparsers) -> None:
    p = subparsers.add_parser("calibrate", help="find the board in a frame and save it")
    p.add_argument("image", nargs="?", help="a frame of the board (any position; --position says which)")
    p.add_argument("--out", required=True, help="where to write the calibration (JSON)")
    p.add_argument("--source", help="take the frame from a camera instead (e.g. 0, picamera2, sim:)")
    p.add_argument("--position", help="Position ID (White on roll) of the checkers in the frame")
    p.add_argument("--white", choices=["light", "dark"], default="light",
                   help="which checkers are White when the layout cannot tell (default light)")
    p.set_defaults(func=run_calibrate)

    p = subparsers.add_parser("read", help="read the checkers, dice and cube in one frame")
    p.add_argument("image")
    p.add_argument("--calibration", help="calibration file from 'bgref calibrate' (without: photo import)")
    p.add_argument("--json", action="store_true", help="print the observation as JSON")
    p.add_argument("--annotate", metavar="OUT.png", help="draw what was read onto the frame")
    p.add_argument("--white", choices=["light", "dark"], help="photo import: which checkers are White")
    p.add_argument("--home", choices=HOMES, help="photo import: the photo's corner with White's home board")
    p.set_defaults(func=run_read)

    p = subparsers.add_parser("dice", help="find and read dice anywhere in an image")
    p.add_argument("image")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_dice)


def load_image(path: str) -> np.ndarray:
    """A colour image from ``path``; OSError/ValueError naming the file when it cannot be used."""
    file = Path(path)
    if not file.is_file():
        raise OSError(f"{path}: no such image file")
    if file.stat().st_size == 0:
        raise ValueError(f"{path}: the file is empty")
    image = cv2.imread(str(file), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not an image OpenCV can read")
    return image


def _frame_from_source(spec: str) -> np.ndarray:
    from hardware.camera import as_bgr, open_source

    source = open_source(spec)
    try:
        ok, frame = source.read()
    finally:
        source.release()
    if not ok or frame is None:
        raise OSError(f"camera {spec!r} gave no frame")
    return as_bgr(frame, spec)


def run_calibrate(args) -> int:
    if (args.image is None) == (args.source is None):
        raise ValueError("give either an IMAGE or --source, not both or neither")
    frame = _frame_from_source(args.source) if args.source else load_image(args.image)
    if args.position:
        cal = calibrate(frame, Position.from_position_id(args.position, WHITE), white=args.white)
        found = ""
    else:
        cal, position = calibrate_any(frame, white=args.white)
        found = "" if position == Position.initial() else (
            f"\nthe frame is not the opening: calibrated on the position read in it, {position.position_id(WHITE)}, "
            f"{args.white} checkers White (give --position or --white if that is not so)")
    cal.save(args.out)
    print(f"calibrated: board at {np.round(cal.case_corners).astype(int).tolist()}, written to {args.out}{found}")
    return 0


def run_read(args) -> int:
    frame = load_image(args.image)
    if args.calibration is None:
        return _import_photo(frame, args)
    cal = Calibration.load(args.calibration)
    obs = BoardReader(cal).read(frame)
    if args.annotate:
        if not cv2.imwrite(args.annotate, annotate(frame, cal, obs)):
            raise OSError(f"{args.annotate}: could not write the annotated image")
    if args.json:
        print(json.dumps(obs.to_json()))
    else:
        print(describe(obs))
    return 0


def _import_photo(frame: np.ndarray, args) -> int:
    """``bgref read`` without a calibration: read the position in a photo of any board."""
    read = import_photo(frame, white=args.white, home=args.home)
    if args.annotate and not cv2.imwrite(args.annotate, read.annotated(frame)):
        raise OSError(f"{args.annotate}: could not write the annotated image")
    print(json.dumps(read.to_json()) if args.json else read.describe())
    return 0


def run_dice(args) -> int:
    dice = find_dice(load_image(args.image))
    if args.json:
        print(json.dumps([d.to_json() for d in dice]))
    else:
        for d in dice:
            print(f"{d.value} at {list(d.box)}{'' if d.flat else ' (cocked)'} confidence {d.confidence:.2f}")
        if not dice:
            print("no dice found")
    return 0


def describe(obs: Observation) -> str:
    """The observation as a few lines of text."""
    if not obs.board_visible:
        return "board not visible" + (" (camera moved: calibrate again)" if obs.camera_moved else "")
    lines = [f"settled: {'yes' if obs.settled else 'no'}"
             + (" (hand over the board)" if obs.occlusion.hand else "")
             + (" (motion)" if obs.occlusion.motion else "")]
    cells = []
    for p in obs.points:
        if p.occluded:
            cells.append(f"{p.point}:?")
        elif p.color:
            amount = str(p.count) if p.certain else f"{p.count_range[0]}-{p.count_range[1]}"
            cells.append(f"{p.point}:{'W' if p.color == 'white' else 'B'}{amount}")
    lines.append("points " + " ".join(cells))
    lines.append(f"bar W{obs.bar['white']} B{obs.bar['black']}  off W{obs.off['white']} B{obs.off['black']}")
    lines.append("dice " + (", ".join(f"{d.value} ({d.half or 'off board'}{'' if d.flat else ', cocked'})"
                                      for d in obs.dice) or "none"))
    position = obs.to_position()
    lines.append(f"position {position.position_id(WHITE) if position else 'uncertain'}")
    return "\n".join(lines)


def annotate(frame: np.ndarray, cal: Calibration, obs: Observation) -> np.ndarray:
    """The frame with the board outline, each point's read count and the dice drawn on it."""
    out = frame.copy()
    cv2.polylines(out, [np.round(cal.case_corners).astype(np.int32)], True, (0, 255, 0), 2)
    if not obs.board_visible:
        cv2.putText(out, "BOARD NOT VISIBLE", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
        return out
    model = cal.model
    for p in obs.points:
        x, y = cal.to_frame(model.slots[p.point - 1, 2:3])[0]
        text = "?" if p.occluded else (f"{'W' if p.color == 'white' else 'B'}{p.count}" if p.color else "")
        if not p.certain and not p.occluded and p.color:
            text += "+"
        colour = (0, 0, 255) if p.occluded or p.confidence < 0.5 else (0, 255, 255)
        cv2.putText(out, text, (int(x) - 10, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 2)
    for d in obs.dice:
        x, y, w, h = d.box
        cv2.rectangle(out, (x, y), (x + w, y + h), (255, 0, 255), 2)
        cv2.putText(out, str(d.value), (x, y - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
    status = "settled" if obs.settled else "NOT SETTLED"
    cv2.putText(out, status, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 255, 0) if obs.settled else (0, 0, 255), 2)
    return out
