"""Counting the checkers on every point, each side's half of the bar and each tray.

The checker network (``vision/models/checkers``, made by ``training.checkers``) reads
each region's strip (``vision.strips``) and gives the probability of every count of
either side there, and of a hand covering the region. Regions read apart may give a
side more or fewer checkers than it has, so the counts are weighed together: each
region's probability of each count given that each side has exactly all its checkers
on its points, the bar and in its tray (exact, by dynamic programming over both sides'
running totals). A region a hand covers, or a tray the board does not have, tells
nothing: every count is as likely there. Every count a region holds with probability
above ``POSSIBLE`` belongs to its honest range; a range of one count is certain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.position import BLACK, WHITE, Position
from vision.calibration import Calibration
from vision.nets import Network
from vision.observation import PointRead
from vision.strips import BAR, REGIONS, SIDE, TRAY, StripCutter

NETWORK = "checkers"
MOST = 15                   # the most checkers a count class names
CLASSES = 2 * MOST + 1      # 0 empty, 1..15 White's count, 16..30 Black's
POSSIBLE = 0.002            # probability above which a count is in a region's range
HAND = 0.5                  # probability of a hand over a region above which it is covered
SURE_HAND = 0.8             # ... above which nothing read there explains it away
CERTAIN_HAND = 0.98         # ... above which a count the network is sure of is not read there
SURE_COUNT = 0.9999         # probability of a region's likeliest count above which it stands beside a hand
DOUBTFUL_HAND = 0.1         # a region with a hand above this, or a count other than its likeliest
DOUBTFUL_COUNT = 0.001      # above this, is read again mirrored and with the sides' colours exchanged

_WHITE = np.array([c if c <= MOST else 0 for c in range(CLASSES)])
_BLACK = np.array([c - MOST if c > MOST else 0 for c in range(CLASSES)])
_WHITE_CLASSES = np.arange(MOST + 1)                                # White's count k: class k
_BLACK_CLASSES = np.array([0] + [MOST + k for k in range(1, MOST + 1)])  # Black's count k


def count_class(signed: int) -> int:
    """The class of a signed count (+White, -Black)."""
    return signed if signed >= 0 else MOST - signed


#: Each class as the other side's: what a region reads as with the sides' colours exchanged.
EXCHANGED = np.array([count_class(-signed) for signed in _WHITE - _BLACK])


def position_classes(position: Position) -> np.ndarray:
    """The class of every region (``REGIONS`` order) in ``position``."""
    signed = list(position.points()) + [position.bar(WHITE), -position.bar(BLACK),
                                        position.off(WHITE), -position.off(BLACK)]
    return np.array([count_class(v) for v in signed])


def allowed_classes(checkers: int) -> np.ndarray:
    """Which classes each region may hold: (regions, classes) booleans. A side's bar half
    and tray hold only its own checkers; no count exceeds ``checkers``."""
    ok = np.zeros((len(REGIONS), CLASSES), bool)
    fits = (_WHITE <= checkers) & (_BLACK <= checkers)
    ok[:24] = fits
    for side, only in (("white", _BLACK == 0), ("black", _WHITE == 0)):
        ok[BAR[side]] = fits & only
        ok[TRAY[side]] = fits & only
    return ok


def _steps(values: np.ndarray) -> np.ndarray:
    """Per region, the matrix that adds a count drawn from ``values`` (regions, n) to a
    running total: ``out[r, i, j] = values[r, i - j]`` for i >= j, else 0."""
    n = values.shape[1]
    gap = np.subtract.outer(np.arange(n), np.arange(n))
    return np.where(gap >= 0, values[:, np.clip(gap, 0, None)], 0.0)


def joint(probabilities: np.ndarray, unknown: np.ndarray, checkers: int) -> np.ndarray:
    """Each region's probability of each class given that each side has exactly
    ``checkers``: (regions, classes) from the network's (regions, classes), with
    ``unknown`` regions (covered, or missing) as likely to hold any count. Where the
    reading allows no whole board at all, the regions' own probabilities are returned.

    Forward, ``total[r]`` is the probability of each pair of running totals (White's,
    Black's) over the regions before r; backward, ``rest[r]`` that of the regions from r
    on making up the rest. A region holds one side's checkers or none, so adding it
    adds along one axis: a matrix product on each side."""
    ok = allowed_classes(checkers)
    like = np.where(ok, np.asarray(probabilities, np.float64), 0.0)
    like[unknown] = ok[unknown].astype(np.float64)
    like /= np.maximum(like.sum(axis=1, keepdims=True), 1e-300)
    n = checkers + 1
    white = like[:, _WHITE_CLASSES[:n]]
    black = like[:, _BLACK_CLASSES[:n]]
    none = like[:, 0]
    add_white, add_black = _steps(white), _steps(black)
    regions = len(like)
    total = np.zeros((regions + 1, n, n))
    total[0, 0, 0] = 1.0
    for r in range(regions):
        t = total[r]
        out = add_white[r] @ t + t @ add_black[r].T - none[r] * t
        total[r + 1] = out / max(out.sum(), 1e-300)
    rest = np.zeros((regions + 1, n, n))
    rest[regions, n - 1, n - 1] = 1.0
    for r in range(regions - 1, -1, -1):
        t = rest[r + 1]
        out = add_white[r].T @ t + t @ add_black[r] - none[r] * t
        rest[r] = out / max(out.sum(), 1e-300)
    if total[regions, n - 1, n - 1] <= 0:
        return like
    before, after = total[:-1], rest[1:]
    whites = before @ after.transpose(0, 2, 1)          # [r, W, W + k] pairs a White count k
    blacks = before.transpose(0, 2, 1) @ after          # [r, B, B + k] a Black count k
    marginals = np.zeros_like(like)
    marginals[:, 0] = none * (before * after).sum(axis=(1, 2))
    for k in range(1, n):
        marginals[:, _WHITE_CLASSES[k]] = white[:, k] * np.trace(whites, offset=k, axis1=1, axis2=2)
        marginals[:, _BLACK_CLASSES[k]] = black[:, k] * np.trace(blacks, offset=k, axis1=1, axis2=2)
    return marginals / np.maximum(marginals.sum(axis=1, keepdims=True), 1e-300)


def _log_odds(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)), kept finite at 0 and 1."""
    p = np.clip(np.asarray(p, np.float64), 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


def point_read(number: int, marginal: np.ndarray, occluded: bool) -> PointRead:
    """A point's reading from its class probabilities: the likeliest count and its
    colour, the range of every count possible (from 0 when either colour is)."""
    best = int(np.argmax(marginal))
    possible = np.flatnonzero(marginal > POSSIBLE)
    if not len(possible):
        possible = np.array([best])
    whites, blacks = _WHITE[possible], _BLACK[possible]
    colour = None if best == 0 else "white" if best <= MOST else "black"
    if (whites > 0).any() and (blacks > 0).any():
        low, high = 0, int(max(whites.max(), blacks.max()))
    else:
        counts = whites + blacks
        low, high = int(counts.min()), int(counts.max())
    count = int(_WHITE[best] + _BLACK[best])
    return PointRead(number, colour, count, (low, high), float(marginal[best]), occluded)


def side_range(marginal: np.ndarray, side: str) -> tuple[int, int]:
    """The range of a side's count on its bar half or in its tray."""
    counts = _WHITE if side == "white" else _BLACK
    possible = counts[marginal > POSSIBLE]
    best = int(counts[int(np.argmax(marginal))])
    if not len(possible):
        return best, best
    return int(possible.min()), int(possible.max())


@dataclass(frozen=True)
class Counts:
    """One frame's checkers: the network's class probabilities and hand probability per
    region, and the classes' probabilities weighed together (``marginals``)."""

    probabilities: np.ndarray
    hands: np.ndarray
    marginals: np.ndarray

    def sure_beside_hand(self) -> np.ndarray:
        """The regions whose count the network is sure of (above SURE_COUNT) and where any
        hand it sees falls short of CERTAIN_HAND: such a hand lies beside the checkers, not
        over them."""
        return (self.probabilities.max(axis=1) > SURE_COUNT) & (self.hands < CERTAIN_HAND)

    def highest(self) -> np.ndarray:
        """Each region's largest possible count of either side."""
        possible = self.marginals > POSSIBLE
        return np.max(np.where(possible, np.maximum(_WHITE, _BLACK), 0), axis=1)


class CheckerCounter:
    """Counts the checkers in frames of one calibrated camera."""

    def __init__(self, calibration: Calibration, checkers: int = 15, network: Network | None = None) -> None:
        self.checkers = checkers
        self.cutter = StripCutter(calibration.model, calibration.to_frame, calibration.empty,
                                  calibration.white.lab, calibration.black.lab)
        self.network = network or Network(NETWORK)
        self.no_trays = calibration.model.tray_width <= 0

    def read(self, frame: np.ndarray) -> Counts:
        """The counts in a BGR frame, with the regions the network sees a hand over unknown.
        A region the network is in doubt about (``DOUBTFUL_HAND``, ``DOUBTFUL_COUNT``) is
        read four ways, as it is and mirrored across, each with the sides' colours as they
        are and exchanged (the network learned all four as the same region), and the four
        readings averaged (their log-probabilities): a doubt that comes from one look at the
        pixels, not from what the region shows, mostly goes."""
        features = self.cutter.features(self.cutter.cut(frame))
        out = self.network(features)
        probabilities, hands = out["counts"], out["covered"]
        doubtful = np.flatnonzero((hands > DOUBTFUL_HAND) | (np.sort(probabilities, axis=1)[:, -2] > DOUBTFUL_COUNT))
        if len(doubtful):
            probabilities[doubtful], hands[doubtful] = self._four_ways(features[doubtful], probabilities[doubtful],
                                                                       hands[doubtful])
        return self.weigh(probabilities, hands)

    def _four_ways(self, features: np.ndarray, probabilities: np.ndarray,
                   hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The average reading of strips' ``features`` (whose plain reading is given) mirrored
        across and with the sides exchanged: geometric mean of the count probabilities,
        mean of the hand's log-odds."""
        mirrored = features[..., ::-1]
        exchanged = features.copy()
        exchanged[:, SIDE] *= -1.0
        both = exchanged[..., ::-1]
        again = self.network(np.concatenate([mirrored, exchanged, both]))
        counts = np.split(again["counts"], 3)
        looks = [probabilities, counts[0], counts[1][:, EXCHANGED], counts[2][:, EXCHANGED]]
        logs = np.mean([np.log(np.maximum(p, 1e-300)) for p in looks], axis=0)
        averaged = np.exp(logs - logs.max(axis=1, keepdims=True))
        odds = np.mean([_log_odds(h) for h in (hands, *np.split(again["covered"], 3))], axis=0)
        return averaged / averaged.sum(axis=1, keepdims=True), 1.0 / (1.0 + np.exp(-odds))

    def weigh(self, probabilities: np.ndarray, hands: np.ndarray, covered: np.ndarray | None = None) -> Counts:
        """The network's reading weighed together, the ``covered`` regions (booleans; by
        default those it sees a hand over) unknown."""
        unknown = (hands > HAND) if covered is None else covered.copy()
        if self.no_trays:
            unknown[[TRAY["white"], TRAY["black"]]] = True
        return Counts(probabilities, hands, joint(probabilities, unknown, self.checkers))

    def misread(self, frame: np.ndarray, position: Position) -> list:
        """The regions (``vision.strips.REGIONS`` entries) of a BGR frame showing
        ``position`` that read likeliest otherwise (the trays of a board without them left
        out)."""
        wrong = self.read(frame).marginals.argmax(axis=1) != position_classes(position)
        if self.no_trays:
            wrong[[TRAY["white"], TRAY["black"]]] = False
        return [REGIONS[i] for i in np.flatnonzero(wrong)]

    def observe(self, counts: Counts, covered: np.ndarray) -> tuple[list[PointRead], dict, dict]:
        """Points, bar and borne-off ranges of a frame's counts; ``covered`` regions are
        read as occluded."""
        m = counts.marginals
        points = [point_read(n, m[n - 1], bool(covered[n - 1])) for n in range(1, 25)]
        bar = {side: side_range(m[BAR[side]], side) for side in ("white", "black")}
        off = {side: side_range(m[TRAY[side]], side) for side in ("white", "black")}
        return points, bar, off
