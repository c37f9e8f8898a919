"""When a single-user engine is the better choice (chapter 08)."""
