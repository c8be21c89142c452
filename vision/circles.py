"""Circles a checker wide in a canonical view: where checkers' rims are."""

from __future__ import annotations

import cv2
import numpy as np

EDGE = 40               # Canny's upper threshold for the circle search
VOTES = 12              # votes a circle needs


def checker_circles(lightness: np.ndarray, ppd: float, roi: tuple[int, int, int, int] | None = None,
                    spacing: float = 0.45) -> np.ndarray:
    """Circles (N x 3: x, y, radius in canonical pixels) of a checker's size in the
    lightness channel, at least ``spacing`` diameters apart, within ``roi`` (x0, y0, x1,
    y1) if given."""
    x0, y0, x1, y1 = roi or (0, 0, lightness.shape[1], lightness.shape[0])
    image = np.clip(lightness[y0:y1, x0:x1], 0, 255).astype(np.uint8)
    found = cv2.HoughCircles(image, cv2.HOUGH_GRADIENT, 1.0, spacing * ppd, param1=EDGE, param2=VOTES,
                             minRadius=int(0.42 * ppd), maxRadius=int(0.56 * ppd) + 1)
    if found is None:
        return np.zeros((0, 3))
    circles = found[0].astype(np.float64)
    circles[:, 0] += x0
    circles[:, 1] += y0
    return circles
