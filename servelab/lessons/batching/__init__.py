"""Batching and the step line (sweeps, the step-time fit, the roofline and their words): what
most chapters share, owned by none of them."""
