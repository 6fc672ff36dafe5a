"""The bundled demo table (photo, table profile with roster, truth), made by vision.synthetic.demo."""
from pathlib import Path

DEMO_DIR = Path(__file__).parent
DEMO_PHOTO = DEMO_DIR / "photo.jpg"
DEMO_TABLE = DEMO_DIR / "table.toml"
DEMO_TRUTH = DEMO_DIR / "truth.json"
