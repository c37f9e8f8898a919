"""Chapter 00: the lesson in one notebook, its findings and words."""
