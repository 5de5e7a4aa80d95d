"""Table simulator: realistic top-down frames of a Tightrope table with exact ground truth.

scene: single frames (render_frame, random_scene, scoring_row_scene, render_table); footage:
whole games as frame sequences (render_footage, table_layout); labelled: evaluation sets
(make_labelled_set); faces: every deck's faces (face, random_deck_design, Printed) for the three
games' cards.
See docs/simulator.md.
"""

from vision.sim.faces import DECKS, Printed, face, printed_deck, random_deck_design
from vision.sim.footage import (
    ClearRound,
    ClearTrick,
    Place,
    Reveal,
    render_footage,
    table_layout,
)
from vision.sim.hands import HandPose
from vision.sim.labelled import HARD_CONDITIONS, load_labelled_set, make_labelled_set
from vision.sim.scene import (
    Conditions,
    Placement,
    SimError,
    TruthCard,
    card_corners,
    flat_to_frame,
    random_scene,
    render_frame,
    render_table,
    scoring_row_scene,
)
from vision.sim.textures import TABLES

__all__ = [
    "DECKS",
    "HARD_CONDITIONS",
    "TABLES",
    "ClearRound",
    "ClearTrick",
    "Conditions",
    "HandPose",
    "Place",
    "Placement",
    "Printed",
    "Reveal",
    "SimError",
    "TruthCard",
    "card_corners",
    "face",
    "flat_to_frame",
    "load_labelled_set",
    "make_labelled_set",
    "printed_deck",
    "random_deck_design",
    "random_scene",
    "render_footage",
    "render_frame",
    "render_table",
    "scoring_row_scene",
    "table_layout",
]
