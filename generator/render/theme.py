"""Themes: a folder with `templates/` and `static/`. Lookup goes from the user's theme, to the theme it
extends (named in its optional `theme.json` as {"extends": "<folder>"}), to the built-in default, the way
MkDocs' Theme.dirs does. A theme only needs the files it changes."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING


from ..core.errors import ThemeError
from ..core.places import user_cache_folder

if TYPE_CHECKING:
    import jinja2
    import markupsafe

log = logging.getLogger("sessionsite")

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # generator/, from generator/render/


def default_theme_dir() -> Path:
    # In a wheel the theme is packaged inside generator/; in a source checkout it sits at the root.
    for candidate in (PACKAGE_DIR / "themes" / "default", PACKAGE_DIR.parent / "themes" / "default"):
        if (candidate / "templates").is_dir():
            return candidate
    raise ThemeError("the built-in theme is missing: reinstall sessionsite")


@dataclass(frozen=True)
class Theme:
    """The folders to search, most specific first."""

    dirs: tuple[Path, ...]

    @classmethod
    def load(cls, user_theme: Path | None = None) -> "Theme":
        dirs: list[Path] = []
        current = user_theme
        while current is not None:
            if not current.is_dir():
                raise ThemeError(f"{current}: theme folder not found")
            if current.resolve() in (d.resolve() for d in dirs):
                raise ThemeError(f"{current}: theme extends itself")
            dirs.append(current)
            config_file = current / "theme.json"
            parent = None
            if config_file.is_file():
                try:
                    config = json.loads(config_file.read_text(encoding="utf-8"))
                except (OSError, ValueError) as error:
                    raise ThemeError(f"{config_file}: {error}") from error
                extends = config.get("extends") if isinstance(config, dict) else None
                if isinstance(extends, str) and extends != "default":
                    parent = (current / extends).resolve()
            current = parent
        default = default_theme_dir()
        if default.resolve() not in (d.resolve() for d in dirs):
            dirs.append(default)
        return cls(tuple(dirs))

    def environment(self) -> "jinja2.Environment":
        import jinja2  # here, not at the top: a build that finds its site up to date renders nothing

        environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d / "templates") for d in self.dirs]),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            bytecode_cache=_template_code_cache(),
        )
        environment.filters["breakable"] = breakable
        return environment

    def static_files(self) -> dict[str, Path]:
        """Asset name -> file, the most specific theme winning."""
        files: dict[str, Path] = {}
        for folder in reversed(self.dirs):
            static = folder / "static"
            if static.is_dir():
                for path in sorted(static.rglob("*")):
                    if path.is_file():
                        files[path.relative_to(static).as_posix()] = path
        return dict(sorted(files.items()))

    def code_colours(self) -> tuple["CodeColours", "CodeColours"]:
        """The light and the dark colours code is read on, from the custom properties of the theme's
        style.css (its first `:root` rule): the colours are written there only, and the highlighter's token
        colours are made readable on them. A property the stylesheet does not set, or sets in a form not
        read here, is the default theme's."""
        default = _root_properties(default_theme_dir() / "static" / "style.css")
        stylesheet = self.static_files().get("style.css")
        own = _root_properties(stylesheet) if stylesheet is not None else {}

        def colour(name: str) -> tuple[float, ...]:
            if name in own:
                value = _parse_colour(own[name])
                if value is not None:
                    return value
                log.warning("%s: --%s: %r is not a colour this can read (#rgb, #rrggbb, rgb(), rgba()); "
                            "code is coloured for the default theme's", stylesheet, name, own[name])
            value = _parse_colour(default[name])
            if value is None:
                raise ThemeError(f"the built-in theme's --{name} is not a colour: reinstall sessionsite")
            return value

        def colours(prefix: str) -> CodeColours:
            background = colour(f"{prefix}code-bg")[:3]
            return CodeColours(background=_hex(background),
                               inserted=_hex(_over(colour(f"{prefix}diff-add"), background)),
                               deleted=_hex(_over(colour(f"{prefix}diff-del"), background)))

        return colours(""), colours("dark-")


