"""Fixtures for tests that run inside real (headless) Blender through the ``bpy`` wheel.

Everything under ``tests/blender/`` runs twice by ``make test``: with ``bpy`` 5.0 in ``.venv``
and with ``bpy`` 4.2 LTS in ``.venv-bpy42``. Importing this module sets ``HOME`` and the
``BLENDER_USER_*`` directories to a throw-away temporary folder *before* ``bpy`` is imported,
so the tests never read or write a real Blender configuration.

Fixtures
--------
``extension`` (session scope)
    Builds the extension zip from the repository root with the ``blender_ext.py`` tool that
    ships inside the installed ``bpy`` wheel (``build`` then ``validate``), installs it with
    ``bpy.ops.extensions.package_install_files(repo="user_default", enable_on_install=True)``
    and returns the imported module ``bl_ext.user_default.reach_ik`` (the repository's
    ``__init__.py``; its sub-packages are ``<module>.operators``, ``<module>.solver`` ...).
    The path of the built zip is ``extension_zip`` (session fixture, a ``pathlib.Path``).

``clean_scene`` (function scope, depends on ``extension``)
    Empties the file (objects, armatures, meshes, actions, collections, ... are removed and
    orphan data purged) while the extension stays enabled, and yields ``bpy.context.scene``:
    a scene with no objects, frame 1, nothing selected, object mode. Tests create what they
    need through ``bpy.data`` / ``bpy.ops``.

``rigify_metarig`` (function scope, depends on ``clean_scene``)
    Enables the bundled Rigify add-on, adds its human metarig
    (``bpy.ops.object.armature_human_metarig_add()``) and returns the armature object
    (``bpy.types.Object`` of type ``'ARMATURE'``), active and selected, in object mode.

Helpers (plain functions, import with ``from .conftest import ...`` is NOT possible under
``--import-mode=importlib``; use the ``blender_helpers`` fixture which returns this module):
    ``run_op(op, **kwargs)`` calls an operator and raises ``AssertionError`` unless it returns
    ``{'FINISHED'}`` (an operator that reports an error already raises ``RuntimeError``;
    a silent ``{'CANCELLED'}`` would otherwise pass unnoticed).
    ``enable_rigify()`` enables the bundled Rigify add-on (idempotent).
    ``world_bone_tail(obj, bone_name)`` / ``world_bone_head(...)``: evaluated world position
    (numpy (3,)) of a pose bone after ``bpy.context.view_layer.update()``.

Operator failures: inside ``bpy`` an operator that ``self.report({'ERROR'}, ...)`` raises
``RuntimeError`` when called from Python, which fails the test. Operators that return
``{'CANCELLED'}`` without an error report return normally: call them through ``run_op``.
"""
