"""Chunked prefill (chapter 06; 00's summary)."""
