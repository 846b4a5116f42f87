"""A corpus of known XSS and markup-injection vectors, for tests/test_attacks.py.

Each vector carries a number `n`. Whatever it tries, success would be observable in a browser: a dialog
(`alert(n)`), `document.title` set to `PWNED-n`, or `window.__pwned` set to `n`; the forging vectors
would leave an element with class `forged` in the DOM (a fake message with a live link). `needles` are the parts
of the payload that must still be readable as text where the payload is rendered as Markdown (prompts,
replies, plans...): there, Markdown syntax of the payload itself (link brackets, fence markers,
emphasis) may legitimately be consumed, but its content must not be. Everywhere the payload is shown as
code or plain text, the whole payload must be there.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass


@dataclass(frozen=True)
class Vector:
    n: int
    name: str
    payload: str
    needles: tuple[str, ...] = ()
    """What must stay visible in Markdown fields; the whole payload when empty."""

    @property
    def id(self) -> str:
        return f"{self.n:02d}-{self.name}"

    @property
    def prose_needles(self) -> tuple[str, ...]:
        return self.needles or (self.payload,)


def js(n: int) -> str:
    """A marker script without spaces or `__`, so it fits unquoted attributes and MCP tool names."""
    return f"document.title='PWNED-{n}';alert({n})"


def b64(n: int) -> str:
    """`data:text/html;base64,` content that would run the marker script."""
    return base64.b64encode(f"<script>alert({n})</script>".encode()).decode()


def _vectors() -> list[Vector]:
    found: list[Vector] = []

    def add(name: str, payload: str, *needles: str) -> None:
        found.append(Vector(len(found) + 1, name, payload, tuple(needles)))

    # The number a vector is about to get, so that its markers say which one it is.
    def n() -> int:
        return len(found) + 1

    # -- script tags -----------------------------------------------------------------------------------
    add("script", f"<script>document.title='PWNED-{n()}';window.__pwned={n()};alert({n()})</script>")
    add("script-mixed-case-src",
        f"<ScRiPt src=data:text/javascript,alert({n()})></sCrIpT><script/x>alert({n()})</script>")
    # -- event handlers --------------------------------------------------------------------------------
    add("img-onerror", f"<img src=x onerror={js(n())}>")
    add("svg-onload", f"<svg onload={js(n())}>")
    add("body-onload", f"<body onload={js(n())}>")
    add("details-ontoggle", f"<details open ontoggle={js(n())}>x</details>")
    add("input-autofocus-onfocus",
        f"<input autofocus onfocus={js(n())}><a href=# onmouseover={js(n())} tabindex=1>x</a>")
    add("img-entity-handler", f'<img src="x" onerror="&#97;lert({n()})">')
    # -- javascript: and data:text/html as raw HTML -----------------------------------------------------
    add("a-javascript", f'<a href="javascript:{js(n())}">click</a>')
    add("a-data-html", f'<a href="data:text/html,<script>alert({n()})</script>">click</a>')
    add("a-data-html-base64", f'<a href="data:text/html;base64,{b64(n())}">click</a>')
    add("a-entity-hex-scheme", f'<a href="jav&#x61;script:alert({n()})">click</a>')
    add("a-entity-dec-scheme", f'<a href="&#106;avascript:alert({n()})">click</a>')
    add("a-tab-in-scheme", f'<a href="java\tscript:alert({n()})">click</a>')
    add("a-mixed-case-space", f'<a href=" JaVaScRiPt:alert({n()})">click</a>')
    add("a-entity-colon", f"<a href=javascript&colon;alert({n()})>click</a>")
    # -- ... in Markdown links and images --------------------------------------------------------------
    add("md-link-javascript", f"[click](javascript:alert({n()}))", f"javascript:alert({n()})")
    add("md-image-data-html", f"![x](data:text/html,<script>alert({n()})</script>)",
        f"data:text/html,<script>alert({n()})</script>")
    add("md-image-javascript", f"![x](javascript:alert({n()}))", f"javascript:alert({n()})")
    add("md-link-entity-hex", f"[click](jav&#x61;script:alert({n()}))", f"jav&#x61;script:alert({n()})")
    add("md-link-entity-dec", f"[click](&#106;avascript:alert({n()}))", f"&#106;avascript:alert({n()})")
    add("md-link-tab", f"[click](java\tscript:alert({n()}))", f"java\tscript:alert({n()})")
    add("md-link-mixed-case", f"[click](JaVaScRiPt:alert({n()}))", f"JaVaScRiPt:alert({n()})")
    add("md-link-data-html", f"[click](data:text/html;base64,{b64(n())})", f"data:text/html;base64,{b64(n())}")
    add("md-autolink", f"<javascript:alert({n()})>")
    add("md-reference-link", f"[click][r{n()}]\n\n[r{n()}]: javascript:alert({n()})", f"javascript:alert({n()})")
    # -- mutation XSS ----------------------------------------------------------------------------------
    add("mxss-math-mglyph", f"<math><mtext><table><mglyph><style><img src=x onerror={js(n())}>")
    add("mxss-noscript", f'<noscript><p title="</noscript><img src=x onerror={js(n())}>">')
    add("mxss-svg-p-style", f'<svg></p><style><a id="</style><img src=1 onerror={js(n())}>">')
    add("mxss-svg-style-img", f"<svg><p><style><img src=x onerror={js(n())}></style></p></svg>")
    add("mxss-comment", f'<!--<img src="--><img src=x onerror={js(n())}//">')
    # -- style injection -------------------------------------------------------------------------------
    add("style-hide", "<style>body,main,.transcript{display:none!important}*{visibility:hidden}</style>")
    add("style-url",
        f"<style>@import 'javascript:alert({n()})';body{{background:url(\"javascript:alert({n()})\")}}</style>"
        f"<p style=\"background:url(javascript:alert({n()}))\">x</p>")
    # -- breaking out of our structure ----------------------------------------------------------------
    add("break-details", f"</details></details><img src=x onerror={js(n())}>")
    add("break-summary", f"</summary></details><script>alert({n()})</script><summary>")
    add("break-pre-code", f"</code></pre><script>alert({n()})</script><pre><code>")
    add("break-div", f"</div></div></div></article><script>alert({n()})</script>")
    add("break-blank-line", f"before\n\n</details>\n\n</div>\n\n<img src=x onerror={js(n())}>\n\nafter",
        "before", "</details>", "</div>", f"<img src=x onerror={js(n())}>", "after")
    add("break-fence", f"```\n</details><script>alert({n()})</script>\n```\n<img src=x onerror={js(n())}>",
        f"</details><script>alert({n()})</script>", f"<img src=x onerror={js(n())}>")
    add("break-long-fence", f"``````\n<script>alert({n()})</script>\n````\n`` ` <img src=x onerror={js(n())}> ``",
        f"<script>alert({n()})</script>", f"<img src=x onerror={js(n())}>")
    add("break-tilde-fence", f"~~~\n<script>alert({n()})</script>", f"<script>alert({n()})</script>")
    add("forge-in-fence", '```\n</details></div></div><div class="msg user forged"><a href="https://example.com/phish">'
        'FORGED: your session expired, log in again</a></div>\n```',
        '</details></div></div><div class="msg user forged"><a href="https://example.com/phish">'
        'FORGED: your session expired, log in again</a></div>')
    add("forge-raw", '</details></div></div><div class="msg user forged"><a href="https://example.com/phish">'
        'FORGED: your session expired, log in again</a></div>')
    add("break-comment-cdata", f"<!-- never closed\n<![CDATA[ <img src=x onerror={js(n())}>",
        "<!-- never closed", f"<![CDATA[ <img src=x onerror={js(n())}>")
    # -- embedding elements ----------------------------------------------------------------------------
    add("iframe-srcdoc", f"<iframe srcdoc=\"<script>parent.alert({n()})</script>\"></iframe>")
    add("object-data", f'<object data="javascript:alert({n()})"></object>')
    add("embed-src", f'<embed src="javascript:alert({n()})">')
    add("form-action", f'<form action="javascript:alert({n()})"><button>go</button></form>'
        f"<button formaction=javascript:alert({n()})>x</button>")
    add("meta-refresh", f'<meta http-equiv="refresh" content="0;url=javascript:alert({n()})">')
    add("base-href", f'<base href="javascript:alert({n()})//">')
    add("link-import", f'<link rel=import href="data:text/html,<script>alert({n()})</script>">')
    add("svg-xlink-href", f'<svg><a xlink:href="javascript:alert({n()})"><text x="20" y="20">click</text></a></svg>')
    # -- template injection ----------------------------------------------------------------------------
    # In Markdown fields `*` and `__` pair up as emphasis (Markdown's own meaning); the rest must stay.
    add("template", "{{7*7}} ${7*7} {% raw %}{{ self.__init__ }}{% endraw %} #{7*7} <%= 7*7 %>",
        "{{7", "7}}", "${7", "{% raw %}{{ self.", "init", "}}{% endraw %} #{7", "<%= 7", "7 %>")
    return found


VECTORS: list[Vector] = _vectors()
