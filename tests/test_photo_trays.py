"""Photo import's trays: checkers standing on edge beyond a field end, counted by their faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.position import WHITE, Position
from hardware.sim.render_sequence import bearoff_position, random_position
from hardware.sim.renderer import STYLES, Conditions, render
from vision.photo import HOMES, import_photo
from vision.photo_board import FieldFit
from vision.photo_trays import (PX_PER_DIAMETER, _extent, _faces, _lightness, _off_floor, _one_line, _standing,
                                read_trays)


def _render(seed: int, kind: str = "bear-off", difficulty: float | None = None, size: tuple[int, int] = (1280, 720),
            style: str = "tournament"):
    """The frame of ``seed`` as bench/boards.py draws it: a position (``kind``: a bear-off
    or a random game from random play, or the opening) and two dice drawn from the seed,
    in clean conditions with style and home corner by seed, or in ``style`` (the
    tournament board) at ``size`` with ``difficulty``'s camera, light and clutter; the
    frame, the position and the home corner (None with a difficulty)."""
    rng = np.random.default_rng(seed)
    position = {"bear-off": lambda: bearoff_position(rng), "opening": Position.initial,
                "random": lambda: random_position(rng, int(rng.integers(0, 40)))}[kind]()
    dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    if difficulty is not None:
        image, _ = render(position, dice=dice, seed=seed, style=style, size=size, difficulty=difficulty)
        return image, position, None
    home = HOMES[(seed // len(STYLES)) % len(HOMES)]
    image, _ = render(position, dice=dice, seed=seed, style=list(STYLES)[seed % len(STYLES)], size=(960, 540),
                      conditions=Conditions.clean(), home=home)
    return image, position, home


def _read_standing(image: np.ndarray, home: str | None) -> dict[str, int]:
    """The checkers of each colour read standing in the trays of ``image``."""
    read = import_photo(image, white="light", home=home)
    bands = read_trays(image, FieldFit(read.board), read.checkers)
    return {colour: sum(b.count for b in bands if b.colour == colour) for colour in ("light", "dark")}


def test_checkers_standing_in_both_trays_are_counted():
    """Five of each side borne off on a classic wooden board (seed 610015): each tray's
    row of faces is counted, the light one and the dark one."""
    image, position, home = _render(610015)
    assert position.off(WHITE) == 5 and position.off(WHITE.opponent) == 5
    assert _read_standing(image, home) == {"light": 5, "dark": 5}


def test_ten_faces_in_a_row_are_ten_checkers():
    """Ten white checkers standing in the tray of a tournament board (seed 610012), a
    block longer than the tray's half: counted face by face."""
    image, position, home = _render(610012)
    assert position.off(WHITE) == 10 and position.off(WHITE.opponent) == 0
    assert _read_standing(image, home) == {"light": 10, "dark": 0}


def test_a_board_with_none_borne_off_shows_none_standing():
    """The opening on every style, and tournament tables with a clock, score cards and a
    cup beside the board: nothing stands in a tray."""
    for seed in range(700000, 700000 + len(STYLES)):
        image, _, home = _render(seed, "opening")
        assert _read_standing(image, home) == {"light": 0, "dark": 0}, list(STYLES)[seed % len(STYLES)]
    for seed in (930000, 930001, 930002):
        image, position, _ = _render(seed, "random", difficulty=0.5)
        assert position.off(WHITE) == position.off(WHITE.opponent) == 0
        assert _read_standing(image, None) == {"light": 0, "dark": 0}, seed


def test_a_bear_off_whose_missing_checkers_stand_in_the_tray_is_a_position():
    """White has borne off four (seed 400041, clean blue board) and piles five on points 2
    and 3: the checkers not found could hide in a pile, so no position was made. The
    tray holds four standing, just the four not found: none is hidden."""
    image, position, home = _render(400041, "random")
    assert position.off(WHITE) == 4 and position.points()[1] == position.points()[2] == 5
    read = import_photo(image, white="light", home=home)
    assert read.observation.off["white"] == (4, 4)
    assert read.position == position, read.reason


