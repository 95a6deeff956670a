"""Closed loops: what an *Attach to Bone* holds, the chain of a loop's other side, and the chain
walk both sides of a loop share (read into goals by :mod:`..rig`)."""
