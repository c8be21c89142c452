"""The simulated camera's optics: its pose over the table, the lens, the light and the sensor.

The pose is a pinhole camera looking at the table plane: a tilt (degrees from straight
down) toward an azimuth, a turn about the optical axis, and a distance given as how much
of the frame the board fills. The plane-to-image map is a homography ``H`` from canvas
pixels to the ideal (undistorted) image; the lens then bends it with barrel distortion
``k``: an image pixel ``p`` shows the ideal point ``c + (p - c) * (1 + k * r^2)`` where
``r`` is the distance from the centre ``c`` over the half-diagonal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.sim.render_pieces import Lift


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is: ``tilt`` degrees from vertical toward ``azimuth`` degrees,
    ``rotation`` degrees about its axis, the board filling ``fill`` of the frame's limiting
    dimension, pushed off centre by ``offset`` (fractions of the free room, -1..1)."""

    tilt: float = 0.0
    azimuth: float = 0.0
    rotation: float = 0.0
    fill: float = 0.85
    offset: tuple[float, float] = (0.0, 0.0)
    distortion: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.tilt <= 45:
            raise ValueError(f"camera tilt must be 0..45 degrees, got {self.tilt}")
        if not 0.2 <= self.fill <= 1.0:
            raise ValueError(f"board fill must be 0.2..1.0 of the frame, got {self.fill}")


