"""Make the cube network (``vision/models/cube.onnx`` and its card).

Usage: python -m training.cube [--tables 700] [--frames-per-table 4] [--epochs 20] [--out vision/models]

Patches are cut exactly as ``vision.cube.BoardCube`` cuts them, from rendered tables
drawn as for the dice network (``training.dice``: seeds from ``FIRST_SEED`` on, a third
of the frames with checkers of both sides on the bar, the cube at any face and side or
not in view): around the places along the bar the reader finds and around the cube
(shifted, turned and scaled a little), labelled with the cube's face when the cube's
middle is near the patch's and as no cube when it is far. The last tables are held out
to fit the temperature and to score the network. Training varies the patches with
quarter turns and mirrors (a canonical view may be the board's mirror image), the colour
channels swapped, light, contrast, blur and noise.
"""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np

from training.dice import _table_frames, arguments, augment, build, command, patch_set
from vision.cube import FACE_PX, FACES, PATCH, BoardCube
from vision.dice import frame_patches, net_input

FIRST_SEED = 22_000_000
NEAR, FAR = 0.45, 0.9          # a patch this near the cube's middle (face sides) shows it; this far, none


def cube_patches(seed: int, frames: int, rng: np.random.Generator) -> tuple[list, list]:
    """Patches and face labels (0 no cube, 1..6 for 2..64) of one rendered table."""
    patches, faces = [], []
    reader = None
    for frame, truth, board in _table_frames(seed, frames, bar=0.35):
        if reader is None:
            reader = BoardCube(board.model, board.to_frame)
        cube = None
        if truth.cube is not None:
            x, y, w, h = truth.cube.box
            cube = board.canonical((x + w / 2, y + h / 2))

        def label(p, angle=0.0, scale=1.0):
            d = 99.0 if cube is None else np.hypot(p[0] - cube[0], p[1] - cube[1]) / reader.side
            if d < NEAR:
                faces.append(1 + FACES.index(truth.cube.face))
            elif d > FAR:
                faces.append(0)
            else:
                return
            patches.append(frame_patches(frame, reader.to_frame, [p], reader.side, FACE_PX, [angle], [scale], PATCH)[0])

        for y in reader.candidates(board.view(frame)):
            label((reader.x, y))
        if cube is not None:
            for _ in range(3):
                r, t = 0.4 * reader.side * np.sqrt(rng.random()), rng.uniform(0, 2 * np.pi)
                label((cube[0] + r * np.cos(t), cube[1] + r * np.sin(t)), float(rng.normal(0, 6)),
                      float(rng.uniform(0.9, 1.1)))
        _, y0, _, y1 = reader.model.field
        for _ in range(2):
            label((reader.x + rng.normal(0, 0.1 * reader.side), rng.uniform(y0, y1)))
    return patches, faces


def make_data(tables: int, frames: int, held_out_tables: int, seed: int, log=print) -> dict:
    rng = np.random.default_rng(seed)
    xs, faces, held = [], [], []
    for t in range(tables + held_out_tables):
        p, f = cube_patches(FIRST_SEED + t, frames, rng)
        xs += p
        faces += f
        held += [t >= tables] * len(p)
        if (t + 1) % 50 == 0:
            log(f"tables: {t + 1}/{tables + held_out_tables}, {len(xs)} patches")
    return {"x": np.array(xs, np.uint8), "face": np.array(faces, np.int64), "held": np.array(held, bool)}


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, 700, 20).parse_args(argv)
    import torch
    from torch import nn

    from training.kit import export, fit_temperature, train
    from vision.nets import Output
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    data = patch_set(args, lambda: make_data(args.tables, args.frames_per_table, args.held_out_tables, args.seed))
    fit = ~data["held"]
    xs, face = data["x"][fit], torch.from_numpy(data["face"][fit])
    print(f"{len(xs)} training patches ({int((face > 0).sum())} cubes), {int(data['held'].sum())} held out")
    model = build({"face": 1 + len(FACES)})
    rng = np.random.default_rng(args.seed)
    loss = nn.CrossEntropyLoss()

    def step(idx):
        return loss(model(torch.from_numpy(net_input(list(augment(xs[idx], rng)[0]))))[0], face[idx])

    train(model, step, len(xs), args.epochs, batch=128, lr=3e-3, seed=args.seed)
    held = data["held"]
    with torch.no_grad():
        z = np.concatenate([model(torch.from_numpy(net_input(list(data["x"][held][i:i + 512]))))[0].numpy()
                            for i in range(0, int(held.sum()), 512)])
    t = fit_temperature(z, data["face"][held])
    p = np.exp(z / t - (z / t).max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    truth = data["face"][held]
    cube = 1 - p[:, 0] >= 0.5
    value = np.argmax(p[:, 1:], axis=1) + 1
    made = {"command": command("training.cube", args),
            "rendered": f"tables of seeds {FIRST_SEED}..{FIRST_SEED + args.tables - 1}, "
                        f"{args.frames_per_table} frames each; held out: the next {args.held_out_tables}",
            "input": f"BGR patch {PATCH}x{PATCH}, the cube's top face {FACE_PX:g} px wide in its middle "
                     "(vision.dice.net_input)",
            "faces": "0 no cube, then " + ", ".join(map(str, FACES)), "epochs": args.epochs, "seed": args.seed,
            "patches": {"training": int(fit.sum()), "held out": int(held.sum())},
            "held out": {"no cube read as a cube": round(float(cube[truth == 0].mean()), 4),
                         "cube missed": round(float((~cube[truth > 0]).mean()), 4),
                         "face wrong (cubes found)": round(float((value != truth)[(truth > 0) & cube].mean()), 4)}}
    print(json.dumps(made["held out"], indent=1))
    export(model, "cube", (3, PATCH, PATCH), [Output("face", "softmax", 1 + len(FACES), t)], made, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
