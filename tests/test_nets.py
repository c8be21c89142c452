"""The network loader: cards read and checked, missing or damaged files named."""

from __future__ import annotations

import json

import numpy as np
import onnxruntime
import pytest

from vision.dice import DiceNet
from vision.nets import CHUNK, MODELS, Card, Network, NetworkError


def test_a_missing_network_is_named(tmp_path):
    with pytest.raises(NetworkError, match="'nothing' not found"):
        Network("nothing", tmp_path)


def test_a_damaged_card_says_where(tmp_path):
    (tmp_path / "bad.json").write_text('{"shape": [3, 8,\n 8}')
    (tmp_path / "bad.onnx").write_bytes(b"")
    with pytest.raises(NetworkError, match="bad.json: line 2"):
        Network("bad", tmp_path)


def test_a_card_must_name_its_shape_and_outputs():
    with pytest.raises(NetworkError, match="malformed card"):
        Card.from_json("x", {"outputs": []})
    with pytest.raises(NetworkError, match="softmax, sigmoid or linear"):
        Card.from_json("x", {"shape": [3, 8, 8], "outputs": [{"name": "y", "kind": "relu", "classes": 2}]})
    card = Card.from_json("x", {"shape": [3, 8, 8], "outputs": [{"name": "y", "kind": "softmax", "classes": 2,
                                                                 "temperature": 1.5}]})
    assert Card.from_json("x", json.loads(json.dumps(card.to_json()))) == card
    assert np.isclose(card.outputs[0].temperature, 1.5)


def test_damaged_weights_are_named(tmp_path):
    card = {"shape": [3, 8, 8], "outputs": [{"name": "y", "kind": "softmax", "classes": 2}]}
    (tmp_path / "broken.json").write_text(json.dumps(card))
    (tmp_path / "broken.onnx").write_bytes(b"\x08\x07not a network")
    with pytest.raises(NetworkError, match="broken.onnx: not a network"):
        Network("broken", tmp_path)
    (tmp_path / "lost.json").write_text(json.dumps(card))
    with pytest.raises(NetworkError, match="lost.onnx"):
        Network("lost", tmp_path)


def test_a_card_naming_an_output_the_network_lacks_is_refused(tmp_path):
    (tmp_path / "cube.onnx").write_bytes((MODELS / "cube.onnx").read_bytes())
    card = json.loads((MODELS / "cube.json").read_text())
    card["outputs"][0]["name"] = "faces"
    (tmp_path / "cube.json").write_text(json.dumps(card))
    with pytest.raises(NetworkError, match="cube.onnx: no output faces as its card says"):
        Network("cube", tmp_path)


def test_the_checker_network_reads_its_card_shape():
    net = Network("checkers")
    out = net(np.zeros((2, *net.card.shape), np.float32))
    assert out["counts"].shape == (2, 31) and np.allclose(out["counts"].sum(axis=1), 1.0)
    assert out["covered"].shape == (2,) and ((0 <= out["covered"]) & (out["covered"] <= 1)).all()
    with pytest.raises(ValueError, match="reads batches of"):
        net(np.zeros((1, 3, 8, 8), np.float32))


def test_a_batch_larger_than_a_chunk_reads_as_its_parts():
    """However many inputs are read at once (a photo may give thousands of dice
    candidates), the network runs a chunk at a time and each input reads as on its own."""
    net = Network("dice")
    batch = np.random.default_rng(0).normal(size=(CHUNK + 37, *net.card.shape)).astype(np.float32)
    whole = net(batch)
    for name, value in whole.items():
        assert value.shape[0] == CHUNK + 37
        assert np.allclose(value, np.concatenate([net(batch[:100])[name], net(batch[100:])[name]]), atol=1e-5)


def test_dice_read_in_every_view_in_chunks_read_as_one_by_one():
    patches = list(np.random.default_rng(1).integers(0, 256, size=(CHUNK // 8 + 5, 40, 40, 3), dtype=np.uint8))
    face, rest, shift = DiceNet("dice_photo")(patches, views=8)
    assert face.shape == (len(patches), 7) and rest.shape == (len(patches), 3) and shift.shape == (len(patches), 2)
    for i in (0, CHUNK // 8, len(patches) - 1):
        alone = DiceNet("dice_photo")([patches[i]], views=8)[0]
        assert np.allclose(face[i], alone[0], atol=1e-5)


def test_a_linear_output_gives_its_values_as_they_are():
    """The board's dice network also says where a die's middle lies from the patch's: two
    values per patch, no probabilities, for a batch of any size, none included."""
    net = Network("dice")
    assert [(o.name, o.kind, o.classes) for o in net.card.outputs if o.kind == "linear"] == [("shift", "linear", 2)]
    assert Card.from_json("dice", json.loads(json.dumps(net.card.to_json()))) == net.card
    assert net(np.zeros((3, *net.card.shape), np.float32))["shift"].shape == (3, 2)
    assert net(np.zeros((0, *net.card.shape), np.float32))["shift"].shape == (0, 2)


def test_the_shipped_checker_network_loads_back_for_training_further():
    """Its export folds each batch norm into the convolution before it; loaded back, the
    network scores strips as the shipped file does, and training moves only the norms'
    scale and shift, never their statistics."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from training.checkers_fit import CheckerNet

    net = CheckerNet()
    net.load_exported(MODELS / "checkers.onnx")
    strips = np.random.default_rng(2).normal(size=(4, *Network("checkers").card.shape)).astype(np.float32)
    shipped = onnxruntime.InferenceSession(str(MODELS / "checkers.onnx")).run(["counts", "covered"], {"input": strips})
    net.eval()
    with torch.no_grad():
        counts, covered = net(torch.from_numpy(strips))
    assert np.allclose(counts.numpy(), shipped[0], atol=1e-4) and np.allclose(covered.numpy(), shipped[1], atol=1e-4)
    net.train()
    norms = [m for m in net.body if isinstance(m, torch.nn.BatchNorm2d)]
    assert norms and not any(m.training for m in norms) and net.hidden.training
    before = norms[0].running_mean.clone()
    net(torch.from_numpy(strips))
    assert torch.equal(norms[0].running_mean, before)
