"""Rareness-based measures, the rareness paper's study: the measures (core), what they change
(analysis), figures (figures) and the workflow steps (report)."""
