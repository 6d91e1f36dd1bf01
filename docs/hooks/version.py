"""mkdocs hook: the version of the installed oklasim package, read once, shown in every page's footer and
wherever a page writes ``{{ oklasim_version }}``."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("oklasim")
except PackageNotFoundError:  # a source tree never installed: say so rather than guess
    VERSION = "unknown (not installed)"

PLACEHOLDER = "{{ oklasim_version }}"


def on_config(config):
    config["copyright"] = f"oklasim {VERSION}"
    config["extra"]["oklasim_version"] = VERSION
    return config


def on_page_markdown(markdown, page, config, files):
    return markdown.replace(PLACEHOLDER, VERSION)
