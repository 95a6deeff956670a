"""What a solved pose tells: its conditioning (singular values, kappa), its determinacy
(degrees of freedom, independent equations), and constraints that split into independent
groups."""
