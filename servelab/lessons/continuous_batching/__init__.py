"""Chapter 02, continuous batching: its declaration, record and story."""
