"""Scene <-> solver translation: Blender armatures and goals in, poses and keys out.

Everything between Blender data and the pure-numpy ``solver`` lives here; the
operators and panels only call it. Modules use ``bpy`` only through the objects
passed in, except ``compat`` (version differences of Blender's own API).
"""
