"""Frame sources: every camera bgref can read from, behind one interface.

A ``FrameSource`` behaves like ``cv2.VideoCapture``: ``read()`` returns ``(ok, frame)``
with ``frame`` a BGR ``uint8`` array of shape H x W x 3, ``isOpened()`` and ``release()``;
``frames()`` iterates until the source ends. ``open_source(spec)`` picks the source from
a short text, as a configuration file or the command line gives it:

- ``0``, ``1``, ``/dev/video0``, ``rtsp://...``: a USB webcam or stream through OpenCV
- ``match.mp4``: a video file through OpenCV
- ``frames/*.png``, ``frames/``, ``photo.jpg``: still images, in name order
- ``picamera2`` or ``picamera2:1``: the Raspberry Pi camera (number 1)
- ``sim:seed=3&style=felt&fps=15&size=1280x720``: the simulated table playing a random game
  (``position=`` a Position ID, White on roll, to start from)

A source that cannot be opened raises ``CameraError`` naming it: there is never a silent
fallback to simulated frames.
"""

from __future__ import annotations

import glob
import os
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Iterable, Iterator, Protocol, runtime_checkable
from urllib.parse import parse_qsl

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(OSError):
    """A camera or frame source that cannot be opened or read."""


@runtime_checkable
class FrameSource(Protocol):
    """Frames in, the ``cv2.VideoCapture`` way."""

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def isOpened(self) -> bool: ...

    def release(self) -> None: ...

    def frames(self) -> Iterator[np.ndarray]: ...


def as_bgr(frame: np.ndarray, where: str) -> np.ndarray:
    """A frame as 3-channel BGR ``uint8`` (grey and BGRA frames are converted)."""
    if frame.dtype != np.uint8:
        raise CameraError(f"{where}: frames must be 8-bit, got {frame.dtype}")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim == 3 and frame.shape[2] == 3:
        return frame
    raise CameraError(f"{where}: unexpected frame shape {frame.shape}")


