"""A printed square or hex grid, found in a top view of the table by its spatial frequencies.

Thin dark lines are picked out with a black-hat filter (and when that finds no grid, with one nearly
twice as wide: a line a shake has smeared to the narrow one's width shows there only as its two
edges); a lattice of lines puts sharp peaks in the 2-D spectrum of that picture: two at right angles
for squares (at 1 / pitch), three at 60 degrees for hexes (at 2 / (sqrt(3) pitch), pointing at the
hexes' corners). Nothing else on a table does: felt edges, markers and figures spread their energy
over the spectrum. A grid is reported only when every peak its kind needs stands well clear of the
spectrum's background (`MIN_PEAK_SNR`), or of its own spectral neighbourhood (a textured mat), or
when the lattice's line energy does: its first- and second-order peaks together over their
neighbourhoods. A honeycomb needs two of its three peaks (one family of edges smeared by a shake can
take the third with it; the lattice places it).

The spectrum is taken at the coarsest level of a Gaussian pyramid of the line evidence where the
peaks searched for stay well below the sampling rate (a 1" grid at 20 px/in: a sixteenth of the
pixels), which makes the search a few milliseconds.

Each peak is then refined by a zoomed DFT (sub-bin frequency; a square grid's by its lines' second
harmonic where that stands out of the mat, twice as fine), which gives pitch and angle, and the
phases of the peaks give the origin: a line crossing for squares, a hex centre for hexes (a
honeycomb centred on the origin has real negative first-order coefficients: the centre is a hole
between lines).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from measure.scene import Grid

GRID_PPI = 20.0            # top view resolution for the grid search
MIN_PITCH_IN, MAX_PITCH_IN = 0.5, 3.0
MIN_PEAK_SNR = 12.0        # every peak's magnitude over the spectrum's median in the search band
MIN_WHITE_SNR = 4.5        # ... or over the mean of its spectral neighbourhood (a textured mat)
WHITEN_BINS = 15           # that neighbourhood, in spectrum bins
ENERGY_CAP = 2.0           # ... or the mean of its first- and second-order peaks' (each capped at this
ENERGY_FLOOR = 0.5         # times MIN_WHITE_SNR) over it, with every first-order peak at least this share
ZOOM_BLOCK_RATE = 0.3      # the zoomed DFTs average q x q blocks, q = this over the highest peak frequency
SPECTRUM_RATE = 0.25       # the spectrum is taken at the coarsest pyramid level where the peaks stay below this
PROFILE_PITCH_SLACK = 0.15 # with a profile pitch, search within +-15% of it
# The black-hat's width: a printed line, then (when that finds no grid) a line a shake across it
# smeared to about the narrow filter's width, which only shows that line's two edges there: their
# sum has no first-order peak, only the second.
LINE_WIDTHS_IN = (0.25, 0.45)
# A honeycomb's three first-order coefficients have phases that close (p0 + p120 - p60 = pi, its
# centre a hole between lines); a smeared family's edges-only peak comes half a turn off, and the
# origin with it: then the wider filter is asked too, and its fit taken when its phases close.
MAX_PHASE_CLOSURE_RAD = math.pi / 2
_SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class GridFit:
    grid: Grid
    snr: float                 # weakest peak's magnitude over the band's median
    pitch_spread: float = 0.0  # how far the measured peaks disagree on the pitch (max / min - 1)
    phase_closure_rad: float = 0.0  # a honeycomb's three phases: p0 + p120 - p60 - pi, wrapped (0 when whole)


def line_evidence(view_gray: np.ndarray, ppi: float = GRID_PPI, width_in: float = LINE_WIDTHS_IN[0]) -> np.ndarray:
    """Thin dark lines -> bright, everything wider than ~`width_in` -> 0 (float32)."""
    size = int(round(ppi * width_in)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return cv2.morphologyEx(view_gray, cv2.MORPH_BLACKHAT, kernel).astype(np.float32)


def _hann(h: int, w: int) -> np.ndarray:
    return np.outer(np.hanning(h), np.hanning(w)).astype(np.float32)


class _Decimated:
    """The windowed evidence low-passed and sampled every q pixels, for the zoomed DFTs: the
    lattice's first peaks lie far below the sampling rate, and q * q fewer pixels make each zoom
    that much cheaper. The blur keeps the lattice's harmonics from folding onto its fundamental;
    sample u is evidence pixel q u, so phases need no correction."""

    def __init__(self, weighted: np.ndarray, q: int):
        self.q = max(1, int(q))
        image = np.asarray(weighted, np.float32)
        self.full = image                  # undecimated: for a peak above the decimated rate
        if self.q > 1:
            image = cv2.GaussianBlur(image, (0, 0), 0.75 * self.q)[:: self.q, :: self.q]
        self.image = np.ascontiguousarray(image)


def _zoom_dft(weighted, f: np.ndarray, step: float, n: int = 7) -> np.ndarray:
    """DFT on an n x n grid of frequencies (cycles/px) around f, spacing `step`."""
    if isinstance(weighted, _Decimated):
        return _zoom_dft(weighted.image, np.asarray(f, np.float64) * weighted.q, step * weighted.q, n)
    h, w = weighted.shape
    offsets = (np.arange(n) - n // 2) * step
    # Real products through OpenCV's gemm (numpy's matmul would start BLAS threads for each small
    # product, which costs far more than the arithmetic on a busy machine): with
    # ex = cx - i sx and ey = cy - i sy, ey^T A ex = (cy^T A cx - sy^T A sx) - i (cy^T A sx + sy^T A cx).
    ax = 2 * np.pi * np.outer(np.arange(w), f[0] + offsets)
    ay = 2 * np.pi * np.outer(np.arange(h), f[1] + offsets)
    cs_x = np.hstack([np.cos(ax), np.sin(ax)]).astype(np.float32)                  # (w, 2n)
    cs_y = np.hstack([np.cos(ay), np.sin(ay)]).astype(np.float32)                  # (h, 2n)
    a = cv2.gemm(np.ascontiguousarray(weighted, np.float32), cs_x, 1.0, None, 0.0)   # (h, 2n): A cx | A sx
    b = cv2.gemm(cs_y, a, 1.0, None, 0.0, flags=cv2.GEMM_1_T).astype(np.float64)       # (2n, 2n)
    cc, cs, sc, ss = b[:n, :n], b[:n, n:], b[n:, :n], b[n:, n:]
    return (cc - ss) - 1j * (cs + sc)                                                # [fy, fx]


def _refine_peak(weighted: np.ndarray, f: np.ndarray, bin_px: float, zooms: tuple[float, ...] = (3, 12)) -> np.ndarray:
    """Sub-bin peak frequency by zooms (steps of a bin over each of `zooms`, 7 x 7 of them) and a
    parabola on the log magnitude."""
    f = np.asarray(f, np.float64)
    for step in (bin_px / z for z in zooms):
        mag = np.log(np.abs(_zoom_dft(weighted, f, step)) + 1e-9)
        j, i = np.unravel_index(int(np.argmax(mag)), mag.shape)
        j, i = min(max(j, 1), mag.shape[0] - 2), min(max(i, 1), mag.shape[1] - 2)
        dx = _vertex(mag[j, i - 1], mag[j, i], mag[j, i + 1])
        dy = _vertex(mag[j - 1, i], mag[j, i], mag[j + 1, i])
        n = mag.shape[0] // 2
        f = f + (np.array([i - n, j - n]) + (dx, dy)) * step
    return f


def _vertex(a: float, b: float, c: float) -> float:
    d = a - 2 * b + c
    return 0.0 if d >= 0 else float(np.clip(0.5 * (a - c) / d, -0.5, 0.5))


def _coefficient(weighted: np.ndarray, f: np.ndarray) -> complex:
    return complex(_zoom_dft(weighted, f, 0.0, n=1)[0, 0])


def _rotate(v: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([v[0] * math.cos(a) - v[1] * math.sin(a), v[0] * math.sin(a) + v[1] * math.cos(a)])


class _Spectrum:
    """Magnitude spectrum of the windowed evidence, looked up by frequency vector (cycles/px)."""

    def __init__(self, weighted: np.ndarray):
        h, w = weighted.shape
        # OpenCV's DFT, zero-padded to a size it does quickly (a prime side such as 1051 takes it
        # a second); the windowed evidence is zero at its edges, so the padding adds nothing.
        self.h, self.w = cv2.getOptimalDFTSize(h), cv2.getOptimalDFTSize(w)
        padded = np.zeros((self.h, self.w), np.float32)
        padded[:h, :w] = weighted
        spectrum = cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT, nonzeroRows=h)
        self.mag = cv2.magnitude(spectrum[..., 0], spectrum[..., 1])
        # Each bin over the mean of its neighbourhood (less its own 3 x 3): a mat's texture spreads
        # smoothly over the spectrum, a lattice stands as a spike above it wherever it is.
        shifted = np.fft.fftshift(self.mag)
        n, c = WHITEN_BINS, 3
        total = cv2.boxFilter(shifted, -1, (n, n), normalize=False, borderType=cv2.BORDER_REFLECT)
        centre = cv2.boxFilter(shifted, -1, (c, c), normalize=False, borderType=cv2.BORDER_REFLECT)
        local = (total - centre) / (n * n - c * c)
        self.white = np.fft.ifftshift(shifted / (local + 1e-6 * float(local.mean()) + 1e-12))
        fy = np.fft.fftfreq(self.h)[:, None]
        fx = np.fft.fftfreq(self.w)[None, :]
        # Peaks come in opposite pairs: only the half with fy >= 0 (the leading rows) is searched.
        self.rows_up = (self.h + 1) // 2
        self.radius_up = np.hypot(fx, fy[:self.rows_up])
        self.fx, self.fy = np.broadcast_to(fx, self.mag.shape), np.broadcast_to(fy, self.mag.shape)

    def at(self, f: np.ndarray, which: str = "mag") -> float:
        """Largest magnitude (or whitened magnitude) within one bin of f."""
        values = getattr(self, which)
        i, j = int(round(f[0] * self.w)), int(round(f[1] * self.h))
        best = 0.0
        for dj in (-1, 0, 1):
            for di in (-1, 0, 1):
                best = max(best, float(values[(j + dj) % self.h, (i + di) % self.w]))
        return best


def find_grid(view_gray: np.ndarray, ppi: float = GRID_PPI, *, kind: str | None = None,
              pitch_in: float | None = None, orientation: str | None = None) -> GridFit | None:
    """The printed grid in a top view of the whole table (pixel (u, v) = table (u, v) / ppi), or None.

    `kind`, `pitch_in` and `orientation` narrow the search when the table profile gives them."""
    kinds = (kind,) if kind else ("square", "hex")
    first = None
    for width_in in LINE_WIDTHS_IN:
        fit = _find_in_evidence(line_evidence(view_gray, ppi, width_in), ppi, kinds, pitch_in, orientation)
        if fit is not None and abs(fit.phase_closure_rad) <= MAX_PHASE_CLOSURE_RAD:
            return fit
        first = first or fit
    return first


def _find_in_evidence(evidence: np.ndarray, ppi: float, kinds: tuple[str, ...], pitch_in: float | None,
                      orientation: str | None) -> GridFit | None:
    f_max = max(_band(k, ppi, pitch_in)[1] for k in kinds)
    # The lattice's first peaks lie far below the view's sampling rate: the evidence is low-passed
    # and halved (a Gaussian pyramid) while they stay below SPECTRUM_RATE cycles a pixel, and the
    # search runs on that smaller picture (a 1" grid: a sixteenth of the pixels). Pixel u of a
    # level is pixel 2u of the one before, so the table frame only changes its ppi.
    while f_max * 2 <= SPECTRUM_RATE and min(evidence.shape) >= 64:
        evidence = cv2.pyrDown(evidence)
        ppi, f_max = ppi / 2, f_max * 2
    evidence -= evidence.mean()
    weighted = evidence * _hann(*evidence.shape)
    spectrum = _Spectrum(weighted)
    weighted = _Decimated(weighted, int(ZOOM_BLOCK_RATE / max(f_max, 1e-6)))
    best: GridFit | None = None
    for k in kinds:
        fit = _fit_kind(weighted, spectrum, k, ppi, pitch_in, orientation)
        if fit is not None and (best is None or fit.snr > best.snr):
            best = fit
    return best


def _band(kind: str, ppi: float, pitch_in: float | None) -> tuple[float, float]:
    """Frequency band (cycles/px) of the first-order peaks."""
    lo_p, hi_p = ((pitch_in * (1 - PROFILE_PITCH_SLACK), pitch_in * (1 + PROFILE_PITCH_SLACK))
                  if pitch_in else (MIN_PITCH_IN, MAX_PITCH_IN))
    factor = 1.0 if kind == "square" else 2.0 / _SQRT3
    return factor / (hi_p * ppi), factor / (lo_p * ppi)


def _fit_kind(weighted, spectrum: _Spectrum, kind: str, ppi: float, pitch_in: float | None,
              orientation: str | None) -> GridFit | None:
    lo, hi = _band(kind, ppi, pitch_in)
    up = spectrum.rows_up
    in_band = (spectrum.radius_up >= lo) & (spectrum.radius_up <= hi)
    if not in_band.any():
        return None
    background = float(np.median(spectrum.mag[:up][in_band])) + 1e-9
    best, tried = None, set()
    for values in (spectrum.mag, spectrum.white):
        # The strongest spike, plain and whitened (on a textured mat the texture can be stronger).
        masked = np.where(in_band, values[:up], 0.0)
        j, i = np.unravel_index(int(np.argmax(masked)), masked.shape)
        if (j, i) in tried:
            continue                  # the same spike both ways: one fit
        tried.add((j, i))
        fit = _fit_peaks(weighted, spectrum, kind, ppi, orientation, lo, hi, background,
                         np.array([spectrum.fx[j, i], spectrum.fy[j, i]]))
        if fit is not None and (best is None or fit.snr > best.snr):
            best = fit
    return best


def _fit_peaks(weighted, spectrum: _Spectrum, kind: str, ppi: float, orientation: str | None, lo: float,
               hi: float, background: float, strongest: np.ndarray) -> GridFit | None:
    turns = (90.0,) if kind == "square" else (60.0, 120.0)
    # The strongest peak may be a harmonic of the lattice (thin lines have strong ones): the
    # fundamental is the lowest-frequency candidate whose whole set of peaks stands out.
    skew = (45.0, math.sqrt(2.0)) if kind == "square" else (30.0, _SQRT3)
    candidates = [strongest / d for d in (1, 2, 3)]
    candidates += [_rotate(strongest, skew[0]) / (skew[1] * d) for d in (1, 2)]
    candidates.sort(key=lambda f: -np.hypot(*f))
    chosen, snr, faded = None, 0.0, None
    for f1 in candidates:
        if not lo * 0.98 <= np.hypot(*f1) <= hi * 1.02:
            continue
        peaks = [f1] + [_rotate(f1, t) for t in turns]
        each = [spectrum.at(p) / background for p in peaks]
        white = [spectrum.at(p, "white") for p in peaks]
        weak = None
        if kind == "hex":
            # A lattice is two of its peaks; a honeycomb's third is their sum or difference. One
            # family of its edges can fade (a motion blur across them) and take that peak with it:
            # the other two must stand out, and the faded one is placed by the lattice.
            k = int(np.argmin(each))
            if each[k] < MIN_PEAK_SNR and white[k] < MIN_WHITE_SNR:
                weak = k
                each, white = each[:k] + each[k + 1:], white[:k] + white[k + 1:]
        s, whitened = min(each), min(white)
        # The lattice's line energy over the mat's texture: its first- and second-order peaks, each
        # over its spectral neighbourhood (capped, so one strong family cannot carry the rest); a
        # faint grid on a busy mat shows in all of them together, a texture in none for long.
        # A square grid is two families of lines: each puts a Fourier series along its own normal
        # (2 f is its second order) and nothing on the diagonal f1 + f2, where only the crossings
        # show. A honeycomb's edges do fill its second shell (30 degrees on, sqrt(3) f).
        second = [2 * p for p in peaks] if kind == "square" else [_rotate(p, skew[0]) * skew[1] for p in peaks]
        capped = [min(spectrum.at(p, "white"), ENERGY_CAP * MIN_WHITE_SNR) for p in peaks + second]
        if kind == "square":      # each family its own line energy: one (a plank's seams) cannot carry the other
            energy = float(min(np.mean(capped[k::len(peaks)]) for k in range(len(peaks))))
        else:
            energy = float(np.mean(capped))
        if s >= MIN_PEAK_SNR or whitened >= MIN_WHITE_SNR or (energy >= MIN_WHITE_SNR
                                                              and whitened >= MIN_WHITE_SNR * ENERGY_FLOOR):
            chosen, faded = peaks, weak          # keep the lowest
            snr = max(s, max(whitened, energy) * MIN_PEAK_SNR / MIN_WHITE_SNR)
    if chosen is None:
        return None
    peaks = chosen
    bin_px = 1.0 / max(spectrum.w, spectrum.h)
    refined = [None if k == faded else _refine_peak(weighted, p, bin_px) for k, p in enumerate(peaks)]
    if kind == "square":
        # Thin lines' second harmonic pins a family's frequency twice as finely as its first peak,
        # which a textured mat's low frequencies can pull by a fraction of a bin: where it stands
        # out of the mat, the family's frequency is taken from it (half its refined frequency; the
        # first peak puts it within a fraction of a bin, so one fine zoom does).
        for k, p in enumerate(refined):
            if np.abs(2 * p).max() < 0.45 and spectrum.at(2 * p, "white") >= MIN_WHITE_SNR:
                refined[k] = _refine_peak(weighted.full, 2 * p, bin_px, zooms=(8,)) / 2
    if faded is not None:             # peaks at 0, 60 and 120 degrees: p60 = p0 + p120
        p0, p60, p120 = refined
        refined[faded] = (p60 - p120) if faded == 0 else (p0 + p120) if faded == 1 else (p60 - p0)
    radii = np.array([np.hypot(*p) for p in refined])
    if radii.max() / radii.min() > 1.02:
        return None                   # not one lattice: the peaks disagree on the pitch
    measured = np.array([r for k, r in enumerate(radii) if k != faded])
    pitch_spread = float(measured.max() / measured.min() - 1)
    # Angles of the peaks, each brought back to the first peak's frame; their mean is the grid's.
    angles = [math.degrees(math.atan2(p[1], p[0])) - t for p, t in zip(refined, (0.0,) + turns)]
    base = angles[0]
    spread = [((a - base + 180) % 360) - 180 for a in angles]
    if max(abs(s) for s in spread) > 1.0:
        return None
    peak_deg = base + float(np.mean(spread))
    g_px = float(radii.mean())
    if kind == "square":
        pitch = 1.0 / (g_px * ppi)
        angle = ((peak_deg + 45) % 90) - 45
        grid = Grid("square", pitch, (0.0, 0.0), angle)
        origin = _square_origin(weighted, refined, ppi, grid)
    else:
        pitch = 2.0 / (_SQRT3 * g_px * ppi)
        # Peaks point at hex corners: flat-topped hexes have corners at 0 deg (mod 60), pointy at 30.
        flat_angle = ((peak_deg + 30) % 60) - 30
        pointy_angle = (peak_deg % 60) - 30
        if orientation is None:
            orientation = "flat" if abs(flat_angle) <= abs(pointy_angle) else "pointy"
        angle = flat_angle if orientation == "flat" else pointy_angle
        grid = Grid("hex", pitch, (0.0, 0.0), angle, orientation)
        phases = _phases(weighted, refined)
        origin = _hex_origin(phases, refined, ppi, grid)
        closure = phases @ np.array([1.0, -1.0, 1.0]) - np.pi
        return GridFit(Grid(grid.kind, pitch, origin, angle, grid.orientation), snr, pitch_spread,
                       float(np.angle(np.exp(1j * closure))))
    return GridFit(Grid(grid.kind, pitch, origin, angle, grid.orientation), snr, pitch_spread)


def _phases(weighted, peaks: list[np.ndarray]) -> np.ndarray:
    return np.array([np.angle(_coefficient(weighted, p)) for p in peaks])


def _square_origin(weighted, peaks, ppi: float, grid: Grid) -> tuple[float, float]:
    # Lines at x0 + n p give a coefficient with phase -2 pi f x0: solve both directions for the crossing.
    g = np.array(peaks[:2])                                  # cycles/px
    phases = _phases(weighted, peaks[:2])
    origin_px = np.linalg.solve(g, -phases / (2 * np.pi))
    return canonical_origin(origin_px / ppi, grid)


def _hex_origin(phases: np.ndarray, peaks, ppi: float, grid: Grid) -> tuple[float, float]:
    """The hex centre from the first two peaks' `phases` (radians, as `_phases` gives them)."""
    g = np.array(peaks[:2])
    centred = np.asarray(phases[:2]) - np.pi                # sign: centred honeycomb has c < 0
    origin_px = np.linalg.solve(g, -centred / (2 * np.pi))
    return canonical_origin(origin_px / ppi, grid)


