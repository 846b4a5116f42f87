"""Stage 6, html: Markdown documents -> pages.

- `render`: one Markdown document -> sanitised HTML (markdown-it-py, Pygments, nh3);
- `quick_highlight`: highlighting for code blocks too large for Pygments' speed;
- `pages`: session, index and project pages, laid out by the theme;
- `theme`: where templates and static files come from.
"""
