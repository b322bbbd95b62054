"""The three studies built on the measures: atomized search length, lexicographic precision, rareness (each a core and a report)."""
