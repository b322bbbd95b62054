"""The workflow's steps and configuration: what the Snakemake rules call."""
