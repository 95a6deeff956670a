"""Bone renames -> constraint items, and the edit refusal, on stand-in Blender objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.bridge_stubs import bridge_module

renames = bridge_module("edit.renames")
editable = bridge_module("blender.editable")


@dataclass
class Named:
    name: str


class Bones(list[Named]):
    """A bone collection: a list with Blender's ``keys()`` (the names in order)."""

    def keys(self) -> list[str]:
        return [bone.name for bone in self]


@dataclass
class Armature:
    session_uid: int
    bones: Bones


@dataclass
class Item:
    name: str
    bone: str = ""
    chain_root: str = ""
    target: object = None
    target_bone: str = ""
    target_chain_root: str = ""


@dataclass
class Settings:
    constraints: list[Item] = field(default_factory=list)


@dataclass
class Library:
    filepath: str


@dataclass
class Override:
    is_system_override: bool


@dataclass
class Obj:
    name: str
    data: Armature | None
    type: str = "ARMATURE"
    reach_ik: Settings = field(default_factory=Settings)
    library: Library | None = None
    override_library: Override | None = None


def armature(uid: int, *names: str) -> Armature:
    return Armature(uid, Bones(Named(n) for n in names))


def test_renames_are_the_names_that_differ_position_by_position() -> None:
    assert renames.renamed(["a", "b", "c"], ["a", "x", "c"]) == {"b": "x"}
    assert renames.renamed(["a", "b"], ["b", "a"]) == {"a": "b", "b": "a"}
    assert renames.renamed(["a", "b"], ["a", "b"]) == {}


def test_added_or_removed_bones_give_no_renames() -> None:
    assert renames.renamed(["a", "b"], ["a", "x", "b"]) == {}
    assert renames.renamed(["a", "b"], ["x"]) == {}


def test_bone_names_report_renames_since_the_last_look_only() -> None:
    names = renames.BoneNames()
    arm = armature(7, "a", "b")
    assert names.changes([arm]) == {}  # first sight: remembered, nothing to report
    arm.bones[1].name = "x"
    assert names.changes([arm]) == {7: {"b": "x"}}
    assert names.changes([arm]) == {}
    names.remember([armature(7, "p", "q")])  # e.g. after undo
    assert names.changes([arm]) == {7: {"p": "a", "q": "x"}}


def test_follow_rewrites_bone_chain_root_and_target_bone() -> None:
    chain = Obj("Chain", armature(1, "b0", "b1", "b2"))
    chain.reach_ik.constraints.append(Item("reach", bone="b2", chain_root="b0"))
    other = Obj("Other", armature(2, "c0"))
    other.reach_ik.constraints.append(Item("hold", bone="c0", target=chain, target_bone="b2"))
    notes = renames.follow([chain, other], {1: {"b2": "hand", "b0": "root"}})
    assert (chain.reach_ik.constraints[0].bone, chain.reach_ik.constraints[0].chain_root) == (
        "hand",
        "root",
    )
    hold = other.reach_ik.constraints[0]
    assert (hold.bone, hold.target_bone) == ("c0", "hand")  # c0 is a bone of another armature
    assert notes == [
        "Constraint 'reach' of 'Chain': bone 'b2' renamed to 'hand'",
        "Constraint 'reach' of 'Chain': chain_root 'b0' renamed to 'root'",
        "Constraint 'hold' of 'Other': target_bone 'b2' renamed to 'hand'",
    ]


def test_follow_rewrites_the_target_chain_root_of_a_loop() -> None:
    """An Attach to Bone's Target Chain root is a bone of the target armature (its own)."""
    rig = Obj("Rig", armature(1, "base", "cylinder", "rod", "boom"))
    rig.reach_ik.constraints.append(
        Item("ram", bone="rod", target=rig, target_bone="boom", target_chain_root="boom")
    )
    notes = renames.follow([rig], {1: {"boom": "arm"}})
    item = rig.reach_ik.constraints[0]
    assert (item.target_bone, item.target_chain_root) == ("arm", "arm")
    assert notes == [
        "Constraint 'ram' of 'Rig': target_chain_root 'boom' renamed to 'arm'",
        "Constraint 'ram' of 'Rig': target_bone 'boom' renamed to 'arm'",
    ]


def test_follow_leaves_linked_armatures_and_other_objects_alone() -> None:
    linked = Obj("Linked", armature(1, "b0"), library=Library("//lib.blend"))
    linked.reach_ik.constraints.append(Item("reach", bone="b0"))
    mesh = Obj("Mesh", None, type="MESH")
    assert renames.follow([linked, mesh], {1: {"b0": "x"}}) == []
    assert linked.reach_ik.constraints[0].bone == "b0"


def test_why_not_editable_names_the_armature_and_the_way_out() -> None:
    assert editable.why_not_editable(Obj("Rig", None)) is None
    assert editable.why_not_editable(Obj("Rig", None, override_library=Override(False))) is None
    linked = editable.why_not_editable(Obj("Rig", None, library=Library("//char.blend")))
    assert linked is not None
    assert "'Rig' is linked from '//char.blend'" in linked and "Library Override > Make" in linked
    system = editable.why_not_editable(Obj("Rig", None, override_library=Override(True)))
    assert system is not None and "system library override" in system and "Make Editable" in system
