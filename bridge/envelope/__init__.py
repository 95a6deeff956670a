"""Reach envelopes: where an end-effector can reach while the other constraints hold.

``samples`` lays the sample points around the chain, ``reach_map`` solves one per point (the
constraint's goal moved there, every other enabled constraint as it is) and measures the effort
of each reached one, ``cloud`` makes the mesh object that shows them. Nothing of the rig is
written: the solves work on the solver's copy of the pose.
"""
