"""Chapter 03, paged attention: its declaration, runs, findings, words and story."""
