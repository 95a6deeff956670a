"""The file one farm task writes for ``reach_merge``: a chunk's keys per armature, and the
fingerprint of the .blend it was baked from (so a merge refuses chunks of another version).

Format (JSON): ``{"format": "reach-ik-chunk", "version": 1, "blend": {"name", "sha256"},
"shot": [first, last], "lead_in": n, "armatures": [ChunkKeys.to_json(), ...]}``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import bpy

from ..bridge.bake.chunk import ChunkKeys
from .shot import CommandError

FORMAT = "reach-ik-chunk"
VERSION = 1


def fingerprint() -> str:
    """SHA-256 of the loaded .blend as it is on disk (hex); CommandError for an unsaved file."""
    path = bpy.data.filepath
    if not path:
        raise CommandError("the file has never been saved: chunks need a .blend on disk")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write(path: str, blend_sha: str, shot: tuple[int, int], lead_in: int,
          chunks: list[ChunkKeys]) -> None:  # fmt: skip
    """Write the chunk file ``path``."""
    data = {
        "format": FORMAT, "version": VERSION,
        "blend": {"name": Path(bpy.data.filepath).name, "sha256": blend_sha},
        "shot": list(shot), "lead_in": lead_in, "armatures": [c.to_json() for c in chunks],
    }  # fmt: skip
    Path(path).write_text(json.dumps(data), encoding="utf-8")


def read(path: str, blend_sha: str) -> tuple[tuple[int, int], list[ChunkKeys]]:
    """The shot (first, last) and the chunks of the file ``path``; CommandError when it is not
    a chunk file or was baked from another version of the .blend than the one of fingerprint
    ``blend_sha``."""
    try:
        data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read the chunk file '{path}': {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CommandError(f"'{path}' is not a Reach chunk file")
    if data.get("version") != VERSION:
        raise CommandError(f"'{path}' is a chunk file of version {data.get('version')!r}; "
                           f"this Reach reads version {VERSION}")  # fmt: skip
    baked_from = data.get("blend", {}).get("sha256")
    if baked_from != blend_sha:
        raise CommandError(
            f"the chunk '{path}' was baked from another version of the file "
            f"('{data.get('blend', {}).get('name')}', sha256 {str(baked_from)[:12]}..., this "
            f"file {blend_sha[:12]}...): bake it again from this file"
        )
    try:
        first, last = (int(f) for f in data["shot"])
    except (KeyError, TypeError, ValueError):
        raise CommandError(f"the chunk file '{path}' names no shot") from None
    return (first, last), [ChunkKeys.from_json(entry) for entry in data.get("armatures", [])]
