"""frame (BGR) -> registration -> detections -> Scene, for one photo or a stream of frames.

One photo (`analyze_image`, or a pipeline built with `track=False`): register the table, find the
figure markers and the colour bases over the whole table, the grid (when the profile has one) and
the terrain felt. The frame is warped to a top view of the table once (vision.topview); markers,
colour, grid and terrain all read that one view (a gray layer, coarser layers, windows cut out).

A stream (`FramePipeline(profile, track=True)`): what a frame did not change is reused.
- The registration holds while the anchors stay put: each frame looks for them only in small
  windows where the registration puts them. An anchor that moved more than `bump_px` means the
  camera was bumped: the table is registered again and everything is searched afresh. Anchors
  hidden by a hand, or one whose card's edge a moving hand covers while two others stayed put,
  are no reason to drop a good registration.
- The top view's pixel maps, the grid and the camera pose are worked out once per registration, the terrain every
  `terrain_every_frames` frames (when the table changed; while a hand is moving over it, once it
  settles, or after twice that many).
- Figures are looked for in windows around their last positions (where their base's place
  changed: one a hand only passes beside is carried over), plus one tile of the table in
  turn (`search_tiles` tiles), so a new figure is found within that many frames (where a hand is
  still moving over the tile, once it settles, or after `search_defer_turns` turns).
- A colour base centred under a hand is not seen (its arc at the hand's edge only says where it
  stands). A tracker (vision.tracking) keeps ids, hides what a hand covers, and holds jitter still. A
  hidden figure is looked for again when its base's place changes (or something round it settles).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.profile import TableProfile
from calibration.registration import Registration, RegistrationError, register
from measure.grid import cell_of
from measure.scene import Grid, Scene, Table, Terrain
from vision.anchors import SEARCH_TRIES, AnchorWindows
from vision.base_size import MAX_SEARCHES, SAME_SIZE, SETTLED, best_size, next_size, size_ratio
from vision.change import ChangeWatch
from vision.colour import COLOUR_PPI
from vision.detections import Detections
from vision.grid import GRID_PPI, canonical_origin, find_grid
from vision.hands import HAND_PPI, REACH_IN as HAND_REACH_IN, Hands, find_hands, roster_under_hands
from vision.heap import keep_freed_memory
from vision.height import CameraPose, camera_pose
from vision.markers import FrameColour, MarkerFinder
from vision.quality import check_photo, colour_resolution, light_tint
from vision.rim_vetting import similar_felts
from vision.rims import ColourTables, MatFlood, mat_flood_in_view, quantise_view, rims_in_view, seen_felts_in_view
from vision.settings import VISION_DEFAULTS
from vision.terrain import CLIPPED, TERRAIN_PPI, WASHED, WORK_PPI as FELT_PPI, find_terrain
from vision.topview import FrameView, TopViewMaker
from vision.tracking import Tracker
from vision.whitebalance import WhiteBalance, estimate_white_balance

WINDOW_IN = 1.4          # half side of the window searched around a figure's last position
FIGURE_WATCH_IN = 1.2    # half side of the region watched for change around a figure
BASE_WATCH_IN = 0.6      # ... and of its base's own place (a hidden figure is looked for when that changed)
FIGURE_REACH_IN = 1.2    # a changed part of a tile is searched this far around (a whole figure)
TILE_PAD_IN = 1.0        # search tiles overlap so that a figure on a border lies whole in one


@dataclass(frozen=True)
class FrameResult:
    scene: Scene
    registration: Registration
    detections: Detections
    timing_ms: dict[str, float] = field(default_factory=dict)
    events: tuple[str, ...] = ()     # "registered", "bumped", "anchors-hidden", "terrain"


def to_gray(frame: np.ndarray) -> np.ndarray:
    if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
        raise ValueError("the frame is empty")
    if frame.ndim == 2:
        return frame
    if frame.ndim == 3 and frame.shape[2] == 3:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    raise ValueError(f"unsupported frame shape {frame.shape}")


def to_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


@dataclass
class _Held:
    """What one registration lets us reuse from frame to frame."""
    registration: Registration
    pose: CameraPose
    grid: Grid | None
    grid_check: dict | None
    maker: TopViewMaker | None = None      # a tracked stream's later frames' top views, for this registration
    rescale: tuple[float, tuple[float, float]] | None = None   # grid correction of the view's labels
    mat: np.ndarray | None = None          # the mat's chromaticity (colour figures compare against it)
    wb: WhiteBalance | None = None         # the anchors' grey card: colours are judged after it
    terrain: tuple[Terrain, ...] | None = None
    terrain_frame: int = -10 ** 9
    colour_resolution: dict | None = None  # where the photo is too coarse for colour bases (vision.quality)
    light_tint: dict | None = None         # where the light starves a side's colour (vision.quality)
    colour_base_in: float | None = None    # sides with no size in the profile: their bases' (vision.base_size)
    flood: MatFlood | None = None          # what the mat's own colour leaves of the sides' (vision.rims.mat_flood)
    water_felts: tuple | None = None       # the felts as this table shows them (vision.rims.seen_felts_in_view)


class FramePipeline:
    """The per-frame work for one table profile (and optionally one calibrated camera)."""

    def __init__(self, profile: TableProfile, camera=None, *, track: bool = False):
        keep_freed_memory()                # a frame's many view-sized temporaries: not faulted in afresh each time
        self.profile = profile
        self.camera = camera
        self.markers = MarkerFinder(profile)
        self.anchor_windows = AnchorWindows(profile)
        self._roster = profile.roster_by_figure()
        self.track = track
        self.tracker = Tracker() if track else None
        # a stream's windows show the same colours frame after frame, judged against the same held
        # white balance and mat: each is labelled once (a photo analysed afresh keeps nothing)
        self._colour_tables = ColourTables() if track else None
        if track:
            _warm_lab_tables()
        self._held: _Held | None = None
        self._scan = None                  # (gray, FrameMarkers) of the frame just registered
        self._frame = -1
        self.watch = ChangeWatch()
        self._hold_ms: dict[str, float] = {}     # the last full frame's top view, grid and white balance
        self._tiles = _tiles(profile.width_in, profile.depth_in, int(VISION_DEFAULTS["search_tiles"]))
        self._deferred = [0] * len(self._tiles)

    # ------------------------------------------------------------ registration

    def register(self, gray: np.ndarray) -> Registration:
        # The frame's one marker search: its anchors register the table, its figure markers and
        # unread outlines are kept for _markers (this frame's only).
        found = self.markers.scan(gray)
        self._scan = (gray, found)
        anchors = dict(found.anchors)
        # The anchors OpenCV's own settings find over the whole frame: slow, so only on the frames
        # that need it, and once.
        thorough = functools.cache(lambda: self.markers.find_anchors_thoroughly(gray))

        if len(anchors) < 2:
            # One anchor cannot check itself and places the others badly: look harder.
            anchors = {**anchors, **thorough()}
        if not anchors:
            names = ", ".join(str(a.id) for a in self.profile.anchors)
            raise RegistrationError(f"no anchor in view: none of the anchor markers {names} "
                                    f"({self.profile.dictionary}) was found in the photo")
        size = (gray.shape[1], gray.shape[0])
        registration = register(anchors, self.profile, size)
        if len(registration.anchors_seen) < 2 and len(self.profile.anchors) >= 2:
            anchors = {**anchors, **thorough()}
            registration = register(anchors, self.profile, size)
        missing = self.profile.anchor_ids - set(registration.anchors_seen)
        if missing:
            # Small or steeply seen anchors the whole-frame search missed, or found with corners too
            # rough to agree with the others: look again where they must be, in a sharpened top view.
            more = self.anchor_windows.find(gray, registration.H_px_to_in, missing, SEARCH_TRIES)
            if more:
                anchors = {**anchors, **more}
                registration = register(anchors, self.profile, size)
        missing = self.profile.anchor_ids - set(registration.anchors_seen)
        if missing and found.figures_searched:
            # Outlined by the search but not read (a lamp's hot spot on the card): read by pattern.
            more = self.markers.read_anchors(found, gray, registration, missing)
            if more:
                anchors = {**anchors, **more}
                registration = register(anchors, self.profile, size)
        if self._unsure(registration):
            # About to refuse the photo: the whole frame with OpenCV's own settings first (an anchor
            # in a lamp's hot spot), then windows where the better registration puts the rest.
            anchors = {**thorough(), **anchors}
            registration = register(anchors, self.profile, size)
            missing = self.profile.anchor_ids - set(registration.anchors_seen)
            more = self.anchor_windows.find(gray, registration.H_px_to_in, missing, SEARCH_TRIES) if missing else {}
            if more:
                registration = register({**anchors, **more}, self.profile, size)
        self._refuse_if_unsure(registration)
        return registration

    def _unsure(self, registration: Registration) -> bool:
        """Anchors missing, and too few seen to place the whole table within the house limit."""
        return bool(self.profile.anchor_ids - set(registration.anchors_seen)) and \
            registration.table_error_in > VISION_DEFAULTS["registration_max_error_in"]

    def _refuse_if_unsure(self, registration: Registration) -> None:
        """Too few anchors seen to place the whole table: one plain line, rather than figures in
        wrong places (two anchors side by side fix their own corner and leave the far side inches
        off). A profile with one anchor only gets what one anchor gives: its owner chose that."""
        missing = sorted(self.profile.anchor_ids - set(registration.anchors_seen))
        limit_in = VISION_DEFAULTS["registration_max_error_in"]
        if self._unsure(registration):
            seen = ", ".join(str(i) for i in registration.anchors_seen)
            raise RegistrationError(
                f"only {len(registration.anchors_seen)} of {len(self.profile.anchors)} anchors were found "
                f"(markers {seen}): from them a place on the table in the photo could be "
                f"{registration.table_error_in:.2f} in off, more than {limit_in:g} in, so nothing was "
                f"measured; make sure every anchor is in view and uncovered (missing: "
                f"{', '.join(str(i) for i in missing)})", registration)

    def _check_registration(self, gray: np.ndarray) -> tuple[Registration | None, str, frozenset]:
        """(held registration, "ok" | "anchors-hidden", the anchors not believed this frame) or
        (None, "bumped", ...)."""
        held = self._held.registration
        found = self.anchor_windows.find(gray, held.H_px_to_in)
        if not found:
            # None where they should be: hidden by hands, or the camera moved a long way. The whole
            # frame tells which (this costs a full search, on such frames only).
            found = self.markers.find_anchors(gray)
            if not found:
                return held, "anchors-hidden", frozenset()
        moved = self.anchor_windows.displacement_px(found, held.H_px_to_in)
        bump_px = VISION_DEFAULTS["bump_px"]
        far = [i for i, d in moved.items() if d > bump_px]
        if not far:
            return held, "ok", frozenset()
        # A bumped camera moves every anchor in the picture. One that seems to have moved while two
        # others stayed put, with something moving over its card (a hand over the card's edge pulls
        # its corners), is not believed this frame: it is looked at again the next (its snapshot is
        # kept), until what moves over it holds still or leaves.
        if len(moved) - len(far) >= 2 and all(self.watch.settled_change(("anchor", i))[1] for i in far):
            return held, "ok", frozenset(far)
        return None, "bumped", frozenset()

    def _hold(self, registration: Registration, frame_bgr: np.ndarray, gray: np.ndarray) -> tuple[_Held, FrameView]:
        """What this registration lets later frames reuse, and this frame's top view."""
        k = self.camera.matrix_for(gray.shape[1], gray.shape[0]) if self.camera is not None else None
        pose = camera_pose(registration.H_px_to_in, registration.image_size, k)
        t0 = time.perf_counter()
        # This frame is seen as a photo is; a stream's later frames are windows of kept maps at the
        # markers' resolution (their markers are read there), made ready now.
        view = TopViewMaker(registration.H_in_to_px, self._view_ppi(registration), self._table_rect()).make(frame_bgr)
        view.base                      # the one warp (every later layer is derived from it)
        maker = None
        if self.track:
            maker = TopViewMaker(registration.H_in_to_px, self._fine_ppi(), self._table_rect())
            maker.prepare_maps()
        spec = self.profile.grid
        if spec is not None or self.profile.sides:
            view.at(COLOUR_PPI)        # the grid's and the rims' layer: part of the shared view
        t1 = time.perf_counter()
        grid, check, rescale = None, None, None
        if spec is not None:
            registration, grid, check, rescale = self._grid(view, registration, spec)
            if rescale is not None:
                pose = camera_pose(registration.H_px_to_in, registration.image_size, k)
                view = view.rescaled(*rescale)
        t2 = time.perf_counter()
        # The anchors' grey card (small patches of the coarse layer) and the mat's colour: for colour
        # bases, hands and terrain, which read the balanced layers of the view from now on.
        coarse = view.at(TERRAIN_PPI)
        wb = estimate_white_balance(coarse.image, coarse.ppi, self.profile.anchors, coarse.origin_in)
        view.white_balance = wb
        mat = view.mat_chroma(HAND_PPI)      # its white-balanced layer is the hands' too
        self._hold_ms = {"topview_ms": (t1 - t0) * 1e3, "grid_ms": (t2 - t1) * 1e3,
                         "whitebalance_ms": (time.perf_counter() - t2) * 1e3}
        coarse_for_colour = (colour_resolution(registration, (self.profile.width_in, self.profile.depth_in))
                             if self.profile.sides else None)
        return _Held(registration, pose, grid, check, maker, rescale, mat, wb=wb,
                     colour_resolution=coarse_for_colour,
                     light_tint=light_tint(wb.white_bgr, wb.black_bgr, self.profile.sides)), view

    def _fine_ppi(self) -> float:
        """The figure markers' view resolution (or the other stages' finest, if finer)."""
        return max(self.markers.view_px_per_in, COLOUR_PPI, GRID_PPI, TERRAIN_PPI)

    def _view_ppi(self, registration: Registration) -> float:
        """The resolution of a whole frame's one warp: the figure markers' when they read the view
        (a frame searched at half size), else the finest of the other stages' (20 px/in), or an
        integer multiple of it where the frame is much finer (up to the markers'), so that the
        coarser layers are area averages of it rather than a sparse sampling of the frame. (A
        tracked stream's first frame too: its colour layer then is a photo's, where one resampled
        from the markers' resolution is blurred a little and shows more phantoms.)"""
        scan = self._scan
        coarse = max(COLOUR_PPI, GRID_PPI, TERRAIN_PPI)
        fine = self._fine_ppi()
        if scan is None or not scan[1].figures_searched:
            return fine
        x1, y1 = self.profile.width_in, self.profile.depth_in
        corners = np.array([[0, 0], [x1, 0], [x1, y1], [0, y1], [x1 / 2, y1 / 2]], float)
        steps = np.concatenate([corners + (1, 0), corners + (0, 1)])
        frame_ppi = float(np.max(np.linalg.norm(registration.to_image(steps) - registration.to_image(
            np.concatenate([corners, corners])), axis=1)))
        if not np.isfinite(frame_ppi) or frame_ppi >= 1.5 * fine:
            return fine              # (or a table whose far side reaches the horizon)
        return min(fine, coarse * max(1, int(np.ceil(frame_ppi / (1.5 * coarse)))))

    def _grid(self, view: FrameView, registration: Registration, spec):
        fit = find_grid(view.gray_at(GRID_PPI).image, GRID_PPI, kind=spec.kind, pitch_in=spec.pitch_in,
                        orientation=spec.orientation)
        if fit is None:
            return registration, None, None, None
        grid = fit.grid
        error = grid.pitch_in / spec.pitch_in - 1
        check = {"measured_pitch_in": round(grid.pitch_in, 5), "profile_pitch_in": spec.pitch_in,
                 "scale_error_pct": round(100 * error, 3), "pitch_spread_pct": round(100 * fit.pitch_spread, 3),
                 "rescaled": False}
        rescale = None
        # The grid corrects the scale only when its own peaks agree on the pitch better than the
        # correction it would make (a view sheared by a rough registration, a faint peak: they don't).
        if (VISION_DEFAULTS["grid_scale_report"] < abs(error) <= VISION_DEFAULTS["grid_scale_max"]
                and abs(error) > fit.pitch_spread):
            # The printed grid is the better ruler: rescale the table frame about the anchors' centre.
            centre = np.mean([self.profile.anchor(i).corners_in() for i in registration.anchors_seen], axis=(0, 1))
            f = 1.0 / (1 + error)
            rescale = (f, (float(centre[0]), float(centre[1])))
            s = np.array([[f, 0, centre[0] * (1 - f)], [0, f, centre[1] * (1 - f)], [0, 0, 1.0]])
            registration = replace(registration, H_px_to_in=s @ registration.H_px_to_in)
            origin = tuple(float(v) for v in s[:2, :2] @ np.asarray(grid.origin) + s[:2, 2])
            grid = replace(grid, pitch_in=spec.pitch_in)
            grid = replace(grid, origin=canonical_origin(origin, grid))
            check["rescaled"] = True
        return registration, grid, check, rescale

    def _table_rect(self) -> tuple[float, float, float, float]:
        return (0.0, 0.0, self.profile.width_in, self.profile.depth_in)

    # ------------------------------------------------------------ figures

    def _clip(self, rect):
        x0, y0, x1, y1 = rect
        return (max(0.0, x0), max(0.0, y0), min(self.profile.width_in, x1), min(self.profile.depth_in, y1))

    def _markers(self, view: FrameView, registration: Registration, pose: CameraPose, rects, full: bool,
                 expected=None, colour: FrameColour | None = None) -> Detections:
        scan, self._scan = self._scan, None
        if full and scan is not None and scan[1].figures_searched:
            found = self.markers.figures_in_frame(scan[1], scan[0], registration, colour,
                                                  lambda: view.gray_at(GRID_PPI))
        else:
            found = self.markers.find_figures(view.gray(), registration, None if full else rects, expected, colour)
        h = self.profile.figure_marker_height_in
        if h > 0 and len(found):
            # Markers on bases stand above the table: put them back under the camera's ray.
            found = replace(found, xy_in=pose.lift(found.xy_in, h))
        return found

    def _hands(self, view: FrameView, held: _Held) -> Hands | None:
        """Hands over the table in this frame (vision.hands), after the anchors' white balance: the
        frame's white-balanced layer at HAND_PPI, shared with the mat's colour (`view` carries
        held.wb: _hold and _hand_cover set it)."""
        if held.wb is None:
            return None
        coarse = view.at(HAND_PPI)
        return find_hands(coarse.image, coarse.ppi, coarse.origin_in, normalised=view.balanced_at(HAND_PPI).image,
                          other_rgbs=[t.rgb for t in self.profile.terrain])

    def _look_wider(self, view, pose: CameraPose, held: _Held, detections: Detections, carried: list) -> Detections:
        """Colour figures seen last frame and not found in their windows this frame, looked for
        once more in windows twice as wide: a small window cut close round a base beside a hand
        (or anything else that changed round it) can miss it that the whole view finds. Only a base
        of the figure's side within the tracker's gate of its last place is taken from there."""
        bases = self._side_bases(held)
        gate_in = self.tracker.gate_in
        carried_ids = {t.figure_id for t in carried}
        colour = detections.detected_by == "colour"
        vanished = []
        for t in self.tracker.tracks.values():
            if t.detected_by != "colour" or t.hidden or t.figure_id in carried_ids:
                continue
            same = colour & (detections.side == t.side)
            if not (same.any() and np.hypot(*(detections.xy_in[same] - t.xy_in).T).min() <= gate_in):
                vanished.append(t)
        if not vanished:
            return detections
        wide = 2 * WINDOW_IN
        rects = [self._clip((t.xy_in[0] - wide, t.xy_in[1] - wide, t.xy_in[0] + wide, t.xy_in[1] + wide))
                 for t in vanished]
        found = self._colour(view, pose, rects, held, markers=detections)
        keep = np.zeros(len(found), bool)
        for k in range(len(found)):
            xy, side = found.xy_in[k], found.side[k]
            near_track = any(t.side == side and np.hypot(*(xy - t.xy_in)) <= gate_in for t in vanished)
            taken = colour.any() and np.hypot(*(detections.xy_in[colour] - xy).T).min() < 0.6 * bases[side]
            keep[k] = near_track and not taken
        return detections.concat(found[keep]) if keep.any() else detections

    def _hand_cover(self, view, held: _Held, hands: Hands | None, full: bool):
        """Table points (N, 2), a reach (in) -> (N,) bool, under a hand in this frame: a full frame's
        hands, or a tracked frame's found on first asking (asked only when a colour base was found
        in a window searched this frame (_off_hands), or when a figure seen last frame has vanished
        and a base of its side turned up farther off (the tracker))."""
        known = {"hands": hands} if full else {}

        def covered(xy_in: np.ndarray, reach_in: float = HAND_REACH_IN, fingers: bool = False) -> np.ndarray:
            if "hands" not in known:
                # (the hands are read at HAND_PPI: a tracked frame's whole view at the markers'
                # resolution is not made for them)
                whole = view.coarse(HAND_PPI)
                whole.white_balance = held.wb
                known["hands"] = self._hands(whole, held)
            found = known["hands"]
            return found.covers(xy_in, reach_in, fingers) if found is not None else np.zeros(len(xy_in), bool)
        return covered

    def _side_bases(self, held: _Held) -> dict[str, float]:
        """Each side's colour bases' diameter (in): the profile's, else the size measured from this
        registration's photo (vision.base_size), else the house default."""
        unsized = held.colour_base_in if held.colour_base_in is not None else VISION_DEFAULTS["colour_base_in"]
        return {s.name: s.base_in if s.base_in is not None else unsized for s in self.profile.sides}

    def _colour_sized(self, view: FrameView, pose: CameraPose, rects, held: _Held, hands: Hands | None,
                      markers: Detections) -> Detections:
        """_colour over a whole table, the size of the sides whose profile gives none read from the
        rims it finds (vision.base_size): where the house default's rims show another size, searched
        again at the common bases towards it, and the size whose rims show it best
        (base_size.best_size) kept and held for the registration."""
        unsized = [s.name for s in self.profile.sides if s.base_in is None]
        found, free = self._colour(view, pose, rects, held, hands, markers, with_free=True)
        if not unsized or held.colour_base_in is not None:
            return found
        size = default = VISION_DEFAULTS["colour_base_in"]
        held.colour_base_in = size
        mine = np.isin(found.side, unsized)
        ratio = size_ratio(free[mine])
        if ratio is None or SAME_SIZE[0] <= ratio <= SAME_SIZE[1]:
            return found
        tried, results = {size: (int(mine.sum()), ratio)}, {size: found}
        for _ in range(MAX_SEARCHES):
            size = next_size(size, ratio, default)
            if size is None or size in tried:
                break
            held.colour_base_in = size
            results[size], free = self._colour(view, pose, rects, held, hands, markers, with_free=True)
            mine = np.isin(results[size].side, unsized)
            ratio = size_ratio(free[mine])
            tried[size] = (int(mine.sum()), ratio)
            if ratio is None or abs(ratio - 1.0) <= SETTLED:
                break
        held.colour_base_in = best_size(tried)
        return results[held.colour_base_in]

    def _colour(self, view: FrameView, pose: CameraPose, rects, held: _Held, hands: Hands | None = None,
                markers: Detections | None = None, with_free: bool = False):
        """Colour bases in `rects` (table inches), each side's looked for at its size (_side_bases;
        one search for the sides of each size). With `with_free`, also each base's free radius (the
        visible arc's own, in its side's base radii), row by row."""
        sides = self.profile.sides
        if not sides:
            return (Detections.empty(), np.zeros(0)) if with_free else Detections.empty()
        # A figure found by its marker stands there: its card is no colour base (dark ink shows
        # false colour).
        half = 0.6 * self.profile.figure_marker_size_in
        cards = [(x - half, y - half, x + half, y + half) for (x, y), by in
                 zip(markers.xy_in, markers.detected_by) if by == "marker"] if markers is not None and len(markers) else []
        h = VISION_DEFAULTS["colour_base_height_in"]
        bases = self._side_bases(held)
        by_size: dict[float, set[int]] = {}
        for k, s in enumerate(sides):
            by_size.setdefault(bases[s.name], set()).add(k)
        others = [t.rgb for t in self.profile.terrain]
        table_view = view.at(COLOUR_PPI)
        whole = None              # the whole table's colours, quantised once (vision.rims.quantise_view)
        if held.flood is None:
            # The mat is judged on the whole table once a registration (a tracked frame's windows are
            # each mostly a base or two), and what it finds is reported (colour_like_table).
            table_bgr = table_view.window(self._table_rect()).image
            whole = quantise_view(table_bgr, held.wb)
            held.flood = mat_flood_in_view(table_bgr, [s.seen_rgb for s in sides], others, wb=held.wb, mat=held.mat,
                                           quantised=whole)
            # A family's own felt lies off the profile's colour: the water search reads it as seen.
            held.water_felts = seen_felts_in_view(table_bgr, COLOUR_PPI, [s.seen_rgb for s in sides], others,
                                                  wb=held.wb, mat=held.mat, quantised=whole)
        xy, side_names, conf, free = [], [], [], []
        for rect in rects:
            # The table-plane view: a base's top shows where its ray meets the table; the camera
            # pose puts it back over its true centre (vision.rims).
            window = table_view.window(rect)
            if window.image.shape[0] < 8 or window.image.shape[1] < 8:
                continue
            for base_in, mine in by_size.items():
                for p, hit in rims_in_view(window, [s.seen_rgb for s in sides], base_in, pose=pose, height_in=h,
                                           wb=held.wb, other_rgbs=others, mat=held.mat,
                                           table_in=(self.profile.width_in, self.profile.depth_in),
                                           keep_out_in=self._anchor_cards() + cards,
                                           exclude=hands.mask_in(window) if hands is not None else None,
                                           tables=self._colour_tables, flood=held.flood, water_felts=held.water_felts,
                                           quantised=whole if rect == self._table_rect() else None):
                    if hit.side_index in mine:
                        xy.append(p)
                        side_names.append(sides[hit.side_index].name)
                        conf.append(hit.confidence)
                        # (the water search fits at the base's radius; a faint arc's own is loose)
                        free.append(np.nan if hit.by_water or hit.faint else hit.free_radius)
        # The same base seen in two overlapping windows: keep its most confident reading (a window that
        # cuts the real rim off may see only a cloak of the other side's colour up on its body).
        kept: list[int] = []
        for k in sorted(range(len(xy)), key=lambda k: -conf[k]):
            if all(np.hypot(*(xy[k] - xy[j])) >= max(bases[side_names[k]], bases[side_names[j]]) * 0.6
                   for j in kept):
                kept.append(k)
        order = sorted(kept, key=lambda k: (round(xy[k][1], 3), xy[k][0]))
        found = Detections.from_colour([f"c{i + 1}" for i in range(len(order))], np.array([xy[k] for k in order]),
                                       [side_names[k] for k in order], [conf[k] for k in order]) \
            if order else Detections.empty()
        return (found, np.array([free[k] for k in order], float)) if with_free else found

    def _anchor_cards(self) -> list[tuple[float, float, float, float]]:
        """Each anchor's printed card (the square and its white border), no place for a base."""
        return [(a.x_in - a.size_in * 0.75, a.y_in - a.size_in * 0.75, a.x_in + a.size_in * 0.75,
                 a.y_in + a.size_in * 0.75) for a in self.profile.anchors]

    def _terrain(self, frame_view: FrameView, detections: Detections, bases: dict[str, float], wb=None,
                 hands: Hands | None = None) -> tuple[Terrain, ...]:
        """The felt pieces; `bases`: each side's colour bases' diameter (_side_bases: a figure's footprint)."""
        kinds = [(t.name, t.rgb) for t in self.profile.terrain]
        if not kinds:
            return ()
        frame_view = frame_view.whole()
        view = frame_view.at(FELT_PPI)          # felt is inches wide: a coarse layer is enough
        image = view.image
        reference = ()
        if wb is not None:      # felt colours are judged after the anchors' white balance too
            # (Felt is judged against the mat around it, so the light's slow changes cancel: only the
            # anchors' white is taken out, not the exposure plane.)
            image = wb.felt(view.image)
            reference = tuple((a.x_in, a.y_in) for a in self.profile.anchors if a.id in wb.anchors_used)
        marker_r = self.profile.figure_marker_size_in * 0.75
        footprints = [(float(x), float(y), bases[side] / 2 if by == "colour" else marker_r)
                      for (x, y), by, side in zip(detections.xy_in, detections.detected_by, detections.side)]
        exclude = [(a.x_in - a.size_in * 0.7, a.y_in - a.size_in * 0.7, a.x_in + a.size_in * 0.7,
                    a.y_in + a.size_in * 0.7) for a in self.profile.anchors]
        return find_terrain(image, view.ppi, kinds, [s.rgb for s in self.profile.sides], footprints,
                            origin_in=view.origin_in, exclude_in=exclude, table_in=self._table_rect(),
                            reference_in=reference,
                            exclude_mask=hands.mask_in(view) if hands is not None else None,
                            clipped_mask=_clipped(view.image), washed_mask=view.image >= WASHED)

    # ------------------------------------------------------------ the frame

    def process(self, frame_bgr: np.ndarray) -> FrameResult:
        timing: dict[str, float] = {}
        events: list[str] = []
        t0 = time.perf_counter()
        self._frame += 1
        if self.camera is not None:
            frame_bgr = self.camera.undistort(frame_bgr)
        gray = to_gray(frame_bgr)
        bgr = to_bgr(frame_bgr)
        held = self._held if self.track else None
        if held is not None and held.registration.image_size != (gray.shape[1], gray.shape[0]):
            held = None
        if self.track:
            self.watch.new_frame(gray)
        if held is not None and any(self.watch.changed(("anchor", a.id)) for a in self.profile.anchors):
            registration, status, doubted = self._check_registration(gray)
            if status == "bumped":
                events.append("bumped")
                held = None
            elif status == "anchors-hidden":
                events.append("anchors-hidden")
            else:
                self._snapshot_anchors(held.registration, skip=doubted)
        full = held is None
        self._hold_ms = {}
        if full:
            tq = time.perf_counter()
            check_photo(gray)          # too dark or too blurred: one plain line, nothing measured
            timing["quality_ms"] = (time.perf_counter() - tq) * 1e3
            tr = time.perf_counter()
            registration = self.register(gray)
            timing["anchors_ms"] = (time.perf_counter() - tr) * 1e3
            held, view = self._hold(registration, bgr, gray)
            events.append("registered")
            if self.track:
                self._held = held
                self.watch.clear()
                self._snapshot_anchors(held.registration)
                self._snapshot_tiles(held.registration)
        else:
            view = held.maker.windows(bgr, held.rescale)     # tracked: made only where a stage looks
        registration, pose = held.registration, held.pose
        # A read's ink must be grey after the anchors' white balance (vision.markers).
        colour = None if held.wb is None else FrameColour(bgr, held.wb.black_bgr, held.wb.gain)
        t1 = time.perf_counter()
        unlooked = frozenset()
        if full:
            table = [self._table_rect()]
            detections = self._markers(view, registration, pose, table, True, colour=colour)
            t2 = time.perf_counter()
            hands = self._hands(view, held)
            timing["hands_ms"] = (time.perf_counter() - t2) * 1e3
            detections = detections.concat(self._colour_sized(view, pose, table, held, hands, detections))
            cover = self._hand_cover(view, held, hands, full)
            detections = _off_hands(detections, cover)
        else:
            hands = None
            carried, marker_rects, colour_rects, expected, unlooked = self._plan_search()
            detections = self._markers(view, registration, pose, marker_rects, False, expected, colour) \
                if marker_rects else Detections.empty()
            t2 = time.perf_counter()
            if colour_rects:
                detections = detections.concat(self._colour(view, pose, colour_rects, held, markers=detections))
                detections = self._look_wider(view, pose, held, detections, carried)
            cover = self._hand_cover(view, held, hands, full)
            detections = _merge_carried(_off_hands(detections, cover), carried)
        t3 = time.perf_counter()
        if self.tracker is not None:
            detections = self.tracker.update(detections, cover)
            self._snapshot_figures(registration, detections, unlooked)
        every = int(VISION_DEFAULTS["terrain_every_frames"])
        due = self.track and self._frame - held.terrain_frame >= every and self.watch.changed("table")
        if due and self._frame - held.terrain_frame < 2 * every and self.watch.settled_change("table")[1]:
            due = False      # a hand moving over the table hides felt: looked at once it settles
        if held.terrain is None or due:
            held.terrain = self._terrain(view, detections, self._side_bases(held), held.wb, hands)
            held.terrain_frame = self._frame
            events.append("terrain")
            if self.track:
                self.watch.snapshot("table", registration.to_image(np.array(
                    [[0, 0], [self.profile.width_in, 0], [self.profile.width_in, self.profile.depth_in],
                     [0, self.profile.depth_in]], float)))
        t4 = time.perf_counter()
        # register_ms: everything before the figures (quality, anchors, top view, grid, white balance;
        # each also on its own when this frame did it); colour_ms: hands and rims (hands_ms apart).
        timing.update(register_ms=(t1 - t0) * 1e3, markers_ms=(t2 - t1) * 1e3, colour_ms=(t3 - t2) * 1e3,
                      track_terrain_ms=(t4 - t3) * 1e3, **self._hold_ms)
        if "hands_ms" in timing:
            timing["rims_ms"] = timing["colour_ms"] - timing["hands_ms"]
        figures = detections.to_figures(self._roster, side_bases=self._side_bases(held))
        if held.grid is not None and figures:
            cells = cell_of(held.grid, np.array([f.xy for f in figures]))
            figures = tuple(replace(f, cell=(int(c[0]), int(c[1]))) for f, c in zip(figures, cells))
        extra = {"registration": registration.as_json(),
                 "camera_pose": {"focal": pose.focal_source, "height_in": round(pose.height_in, 2),
                                 "tilt_deg": round(pose.tilt_deg, 2)}}
        if held.grid_check is not None:
            extra["grid_check"] = held.grid_check
        if held.colour_resolution is not None:
            extra["colour_resolution"] = held.colour_resolution
        if self.profile.sides:
            # A side whose colour the table shows over much of itself (vision.rims.mat_flood): some of
            # its bases are missed, and told so.
            like_table = [s.name for s, reach in zip(self.profile.sides, held.flood.loose_reach if held.flood
                                                     else ()) if reach > 0]
            if like_table:
                extra["colour_like_table"] = like_table
            like_felt = colour_like_felt(self.profile, held.terrain)
            if like_felt:
                extra["colour_like_felt"] = like_felt
            # A lamp whose light starves a side's colour (vision.quality.light_tint): told so.
            if held.light_tint:
                extra["light_tint"] = held.light_tint
            read = held.colour_base_in not in (None, VISION_DEFAULTS["colour_base_in"])
            extra["colour_bases"] = {s.name: {"base": size, "from": "profile" if s.base_in is not None
                                              else "photo" if read else "house default"}
                                     for s, size in zip(self.profile.sides, self._side_bases(held).values())}
        if full and hands is not None and hands.polygons:
            extra["hands"] = hands.as_json()
            # A still photo: roster markers not seen may be under the hand (hidden, place unknown).
            figures, unseen = roster_under_hands(figures, self._roster, hands,
                                                 (self.profile.width_in, self.profile.depth_in))
            if unseen:
                extra["hidden_under_hand"] = unseen
        scene = Scene(table=Table(self.profile.width_in, self.profile.depth_in), figures=figures,
                      terrain=held.terrain, grid=held.grid, extra=extra)
        return FrameResult(scene=scene, registration=registration, detections=detections, timing_ms=timing,
                           events=tuple(events))

    # ------------------------------------------------------------ reuse between frames

    def _snapshot_anchors(self, registration: Registration, skip=()) -> None:
        for a in self.profile.anchors:
            if a.id in skip:
                continue
            half = a.size_in * 0.75
            corners = np.array([[a.x_in - half, a.y_in - half], [a.x_in + half, a.y_in + half],
                                [a.x_in - half, a.y_in + half], [a.x_in + half, a.y_in - half]])
            self.watch.snapshot(("anchor", a.id), registration.to_image(corners))

    def _snapshot_tiles(self, registration: Registration) -> None:
        # This frame searches the whole table: each tile is known as it is now, and its first turn
        # in the tracked frames need not search all of it again.
        for k in range(len(self._tiles)):
            self._snapshot_tile(registration, k)
        self._deferred = [0] * len(self._tiles)     # turns each tile's moving change has waited

    def _snapshot_tile(self, registration: Registration, k: int) -> None:
        x0, y0, x1, y1 = self._tiles[k]
        self.watch.snapshot(("tile", k), registration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])))

    def _figure_box_px(self, registration: Registration, xy, r: float = FIGURE_WATCH_IN) -> np.ndarray:
        x, y = xy
        return registration.to_image(np.array([[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]]))

    def _snapshot_figures(self, registration: Registration, detections: Detections, unlooked=frozenset()) -> None:
        # A hidden figure's place as it was when last looked for (a figure not looked for this frame
        # keeps the one it has): it is looked for again when that has changed.
        for fid, xy, hidden in zip(detections.figure_id, detections.xy_in, detections.hidden):
            if not (hidden and fid in unlooked):
                self.watch.snapshot(("fig", fid), self._figure_box_px(registration, xy))

    def _worth_looking(self, track) -> bool:
        """Whether a hidden figure's place may show it now: its base's place changed since it was
        last looked for, or something round it changed and stayed still. (What only moves round
        it, a hand sweeping past, with its base's place as it was: it was not found, and would
        not be.)"""
        if self.watch.settled_change(("fig", track.figure_id))[0] is not None:
            return True
        return self._base_changed(track)

    def _base_changed(self, track) -> bool:
        """Whether the place of a figure's base changed since its region's snapshot."""
        box = self._figure_box_px(self._held.registration, track.xy_in, BASE_WATCH_IN)
        return self.watch.changed_near(("fig", track.figure_id), box)

    def _plan_search(self) -> tuple[list, list, list, list, set]:
        """(figures carried over unchanged, marker windows, colour windows, the markers expected in
        each marker window, the hidden figures not looked for) for a tracked frame."""
        carried, marker_rects, colour_rects, expected, unlooked = [], [], [], [], set()
        for t in self.tracker.tracks.values():
            if t.hidden and not self._worth_looking(t):
                unlooked.add(t.figure_id)
                continue
            if not t.hidden and not (self.watch.changed(("fig", t.figure_id)) and self._base_changed(t)):
                carried.append(t)
                continue
            x, y = t.xy_in
            rect = self._clip((x - WINDOW_IN, y - WINDOW_IN, x + WINDOW_IN, y + WINDOW_IN))
            if t.detected_by == "marker":
                marker_rects.append(rect)
                expected.append(frozenset({int(t.marker_id)}))
            else:
                colour_rects.append(rect)
        k = self._frame % len(self._tiles)
        # New figures appear where a tile changed and then stayed still: a part still moving (a hand
        # passing over) hides what is under it and will be elsewhere next frame, so it waits for a
        # later turn, up to search_defer_turns of them.
        box_px, moving = self.watch.settled_change(("tile", k))
        if moving and self._deferred[k] >= int(VISION_DEFAULTS["search_defer_turns"]):
            box_px, moving = self.watch.changed_box_px(("tile", k)), False
        registration = self._held.registration
        if box_px is not None:
            # Search that part of it (with a figure's reach around it), then remember the tile as
            # it is now (its moving part as it was).
            tile = self._tiles[k]
            bx0, by0, bx1, by1 = box_px
            corners_in = registration.to_table(np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]))
            (cx0, cy0), (cx1, cy1) = corners_in.min(axis=0) - FIGURE_REACH_IN, corners_in.max(axis=0) + FIGURE_REACH_IN
            part = (max(tile[0], cx0), max(tile[1], cy0), min(tile[2], cx1), min(tile[3], cy1))
            if part[2] - part[0] > 0.5 and part[3] - part[1] > 0.5:
                marker_rects.append(part)
                expected.append(frozenset())
                colour_rects.append(part)
        if moving:
            self.watch.snapshot_settled(("tile", k))
            self._deferred[k] += 1
        else:
            if box_px is not None:
                self._snapshot_tile(registration, k)
            self._deferred[k] = 0
        return carried, marker_rects, _merged(colour_rects), expected, unlooked


