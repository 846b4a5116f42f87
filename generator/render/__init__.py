"""From the linked archive to what the site shows: `markdown` writes each session's Markdown intermediate
(typed blocks); `html` turns it into pages with the theme, `search` into the search index; `stats` works out
the figures the pages show."""
