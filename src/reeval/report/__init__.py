"""Writing figures and markdown: one figure saver, shared markdown helpers."""
