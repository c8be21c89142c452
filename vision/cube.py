"""Read the doubling cube on a calibrated board: the number on its top face and its side.

The cube lies on the bar: centred between the two halves, or pushed to the edge of the
player who owns it. Along the bar's middle line, whatever departs from the bar's own
colour and is about a cube wide is a candidate; each is cut from the full-resolution
frame to a patch showing the cube's top face ``FACE_PX`` wide, and the cube network
(``vision/models/cube.onnx``, made by ``training/cube.py``) says whether a cube's face
lies in its middle and which number it shows, however turned (a canonical view may be
the board's mirror image too). The surest candidate is the cube; where it lies along the
bar gives the side: the middle fifth of the field is the centre, otherwise the half
nearer the owner (White sits at the bottom of the canonical view).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_model import BoardModel
from vision.dice import ToFrame, frame_patches, net_input
from vision.nets import Network
from vision.observation import CubeRead

FACES = (2, 4, 8, 16, 32, 64)
CUBE_SIDE = 0.62        # the cube's side in checker diameters
TOP = 1.1               # its top face as the camera sees it, over its footprint
PATCH = 40              # the patch the network reads; the cube's top face is FACE_PX wide in it
FACE_PX = 22.0
STANDS_OUT = 22.0       # Lab distance from the bar's colour along the bar that marks something lying there
CANDIDATES = 6          # at most this many places along the bar are read
OWNED = 0.55            # an owned cube's middle lies this far inside its owner's edge of the field (diameters)
IS_CUBE = 0.5           # the least probability of a cube's face in a patch's middle for it to be read
CENTRE = 0.1            # half the height of the field's middle band, as a share of the field's height


class BoardCube:
    """Finds and reads the doubling cube on a calibrated board (``to_frame`` maps canonical
    pixels of ``model`` to frame pixels)."""

    def __init__(self, model: BoardModel, to_frame: ToFrame) -> None:
        self.model = model
        self.to_frame = to_frame
        self.side = CUBE_SIDE * TOP * model.ppd      # the top face's side, canonical pixels
        bx0, _, bx1, _ = model.bar
        self.x = (bx0 + bx1) / 2
        self._net: Network | None = None

    def read(self, frame: np.ndarray, canonical: np.ndarray) -> CubeRead | None:
        """The cube in ``frame`` (``canonical`` is its board view), or None when none is seen."""
        found = self.locate(frame, canonical)
        return None if found is None else found[0]

    def locate(self, frame: np.ndarray, canonical: np.ndarray) -> tuple[CubeRead, tuple[float, float]] | None:
        """The cube read in ``frame`` and the canonical centre of its top face, or None."""
        ys = self.candidates(canonical)
        if not ys:
            return None
        if self._net is None:
            self._net = Network("cube")
        patches = frame_patches(frame, self.to_frame, [(self.x, y) for y in ys], self.side, FACE_PX, size=PATCH)
        face = self._net(net_input(patches))["face"]
        best = int(np.argmax(1 - face[:, 0]))
        if 1 - face[best, 0] < IS_CUBE:
            return None
        k = int(np.argmax(face[best, 1:]))
        y = ys[best]
        return CubeRead(FACES[k], self._side_of(y), float(face[best, 1 + k])), (self.x, y)

    def candidates(self, canonical: np.ndarray) -> list[float]:
        """Heights along the bar where the cube may lie: where a cube is set down (the middle,
        and by each player's edge of the field), then where something about a cube long
        departs most from the bar's colour (checkers on the bar may crowd the cube)."""
        m = self.model
        _, y0, _, y1 = m.field
        out = [(y0 + y1) / 2, y0 + OWNED * m.ppd, y1 - OWNED * m.ppd]
        half = 0.3 * m.ppd
        h = canonical.shape[0]
        strip = canonical[:, int(self.x - half):int(np.ceil(self.x + half))]
        lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
        bar = np.median(lab.reshape(-1, 3), axis=0)
        profile = np.sqrt(((lab - bar) ** 2).sum(axis=2)).mean(axis=1)
        k = max(int(0.4 * m.ppd), 1)
        profile = np.convolve(profile, np.ones(k) / k, mode="same")
        for y in np.argsort(-profile):
            if profile[y] < STANDS_OUT or len(out) >= CANDIDATES:
                break
            if all(abs(y - q) > 0.5 * m.ppd for q in out) and 0.3 * m.ppd <= y <= h - 0.3 * m.ppd:
                out.append(float(y))
        return out

    def _side_of(self, y: float) -> str:
        _, y0, _, y1 = self.model.field
        middle = (y0 + y1) / 2
        if abs(y - middle) <= CENTRE * (y1 - y0):
            return "centre"
        return "white" if y > middle else "black"