def test_a_side_bearing_off_into_a_tray_keeps_the_rest_in_its_one_pile():
    """White has three standing in the tray (seed 610021, random-play bear-off) and eleven
    piled on point 2, of which six show: eight not found, three of them standing. A side
    bearing off into a tray has the five others in its one pile: the position is made, the
    pile's range still from what shows."""
    image, position, home = _render(610021)
    assert position.off(WHITE) == 3 and position.points()[1] == 11
    read = import_photo(image, white="light", home=home)
    assert read.observation.off["white"] == (3, 8)
    assert read.observation.point(2).count == 11 and read.observation.point(2).count_range[1] == 11
    assert read.position == position, read.reason


def _faces_drawn(count: int, step: int, light: bool) -> np.ndarray:
    """A straightened tray (Lab) with ``count`` checkers standing, ``step`` pixels each:
    faces lightest in their middle, dark between, on a mid-grey floor."""
    lab = np.full((count * step + 4 * PX_PER_DIAMETER, 2 * PX_PER_DIAMETER, 3), (90.0, 128.0, 128.0), np.float32)
    top = 2 * PX_PER_DIAMETER
    for i in range(count):
        for r in range(step):
            shade = np.sin(np.pi * (r + 0.5) / step)
            lab[top + i * step + r, 10:34, 0] = (150 + 90 * shade) if light else (20 + 40 * shade)
    return cv2.GaussianBlur(lab, (3, 3), 0)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 15), step=st.integers(6, 10), light=st.booleans())
def test_each_face_standing_in_a_band_counts_once(count, step, light):
    """However many stand and however thick they are (6..10 pixels at 24 a diameter), the
    faces of a band, lightest in their middles, count one checker each."""
    lab = _faces_drawn(count, step, light)
    top = 2 * PX_PER_DIAMETER
    faces = _faces(_lightness(lab, 10, 34), top, top + count * step)
    assert len(faces) == count
    assert _standing(faces, count * step) == count


def test_faces_that_are_no_row_of_checkers_count_none():
    """Real boards without trays show peaks beyond the field's end too: a rim's pattern
    with steps of 3 and 10 pixels (image014), two peaks over a band 2.2 diameters long
    (image050: far longer than two checkers take), a lone peak over 1.5 diameters
    (image024). None is a row of checkers standing."""
    assert _standing([0, 3, 6, 10, 13, 23], 26) == 0
    assert _standing([10, 18], int(2.2 * PX_PER_DIAMETER)) == 0
    assert _standing([12], int(1.5 * PX_PER_DIAMETER)) == 0
    assert _standing([4, 12, 20, 27], 31) == 4


def test_faces_a_pixel_or_two_off_an_even_row_are_a_row():
    """Eight white checkers standing in a tournament board's tray seen at 1920 x 1080 (the
    tournament bear-off bench's seed 350008): their faces' lightest lines lie 357 .. 411,
    steps of 10 and then 6 among sevens and eights, each a pixel or two off its face's
    middle. They lie within a fifth of a step of an even row: eight checkers. Steps of 7
    that turn to 10 halfway, each within half again of the narrowest, are no row of one
    set's checkers: the faces stray up to three tenths of a step from the even row."""
    assert _standing([357, 367, 373, 382, 389, 396, 403, 411], 68) == 8
    assert _standing([0, 7, 14, 21, 31, 41, 51], 58) == 0


