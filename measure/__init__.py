"""Pure geometry on a Scene, in table inches. Imports nothing of ours and never OpenCV."""
from measure.scene import Figure, Grid, Scene, SceneError, Table, Terrain, scene_from_json, scene_to_json

__all__ = ["Figure", "Grid", "Scene", "SceneError", "Table", "Terrain", "scene_from_json", "scene_to_json"]
