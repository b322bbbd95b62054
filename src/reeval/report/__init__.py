"""Writing reports: one figure saver (figures), the markdown helpers and templates
(markdown, templates/), the papers' published numbers (published, published.yaml)."""
