"""A reader that reports what the renderer really drew: the referee's view with perfect eyes.

It lets the tests of the referee, the players and the recorder run end to end
without depending on how well vision reads; vision is measured on its own.
"""

from __future__ import annotations

from vision.observation import CubeRead, DieRead, Observation, Occlusion, PointRead


class TruthReader:
    """``read(frame, t)`` for frames of ``hardware.sim.render_sequence.TableCamera``; give it the truth first."""

    def __init__(self):
        self.truth = None

    def read(self, image, timestamp):
        t = self.truth
        if not t.settled:
            return Observation(settled=False, board_visible=True, occlusion=Occlusion(hand=t.hand, motion=True),
                               timestamp=timestamp)
        points = tuple(PointRead(i, None if n == 0 else ("white" if n > 0 else "black"), abs(n), (abs(n), abs(n)), 1.0)
                       for i, n in enumerate(t.points, start=1))
        dice = tuple(DieRead(d.value, d.half, d.flat, d.on_checker, tuple(d.box), 1.0) for d in t.dice)
        cube = None if t.cube is None else CubeRead(t.cube.face, t.cube.side, 1.0)
        return Observation(True, True, points, {k: (v, v) for k, v in t.bar.items()},
                           {k: (v, v) for k, v in t.off.items()}, dice, cube, Occlusion(), timestamp)
