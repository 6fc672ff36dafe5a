"""Frame -> detections: fiducial markers, colour bases, grid, terrain; tracking; overlays."""
