"""Training the checker network on scenes drawn by ``training.checkers``, and its export.

Examples are regions (a point, a bar half, a tray) of the drawn frames, empty ones
drawn less often and piles more often; a strip is flipped across at random and, at
random, read with the sides' colours exchanged (its counts then belong to the other
side). Scenes are held out whole: the temperature and the scores on the card come
from scenes the network never saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from training.kit import export, fit_temperature, train
from vision.checkers import CLASSES, EXCHANGED
from vision.nets import Output
from vision.strips import CHANNELS, REGIONS, SIDE, STRIP_LENGTH, STRIP_WIDTH, features

NAME = "checkers"


def _block(cin: int, cout: int, stride: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class CheckerNet(nn.Module):
    """Strip in, scores out: a count class (0 empty, 1..15 White's, 16..30 Black's) and
    whether a hand covers the region."""

    def __init__(self) -> None:
        super().__init__()
        self.folded = False
        self.body = nn.Sequential(*_block(CHANNELS, 12, 1), *_block(12, 16, 2), *_block(16, 24, 2),
                                  *_block(24, 32, 1), *_block(32, 48, 2), nn.Flatten())
        flat = 48 * (STRIP_LENGTH // 8) * (STRIP_WIDTH // 8)
        self.hidden = nn.Sequential(nn.Linear(flat, 96), nn.ReLU(), nn.Dropout(0.1))
        self.counts = nn.Linear(96, CLASSES)
        self.covered = nn.Linear(96, 1)

    def forward(self, x):
        h = self.hidden(self.body(x))
        return self.counts(h), self.covered(h)

    def train(self, mode: bool = True) -> CheckerNet:
        """As ``nn.Module.train``, but norms loaded folded (``load_exported``) keep their
        fixed statistics: they learn only their scale and shift."""
        super().train(mode)
        if self.folded:
            for m in self.body:
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        return self

    def load_exported(self, path: Path) -> None:
        """The weights of an exported network (``NAME.onnx``), whose convolutions carry their
        batch norms folded in: each norm becomes the convolution's bias (statistics 0 and 1)."""
        import onnx
        from onnx import numpy_helper

        graph = onnx.load(str(path)).graph
        weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
        convs = [n for n in graph.node if n.op_type == "Conv"]
        layers = [m for m in self.body if isinstance(m, nn.Conv2d)]
        norms = [m for m in self.body if isinstance(m, nn.BatchNorm2d)]
        if len(convs) != len(layers):
            raise ValueError(f"{path}: {len(convs)} convolutions, the checker network has {len(layers)}")
        state = {k: weights[k] for k in self.state_dict() if k in weights}
        self.load_state_dict(state, strict=False)
        with torch.no_grad():
            for node, conv, norm in zip(convs, layers, norms):
                conv.weight.copy_(weights[node.input[1]])
                norm.weight.fill_(1.0)
                norm.bias.copy_(weights[node.input[2]])
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
        self.folded = True


class Scenes:
    """Every drawn frame's strips (in Lab) with their scene's empty board and side colours."""

    def __init__(self, folders: list[Path]) -> None:
        paths = [p for folder in folders for p in sorted(folder.glob("scene-*.npz"))
                 if not p.name.endswith(".tmp.npz")]
        frames = [len(np.load(p)["classes"]) for p in paths]
        regions = len(REGIONS)
        # filled in place: the strips of a few thousand scenes take most of the memory
        self.strips = np.empty((sum(frames), regions, STRIP_LENGTH, STRIP_WIDTH, 3), np.uint8)
        self.classes = np.empty((sum(frames), regions), np.int64)
        self.covered = np.empty((sum(frames), regions), bool)
        self.scene_of = np.repeat(np.arange(len(paths)), frames)
        self.empties = np.empty((len(paths), regions, STRIP_LENGTH, STRIP_WIDTH, 3), np.float32)
        self.sides = np.empty((len(paths), 2, 3), np.float32)
        self.seeds = np.empty(len(paths), np.int64)
        at = 0
        for k, (path, n) in enumerate(zip(paths, frames)):
            d = np.load(path)
            for i, f in enumerate(d["strips"]):
                self.strips[at + i] = cv2.cvtColor(f, cv2.COLOR_BGR2LAB).reshape(regions, STRIP_LENGTH, STRIP_WIDTH, 3)
            self.classes[at:at + n] = d["classes"]
            self.covered[at:at + n] = d["covered"]
            self.empties[k] = d["empty"].astype(np.float32).reshape(regions, STRIP_LENGTH, STRIP_WIDTH, 3)
            self.sides[k] = d["sides"]
            self.seeds[k] = int(d["seed"])
            at += n

    def inputs(self, frames: np.ndarray, regions: np.ndarray, swap: np.ndarray | None = None,
               flip: np.ndarray | None = None) -> np.ndarray:
        """Network inputs for (frame, region) pairs, optionally with sides exchanged or flipped."""
        scenes = self.scene_of[frames]
        out = features(self.strips[frames, regions], self.empties[scenes, regions], self.sides[scenes])
        if swap is not None:
            out[swap, SIDE] *= -1.0
        if flip is not None:
            out[flip] = out[flip, :, :, ::-1]
        return out

    def labels(self, frames: np.ndarray, regions: np.ndarray, swap: np.ndarray | None = None):
        c = self.classes[frames, regions].copy()
        if swap is not None:
            c[swap] = EXCHANGED[c[swap]]
        return c, self.covered[frames, regions]


def _weights(classes: np.ndarray, covered: np.ndarray) -> np.ndarray:
    count = np.where(classes > 15, classes - 15, classes)
    w = np.where(count == 0, 0.3, np.where(count > 5, 3.0, 1.0))
    return np.where(covered, 1.0, w)


