"""Camera intrinsics, table registration (image px <-> table inches), table profiles, printables."""