def test_two_glints_on_one_line_of_rims_are_one_line():
    """Eight black checkers standing in a black tray show nine lines of silver rims, six to
    nine rows apart at 24 a diameter; the glint on the eighth peaks twice, two rows apart
    (the tournament bear-off bench's seed 350025: ten lines, the steps no even row, and
    Black's eight borne off were not counted). Peaks nearer than the thinnest checker are
    one line, at its lightest: eight faces between nine lines."""
    rims = [47, 53, 61, 67, 76, 83, 90, 96, 98, 104]
    lines = np.full(120, 15.0)
    lines[rims] = [125, 122, 127, 127, 132, 120, 130, 98, 129, 132]
    merged = _one_line(rims, lines)
    assert merged == [47, 53, 61, 67, 76, 83, 90, 98, 104]
    assert _standing([(a + b) // 2 for a, b in zip(merged, merged[1:])], merged[-1] - merged[0]) == 8
    assert _standing([(a + b) // 2 for a, b in zip(rims, rims[1:])], rims[-1] - rims[0]) == 0


@pytest.mark.parametrize("seed, home, standing", [(620001, "bottom-right", {"light": 0, "dark": 5}),
                                                   (620002, "bottom-right", {"light": 7, "dark": 9})])
def test_dark_checkers_with_silver_rims_count_between_their_rims(seed, home, standing):
    """Black's checkers borne off stand in a tournament board's tray: their silver rims,
    side by side, show as bright lines far lighter than the black faces between them.
    Five (seed 620001) showed six lines, taken for six faces, and the rest of Black's pile
    of ten on its ace point was read one short in a wrong position; nine (seed 620002),
    thinner, are half rims, which made the band's colour no side's and no band was found.
    The faces are the stretches between two rims, and the band's colour theirs."""
    image, position, _ = _render(seed, difficulty=0.5)
    assert {"light": position.off(WHITE), "dark": position.off(WHITE.opponent)} == standing
    assert _read_standing(image, None) == standing
    read = import_photo(image, white="light", home=home)
    assert read.position == position, read.reason


@pytest.mark.parametrize("seed, home, standing", [(973020, "bottom-left", 4), (973021, "bottom-left", 6),
                                                   (973029, "top-left", 7)])
def test_black_checkers_in_a_corner_of_a_black_tray_are_counted_by_their_rims(seed, home, standing):
    """Black's borne-off checkers stand in a corner of a tournament board's black tray
    (seeds 973020, 973021, 973029, difficulty 0.5). Their silver rims, seen from above
    with their rounded edges, cross 0.79 of a diameter, under the 0.8 a band needed (a
    die crosses 0.45, the cube 0.62); with the case's dark rim and the table beyond it
    no further from Black's colour than the floor, the band ran a hundred rows for seven
    rims (973021), too long for its faces, or took in the table's brown and was no
    side's colour (973020). A band of rims runs from its first to its last, and a side
    whose colour is the floor's shows its faces by their edges alone."""
    image, position, _ = _render(seed, difficulty=0.5)
    assert position.off(WHITE) == 0 and position.off(WHITE.opponent) == standing
    assert _read_standing(image, None) == {"light": 0, "dark": standing}
    read = import_photo(image, white="light", home=home)
    assert read.position == position, read.reason


def test_a_band_is_cut_to_its_faces_off_the_trays_floor():
    """Three of White's checkers stand in the tray of a tournament board (seed 973007,
    difficulty 0.5) at its end by the case's edge. The edges of their faces blur into
    the black floor beside them, and the band took in half a diameter of floor: its
    colour lay more than four spreads from White's (no side's) and it was too long for
    three faces. Cut to its lines off the floor, it is White's three."""
    image, position, _ = _render(973007, difficulty=0.5)
    assert position.off(WHITE) == 3 and position.off(WHITE.opponent) == 0
    assert _read_standing(image, None) == {"light": 3, "dark": 0}
    read = import_photo(image, white="light", home="top-left")
    assert read.position == position, read.reason


def test_a_band_of_rims_on_a_floor_of_its_sides_colour_runs_as_far_as_its_edges():
    """Black's checkers (L 27) standing on a black floor (L 18), their silver rims (L 200)
    every sixth row from 50 to 70 where edges cross the strip, the table's brown (L 110)
    from row 30 to 45: nearer Black's colour than the floor's, but no face of Black's
    shows so; the band runs over its edges alone. White's (L 227) on a white score card
    (L 236), no rims lighter than it: the lines nearer its colour (L 220) still run the
    band on, and a band two lines of print long on the card is no row of faces."""
    def lines_of(floor: float, rows: dict[tuple[int, int], float]) -> np.ndarray:
        lines = np.tile(np.array([floor, 128.0, 128.0]), (100, 1))
        for (a, b), lightness in rows.items():
            lines[a:b, 0] = lightness
        return lines

    inside, busy = np.ones(100, bool), np.zeros(100, bool)
    busy[50:71] = True
    black = lines_of(18.0, {(30, 46): 110.0, (50, 71): 40.0})
    black[50:71:6, 0] = 200.0
    assert _extent(inside, black, np.array([18.0, 128, 128]), busy, 60, np.array([27.0, 128, 128])) == (50, 71)
    white = lines_of(236.0, {(30, 61): 220.0})
    assert _extent(inside, white, np.array([236.0, 128, 128]), busy, 45, np.array([227.0, 128, 132])) == (30, 71)


def test_a_band_keeps_its_run_of_lines_off_the_floor_or_stays_whole():
    """A black floor (L 25): a band of White's (L 229) from row 31 to 73 whose lines off
    the floor are the case's blurred edge at row 31 and faces from 42 to 71 is cut to the
    faces. One whose lines off the floor are silver rims two rows long every six rows
    stays whole: Black's (its faces the floor's colour), and White's too (no run holds
    most of them)."""
    floor, white, black = (np.array([lightness, 128.0, 128.0]) for lightness in (25.0, 229.0, 30.0))
    lines = np.tile(floor, (100, 1))
    lines[31, 0] = 47.0
    lines[42:72, 0] = 200.0
    assert _off_floor((31, 73), lines, floor, 56, white) == (42, 72)
    rims = np.tile(floor, (100, 1))
    for row in range(40, 90, 6):
        rims[row:row + 2, 0] = 190.0
    assert _off_floor((38, 92), rims, floor, 64, black) == (38, 92)
    assert _off_floor((38, 92), rims, floor, 64, white) == (38, 92)


def test_the_floor_in_a_bands_shade_is_no_part_of_it():
    """White's faces (L 190..230) standing on a black floor (L 27) from row 40 to 72 cast
    a shade behind the last (L 14, 13 from the floor: off it) over rows 73..85: darker
    than the floor and farther from White's colour than it, it is the floor in shade, and
    the band ends with the faces. Black's (L 10) on a grey floor (L 60): lines of L 45
    are nearer Black's colour than the floor, and its silver rims (L 90) lighter than the
    floor; both stay in the band. So do White's faces lighter than its colour (L 212
    against 183) on a light floor (L 160), their band's blurred end nearer it."""
    floor, white = np.array([27.0, 128, 128]), np.array([230.0, 128, 128])
    lines = np.tile(floor, (100, 1))
    lines[40:73, 0] = np.where(np.arange(40, 73) % 7 == 3, 190.0, 228.0)
    lines[73:86, 0] = 14.0
    assert _off_floor((40, 86), lines, floor, 56, white) == (40, 73)
    grey, black = np.array([60.0, 128, 128]), np.array([10.0, 128, 128])
    dark = np.tile(grey, (100, 1))
    dark[40:60, 0] = 12.0
    dark[60:70, 0] = 45.0
    assert _off_floor((40, 70), dark, grey, 50, black) == (40, 70)
    rims = np.tile(grey, (100, 1))
    rims[40:76, 0] = 12.0
    rims[40:76:7, 0] = 90.0
    assert _off_floor((40, 76), rims, grey, 54, black) == (40, 76)
    light, lit = np.array([160.0, 128, 128]), np.tile(np.array([160.0, 128, 128]), (100, 1))
    lit[40, 0] = 185.0          # the band's blurred end
    lit[41:72, 0] = 212.0
    assert _off_floor((40, 72), lit, light, 56, np.array([183.0, 128, 128])) == (40, 72)


@pytest.mark.parametrize("seed, home, standing", [(350008, "bottom-right", {"light": 8, "dark": 0}),
                                                   (350010, "bottom-left", {"light": 9, "dark": 4})])
def test_checkers_standing_in_a_tray_at_1920_by_1080_are_counted(seed, home, standing):
    """Tournament bear-offs at 1920 x 1080 (the tournament bear-off bench's seeds 350008
    and 350010): a pixel of the trays' strip (24 a diameter) stands for nearly three of
    the photo's. Sampled once, the faces' lightest lines jittered with the photo's
    detail: White's nine (350010) showed a step of 11 among sevens and eights, no row.
    Averaged over the photo's pixels under each, the faces lie evenly; and the shade
    White's eight (350008) cast on the black floor behind the last, darker than the
    floor, is no face of theirs."""
    image, position, _ = _render(seed, difficulty=0.5, size=(1920, 1080))
    assert {"light": position.off(WHITE), "dark": position.off(WHITE.opponent)} == standing
    assert _read_standing(image, None) == standing
    read = import_photo(image, white="light", home=home)
    assert read.position == position, read.reason


def test_lines_far_lighter_than_the_lighter_sides_faces_are_no_rims():
    """A board of inlaid wood under hard light (the hard bench's seed 250011), none borne
    off: an empty tray's wood, lit, shows three peaks of lightness along it (L 202, 249
    and 249 where White's colour is L 183), the lightest more than a silver rim stands
    from a black face above White's colour, and as far apart as the rims of two checkers
    standing between them. Only the darker side's checkers show rims lighter than their
    faces: no band of White's is counted by rims."""
    image, position, _ = _render(250011, "random", 0.5, (960, 540), style=list(STYLES)[250011 % len(STYLES)])
    assert position.off(WHITE) == 0 and position.off(WHITE.opponent) == 0
    assert _read_standing(image, "top-left") == {"light": 0, "dark": 0}
    assert import_photo(image, white="light", home="top-left").position == position


def test_a_pile_of_ten_stacked_five_on_five_holds_what_the_tray_does_not():
    """White's ten on point 2 of a tournament board in the bear-off (seed 620039) lie five
    on five, as evenly as a row with one checker on its base one, and one White checker
    stands in the tray: White lacks six, one of them standing, so the stack holds five."""
    image, position, _ = _render(620039, difficulty=0.5)
    assert position.points()[1] == 10 and position.off(WHITE) == 1
    read = import_photo(image, white="light", home="bottom-right")
    assert read.observation.point(2).count_range == (10, 10)
    assert read.position == position, read.reason


def test_a_disc_off_its_points_line_vouches_for_no_faint_discs_below_it():
    """A bear-off on a tournament board (seed 973023, difficulty 0.5): by the tips of
    points 6 and 8, both bare, the cream field's grain between two tips outlines discs of
    nearly White's colour, a third and a half of a point off the points' lines, just
    likelier checkers than not. Vouched for by them, faint discs down to the bases (the
    red points' own bodies) made rows: White read sixteen and no position. A disc off its
    point's line (``ON_LINE``) vouches for none below it."""
    image, position, _ = _render(973023, difficulty=0.5)
    assert position.points()[5] == position.points()[7] == 0
    read = import_photo(image, white="light", home="bottom-left")
    assert read.observation.point(6).count == read.observation.point(8).count == 0
    assert read.position == position, read.reason


def test_a_field_a_point_along_from_where_its_points_lie_is_not_taken():
    """A bear-off on the red and black board (seed 973009): White's eight on point 1 and
    five on point 2 cover the first two points of that half, and a field a point's width
    along from the true one matches every other point's sides as well; aligned on blurred
    edges the search settled there (the bar and the far end's points on the case), read
    every point one off and took the bar's black for a hand over the board. The best seed
    refined where it lies finds the true field."""
    image, position, home = _render(973009)
    read = import_photo(image, white="light", home=home)
    assert read.observation.settled
    assert all(read.observation.point(p).count == abs(position.points()[p - 1]) for p in (2, 3, 15, 22, 23, 24))


def test_a_row_of_discs_that_look_like_the_bare_points_is_the_points_drawing():
    """A bear-off on the blue board (seed 973012): the white triangles' bodies on the blue
    field outline discs of White's colour along points 18 and 20, both bare, two a point
    and no clear outline among them: their cells look like the same cells of the other
    bare white points, so they are the points' drawing, not checkers. Judged so only when
    alone, they made White twelve on the points with four standing in the tray, and the
    eight piled on point 1 (five seen) no more than the five."""
    image, position, home = _render(973012)
    assert position.points()[17] == position.points()[19] == 0
    read = import_photo(image, white="light", home=home)
    assert read.observation.point(18).count == read.observation.point(20).count == 0
    assert read.position == position, read.reason
