"""Reach IK benchmarks: ``make bench`` compares the solver with the IK users already have.

See bench/RESULTS.md for the latest committed run and bench/README.md for the layout.
"""