@dataclass(frozen=True)
class CameraModel:
    """A pose solved for one board and frame size: the homography from canvas pixels to
    the ideal image, the lens, and the camera's place seen from the canvas (``lift``)."""

    homography: np.ndarray
    distortion: float
    size: tuple[int, int]
    lift: Lift

    def ideal_to_image(self, ideal: np.ndarray) -> np.ndarray:
        """Distort ideal image points (N x 2) into the pixels of the real frame."""
        w, h = self.size
        c = np.array([(w - 1) / 2, (h - 1) / 2])
        norm = np.hypot(w, h) / 2
        u = (np.asarray(ideal, float).reshape(-1, 2) - c) / norm
        if self.distortion == 0:
            return c + u * norm
        ru = np.hypot(u[:, 0], u[:, 1])
        rd = ru.copy()
        k = self.distortion
        for _ in range(8):      # Newton on rd * (1 + k rd^2) = ru
            rd -= (rd * (1 + k * rd * rd) - ru) / (1 + 3 * k * rd * rd)
        scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
        return c + u * scale[:, None] * norm

    def to_image(self, canvas_points) -> np.ndarray:
        """Canvas pixels (N x 2) to frame pixels."""
        pts = np.asarray(canvas_points, np.float64).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return self.ideal_to_image(ideal)

    def remap_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """For every frame pixel, the canvas pixel it shows (maps for ``cv2.remap``).

        The map is smooth, so it is computed every 8 pixels and enlarged by
        ``cv2.resize``; the grid sits where ``resize`` samples (pixel ``8j - 4.5`` for
        grid point ``j``, one spare point beyond each edge), so the enlargement is exact
        up to the map's curvature.
        """
        w, h = self.size
        step = 8
        nx, ny = -(-w // step) + 2, -(-h // step) + 2
        xx, yy = np.meshgrid(np.arange(nx) * step - 4.5, np.arange(ny) * step - 4.5)
        c = np.array([(w - 1) / 2, (h - 1) / 2])
        norm = np.hypot(w, h) / 2
        ux, uy = (xx - c[0]) / norm, (yy - c[1]) / norm
        f = 1 + self.distortion * (ux ** 2 + uy ** 2)
        ideal = np.stack([c[0] + ux * f * norm, c[1] + uy * f * norm], axis=-1)
        inv = np.linalg.inv(self.homography)
        src = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), inv).reshape(ideal.shape).astype(np.float32)
        big = cv2.resize(src, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
        big = big[step:step + h, step:step + w]
        return cv2.convertMaps(np.ascontiguousarray(big[:, :, 0]), np.ascontiguousarray(big[:, :, 1]),
                               cv2.CV_16SC2)


def solve_camera(pose: CameraPose, board_rect: tuple[float, float, float, float], size: tuple[int, int]) -> CameraModel:
    """Place the camera so the board rectangle (canvas pixels) fills ``pose.fill`` of a frame
    of ``size`` (w, h) seen with ``pose``'s tilt and turn."""
    x0, y0, x1, y1 = board_rect
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    span = max(x1 - x0, y1 - y0)
    distance = 2.2 * span
    t, a = np.radians(pose.tilt), np.radians(pose.azimuth)
    # world: x right, y down the canvas, z into the table; the camera hangs above (z < 0)
    cam = centre + distance * np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), -np.cos(t)])
    z = centre - cam
    z /= np.linalg.norm(z)
    x = np.cross(np.array([0.0, 1.0, 0.0]), z)
    if np.linalg.norm(x) < 1e-9:
        x = np.array([1.0, 0.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.radians(pose.rotation)
    x, y = np.cos(r) * x + np.sin(r) * y, -np.sin(r) * x + np.cos(r) * y
    rot = np.stack([x, y, z])
    trans = -rot @ cam
    plane = np.column_stack([rot[:, 0], rot[:, 1], trans])      # maps (X, Y, 1) on z = 0
    corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64)
    proj = (plane @ np.c_[corners, np.ones(4)].T).T
    proj = proj[:, :2] / proj[:, 2:3]
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    w, h = size
    scale = pose.fill * min(w / (hi[0] - lo[0]), h / (hi[1] - lo[1]))
    room = np.array([w, h]) - (hi - lo) * scale
    shift = np.array([w / 2, h / 2]) - (lo + hi) / 2 * scale + room / 2 * np.clip(pose.offset, -1, 1)
    k = np.array([[scale, 0, shift[0]], [0, scale, shift[1]], [0, 0, 1.0]])
    homography = k @ plane
    homography /= homography[2, 2]
    lift = Lift(nadir=(float(cam[0]), float(cam[1])), height=float(-cam[2]))
    return CameraModel(homography, pose.distortion, (w, h), lift)


@dataclass(frozen=True)
class Lighting:
    """The light: a colour temperature (per-channel gains), a brightness gradient and
    vignetting, soft shadows cast from outside the frame, glare spots, and the light's
    direction on the canvas (a unit vector the shadows fall along)."""

    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: tuple[float, float] = (0.0, 0.0)
    vignette: float = 0.0
    shadows: tuple[tuple[tuple[float, float], ...], ...] = ()
    shadow_depth: float = 0.0
    glare: tuple[tuple[float, float, float, float], ...] = ()   # x, y (0..1 of the frame), radius (px), strength
    direction: tuple[float, float] = (0.5, 0.5)


def light_fields(lighting: Lighting, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray | None]:
    """The light as two frame-sized ``uint8`` BGR fields: a gain in 128ths (for
    ``cv2.multiply(image, gain, scale=1/128)``) and the additive glare (``None`` without
    glare). Both are smooth, so they are computed at an eighth of the size and enlarged."""
    w, h = size
    sw, sh = max(w // 8, 2), max(h // 8, 2)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u, v = xx / (sw - 1) - 0.5, yy / (sh - 1) - 0.5
    base = 1.0 + lighting.gradient[0] * u * 2 + lighting.gradient[1] * v * 2
    base *= 1.0 - lighting.vignette * (u ** 2 + v ** 2) * 2
    if lighting.shadows:
        mask = np.zeros((sh, sw), np.float32)
        for poly in lighting.shadows:
            pts = np.round(np.array(poly) * (sw, sh)).astype(np.int32)
            cv2.fillPoly(mask, [pts], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), max(sw / 40, 1))
        base *= 1.0 - lighting.shadow_depth * mask
    gain = base[:, :, None] * np.array(lighting.gains, np.float32) * 128
    gain = cv2.resize(np.clip(gain, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    if not lighting.glare:
        return gain, None
    glare = np.zeros((sh, sw), np.float32)
    for gx, gy, radius, strength in lighting.glare:
        d2 = ((xx - gx * (sw - 1)) ** 2 + (yy - gy * (sh - 1)) ** 2) / max(radius / 8, 1) ** 2
        glare += strength * np.exp(-d2)
    glare = np.repeat(np.clip(glare, 0, 255).astype(np.uint8)[:, :, None], 3, axis=2)
    return gain, cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class Sensor:
    """What the sensor and encoder add: Gaussian noise (sigma in grey levels), motion blur
    (length in pixels, angle in degrees; 0 for none) and JPEG quality (0 for no JPEG)."""

    noise: float = 0.0
    blur: float = 0.0
    blur_angle: float = 0.0
    jpeg_quality: int = 0


NOISE_PAD = 64


@lru_cache(maxsize=4)
def _noise_bank(size: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise times 16 (int16), a little larger than the frame; each frame
    takes a crop at its own offset, which is far faster than drawing fresh noise."""
    w, h = size
    bank = np.random.default_rng(0x5EED).standard_normal((h + NOISE_PAD, w + NOISE_PAD, 3), np.float32) * 16
    bank = bank.astype(np.int16)
    bank.setflags(write=False)
    return bank


def apply_sensor(image: np.ndarray, sensor: Sensor, noise_seed: int) -> np.ndarray:
    """The frame as the sensor and encoder deliver it."""
    if sensor.blur >= 1.5:
        n = int(round(sensor.blur)) | 1
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0
        m = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), sensor.blur_angle, 1.0)
        kernel = cv2.warpAffine(kernel, m, (n, n))
        image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    if sensor.noise > 0:
        h, w = image.shape[:2]
        bank = _noise_bank((w, h))
        dy, dx = divmod(noise_seed % (NOISE_PAD * NOISE_PAD), NOISE_PAD)
        image = cv2.addWeighted(image, 1.0, bank[dy:dy + h, dx:dx + w], sensor.noise / 16.0, 0.0, dtype=cv2.CV_8U)
    if sensor.jpeg_quality:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(sensor.jpeg_quality)])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return image