def lattice_vectors(grid: Grid) -> np.ndarray:
    """(2, 2) rows: the two basis steps between neighbouring corners (square) or centres (hex)."""
    p = grid.pitch_in
    if grid.kind == "square":
        local = np.array([[p, 0.0], [0.0, p]])
    elif (grid.orientation or "flat") == "flat":
        s = p / _SQRT3
        local = np.array([[1.5 * s, _SQRT3 / 2 * s], [0.0, p]])
    else:
        local = np.array([[p, 0.0], [p / 2, 1.5 * p / _SQRT3]])
    a = math.radians(grid.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return local @ rot.T


def canonical_origin(origin_in, grid: Grid) -> tuple[float, float]:
    """The lattice point nearest the table's corner from the positive side: coefficients in [0, 1)."""
    basis = lattice_vectors(grid)
    coeff = np.linalg.solve(basis.T, np.asarray(origin_in, np.float64))
    coeff = coeff - np.floor(coeff)
    point = coeff @ basis
    return float(point[0]), float(point[1])


def phase_error_in(found: Grid, truth: Grid) -> float:
    """Distance from the found origin to the nearest lattice point of the truth grid, inches."""
    basis = lattice_vectors(truth)
    coeff = np.linalg.solve(basis.T, np.asarray(found.origin) - np.asarray(truth.origin))
    best = math.inf
    base = np.floor(coeff)
    for di in (0, 1):
        for dj in (0, 1):
            d = (coeff - (base + (di, dj))) @ basis
            best = min(best, float(np.hypot(*d)))
    return best
