"""Test-collection reusability, leave one group out: each group's pool contribution and its
runs re-scored without it (core), the per-run table and verdicts (table), figures
(figures), the command (command) and the workflow steps (report)."""
