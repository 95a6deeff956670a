"""Edits of an armature's Reach setup: the constraint list, bone renames carried into it, and
Convert Built-in IK."""
