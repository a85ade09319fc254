"""Everything specific to risawoz: gold loader(s), response scoring and their tables."""
