"""Everything specific to crosswoz: gold loader(s), response scoring and their tables."""
