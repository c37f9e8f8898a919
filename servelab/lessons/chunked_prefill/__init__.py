"""Chapter 06, chunked prefill: its declaration, forecast, record and story."""
