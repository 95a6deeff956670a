"""The meaning Blender's own IK gives to its settings: IK limits, IK chains and trees, pole
targets (pure numpy where it can be)."""
