"""Everything specific to jmultiwoz: gold loader(s), response scoring and their tables."""
