"""Throughput against latency: the metrics, two deployments against one, and the page's words
(chapter 07)."""
