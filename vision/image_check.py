"""What makes an image unusable before any board is looked for in it."""

from __future__ import annotations

import numpy as np

DARKEST = 12.0    # mean grey below which an image is black (camera covered, no light)
BRIGHTEST = 243.0  # mean grey above which it is overexposed
SMALLEST = 64      # pixels on the shorter side


def image_problem(image, noun: str = "frame") -> str | None:
    """Why ``image`` (BGR) cannot show a board, in words naming it as ``noun``; None when usable."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        return f"the {noun} is not a colour image"
    h, w = image.shape[:2]
    if min(h, w) < SMALLEST:
        return f"the {noun} is too small ({w}x{h})"
    mean = float(image.mean())
    if mean < DARKEST:
        return f"the {noun} is black (camera covered or no light)"
    if mean > BRIGHTEST:
        return f"the {noun} is overexposed"
    return None