@dataclass(frozen=True)
class CodeColours:
    """The backgrounds a code block's text is read on, each an opaque #rrggbb."""

    background: str
    """The block's own (--code-bg)."""
    inserted: str
    """A diff's added line (--diff-add, laid over the block's background)."""
    deleted: str
    """A diff's removed line (--diff-del, likewise)."""


def _root_properties(stylesheet: Path) -> dict[str, str]:
    """The custom properties of a stylesheet's first `:root { … }` rule, by name without the dashes."""
    css = re.sub(r"/\*.*?\*/", "", stylesheet.read_text(encoding="utf-8"), flags=re.DOTALL)
    rule = re.search(r"(?:^|[;{}\s]):root\s*\{([^{}]*)\}", css)
    if rule is None:
        return {}
    return {name: value.strip() for name, value in re.findall(r"--([\w-]+)\s*:\s*([^;]*)", rule.group(1))}


_HEX_COLOUR = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_RGB_COLOUR = re.compile(r"rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)")


def _parse_colour(value: str) -> tuple[float, float, float, float] | None:
    """#rgb, #rrggbb, rgb() or rgba() (channels 0-255) as red, green, blue and alpha; None for anything else."""
    value = value.strip()
    if found := _HEX_COLOUR.fullmatch(value):
        digits = found.group(1)
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        hex_red, hex_green, hex_blue = (float(int(digits[i:i + 2], 16)) for i in (0, 2, 4))
        return hex_red, hex_green, hex_blue, 1.0
    if found := _RGB_COLOUR.fullmatch(value):
        red, green, blue, alpha, percent = found.groups()
        opacity = 1.0 if alpha is None else float(alpha) / (100 if percent else 1)
        return float(red), float(green), float(blue), min(opacity, 1.0)
    return None


def _over(colour: tuple[float, ...], background: tuple[float, ...]) -> tuple[float, ...]:
    """A colour with some transparency as it shows laid over an opaque background."""
    alpha = colour[3]
    return tuple(c * alpha + b * (1 - alpha) for c, b in zip(colour[:3], background[:3], strict=True))


def _hex(colour: tuple[float, ...]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(round(c) for c in colour[:3]))


def breakable(path: str) -> "markupsafe.Markup":
    """A path that may break after each slash instead of in the middle of a name (`<wbr>` after each
    slash but the first, and after each backslash): the `breakable` macro of _macros.html, as a filter,
    since a page lists hundreds of paths and a macro call costs a template's loop for each."""
    import markupsafe

    parts = path.split("/")
    pieces: list[str] = []
    for index, part in enumerate(parts):
        pieces.append("\\<wbr>".join(markupsafe.escape(piece) for piece in part.split("\\")))
        if index < len(parts) - 1:
            pieces.append("/<wbr>" if index else "/")
    return markupsafe.Markup("".join(pieces))  # noqa: S704 - each piece of the path escaped above


def _template_code_cache() -> "jinja2.BytecodeCache | None":
    """Compiled templates kept between runs, in the user's cache folder: compiling a theme's templates
    took 0.18 s of every build, about a sixth of a build after one reply was added. Jinja2 keys each by its
    file and checks it against the template's source, so an edited theme is compiled again. A cache that
    cannot be made, read or written is no cache, never a failed build."""
    import jinja2

    class TemplateCodeCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: "jinja2.bccache.Bucket") -> None:
            try:
                super().load_bytecode(bucket)
            except Exception as error:  # noqa: BLE001 - a damaged entry is compiled again
                log.debug("template cache: %s: %s", bucket.key, error)
                bucket.reset()

        def dump_bytecode(self, bucket: "jinja2.bccache.Bucket") -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError as error:  # a full disk, a read-only home
                log.debug("template cache: %s: %s", bucket.key, error)

    folder = user_cache_folder() / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        log.debug("template cache: %s: %s", folder, error)
        return None
    return TemplateCodeCache(str(folder))
