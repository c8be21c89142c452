"""Dice reading: drawn dice of every face, colour and turn, and a sample of real photos."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from training.dice import BOARD_PHOTO_SEED, NO_REST, board_photo_patches, photo_labels
from vision.dice import PATCH, DiceNet, find_dice, net_input
from vision.nets import MODELS, Network

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / "dice"

#: Pip centres per face value, in face sides about the face's centre.
_A = 0.27
CANONICAL = {1: [(0, 0)], 2: [(-_A, -_A), (_A, _A)], 3: [(-_A, -_A), (0, 0), (_A, _A)],
             4: [(-_A, -_A), (_A, -_A), (-_A, _A), (_A, _A)],
             5: [(-_A, -_A), (_A, -_A), (0, 0), (-_A, _A), (_A, _A)],
             6: [(-_A, -_A), (_A, -_A), (-_A, 0), (_A, 0), (-_A, _A), (_A, _A)]}

BODIES = {"red": ((40, 40, 200), (255, 255, 255)), "ivory": ((215, 235, 240), (20, 20, 20)),
          "green": ((60, 150, 30), (255, 255, 255)), "black": ((25, 25, 25), (240, 240, 240)),
          "yellow": ((40, 220, 235), (10, 10, 10))}


def draw_die(value: int, body, pips, angle: float, side: int = 44, canvas: int = 480,
             centre=(240, 240)) -> np.ndarray:
    """A die seen from straight above on a grey tray."""
    image = np.full((canvas, canvas, 3), 165, np.uint8)
    rect = (centre, (side, side), angle)
    cv2.fillConvexPoly(image, cv2.boxPoints(rect).astype(np.int32), body)
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    for px, py in CANONICAL[value]:
        x, y = rot @ np.array([px, py]) * side + centre
        cv2.circle(image, (int(round(x)), int(round(y))), max(2, side // 11), pips, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(image, (3, 3), 0)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("colour", sorted(BODIES))
def test_drawn_die_is_found_and_read(value, colour):
    """A die drawn at three turns is found once, in its place, and read flat; its face is
    read right at two turns at least (the photos' network, made from real photos and dice
    drawn otherwise, reads this yellow five square on as a four)."""
    body, pips = BODIES[colour]
    values = []
    for angle in (0, 17, 40):
        dice = find_dice(draw_die(value, body, pips, angle))
        assert len(dice) == 1, (colour, angle)
        x, y, w, h = dice[0].box
        assert abs(x + w / 2 - 240) < 6 and abs(y + h / 2 - 240) < 6
        assert dice[0].flat and 0 < dice[0].confidence <= 1
        values.append(dice[0].value)
    assert values.count(value) >= 2, values


def test_two_dice_apart_are_both_read():
    image = draw_die(5, (40, 40, 200), (255, 255, 255), 10, centre=(160, 240))
    other = draw_die(2, (60, 150, 30), (255, 255, 255), 30, centre=(320, 240))
    image[:, 240:] = other[:, 240:]
    assert sorted(d.value for d in find_dice(image)) == [2, 5]


def test_blank_tray_has_no_dice():
    assert find_dice(np.full((480, 480, 3), 165, np.uint8)) == []


def test_a_die_body_with_scattered_spots_is_no_confident_die():
    """Three spots on a die-sized body that lie in no face's pattern: not read as a three."""
    image = np.full((480, 480, 3), 165, np.uint8)
    cv2.rectangle(image, (218, 218), (262, 262), (40, 40, 200), -1)
    for x, y in ((224, 224), (228, 252), (254, 232)):
        cv2.circle(image, (x, y), 4, (255, 255, 255), -1, cv2.LINE_AA)
    assert all(d.value != 3 or d.confidence < 0.5 for d in find_dice(cv2.GaussianBlur(image, (3, 3), 0)))


@pytest.mark.parametrize("angle", [0, 20, 35])
def test_a_lone_pip_in_a_corner_of_its_face_is_no_confident_one(angle):
    """A face showing one pip where a larger face has its corner pip (the others hidden by
    glare): not read as a one, or with little confidence."""
    image = np.full((480, 480, 3), 165, np.uint8)
    cv2.fillConvexPoly(image, cv2.boxPoints(((240, 240), (44, 44), angle)).astype(np.int32), (230, 235, 240))
    t = np.deg2rad(angle)
    x, y = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) @ np.array([-0.27, -0.27]) * 44 + 240
    cv2.circle(image, (int(round(x)), int(round(y))), 4, (20, 20, 20), -1, cv2.LINE_AA)
    assert all(d.value != 1 or d.confidence < 0.5 for d in find_dice(cv2.GaussianBlur(image, (3, 3), 0)))


@pytest.mark.parametrize("angle", [0, 20, 35])
def test_a_one_in_the_middle_of_its_face_is_read_confidently(angle):
    dice = find_dice(draw_die(1, (230, 235, 240), (20, 20, 20), angle))
    assert [d.value for d in dice] == [1] and dice[0].confidence > 0.9


@pytest.mark.parametrize("value", [1, 2, 3])
@pytest.mark.parametrize("angle", [30, 35])
def test_a_face_with_its_pips_in_one_line_is_flat(value, angle):
    """A diagonal row of pips is no sign of a leaning die."""
    dice = find_dice(draw_die(value, (230, 235, 240), (20, 20, 20), angle))
    assert [(d.value, d.flat) for d in dice] == [(value, True)]


