"""The kit's speed measurements: ``python -m benchmarks.grading_speed`` (and ``batch_speed``, ``insight_speed``),
run from the kit's folder. Each prints figures and ratios and asserts nothing (docs/speed.md)."""
