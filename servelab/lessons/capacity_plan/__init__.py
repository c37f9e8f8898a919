"""A capacity plan, made before the traffic and checked on the engine (chapter 10)."""