def colour_like_felt(profile: TableProfile, terrain) -> dict[str, list[str]]:
    """Each side with felt of a hue near its own on the table (`terrain`, the pieces found): the
    kinds, by side name (blue water under blue rims). A base standing in or beside such felt shows
    its rim against its own colour, and is missed far more often than one on the mat."""
    sides = profile.sides
    hued = similar_felts([s.seen_rgb for s in sides], [t.rgb for t in profile.terrain], len(sides))
    on_table = {piece.kind for piece in terrain or ()}
    out = {}
    for side, labels in zip(sides, hued):
        kinds = [profile.terrain[k - len(sides)].name for k in labels]
        kinds = [kind for kind in dict.fromkeys(kinds) if kind in on_table]
        if kinds:
            out[side.name] = kinds
    return out


def _off_hands(detections: Detections, covered) -> Detections:
    """The colour bases found in this frame less those centred under a hand (`covered` with no
    reach: the hand's own outline): such a base is at least half under it, and the arc showing at
    the hand's edge says where it stands, not that it is in view; with a previous picture it is
    hidden at its last place, as a base wholly under the hand is. Less, too, those centred at
    its fingers beyond the outline: rings fitted to the fingertips (vision.hands.FINGER_NEAR_IN)."""
    colour = detections.detected_by == "colour"
    if not colour.any():
        return detections
    under = np.zeros(len(detections), bool)
    under[colour] = covered(detections.xy_in[colour], 0.0, fingers=True)
    return detections[~under] if under.any() else detections


