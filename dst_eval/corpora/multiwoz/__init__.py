"""Everything specific to multiwoz: gold loader(s), response scoring and their tables."""
