"""Continuous batching (chapters 01, 02; 00's summary)."""
