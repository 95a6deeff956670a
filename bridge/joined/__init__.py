"""Several armatures solved and baked as one system: which armatures (``group``), their rigs as
one figure (``figure``), one Solve over them (``solve``), the kept sessions joined
(``together``)."""
