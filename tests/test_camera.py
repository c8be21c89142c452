"""Frame sources: the same read()/frames() contract for webcams, files, folders, the Pi camera and the simulator."""

import sys
import types

import cv2
import numpy as np
import pytest

from engine.position import WHITE, Position
from hardware.camera import (CameraError, FrameSource, ImageFolderSource, OpenCVSource, Picamera2Source,
                             SimulatedSource, open_source)
from hardware.sim.render_sequence import TableCamera


def write_images(folder, n=3, size=(40, 30)):
    folder.mkdir(exist_ok=True)
    for i in range(n):
        img = np.full((size[1], size[0], 3), 40 * i, np.uint8)
        cv2.imwrite(str(folder / f"f{i:02d}.png"), img)
    return folder


def test_image_folder_reads_images_in_name_order_then_ends(tmp_path):
    folder = write_images(tmp_path / "frames")
    src = open_source(str(folder))
    assert isinstance(src, ImageFolderSource) and isinstance(src, FrameSource)
    values = [int(f[0, 0, 0]) for f in src.frames()]
    assert values == [0, 40, 80]
    assert src.read() == (False, None)


def test_glob_and_single_image_specs(tmp_path):
    folder = write_images(tmp_path / "frames", n=4)
    assert len(list(open_source(str(folder / "f0[12].png")).frames())) == 2
    one = open_source(str(folder / "f03.png"))
    ok, frame = one.read()
    assert ok and frame.shape == (30, 40, 3) and frame.dtype == np.uint8


def test_an_unreadable_image_is_named_in_the_error(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "broken.png").write_bytes(b"not a png")
    src = ImageFolderSource(folder)
    with pytest.raises(CameraError, match="broken.png"):
        src.read()


def test_missing_sources_raise_instead_of_falling_back(tmp_path):
    with pytest.raises(CameraError, match="no images"):
        open_source(str(tmp_path / "*.png"))
    with pytest.raises(CameraError, match="no such camera"):
        open_source(str(tmp_path / "match.mp4"))
    with pytest.raises(CameraError, match="no camera given"):
        open_source("  ")


def test_video_file_through_opencv(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    with open_source(str(path)) as src:
        assert isinstance(src, OpenCVSource) and src.isOpened()
        frames = list(src.frames())
    assert len(frames) == 5 and frames[0].shape == (48, 64, 3)
    assert not src.isOpened()


def test_picamera2_missing_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError, match="picamera2 is not available"):
        open_source("picamera2")


def test_picamera2_source_configures_bgr_frames_and_closes(monkeypatch):
    calls = []

    class FakePicamera2:
        def __init__(self, num):
            calls.append(("open", num))

        def create_video_configuration(self, main):
            return {"main": main}

        def configure(self, config):
            calls.append(("configure", config["main"]["format"], config["main"]["size"]))

        def start(self):
            calls.append(("start",))

        def capture_array(self, stream):
            return np.zeros((720, 1280, 3), np.uint8)

        def stop(self):
            calls.append(("stop",))

        def close(self):
            calls.append(("close",))

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    src = open_source("picamera2:1")
    assert isinstance(src, Picamera2Source)
    ok, frame = src.read()
    assert ok and frame.shape == (720, 1280, 3)
    src.release()
    assert calls == [("open", 1), ("configure", "RGB888", (1280, 720)), ("start",), ("stop",), ("close",)]
    assert src.read() == (False, None)


def test_sim_spec_plays_a_game_with_truth_for_every_frame():
    src = open_source("sim:seed=4&style=felt&size=160x90&fps=5&turns=1")
    assert isinstance(src, SimulatedSource)
    count = 0
    for frame in src.frames():
        assert frame.shape == (90, 160, 3)
        assert src.last_truth.style == "felt"
        count += 1
    assert count > 5
    assert src.last_truth.settled


def test_sim_spec_rejects_unknown_options_and_bad_values():
    with pytest.raises(CameraError, match="unknown sim option"):
        open_source("sim:sede=3")
    with pytest.raises(CameraError, match="size must look like"):
        open_source("sim:size=big")
    with pytest.raises(CameraError, match="unknown board style"):
        open_source("sim:style=plastic")


def test_simulated_source_wraps_any_table_camera():
    cam = TableCamera(seed=2, fps=10, size=(160, 90))
    cam.roll((2, 2))
    src = SimulatedSource(cam.frames())
    ok, frame = src.read()
    assert ok and frame.shape == (90, 160, 3) and src.last_timestamp == 0.0
    assert len(list(src.frames())) == 10        # 0.6 s tumbling + 0.5 s settled at 10 fps, one read
    src.release()
    assert not src.isOpened()


def test_a_missing_webcam_is_an_error_naming_the_device():
    with pytest.raises(CameraError, match="/dev/video99"):
        open_source("/dev/video99")


def test_sim_spec_starts_from_a_given_position_id():
    pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2, 1: -2, 12: -5, 17: -3, 19: -4, 20: -1})
    pid = pos.position_id(WHITE)
    src = open_source(f"sim:seed=1&size=160x90&fps=5&turns=0&position={pid}")
    ok, _ = src.read()
    assert ok and src.last_truth.position == pos
    with pytest.raises(CameraError, match="not a Position ID"):
        open_source("sim:position=nonsense")
