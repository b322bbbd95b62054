"""Atomized search length, the ASL paper's study: headroom per track, the step-by-step
reordering from MAP to ASL, per-document views, techniques, figures 1-6 and the summary."""
