"""Small convolutional networks that read parts of a frame, run by ONNX Runtime.

Each network is an ONNX file in ``vision/models`` with a card beside it (``NAME.json``):
its input (channels, height, width), its outputs (name, ``softmax`` over classes,
``sigmoid`` for a yes/no, or ``linear`` for measures such as a shift) with the temperature
that turns its scores into honest probabilities (fitted on frames it was not trained
on), and how it was made. The networks are made by ``training/`` from the simulated
table and labelled photos; reading needs only ONNX Runtime (on as many threads as OpenCV
is given).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime
from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidArgument, InvalidGraph, InvalidProtobuf

MODELS = Path(__file__).resolve().parent / "models"
CHUNK = 512     # inputs run through a network at once: memory stays bounded however many are read


class NetworkError(RuntimeError):
    """A network's files are missing or do not match their card."""


@dataclass(frozen=True)
class Output:
    """One output: ``kind`` ``"softmax"`` (one score per class), ``"sigmoid"`` (one
    score, a yes/no) or ``"linear"`` (``classes`` values taken as they are); scores are
    divided by ``temperature`` before the softmax or sigmoid."""

    name: str
    kind: str
    classes: int
    temperature: float = 1.0


@dataclass(frozen=True)
class Card:
    """What a network reads and answers: input shape (channels, height, width), outputs,
    and free-form facts about how it was made (``made``)."""

    name: str
    shape: tuple[int, int, int]
    outputs: tuple[Output, ...]
    made: dict

    @classmethod
    def from_json(cls, name: str, data: dict) -> Card:
        try:
            outputs = tuple(Output(o["name"], o["kind"], int(o["classes"]), float(o.get("temperature", 1.0)))
                            for o in data["outputs"])
            shape = tuple(int(v) for v in data["shape"])
        except (KeyError, TypeError, ValueError) as err:
            raise NetworkError(f"{name}.json: malformed card ({err})") from err
        if len(shape) != 3 or any(o.kind not in ("softmax", "sigmoid", "linear") for o in outputs):
            raise NetworkError(f"{name}.json: the shape must be [channels, height, width] and every output "
                               "softmax, sigmoid or linear")
        return cls(name, shape, outputs, dict(data.get("made", {})))

    def to_json(self) -> dict:
        return {"shape": list(self.shape),
                "outputs": [{"name": o.name, "kind": o.kind, "classes": o.classes, "temperature": o.temperature}
                            for o in self.outputs],
                "made": self.made}


@lru_cache(maxsize=None)
def _card(name: str, folder: str) -> Card:
    path = Path(folder) / f"{name}.json"
    try:
        return Card.from_json(name, json.loads(path.read_text()))
    except FileNotFoundError as err:
        raise NetworkError(f"network {name!r} not found in {folder} ({err.filename})") from err
    except json.JSONDecodeError as err:
        raise NetworkError(f"{path}: line {err.lineno}: {err.msg}") from err


class Network:
    """One network ready to run; not shared between threads (one per reader)."""

    def __init__(self, name: str, folder: Path | str = MODELS) -> None:
        self.card = _card(name, str(folder))
        path = Path(folder) / f"{name}.onnx"
        if not path.is_file():
            raise NetworkError(f"network {name!r} not found in {folder} ({path})")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, cv2.getNumThreads())
        options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except (Fail, InvalidArgument, InvalidGraph, InvalidProtobuf) as err:
            raise NetworkError(f"{path}: not a network ONNX Runtime can read ({err})") from err
        self._input = self._session.get_inputs()[0].name
        self._names = [o.name for o in self.card.outputs]
        missing = set(self._names) - {o.name for o in self._session.get_outputs()}
        if missing:
            raise NetworkError(f"{path}: no output {', '.join(sorted(missing))} as its card says")

    def __call__(self, batch: np.ndarray) -> dict[str, np.ndarray]:
        """Answers for a float32 batch (N, channels, height, width): per softmax output
        probabilities (N, classes), per sigmoid output (N,), per linear output its values
        (N, classes); run ``CHUNK`` inputs at a time."""
        batch = np.ascontiguousarray(batch, np.float32)
        if batch.ndim != 4 or tuple(batch.shape[1:]) != self.card.shape:
            raise ValueError(f"network {self.card.name} reads batches of {self.card.shape}, "
                             f"got {tuple(batch.shape[1:])}")
        if not len(batch):
            return {o.name: np.zeros((0,) if o.kind == "sigmoid" else (0, o.classes), np.float32)
                    for o in self.card.outputs}
        parts = []
        for start in range(0, len(batch), CHUNK):
            chunk = batch[start:start + CHUNK]
            scores = self._session.run(self._names, {self._input: chunk})
            parts.append([np.asarray(s, np.float64).reshape(len(chunk), -1) for s in scores])
        out = {}
        for k, o in enumerate(self.card.outputs):
            s = np.concatenate([part[k] for part in parts]) / o.temperature
            if o.kind == "softmax":
                s = np.exp(s - s.max(axis=1, keepdims=True))
                out[o.name] = (s / s.sum(axis=1, keepdims=True)).astype(np.float32)
            elif o.kind == "linear":
                out[o.name] = s.astype(np.float32)
            else:
                out[o.name] = (1.0 / (1.0 + np.exp(-s[:, 0]))).astype(np.float32)
        return out
