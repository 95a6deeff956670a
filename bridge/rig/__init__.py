"""Reading a rig: an armature and its Reach constraints become a ``solver.Figure`` and its
constraints (:func:`.build.build_rig`), with the pose channels each joint writes."""
