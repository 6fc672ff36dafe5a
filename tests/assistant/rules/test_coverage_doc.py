"""docs/rules/coverage.md stays true: its counts match its rows, and every scenario it names exists."""
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent.parent
TEXT = (ROOT / "docs" / "rules" / "coverage.md").read_text()
SCENARIOS = ROOT / "tests" / "data" / "scenarios"
DIRS = {"KIMMIRIA": "kimmiria", "AnyMinis!": "anyminis", "SMART": "smart", "KremlinMiniatures": "kremlin"}
STATUSES = ("done", "players", "not in text")


def sections():
    for chunk in re.split(r"\n## ", TEXT)[2:]:
        name, *lines = chunk.splitlines()
        yield name.strip(), [line for line in lines if re.match(r"\| \d+ \|", line)]


def test_counts_match_the_rows():
    counts = {m.group(1): tuple(int(v) for v in m.groups()[1:])
              for m in re.finditer(r"^\| (\S+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", TEXT, re.M)}
    for name, rows in sections():
        status = [next(s for s in STATUSES if r.split("|")[3].strip().startswith(s)) for r in rows]
        assert counts[name] == (len(rows), *(status.count(s) for s in STATUSES)), name


def test_every_scenario_named_exists():
    named = 0
    for name, rows in sections():
        for row in rows:
            folder = None
            for item in (i.strip() for i in row.split("|")[5].split(",")):
                if "/" in item and item.split("/")[0] in DIRS.values():
                    folder, item = item.split("/", 1)
                elif "/" in item or " " in item or item.startswith("test"):
                    folder = None
                if folder:
                    named += 1
                    assert (SCENARIOS / folder / f"{item}.json").exists(), f"{name}: {folder}/{item}"
    assert named >= len(list(SCENARIOS.glob("*/*.json"))) // 2
