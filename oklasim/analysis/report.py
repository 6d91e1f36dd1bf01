"""Reports for people: a summary on top, then figures, then tables; Markdown and HTML side by side.

A ``Report`` collects sections and writes ``index.html`` and ``report.md``
into its folder, each figure as PNG and SVG, each table as CSV. Output is
deterministic: the same data gives byte-identical files (fixed SVG ids and no
timestamps in the images), so reports can be committed and diffed.
"""

from __future__ import annotations

import html
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from oklasim import __version__  # noqa: E402
from oklasim.errors import OklasimError
from oklasim.runs.storage import atomic_write_bytes  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "oklasim", "figure.dpi": 100, "savefig.dpi": 110, "font.size": 10})
IMAGE_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}


@dataclass
class Section:
    kind: str  # "text", "figure", "table"
    title: str
    body: str = ""
    name: str = ""  # file stem for figures and tables
    frame: pl.DataFrame | None = None


@dataclass
class Report:
    folder: Path
    title: str
    summary: list[str] = field(default_factory=list)
    provenance: dict[str, str] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A report is built whole in a hidden folder beside its place and swapped in by ``write``: a failed
        # build leaves the previous report as it was, and no half-written one.
        self.target = Path(self.folder)
        if self.target.exists() and not _replaceable(self.target):
            raise OklasimError(f"{self.target} exists and is not an oklasim report; refusing to replace it")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=building_prefix(self.target), dir=self.target.parent))

    def text(self, title: str, body: str) -> None:
        self.sections.append(Section("text", title, body))

    def figure(self, name: str, fig, title: str, caption: str = "") -> None:
        for fmt in ("png", "svg"):
            fig.savefig(self.folder / f"{name}.{fmt}", format=fmt, metadata=IMAGE_METADATA[fmt], bbox_inches="tight")
        plt.close(fig)
        self.sections.append(Section("figure", title, caption, name))

    def table(self, name: str, frame: pl.DataFrame, title: str, caption: str = "", digits: int = 3,
              significant: int | None = None) -> None:
        """A table: the CSV keeps full precision; the page shows floats rounded to ``digits`` decimals, or to
        ``significant`` significant figures when given (for small probabilities)."""
        frame.write_csv(self.folder / f"{name}.csv")
        floats = pl.col(pl.Float64, pl.Float32)
        shown = frame.with_columns(floats.round_sig_figs(significant) if significant else floats.round(digits))
        self.sections.append(Section("table", title, caption, name, shown))

    def write(self) -> Path:
        atomic_write_bytes(self.folder / "report.md", self._markdown().encode())
        atomic_write_bytes(self.folder / "index.html", self._html().encode())
        old = None
        if self.target.exists():
            if not _replaceable(self.target):  # it may have appeared while the report was built
                raise OklasimError(f"{self.target} exists and is not an oklasim report; refusing to replace it")
            old = Path(tempfile.mkdtemp(prefix=building_prefix(self.target), dir=self.target.parent))
            self.target.rename(old / "previous")
        self.folder.rename(self.target)
        if old is not None:
            shutil.rmtree(old)
        self.folder = self.target
        return self.target / "index.html"

    # -- rendering ---------------------------------------------------------------------------
    def _markdown(self) -> str:
        out = [f"# {self.title}", ""]
        out += [f"- {line}" for line in self.summary] + [""]
        for section in self.sections:
            out += [f"## {section.title}", ""]
            if section.kind == "figure":
                out += [f"![{section.title}]({section.name}.png)", "", section.body, ""]
            elif section.kind == "table":
                out += [section.body, "", _markdown_table(section.frame), "", f"Data: [{section.name}.csv]({section.name}.csv)", ""]
            else:
                out += [section.body, ""]
        out += ["## How this report was made", ""]
        out += [f"- **{key}**: {value}" for key, value in self.provenance.items()]
        out += [f"- **oklasim version**: {__version__}", ""]
        return "\n".join(out)

    def _html(self) -> str:
        esc = html.escape
        parts = [
            "<!doctype html><html><head><meta charset='utf-8'>",
            f"<title>{esc(self.title)}</title>",
            "<style>body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}"
            "table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;"
            "text-align:right}th{background:#f3f3f3}img{max-width:100%}.summary{background:#f6f8fa;padding:.5rem 1.5rem;"
            "border-left:4px solid #3a7}code{background:#f3f3f3;padding:0 .2rem}</style></head><body>",
            f"<h1>{esc(self.title)}</h1>",
            "<div class='summary'><ul>" + "".join(f"<li>{esc(line)}</li>" for line in self.summary) + "</ul></div>",
        ]
        for section in self.sections:
            parts.append(f"<h2>{esc(section.title)}</h2>")
            if section.kind == "figure":
                parts.append(f"<img src='{section.name}.svg' alt='{esc(section.title)}'><p>{esc(section.body)}</p>")
            elif section.kind == "table":
                parts.append(f"<p>{esc(section.body)}</p>{_html_table(section.frame)}")
                parts.append(f"<p><a href='{section.name}.csv'>{section.name}.csv</a></p>")
            else:
                parts.append("".join(f"<p>{esc(p)}</p>" for p in section.body.split("\n\n")))
        parts.append("<h2>How this report was made</h2><ul>")
        parts += [f"<li><b>{esc(k)}</b>: <code>{esc(v)}</code></li>" for k, v in self.provenance.items()]
        parts.append(f"<li><b>oklasim version</b>: {esc(__version__)}</li></ul></body></html>")
        return "\n".join(parts)


def building_prefix(target: Path) -> str:
    """Name prefix of the hidden folders a report of ``target`` is built in."""
    return f".{target.name}.building-"


def _replaceable(folder: Path) -> bool:
    """A folder a report may replace: an earlier report (its report.md is there) or an empty folder."""
    return folder.is_dir() and ((folder / "report.md").is_file() or not any(folder.iterdir()))


def discard_unfinished(target: Path) -> None:
    """Remove what a failed build of the report of ``target`` left behind."""
    for leftover in Path(target).parent.glob(building_prefix(Path(target)) + "*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _cell(value) -> str:
    return "" if value is None else str(value)


def _markdown_table(frame: pl.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.width]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join(lines)


def _html_table(frame: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>" for row in frame.iter_rows()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
