"""The model a solve acts on: the figure (segments, joints, their records), its forward
kinematics and rotations, the linear rows on its coordinates, the constraints on its
end-effectors, and figures read from URDF."""
