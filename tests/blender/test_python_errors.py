"""The autouse ``python_errors`` fixture turns exceptions Blender only prints into failures.

Blender catches exceptions raised in handlers and property update callbacks, prints them and
carries on, so a test that triggers one would pass. These tests run small pytest sessions in a
subprocess with ``tests/blender/conftest.py`` as a plugin and check that such a test fails at
teardown, showing the printed exception, while a quiet one passes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.blender.conftest import REPO_ROOT

HANDLER_RAISES = """
import bpy


def test_handler_raises(empty_file):
    def failing_handler(scene, depsgraph):
        raise KeyError("raised inside a depsgraph handler")

    bpy.app.handlers.depsgraph_update_post.append(failing_handler)
    try:
        empty_file.collection.objects.link(bpy.data.objects.new("probe", None))
        bpy.context.view_layer.update()  # Blender prints the KeyError and carries on
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(failing_handler)


def test_update_callback_raises(empty_file):
    def failing_update(self, context):
        raise ValueError("raised inside a property update callback")

    bpy.types.Scene.probe_value = bpy.props.IntProperty(update=failing_update)
    try:
        empty_file.probe_value = 3  # Blender prints the ValueError and keeps the value
        assert empty_file.probe_value == 3
    finally:
        del bpy.types.Scene.probe_value


def test_quiet(empty_file):
    empty_file.collection.objects.link(bpy.data.objects.new("probe", None))
    bpy.context.view_layer.update()


def test_cleared_on_purpose(empty_file, python_errors):
    def failing_handler(scene, depsgraph):
        raise KeyError("expected by this test")

    bpy.app.handlers.depsgraph_update_post.append(failing_handler)
    try:
        empty_file.collection.objects.link(bpy.data.objects.new("probe", None))
        bpy.context.view_layer.update()
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(failing_handler)
    assert [type(error) for error in python_errors] == [KeyError]
    python_errors.clear()
"""


def run_pytest(test_file: Path) -> subprocess.CompletedProcess[str]:
    """Run pytest on ``test_file`` in a new interpreter with the Blender conftest as plugin."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    cmd = [sys.executable, "-m", "pytest", "-p", "tests.blender.conftest", "-p", "no:cacheprovider"]
    cmd += ["-q", "-rA", "--rootdir", str(test_file.parent), str(test_file)]
    return subprocess.run(
        cmd, cwd=test_file.parent, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def session_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Output of a pytest session over :data:`HANDLER_RAISES` (which must fail)."""
    test_file = tmp_path_factory.mktemp("python-errors") / "test_probe.py"
    test_file.write_text(textwrap.dedent(HANDLER_RAISES))
    proc = run_pytest(test_file)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit status {proc.returncode}:\n{output}"
    return output


def test_a_printed_handler_exception_fails_the_test(session_output: str) -> None:
    assert "ERROR test_probe.py::test_handler_raises" in session_output
    assert "KeyError: 'raised inside a depsgraph handler'" in session_output


def test_a_printed_update_callback_exception_fails_the_test(session_output: str) -> None:
    assert "ERROR test_probe.py::test_update_callback_raises" in session_output
    assert "ValueError: raised inside a property update callback" in session_output


def test_quiet_tests_and_cleared_lists_pass(session_output: str) -> None:
    assert "PASSED test_probe.py::test_quiet" in session_output
    assert "PASSED test_probe.py::test_cleared_on_purpose" in session_output
    assert "4 passed, 2 errors" in session_output, session_output  # teardown errors count apart
