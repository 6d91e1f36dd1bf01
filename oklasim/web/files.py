"""Browsing the reports and runs folders: listings, text files shown as text, figures inline, runs summarised.

A name from a request reaches the file system only through ``safety.inside``: resolved, inside its folder.
Files are served raw only for the kinds below, with a policy that forbids scripts (a report's HTML is shown,
never run).
"""

from __future__ import annotations

from pathlib import Path

from starlette.responses import FileResponse

from oklasim.web.safety import Refused, inside

TEXT = {".md", ".txt", ".csv", ".json", ".toml", ".log"}
RAW_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".html": "text/html", ".md": "text/plain",
             ".txt": "text/plain", ".csv": "text/csv", ".json": "application/json", ".toml": "text/plain"}
IMAGES = {".png", ".svg"}
MAX_TEXT = 2 * 1024 * 1024  # bytes of a text file shown in a page
RAW_HEADERS = {"Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
               "X-Content-Type-Options": "nosniff"}


def entry(root: Path, path: Path) -> dict:
    relative = path.relative_to(root.resolve()).as_posix()
    kind = "folder" if path.is_dir() else "image" if path.suffix in IMAGES else "text" if path.suffix in TEXT \
        else "page" if path.suffix == ".html" else "data"
    return {"name": path.name, "path": relative, "kind": kind, "size": None if path.is_dir() else path.stat().st_size}


def browse(root: Path, relative: str) -> dict:
    """A folder's entries (folders first), or one file: its text, or how to show it."""
    if not root.is_dir():
        return {"path": "", "kind": "folder", "entries": [], "missing": True}
    target = inside(root, relative) if relative else root.resolve()
    if not target.exists():
        raise Refused(404, f"no such file: {relative!r}")
    if target.is_dir():
        children = sorted(target.iterdir(), key=lambda p: (not p.is_dir(), p.name))
        entries = [entry(root, p) for p in children if not p.name.startswith(".") and _within(root, p)]
        return {"path": relative, "kind": "folder", "entries": entries}
    shown = entry(root, target)
    if shown["kind"] == "text":
        if shown["size"] > MAX_TEXT:
            raise Refused(413, f"{relative} is over {MAX_TEXT // 2**20} MB: too large to show")
        shown["text"] = target.read_text(errors="replace")
    return shown


def _within(root: Path, path: Path) -> bool:
    """A listing leaves out symlinks that point outside the folder (they could not be opened either)."""
    try:
        inside(root, path.relative_to(root.resolve()).as_posix())
    except Refused:
        return False
    return True


def raw(root: Path, relative: str) -> FileResponse:
    target = inside(root, relative)
    if not target.is_file() or target.suffix not in RAW_TYPES:
        raise Refused(404, f"no such file: {relative!r}")
    return FileResponse(target, media_type=RAW_TYPES[target.suffix], headers=RAW_HEADERS)


def runs_list(root: Path) -> list[dict]:
    """The runs under the runs folder (as ``oklasim runs`` lists them), newest first."""
    from oklasim.runs import storage

    if not root.is_dir():
        return []
    out = []
    for path, manifest in storage.list_runs(root):
        spec = manifest.get("spec", {})
        out.append({"path": path.resolve().relative_to(root.resolve()).as_posix(), "status": storage.status(manifest),
                    "count": spec.get("count"), "mode": spec.get("mode"), "strategies": list(spec.get("labels", [])),
                    "seed": spec.get("seed"), "created": manifest.get("created", ""),
                    "shards": f"{manifest.get('shards_done', 0)}/{manifest.get('shards_total', '?')}"})
    return out


def run_summary(root: Path, relative: str) -> str | None:
    """``oklasim show``'s summary of a run folder, or None when the folder is no run."""
    from oklasim.analysis.tables import run_summary as summary
    from oklasim.runs import storage

    folder = inside(root, relative) if relative else root.resolve()
    if not (folder / storage.MANIFEST).is_file():
        return None
    manifest = storage.read_manifest(folder)
    if not storage.checked_shards(folder, "hands", manifest):
        return "no records yet"
    games = storage.read(folder, "games") if manifest["spec"]["mode"] == "games" else None
    return summary(storage.read(folder, "hands"), games, manifest["spec"]["labels"])
