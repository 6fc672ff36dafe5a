"""Benchmark: `closest_targets` against a naive per-pair shapely loop, in the same process.

60 figures (30 a side, half of them shooters: archers with the ruler's edge, wizards with its
full width) and 30 terrain pieces on a 48 x 36 in table. The naive loop buffers one ruler line
per shooter/enemy pair and tests it against every base and every piece, as a player would
with a ruler. Prints both times and their ratio (never asserted; machines drift).

    python benchmarks/bench_targets.py [--rounds R] [--repeat N] [--seed S] [--corners K] [--profile]
                                       [--system kimmiria smart anyminis kremlin]

Each rule system's own TargetPolicy is used (`--system`, default all four): SMART's obstacle rolls
and range roll, AnyMinis!' spaces, Kremlin's edge ranges, arc of fire (red faces east, blue west)
and fire over. The ratio is reported as median, p95 and max over the interleaved rounds.

`closest_targets` returns per-shooter results whose per-enemy verdicts are built from the
column table when read; the second time includes reading all of them (what `targets --json`
does), so both figures are printed.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box

from measure import Figure, Scene, ShooterSpec, SightPolicy, Table, Terrain, closest_targets
from measure.los import SceneIndex
from measure.sight import MeasureSettings, resolve_width

KINDS = ("woods", "rocks", "hill", "water", "wall", "building")


def blob(rng, x: float, y: float, w: float, h: float, corners: int) -> Polygon:
    """An irregular felt-like outline inside the w x h box at (x, y)."""
    angles = np.sort(rng.uniform(0, 2 * np.pi, corners))
    radii = rng.uniform(0.6, 1.0, corners)
    return Polygon(np.c_[x + w / 2 * (1 + radii * np.cos(angles)), y + h / 2 * (1 + radii * np.sin(angles))])


def make_scene(seed: int = 7, per_side: int = 30, pieces: int = 30,
               corners: int = 0) -> tuple[Scene, dict[str, ShooterSpec]]:
    """`corners` > 0: woods, rocks, hills and water are irregular outlines with that many corners
    (walls and buildings stay rectangles); 0: every piece is a rectangle."""
    rng = np.random.default_rng(seed)
    terrain = []
    for i in range(pieces):
        kind = KINDS[i % len(KINDS)]
        x, y = rng.uniform(6, 42), rng.uniform(4, 32)
        w, h = (rng.uniform(0.3, 0.6), rng.uniform(2, 5)) if kind == "wall" else rng.uniform(1.5, 5, 2)
        crest = box(x + w * 0.4, y, x + w * 0.6, y + h) if kind == "hill" else None
        outline = blob(rng, x, y, w, h, corners) if corners and kind not in ("wall", "building") else \
            box(x, y, x + w, y + h)
        if crest is not None:
            parts = shapely.get_parts(crest.intersection(outline))
            crest = max(parts, key=lambda g: g.area) if len(parts) else None
        terrain.append(Terrain(f"t{i}", kind, outline, crest=crest))
    figures: list[Figure] = []
    while len(figures) < 2 * per_side:
        side = "red" if len(figures) < per_side else "blue"
        x = rng.uniform(1, 20) if side == "red" else rng.uniform(28, 47)
        y = rng.uniform(1, 35)
        if any(np.hypot(f.x - x, f.y - y) < 1.2 for f in figures):
            continue                                    # bases do not overlap on a real table
        n = len(figures) % per_side
        kind = "troop" if n >= per_side // 2 else ("wizard" if n % 3 == 0 else "archer")
        figures.append(Figure(f"m{len(figures) + 10}", x, y, side=side, type=kind))
    specs = {f.id: ShooterSpec("ruler" if f.type == "wizard" else "edge")
             for f in figures if f.type in ("archer", "wizard")}
    return Scene(table=Table(48, 36), figures=tuple(figures), terrain=tuple(terrain)), specs


def vectorised(scene: Scene, specs, settings=MeasureSettings(), policy=SightPolicy()):
    return closest_targets(scene, specs, policy, settings, index=SceneIndex.build(scene))


def system_specs(system: str, scene: Scene, specs):
    """The benchmark's shooters as this system would have them: its policy, ranges and facings."""
    from dataclasses import replace

    from assistant.rules import get_system
    policy = get_system(system).target_policy()
    if system == "kremlin":
        specs = {k: replace(v, range_in=24.0, facing_deg=0.0 if scene.figure(k).side == "red" else 180.0)
                 for k, v in specs.items()}
    elif system == "anyminis":
        specs = {k: replace(v, range_in=20.0) for k, v in specs.items()}
    return policy, specs


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def naive(scene: Scene, specs, settings=MeasureSettings()):
    """One buffered ruler per pair, tested against every base and piece: blocked ids per pair."""
    out = {}
    bases = [(f.id, Point(f.xy).buffer(f.base_in / 2)) for f in scene.figures]
    for shooter_id, spec in specs.items():
        shooter = scene.figure(shooter_id)
        half = resolve_width(spec.width, settings) / 2
        for enemy in scene.figures:
            if enemy.side == shooter.side:
                continue
            ruler = LineString([shooter.xy, enemy.xy]).buffer(half, cap_style="flat")
            hits = [fid for fid, disc in bases if fid not in (shooter.id, enemy.id) and disc.intersects(ruler)]
            hits += [t.id for t in scene.terrain if t.polygon.intersects(ruler)]
            out[shooter_id, enemy.id] = hits
    return out