class _Source(ABC):
    """Shared behaviour: iteration, context management and a closed state."""

    name = "source"

    def __init__(self) -> None:
        self._open = True

    def isOpened(self) -> bool:
        return self._open

    def release(self) -> None:
        self._open = False

    @abstractmethod
    def read(self) -> tuple[bool, np.ndarray | None]:
        """The next frame as ``(True, frame)``, or ``(False, None)`` when there is none."""

    def frames(self) -> Iterator[np.ndarray]:
        """Frames until the source ends (a file's last frame, the last image)."""
        while True:
            ok, frame = self.read()
            if not ok:
                return
            yield frame

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class OpenCVSource(_Source):
    """A USB webcam (device number or ``/dev/video*``), a stream URL or a video file read
    through ``cv2.VideoCapture``; ``size`` and ``fps`` are requested from cameras."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = None, fps: float | None = None) -> None:
        super().__init__()
        self.name = str(device)
        self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open camera or video {device!r}")
        if size is not None:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps is not None:
            self._capture.set(cv2.CAP_PROP_FPS, fps)

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self._open:
            return False, None
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return False, None
        return True, as_bgr(frame, self.name)

    def isOpened(self) -> bool:
        return self._open and self._capture.isOpened()

    def release(self) -> None:
        super().release()
        self._capture.release()


class Picamera2Source(_Source):
    """The Raspberry Pi camera through picamera2, delivering BGR frames of ``size``.

    picamera2 ships with Raspberry Pi OS; elsewhere opening this source raises
    ``CameraError``.
    """

    def __init__(self, camera_num: int = 0, size: tuple[int, int] = (1280, 720)) -> None:
        super().__init__()
        self.name = f"picamera2:{camera_num}"
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError("picamera2 is not available: it comes with Raspberry Pi OS "
                              "(sudo apt install python3-picamera2)") from exc
        try:
            self._camera = Picamera2(camera_num)
            # "RGB888" arrays are laid out B, G, R: OpenCV's order
            config = self._camera.create_video_configuration(main={"size": tuple(size), "format": "RGB888"})
            self._camera.configure(config)
            self._camera.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"cannot start Raspberry Pi camera {camera_num}: {exc}") from exc

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self._open:
            return False, None
        try:
            frame = self._camera.capture_array("main")
        except (RuntimeError, OSError) as exc:
            raise CameraError(f"{self.name}: capture failed: {exc}") from exc
        return True, as_bgr(np.ascontiguousarray(frame), self.name)

    def release(self) -> None:
        if self._open:
            self._camera.stop()
            self._camera.close()
        super().release()


class ImageFolderSource(_Source):
    """Still images in name order: a folder, a glob pattern or one image file."""

    def __init__(self, pattern: str | os.PathLike) -> None:
        super().__init__()
        self.name = str(pattern)
        path = Path(pattern)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        elif path.is_file():
            files = [path]
        else:
            files = sorted(Path(p) for p in glob.glob(str(pattern)) if Path(p).suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise CameraError(f"no images found at {str(pattern)!r}")
        self.files: list[Path] = files
        self._next = 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self._open or self._next >= len(self.files):
            return False, None
        path = self.files[self._next]
        self._next += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"cannot read image {path}")
        return True, frame


class SimulatedSource(_Source):
    """Frames of the simulated table (``hardware.sim``): any iterable of frames with
    ``.image`` and ``.truth``, such as ``TableCamera.frames()`` or ``play_random_game``.
    ``last_truth`` is the truth of the frame ``read()`` returned last; with ``realtime``
    frames are paced at their timestamps like a live camera."""

    def __init__(self, frames: Iterable, name: str = "sim", realtime: bool = False) -> None:
        super().__init__()
        self.name = name
        self._frames = iter(frames)
        self._realtime = realtime
        self._started: float | None = None
        self.last_truth = None
        self.last_timestamp: float | None = None

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self._open:
            return False, None
        frame = next(self._frames, None)
        if frame is None:
            return False, None
        if self._realtime:
            now = time.monotonic()
            if self._started is None:
                self._started = now - frame.timestamp
            delay = self._started + frame.timestamp - now
            if delay > 0:
                time.sleep(delay)
        self.last_truth = frame.truth
        self.last_timestamp = frame.timestamp
        return True, frame.image


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CameraError(f"size must look like 1280x720, got {text!r}") from None
    return w, h


def simulated_source(options: str) -> SimulatedSource:
    """The simulated table from ``sim:`` options: ``seed``, ``style``, ``fps``, ``size``,
    ``home``, ``difficulty``, ``position`` (a Position ID with White on roll; the opening
    position by default), ``turns`` (random-game turns, all by default), ``realtime``."""
    from engine.position import Position
    from hardware.sim.render_sequence import TableCamera, play_random_game
    known = {"seed", "style", "fps", "size", "home", "difficulty", "position", "turns", "realtime"}
    params = dict(parse_qsl(options, keep_blank_values=True))
    unknown = set(params) - known
    if unknown:
        raise CameraError(f"unknown sim option(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    try:
        seed = int(params.get("seed", 0))
        # a query string reads "+" as a space; Position IDs use "+"
        position = Position.from_position_id(params["position"].replace(" ", "+")) if "position" in params else None
        camera = TableCamera(style=params.get("style", "classic"), seed=seed, fps=float(params.get("fps", 15)),
                             size=_parse_size(params.get("size", "1280x720")),
                             home=params.get("home", "bottom-right"),
                             difficulty=float(params.get("difficulty", 0.6)), position=position)
        turns = int(params["turns"]) if "turns" in params else None
    except ValueError as exc:
        raise CameraError(f"sim source: {exc}") from exc
    realtime = params.get("realtime", "0") not in ("0", "", "false", "no")
    return SimulatedSource(play_random_game(camera, seed=seed, max_turns=turns), name=f"sim:{options}",
                           realtime=realtime)


def open_source(spec: str) -> FrameSource:
    """The frame source a spec names (see the module's docstring); ``CameraError`` when
    it cannot be opened."""
    spec = spec.strip()
    if not spec:
        raise CameraError("no camera given (e.g. 0, /dev/video0, picamera2, video.mp4, frames/*.png, sim:)")
    if spec.isdigit():
        return OpenCVSource(int(spec))
    if spec == "picamera2" or spec.startswith("picamera2:"):
        number = spec.partition(":")[2] or "0"
        if not number.isdigit():
            raise CameraError(f"picamera2 camera number must be a number, got {number!r}")
        return Picamera2Source(int(number))
    if spec == "sim" or spec.startswith("sim:"):
        return simulated_source(spec.partition(":")[2])
    if "://" in spec or spec.startswith("/dev/video"):
        return OpenCVSource(spec)
    path = Path(spec)
    if path.is_dir() or any(c in spec for c in "*?[") or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(spec)
    if not path.exists():
        raise CameraError(f"no such camera, file or folder: {spec!r}")
    return OpenCVSource(spec)
