"""Blender's API as the bridge needs it: version differences, pose-channel rotations, the
model's world, whether Reach may write to an armature, and the armatures a job holds."""
