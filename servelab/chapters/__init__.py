"""Small helpers that belong to one chapter each (``servelab.chapters.<chapter>``)."""
