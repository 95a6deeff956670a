"""Worked examples: a procedural human figure and the paper's tasks (§12).

``python -m examples.tube`` solves the tube task of Figure 3 and prints a
per-constraint report.
"""
