"""Pure geometry on a Scene, in table inches. Imports nothing of ours and never OpenCV."""
from measure.scene import Figure, Grid, Scene, SceneError, Table, Terrain, scene_from_json, scene_to_json
from measure.sight import (LosResult, MeasureSettings, RangePolicy, ShooterSpec, SightError, SightPolicy, TargetPolicy,
                           resolve_width)
from measure.distance import centre_distance, distance_matrices, edge_distance, figure_distance
from measure.grid import (GridError, adjacent, cell_centre, cell_distance, cell_of, grid_distance,
                          hex_distance, square_distance)
from measure.corridor import corridor, corridors
from measure.los import SceneIndex, find_blockers, line_of_sight, line_of_sight_to_point
from measure.engage import contact_matrix, engaged_group_mask, engaged_ids, engaged_pairs, groups
from measure.targets import EnemyVerdict, ShooterResult, closest_targets, iter_closest_targets, shot_verdict

__all__ = ["Figure", "Grid", "Scene", "SceneError", "Table", "Terrain", "scene_from_json", "scene_to_json",
           "LosResult", "MeasureSettings", "ShooterSpec", "SightError", "SightPolicy", "resolve_width",
           "centre_distance", "distance_matrices", "edge_distance", "figure_distance",
           "GridError", "adjacent", "cell_centre", "cell_distance", "cell_of", "grid_distance",
           "hex_distance", "square_distance", "corridor", "corridors",
           "SceneIndex", "find_blockers", "line_of_sight",
           "contact_matrix", "engaged_group_mask", "engaged_ids", "engaged_pairs", "groups",
           "EnemyVerdict", "ShooterResult", "closest_targets", "iter_closest_targets", "shot_verdict",
           "RangePolicy", "TargetPolicy", "line_of_sight_to_point"]
