"""Chapter 04, prefix caching: its declaration, runs, findings, words and story."""
