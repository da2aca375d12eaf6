"""KnowRef's design as the scores read it: the genders compared and the blocks the bootstrap draws whole."""

from __future__ import annotations

from ..declaration import BlockDesign

# accuracy/<COMPARED_GENDER> − accuracy/<REFERENCE_GENDER>: male − female.
REFERENCE_GENDER = "female"
COMPARED_GENDER = "male"

# Rows made from one original sentence (an upstream id, or the same sentence under two ids) share its situation and
# its people: one block.
BLOCKS = BlockDesign(("original_id", "original_sentence"), ("original sentence",), linked=True)
