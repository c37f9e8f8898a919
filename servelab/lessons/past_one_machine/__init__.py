"""Past one machine: replicas behind a router (chapter 09)."""
