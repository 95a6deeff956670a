"""Live posing: re-solve an armature whenever one of its inputs changes, and on frame change."""