@pytest.mark.parametrize("name", ["dice", "dice_photo", "dice_board_photo"])
def test_blank_patches_are_no_dice(name):
    """A network sees nothing in an even patch, however lit."""
    face = DiceNet(name)([np.full((PATCH, PATCH, 3), v, np.uint8) for v in (20, 128, 240)])[0]
    assert face.shape == (3, 7) and (face[:, 0] > 0.95).all()


def test_the_network_input_ignores_the_light():
    """A patch under dimmer or tinted light gives the network the same input."""
    rng = np.random.default_rng(0)
    patch = rng.integers(40, 200, (PATCH, PATCH, 3)).astype(np.uint8)
    tinted = np.clip(patch.astype(np.float32) * 0.7 + np.array([12.0, 0.0, -8.0]), 0, 255).astype(np.uint8)
    a, b = net_input([patch]), net_input([tinted])
    assert a.shape == (1, 3, PATCH, PATCH) and a.dtype == np.float32
    assert np.abs(a - b).mean() < 0.1 * np.abs(a).mean()


@pytest.mark.parametrize("name", ["dice", "dice_photo", "dice_board_photo", "cube"])
def test_the_networks_are_small_and_say_how_they_were_made(name):
    net = Network(name)
    assert (MODELS / f"{name}.onnx").stat().st_size < 1_000_000
    assert net.card.shape == (3, PATCH, PATCH)
    assert all(o.temperature > 0 for o in net.card.outputs)
    assert {"command", "held out"} <= set(net.card.made)


def test_find_dice_rejects_non_images():
    with pytest.raises(ValueError):
        find_dice(np.zeros((10, 10), np.uint8))


def test_dice_command_prints_json(tmp_path, capsys):
    path = tmp_path / "die.png"
    cv2.imwrite(str(path), draw_die(4, (40, 40, 200), (255, 255, 255), 20))
    assert main(["dice", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["value"] for d in out] == [4]
    assert set(out[0]) == {"value", "box", "flat", "confidence"} and len(out[0]["box"]) == 4


def test_dice_command_names_a_bad_file(tmp_path, capsys):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert main(["dice", str(empty)]) == 2
    assert "empty.png" in capsys.readouterr().err
    junk = tmp_path / "junk.jpg"
    junk.write_text("not an image")
    assert main(["dice", str(junk)]) == 2
    assert main(["dice", str(tmp_path / "missing.jpg")]) == 2


@pytest.mark.skipif(not DATA.is_dir(), reason="real dice photos not available")
def test_real_photos_sample():
    """Ten test-split photos: the share of labelled dice found and read right.

    The threshold is under what the reader reaches today (63 of 64, no die read where
    none lies; see bench/dice.py), so a regression fails; the target for real photos is 97%.
    """
    with open(DATA / "split.csv") as fh:
        names = [r["filename"] for r in csv.DictReader(fh) if r["split"] == "test"][::5]
    labelled = right = extra = 0
    for name in names:
        image = cv2.imread(str(DATA / "images" / name))
        labels = photo_labels(name, image.shape[1], image.shape[0])
        dice = find_dice(image)
        labelled += len(labels)
        for die in dice:
            x, y, bw, bh = die.box
            hit = [lab for lab in labels if np.hypot(x + bw / 2 - lab[1], y + bh / 2 - lab[2]) < lab[3] / 2]
            if not hit:
                extra += 1
            elif hit[0][0] == die.value:
                right += 1
    assert right / labelled >= 0.95
    assert extra <= 0.05 * labelled


@pytest.mark.skipif(not DATA.is_dir(), reason="real dice photos not available")
def test_a_cluster_of_touching_dice_of_many_sizes():
    """Fourteen dice in a heap, some a third smaller than the others (a train-split photo):
    the patches on a small die's middle lie within a die's width of its large neighbour's,
    but read another face, so each die is read, with its own face, and nothing more."""
    name = "IMG_20191208_111710.jpg"
    image = cv2.imread(str(DATA / "images" / name))
    labels = photo_labels(name, image.shape[1], image.shape[0])
    dice = find_dice(image)
    assert len(dice) == len(labels) == 14
    for value, x, y, side in labels:
        nearest = min(dice, key=lambda d: np.hypot(d.centre[0] - x, d.centre[1] - y))
        assert nearest.value == value and np.hypot(nearest.centre[0] - x, nearest.centre[1] - y) < side / 2


def test_rendered_board_photos_are_cut_and_labelled_as_photo_import_reads_them():
    """The board photos' network learns from renders: patches where photo import
    looks for dice (most show none) and around each die (its face), the same for a seed."""
    patches, faces, rests = board_photo_patches(BOARD_PHOTO_SEED)
    again, faces_again, _ = board_photo_patches(BOARD_PHOTO_SEED)
    assert faces == faces_again and all(np.array_equal(a, b) for a, b in zip(patches, again))
    assert all(p.shape == (PATCH, PATCH, 3) and p.dtype == np.uint8 for p in patches)
    dice = [f for f in faces if f]
    assert 3 <= len(dice) < len(faces) / 2 and set(dice) <= set(range(1, 7))
    assert all((r == 0) == (f > 0) and (r == NO_REST) == (f == 0) for f, r in zip(faces, rests))
