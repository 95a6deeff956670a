"""Benchmark peers: other IK solvers driven on the same chains and targets as Reach IK."""
