"""The serving dials (chapter 05)."""
