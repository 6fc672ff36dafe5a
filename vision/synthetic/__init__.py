"""Synthetic camera photos of a table with exact ground truth (tests, benchmarks, the demo)."""
from vision.synthetic.camera import PinholeCamera, camera_over_table
from vision.synthetic.render import (ColourFigure, FeltPiece, GridDrawing, MarkerFigure, PhotoSpec,
                                     SyntheticPhoto, TableSpec, render_photo)
from vision.synthetic.scenes import marker_photo_set, profile_for, random_photo, random_table


def __getattr__(name):
    # The hard set needs scikit-image's textures (a test dependency): import it only when asked.
    if name in ("hard_photo_set", "hard_photo", "HardPhoto", "Conditions"):
        from vision.synthetic import hard
        return getattr(hard, name)
    raise AttributeError(name)

__all__ = ["PinholeCamera", "camera_over_table", "ColourFigure", "FeltPiece", "GridDrawing", "MarkerFigure",
           "PhotoSpec", "SyntheticPhoto", "TableSpec", "render_photo", "marker_photo_set", "profile_for",
           "random_photo", "random_table", "hard_photo_set", "hard_photo", "HardPhoto", "Conditions"]
