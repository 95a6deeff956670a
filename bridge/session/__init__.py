"""One armature's way from the scene to the solver and back (:class:`.rig_session.RigSession`),
the sessions kept between solves, and the last report of each armature."""
