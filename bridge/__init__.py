"""Scene <-> solver translation: Blender armatures and goals in, poses and keys out.

Everything between Blender data and the pure-numpy ``solver`` lives here, one step of the data
flow per folder, each importing only from the folders before it:

- ``blender``: Blender's API as the bridge needs it (version differences, channel rotations,
  the model's world, whether an armature may be written, which ones a job holds);
- ``blender_ik``: the meaning Blender's own IK gives to limits, chains and pole targets;
- ``loops``: closed loops (*Attach to Bone*): what is held, the chains of both sides;
- ``rig``: an armature and its Reach constraints read into a ``solver.Figure`` and goals;
- ``measure``: residuals on Blender's evaluated pose, why they differ, the report of a solve;
- ``write``: keys, keying sets, auto-keying, and the scene state saved to put back;
- ``edit``: the constraint list, bone renames, Convert Built-in IK;
- ``solve``: one Solve at one frame, with its correction passes;
- ``bake``: a frame range solved into keys, and its report;
- ``session``: one armature's way through all of it, kept between solves, and its last report;
- ``joined``: several armatures solved and baked as one system (goals between their bones);
- ``envelope``: where an end-effector can reach while the other constraints hold;
- ``live``: live posing on every change;
- ``overlay``: what the viewport overlay draws.

The operators and panels only call it. Modules use ``bpy`` only through the objects passed
in, except ``blender.compat`` (version differences of Blender's own API).
"""
