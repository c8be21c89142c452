"""Dice reading: drawn dice of every face, colour and turn, and a sample of real photos."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.dice import (BOARD_BLOB, BOARD_DIE_PX, BOARD_FACES, BOARD_FIT, BOARD_RATIOS, BOARD_SAME_SPACING,
                         BOARD_SEARCH, CANONICAL, find_dice, read_face)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos" / "dice"

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
    body, pips = BODIES[colour]
    for angle in (0, 17, 40):
        dice = find_dice(draw_die(value, body, pips, angle))
        assert [d.value for d in dice] == [value], (colour, angle)
        x, y, w, h = dice[0].box
        assert abs(x + w / 2 - 240) < 6 and abs(y + h / 2 - 240) < 6
        assert dice[0].flat and 0 < dice[0].confidence <= 1


def test_two_dice_apart_are_both_read():
    image = draw_die(5, (40, 40, 200), (255, 255, 255), 10, centre=(160, 240))
    other = draw_die(2, (60, 150, 30), (255, 255, 255), 30, centre=(320, 240))
    image[:, 240:] = other[:, 240:]
    assert sorted(d.value for d in find_dice(image)) == [2, 5]


def test_blank_tray_has_no_dice():
    assert find_dice(np.full((480, 480, 3), 165, np.uint8)) == []


def test_a_face_without_a_pip_pattern_is_not_read():
    face = np.full((48, 48, 3), (40, 40, 200), np.uint8)
    for x, y in ((10, 10), (12, 30), (36, 14)):       # three scattered spots, not a 3
        cv2.circle(face, (x, y), 4, (255, 255, 255), -1)
    read = read_face(face)
    assert read is None or read.value != 3


@pytest.mark.parametrize("angle", [0, 20, 35])
@pytest.mark.parametrize("board", [165, 60])
def test_a_lone_pip_in_a_corner_of_its_face_is_no_confident_one(angle, board):
    """A face showing one pip where a larger face has its corner pip (the others hidden by
    glare or lying out of view): not read, or read with little confidence."""
    image = np.full((200, 200, 3), board, np.uint8)
    cv2.fillConvexPoly(image, cv2.boxPoints(((100, 100), (26, 26), angle)).astype(np.int32), (230, 235, 240))
    t = np.deg2rad(angle)
    x, y = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) @ np.array([-0.27, -0.27]) * 26 + 100
    cv2.circle(image, (int(round(x)), int(round(y))), 2, (20, 20, 20), -1, cv2.LINE_AA)
    patch = cv2.GaussianBlur(image, (3, 3), 0)[68:132, 68:132]
    read = read_face(patch, BOARD_DIE_PX, BOARD_SEARCH, BOARD_FACES, BOARD_BLOB, BOARD_FIT, 1.0, True, BOARD_RATIOS)
    assert read is None or read.confidence < 0.3


def test_a_one_in_the_middle_of_its_face_is_read_confidently():
    patch = draw_die(1, (230, 235, 240), (20, 20, 20), 20, side=26, canvas=200, centre=(100, 100))[68:132, 68:132]
    read = read_face(patch, BOARD_DIE_PX, BOARD_SEARCH, BOARD_FACES, BOARD_BLOB, BOARD_FIT, 1.0, True, BOARD_RATIOS)
    assert read is not None and read.value == 1 and read.confidence > 0.9


@pytest.mark.parametrize("value", [1, 2, 3])
@pytest.mark.parametrize("angle", [30, 35])
def test_a_face_with_its_pips_in_one_line_says_nothing_of_a_slant(value, angle):
    """A diagonal row of pips fits a face squashed along x as well as along y: a flat one,
    two or three is never taken for the foreshortened top of a leaning die."""
    image = draw_die(value, (230, 235, 240), (20, 20, 20), angle, side=26, canvas=200, centre=(100, 100))
    read = read_face(image[68:132, 68:132], BOARD_DIE_PX, BOARD_SEARCH, BOARD_FACES, BOARD_BLOB, BOARD_FIT, 1.0, True,
                     BOARD_RATIOS, BOARD_SAME_SPACING)
    assert read is not None and read.value == value and read.squareness == 1.0


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

    The threshold is what the reader reaches today (see bench/dice.py), so a
    regression fails; the target for real photos is 97%.
    """
    with open(DATA / "split.csv") as fh:
        names = [r["filename"] for r in csv.DictReader(fh) if r["split"] == "test"][::5]
    labelled = right = extra = 0
    for name in names:
        image = cv2.imread(str(DATA / "images" / name))
        h, w = image.shape[:2]
        labels = []
        for line in (DATA / "labels" / (Path(name).stem + ".txt")).read_text().split("\n"):
            if line.strip():
                c, cx, cy, bw, bh = map(float, line.split())
                labels.append((int(c) + 1, cx * w, cy * h, max(bw * w, bh * h)))
        dice = find_dice(image)
        labelled += len(labels)
        for die in dice:
            x, y, bw, bh = die.box
            hit = [lab for lab in labels if np.hypot(x + bw / 2 - lab[1], y + bh / 2 - lab[2]) < lab[3] / 2]
            if not hit:
                extra += 1
            elif hit[0][0] == die.value:
                right += 1
    assert right / labelled >= 0.70
    assert extra <= 0.05 * labelled
