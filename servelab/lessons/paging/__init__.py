"""Paged attention and the KV cache (chapter 03; 00's summary)."""
