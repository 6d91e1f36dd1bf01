"""griffe extension for the API reference: the docstrings' ``>>>`` examples become Python console code blocks, so
that Markdown shows them as written (their output is not read as links or quotes)."""

import re

import griffe

PROMPT = re.compile(r"^(\s*)>>> ")


def fence_examples(text: str) -> str:
    """Each run of doctest lines (prompts, continuations and their output, up to a blank line) in a fence."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = PROMPT.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group(1)
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        out += [f"{indent}```pycon", *(indent + line for line in block), f"{indent}```"]
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None and ">>> " in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)
