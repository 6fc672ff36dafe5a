"""Synthetic camera photos of a table with exact ground truth (tests, benchmarks, the demo)."""
from vision.synthetic.camera import PinholeCamera, camera_over_table
from vision.synthetic.render import (ColourFigure, FeltPiece, GridDrawing, MarkerFigure, PhotoSpec,
                                     SyntheticPhoto, TableSpec, render_photo)
from vision.synthetic.scenes import marker_photo_set, profile_for, random_photo, random_table

__all__ = ["PinholeCamera", "camera_over_table", "ColourFigure", "FeltPiece", "GridDrawing", "MarkerFigure",
           "PhotoSpec", "SyntheticPhoto", "TableSpec", "render_photo", "marker_photo_set", "profile_for",
           "random_photo", "random_table"]
