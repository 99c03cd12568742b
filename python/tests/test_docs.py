"""The Python programs in README.md and docs/python.md run as printed: every ```python block
that starts with `import ember` is run whole, and what its comments promise is checked."""

import os
import re

import pytest

from conftest import ROOT


def python_blocks(markdown):
    blocks, inside = [], None
    with open(os.path.join(ROOT, markdown)) as f:
        for line in f:
            if inside is None and line.startswith("```python"):
                inside = []
            elif inside is not None and line.startswith("```"):
                blocks.append("".join(inside))
                inside = None
            elif inside is not None:
                inside.append(line)
    return [b for b in blocks if b.startswith("import ember")]


PROGRAMS = [(md, i, code) for md in ("README.md", "docs/python.md")
            for i, code in enumerate(python_blocks(md))]


def test_the_guides_have_programs():
    assert {md for md, _, _ in PROGRAMS} == {"README.md", "docs/python.md"}


@pytest.mark.parametrize("markdown,index,code", PROGRAMS,
                         ids=["%s#%d" % (m, i) for m, i, _ in PROGRAMS])
def test_program_runs_and_prints_what_it_says(run_python, markdown, index, code):
    r = run_python(code)
    assert r.returncode == 0, r.stdout + r.stderr
    printed = r.stdout.strip().splitlines()
    # "print(...)  # X" promises output ending in X, in order.
    promised = [m.group(1).strip() for m in re.finditer(r"^print\(.*#\s*(.*)$", code, re.M)]
    for line, promise in zip(printed[-len(promised):], promised):
        tail = promise.split(":")[0].replace("...", "").strip()
        assert line.strip().endswith(tail), (line, promise)
