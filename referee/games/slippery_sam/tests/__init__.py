"""The slippery_sam game's own tests (collected by pytest through pyproject's testpaths; not in the wheel)."""
