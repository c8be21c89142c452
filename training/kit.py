"""What every network's training shares: batches, the training loop, the temperature
that makes scores honest probabilities, and the export to ``vision/models``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import torch
from torch import nn

from vision.nets import MODELS, Card, Output


def batches(n: int, size: int, rng: np.random.Generator | None = None) -> Iterator[np.ndarray]:
    """Indices 0..n-1 in batches of ``size``, shuffled when ``rng`` is given."""
    order = rng.permutation(n) if rng is not None else np.arange(n)
    for i in range(0, n, size):
        yield order[i:i + size]


def train(model: nn.Module, step: Callable[[np.ndarray], torch.Tensor], n: int, epochs: int,
          batch: int = 128, lr: float = 3e-3, seed: int = 0, log: Callable[[str], None] = print) -> None:
    """Adam with a cosine schedule over ``epochs`` passes of ``n`` examples; ``step(indices)``
    returns the batch's loss."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((n + batch - 1) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.15)
    for epoch in range(epochs):
        model.train()
        t0, total, count = time.time(), 0.0, 0
        for idx in batches(n, batch, rng):
            loss = step(idx)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / max(count, 1):.4f} ({time.time() - t0:.0f} s)")
    model.eval()


def fit_temperature(logits: np.ndarray, labels: np.ndarray, sigmoid: bool = False) -> float:
    """The temperature that minimises the negative log-likelihood of ``labels`` under
    ``logits / T`` (held-out data): scores become probabilities that mean what they say."""
    z = torch.tensor(np.asarray(logits, np.float64))
    y = torch.tensor(np.asarray(labels))
    best, best_t = None, 1.0
    for t in np.exp(np.linspace(np.log(0.3), np.log(10.0), 200)):
        if sigmoid:
            nll = nn.functional.binary_cross_entropy_with_logits(z.reshape(-1) / t, y.double().reshape(-1))
        else:
            nll = nn.functional.cross_entropy(z / t, y.long())
        if best is None or float(nll) < best:
            best, best_t = float(nll), float(t)
    return best_t


def export(model: nn.Module, name: str, shape: tuple[int, int, int], outputs: list[Output], made: dict,
           folder: Path = MODELS) -> Path:
    """Writes ``NAME.onnx`` (the batch size left free) and its card ``NAME.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    model.eval()
    sample = torch.zeros((1, *shape), dtype=torch.float32)
    path = folder / f"{name}.onnx"
    torch.onnx.export(model, sample, str(path), input_names=["input"], output_names=[o.name for o in outputs],
                      dynamic_axes={"input": {0: "batch"}}, dynamo=False)
    card = Card(name, shape, tuple(outputs), made)
    (folder / f"{name}.json").write_text(json.dumps(card.to_json(), indent=1) + "\n")
    return path
