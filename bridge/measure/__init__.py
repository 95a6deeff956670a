"""Measuring on Blender's own evaluated pose: residuals, why Blender's pose differs from the
model, what changes a channel on playback, and the report of one solve."""
