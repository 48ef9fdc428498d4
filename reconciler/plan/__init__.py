"""Planning: diff desired against live state and order the calls that converge them."""
