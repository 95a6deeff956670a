"""One Solve at one frame: the armature's rig and solver, the start, the solve, the correction
passes against Blender's pose, and the keys."""
