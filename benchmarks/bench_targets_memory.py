"""Memory check (issue 12 row 4): peak RSS of `tablesight targets --json` on big tables.

Each table size runs in a fresh Python process (the CLI's own `main`, output thrown away) that
reports its peak resident set (resource.getrusage, ru_maxrss). Goals: 1,000 figures under 300 MB,
10,000 under 2 GB; memory should grow with the figures, not their square times the terrain.
`--unchunked` ranks every shooter in one chunk, as before, for comparison. Never a timed test.

    python benchmarks/bench_targets_memory.py [--figures 1000 2000 10000] [--system NAME] [--unchunked]
                                              [--shooters N]

`--shooters N` keeps only N shooters (the others become troops): the output of `targets` lists every
enemy of every shooter, so with half of 10,000 figures shooting it is 25 million verdicts and the
run takes hours; memory is bounded per chunk either way.

Scenes: figures on a jittered lattice 1.6 in apart (bases never overlap), red on the left half and
blue on the right, half of each side archers or wizards; one terrain piece per 20 figures (at
least 30) of the benchmark's six kinds; the table grows with the figures.
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

KINDS = ("woods", "rocks", "hill", "water", "wall", "building")
CHILD = r"""
import contextlib, io, os, resource, sys
import measure.targets
if sys.argv[2] == "unchunked":
    measure.targets.CHUNK_PAIRS = 10 ** 12
from assistant.cli import main
with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
    code = main(["targets", sys.argv[1], "--json", "--system", sys.argv[3]])
sys.stderr.write(f"{code} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\n")
"""


def big_scene(n_figures: int, seed: int = 7, shooters: int | None = None) -> dict:
    rng = np.random.default_rng(seed)
    pitch = 1.6
    cols = int(math.ceil(math.sqrt(n_figures * 4 / 3)))
    rows = int(math.ceil(n_figures / cols))
    width, depth = cols * pitch + 2, rows * pitch + 2
    figures = []
    for k in range(n_figures):
        c, r = k % cols, k // cols
        x = 1 + (c + 0.5) * pitch + rng.uniform(-0.25, 0.25)
        y = 1 + (r + 0.5) * pitch + rng.uniform(-0.25, 0.25)
        side = "red" if x < width / 2 else "blue"
        kind = ("archer", "wizard", "troop", "troop")[k % 4]
        figures.append({"id": f"m{k + 10}", "side": side, "type": kind, "x": round(x, 3), "y": round(y, 3)})
    if shooters is not None:                # every m-th shooter keeps its bow, spread over the table
        able = [f for f in figures if f["type"] != "troop"]
        keep = {id(f) for f in able[::max(1, len(able) // max(shooters, 1))][:shooters]}
        for f in able:
            if id(f) not in keep:
                f["type"] = "troop"
    terrain = []
    for i in range(max(30, n_figures // 20)):
        kind = KINDS[i % len(KINDS)]
        x, y = rng.uniform(0, width - 5), rng.uniform(0, depth - 5)
        w, h = (rng.uniform(0.3, 0.6), rng.uniform(2, 5)) if kind == "wall" else rng.uniform(1.5, 5, 2)
        terrain.append({"id": f"t{i}", "kind": kind,
                        "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]})
    return {"units": "in", "table": {"width": round(width, 2), "depth": round(depth, 2)}, "figures": figures,
            "terrain": terrain}


def peak_mb(path: Path, mode: str, system: str) -> tuple[float, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, system], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    parts = last.split()
    if done.returncode != 0 or len(parts) != 2 or parts[0] != "0":
        raise SystemExit(f"{path.name}: the run failed (exit {done.returncode}): {done.stderr[-400:]}")
    return int(parts[1]) / 1024, elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=int, nargs="+", default=[1000, 2000, 10000])
    parser.add_argument("--system", default="kimmiria")
    parser.add_argument("--unchunked", action="store_true", help="also run with every shooter in one chunk")
    parser.add_argument("--shooters", type=int, help="keep only about this many shooters, spread over the table")
    args = parser.parse_args(argv)
    goal_mb = {1000: 300, 10000: 2048}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.figures:
            path = Path(tmp) / f"table_{n}.json"
            doc = big_scene(n, shooters=args.shooters)
            path.write_text(json.dumps(doc))
            shooters = sum(1 for f in doc["figures"] if f["type"] in ("archer", "wizard"))
            modes = ["chunked"] + (["unchunked"] if args.unchunked else [])
            for mode in modes:
                mb, seconds = peak_mb(path, mode, args.system)
                goal = goal_mb.get(n)
                verdict = "" if goal is None else f" (goal < {goal} MB: {'met' if mb < goal else 'MISSED'})"
                print(f"{n:6d} figures, {shooters} shooters, {len(doc['terrain'])} pieces, {mode}: "
                      f"peak RSS {mb:7.0f} MB in {seconds:.0f} s{verdict}", flush=True)


if __name__ == "__main__":
    main()
