"""Everything specific to sgd: gold loader(s), response scoring and their tables."""
