"""Chapter 01, a serving engine: its declaration, record and story."""
