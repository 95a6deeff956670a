"""Baking a frame range into keys: where each frame starts, the smooth bound, where the keys go,
how a sub-range joins its neighbours, and the bake's report."""
