"""Writing reports: one figure saver (figures), the markdown helpers and templates
(markdown, templates/), the HTML report (html), the significance table."""