def _tiles(width_in: float, depth_in: float, n: int) -> list[tuple[float, float, float, float]]:
    """n search tiles (columns x rows as square as the table allows), padded so they overlap."""
    cols = max(1, int(round(np.sqrt(n * width_in / depth_in))))
    rows = max(1, int(np.ceil(n / cols)))
    out = []
    for r in range(rows):
        for c in range(cols):
            x0, x1 = width_in * c / cols, width_in * (c + 1) / cols
            y0, y1 = depth_in * r / rows, depth_in * (r + 1) / rows
            out.append((max(0.0, x0 - TILE_PAD_IN), max(0.0, y0 - TILE_PAD_IN),
                        min(width_in, x1 + TILE_PAD_IN), min(depth_in, y1 + TILE_PAD_IN)))
    return out


def _merged(rects: list) -> list:
    """Overlapping search windows as fewer rects: one inside another is dropped, and two that
    overlap become their bounding box when it is no larger than the two apart (the colour search
    costs per window as well as per pixel; a base on the seam is seen whole once)."""
    out = [tuple(float(v) for v in r) for r in rects]
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] >= b[2] or b[0] >= a[2] or a[1] >= b[3] or b[1] >= a[3]:
                    continue
                box = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                area = lambda r: (r[2] - r[0]) * (r[3] - r[1])
                if area(box) <= area(a) + area(b):
                    out[i] = box
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _merge_carried(found: Detections, carried: list) -> Detections:
    """This frame's detections plus the figures whose neighbourhood did not change (as they were)."""
    if not carried:
        return found
    found_markers = {int(m) for m, by in zip(found.marker_id, found.detected_by) if by == "marker"}
    colour_xy = found.xy_in[found.detected_by == "colour"]
    keep_found = np.ones(len(found), bool)
    rows = []
    for t in carried:
        if t.detected_by == "marker":
            if t.marker_id in found_markers:
                continue
        elif len(colour_xy) and np.min(np.hypot(*(colour_xy - t.xy_in).T)) < 0.6:
            # The same base, found again by a tile search: keep the carried one (its id).
            near = (found.detected_by == "colour") & (np.hypot(*(found.xy_in - t.xy_in).T) < 0.6)
            keep_found &= ~near
        rows.append(t)
    found = found[keep_found]
    # Colour bases found this frame get their ids from the tracker; until then, ids that cannot clash.
    found = replace(found, figure_id=np.array([fid if by == "marker" else f"new{k}" for k, (fid, by)
                                               in enumerate(zip(found.figure_id, found.detected_by))], object))
    ids = set(found.figure_id.tolist())
    rows = [t for t in rows if t.figure_id not in ids]
    if not rows:
        return found
    carried_det = Detections(figure_id=[t.figure_id for t in rows], xy_in=np.array([t.xy_in for t in rows]),
                             marker_id=[t.marker_id for t in rows], side=[t.side for t in rows],
                             detected_by=[t.detected_by for t in rows], confidence=[t.confidence for t in rows],
                             corners_px=np.array([t.corners_px for t in rows]))
    return found.concat(carried_det)


def _warm_lab_tables() -> None:
    """OpenCV builds its 8-bit Lab tables on the first such conversion (0.1-0.25 s): a stream pays
    that as it starts, not on the frame, mid-game, that first vets a faint ring by its colours."""
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)


def analyze_image(frame_bgr: np.ndarray, profile: TableProfile, camera=None) -> FrameResult:
    """One photo, start to finish."""
    return FramePipeline(profile, camera).process(frame_bgr)


def _clipped(image: np.ndarray) -> np.ndarray:
    """(H, W) bool: where a channel of a uint8 BGR image reads CLIPPED or more (every channel under
    it is one range test)."""
    below = CLIPPED - 1
    return cv2.inRange(image, (0, 0, 0), (below, below, below)) == 0
