"""The problem a solve minimises: the assembler (figure + weighted constraints -> objective
and gradient), the figure's size and the solve in units of it, the step bound of a smooth
solve, and the exact projection onto the limits."""