def read_all(results) -> int:
    """Touch every verdict, as the CLI's JSON does (results build them when read)."""
    return sum(len(r.enemies) + sum(len(e.blocked_by) for e in r.enemies) for r in results)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (ratio = median over rounds)")
    parser.add_argument("--repeat", type=int, default=10, help="vectorised runs per round")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--corners", type=int, default=0,
                        help="irregular woods/rocks/hills/water with this many corners (default: rectangles)")
    parser.add_argument("--profile", action="store_true", help="profile the vectorised run (pyinstrument)")
    parser.add_argument("--system", nargs="+", default=["kimmiria", "smart", "anyminis", "kremlin"])
    args = parser.parse_args(argv)
    scene, base_specs = make_scene(args.seed, corners=args.corners)
    pairs = sum(1 for s in base_specs for f in scene.figures if f.side != scene.figure(s).side)
    print(f"{len(scene.figures)} figures, {len(base_specs)} shooters, {len(scene.terrain)} terrain pieces, "
          f"{pairs} shooter/enemy pairs")
    for system in args.system:
        policy, specs = system_specs(system, scene, base_specs)
        rank = lambda: vectorised(scene, specs, policy=policy)       # noqa: E731
        read_all(rank()), naive(scene, specs)                         # warm up both
        if args.profile:
            from pyinstrument import Profiler
            with Profiler(interval=0.0001) as profiler:
                for _ in range(args.repeat):
                    read_all(rank())
            profiler.print()
        # Shared machines drift: interleave the two and take each round's ratio.
        fast, full, slow = [], [], []
        for _ in range(args.rounds):
            fast.append(statistics.median(timed(rank) for _ in range(args.repeat)))
            full.append(statistics.median(timed(lambda: read_all(rank())) for _ in range(args.repeat)))
            slow.append(timed(lambda: naive(scene, specs)))
        ratios = [s / f for s, f in zip(slow, fast)]
        ratios_full = [s / f for s, f in zip(slow, full)]
        print(f"{system}: targets {statistics.median(fast) * 1000:.2f} ms, + reading every verdict "
              f"{statistics.median(full) * 1000:.2f} ms, naive loop {statistics.median(slow) * 1000:.2f} ms")
        for name, r in (("naive / targets", ratios), ("naive / (targets + verdicts)", ratios_full)):
            print(f"  ratio {name}: median {statistics.median(r):.1f}x, p95 {percentile(r, 0.95):.1f}x, min {min(r):.1f}x, "
                  f"max {max(r):.1f}x  (goal: >= 20x; {args.rounds} interleaved rounds)")


if __name__ == "__main__":
    main()
