"""The studies built on the measures, one subpackage each, named after its paper: atomized
search length (asl), lexicographic precision (lexiprecision), rareness (rareness), and the
papers' published numbers (papers)."""