def evaluate(net: nn.Module, data: Scenes, frames: np.ndarray, batch: int = 512):
    """Scores (count logits, covered logits) of every region of ``frames``."""
    pairs = np.array([(f, r) for f in frames for r in range(len(REGIONS))])
    counts, covered = [], []
    with torch.no_grad():
        for i in range(0, len(pairs), batch):
            p = pairs[i:i + batch]
            c, v = net(torch.from_numpy(data.inputs(p[:, 0], p[:, 1])))
            counts.append(c.numpy())
            covered.append(v.numpy()[:, 0])
    return pairs, np.concatenate(counts), np.concatenate(covered)


def _score(net: nn.Module, data: Scenes, frames: np.ndarray) -> tuple[dict, float, float]:
    """How often the network reads the held-out ``frames`` right, and the temperatures
    that make its two heads' scores probabilities there."""
    pairs_t, counts, covered = evaluate(net, data, frames)
    truth = data.classes[pairs_t[:, 0], pairs_t[:, 1]]
    hidden = data.covered[pairs_t[:, 0], pairs_t[:, 1]]
    known = ~hidden
    t_counts = fit_temperature(counts[known], truth[known])
    t_covered = fit_temperature(covered, hidden.astype(np.float64), sigmoid=True)
    read = counts.argmax(axis=1)
    right = read == truth
    report = {"regions held out": int(known.sum()),
              "count right (no hand)": round(float(right[known].mean()), 5),
              "points right": round(float(right[known & (pairs_t[:, 1] < 24)].mean()), 5),
              "bar right": round(float(right[known & np.isin(pairs_t[:, 1], [24, 25])].mean()), 5),
              "trays right": round(float(right[known & (pairs_t[:, 1] >= 26)].mean()), 5),
              "piles right (6+)": round(float(right[known & (np.where(truth > 15, truth - 15, truth) > 5)].mean()), 5),
              "covered found": round(float((covered[hidden] > 0).mean()), 5) if hidden.any() else None,
              "covered false": round(float((covered[~hidden] > 0).mean()), 5)}
    return report, t_counts, t_covered


def fit(folders: list[Path], epochs: int, held_out: float, threads: int, seed: int = 0,
        start: Path | None = None, lr: float = 3e-3, share: float = 1.0) -> None:
    """Train (from ``start``'s weights if given; each epoch draws ``share`` of the weighted
    region count), score on the highest-seed scenes, export."""
    torch.set_num_threads(threads)
    data = Scenes(folders)
    scenes = len(data.seeds)
    test_scenes = np.argsort(data.seeds)[scenes - max(int(held_out * scenes), 1):]
    is_test = np.isin(data.scene_of, test_scenes)
    train_frames = np.flatnonzero(~is_test)
    test_frames = np.flatnonzero(is_test)
    print(f"{scenes} scenes, {len(data.classes)} frames ({len(train_frames)} to train on, {len(test_frames)} held out)")
    pairs = np.array([(f, r) for f in train_frames for r in range(len(REGIONS))])
    w = _weights(data.classes[pairs[:, 0], pairs[:, 1]], data.covered[pairs[:, 0], pairs[:, 1]])
    per_epoch = int(w.sum() * share)
    net = CheckerNet()
    history = None if start is None else start.name
    if start is not None and start.suffix == ".onnx":
        net.load_exported(start)
        card = start.with_suffix(".json")
        history = json.loads(card.read_text())["made"] if card.exists() else history
    elif start is not None:
        net.load_state_dict(torch.load(start))
    net = net.to(memory_format=torch.channels_last)
    counts_loss = nn.CrossEntropyLoss(reduction="none")
    covered_loss = nn.BCEWithLogitsLoss()
    draw = np.random.default_rng(seed + 1)
    p = w / w.sum()

    def step(idx: np.ndarray) -> torch.Tensor:
        chosen = pairs[draw.choice(len(pairs), size=len(idx), p=p)]
        swap = draw.random(len(chosen)) < 0.5
        flip = draw.random(len(chosen)) < 0.5
        x = torch.from_numpy(data.inputs(chosen[:, 0], chosen[:, 1], swap, flip))
        c, v = data.labels(chosen[:, 0], chosen[:, 1], swap)
        c, v = torch.from_numpy(c), torch.from_numpy(v.astype(np.float32))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            counts, covered = net(x.contiguous(memory_format=torch.channels_last))
        counts, covered = counts.float(), covered.float()
        known = 1.0 - v
        loss = (counts_loss(counts, c) * known).sum() / known.sum().clamp(min=1.0)
        return loss + 0.5 * covered_loss(covered[:, 0], v)

    before = None if start is None else _score(net.eval(), data, test_frames)[0]
    if before is not None:
        print("before:", before)
    train(net, step, per_epoch, epochs, batch=256, lr=lr, seed=seed)
    report, t_counts, t_covered = _score(net, data, test_frames)
    print(report)
    export(net, NAME, (CHANNELS, STRIP_LENGTH, STRIP_WIDTH),
           [Output("counts", "softmax", CLASSES, t_counts), Output("covered", "sigmoid", 1, t_covered)],
           {"command": " ".join(["python -m training.checkers fit", *map(str, folders), f"--epochs {epochs} --lr {lr}",
                                 f"--share {share}", *([f"--start {start}"] if start else [])]),
            "scene seeds": [int(data.seeds.min()), int(data.seeds.max())], "frames": int(len(data.classes)),
            "epochs": epochs, "trained further from": history, "held out before": before,
            "held out": report})
    torch.save(net.state_dict(), folders[0].parent / f"{NAME}.pt")
