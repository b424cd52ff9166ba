"""Pages for people: the developer portal, API docs, changelog and guides (Jinja2 templates, plain CSS/JS)."""
