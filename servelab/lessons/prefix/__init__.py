"""Prefix caching and shared blocks (chapter 04; 00's summary)."""
