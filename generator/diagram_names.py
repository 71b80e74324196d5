"""Names of the diagrams a lesson may reference (drawn by ``generator.diagrams``)."""

DIAGRAM_NAMES = ("backends-map", "cudnn-flags", "sdpa-backends", "tf32-bits")
