"""The shape of the package, in the spirit of click's tests/test_imports.py: no module imports
another that imports it back, errors are defined in one place, and `import crlookup` is light."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import crlookup

PACKAGE = Path(crlookup.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _run_time_nodes(tree: ast.AST):
    """Every node but those under `if TYPE_CHECKING:` (imports for annotations, never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_run_time_nodes(child)])
            continue
        yield node
        yield from _run_time_nodes(node)


def import_graph() -> dict[str, set[str]]:
    """Module -> the crlookup modules it imports, at the top or inside a function alike (an
    import put off until a function runs is an import all the same); not those imported for
    type annotations only."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert (
        len(graph) > 40
        and "crlookup.features.ask.lexicon" in graph["crlookup.features.ask.prepare"]
    )
    assert (
        "crlookup.library.reader" not in graph["crlookup.features.refs"]
    )  # imported for annotations only
    assert cycles(graph) == []


def test_errors_are_defined_in_errors_only():
    """Every exception crlookup raises on purpose is a class of crlookup.errors (the CLI's
    own click exception aside), so that `except crlookup.CrlookupError` catches them all."""
    from crlookup.core import errors

    defined = []
    for info in pkgutil.walk_packages(crlookup.__path__, "crlookup."):
        if info.name in ("crlookup.core.errors", "crlookup.ui.browse", "crlookup.ui.cli.command"):
            continue  # the errors themselves; Textual's app and click's command line
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                defined.append(f"{info.name}.{value.__name__}")
    assert defined == []
    for value in vars(errors).values():
        if (
            isinstance(value, type)
            and issubclass(value, Exception)
            and value.__module__ == errors.__name__
        ):
            assert issubclass(value, errors.CrlookupError) and value.__doc__


def test_import_crlookup_is_light():
    """The public face imports what it offers only when it is used."""
    code = (
        "import sys, crlookup\n"
        "mine = sorted(m for m in sys.modules if m.startswith('crlookup'))\n"
        "assert mine == ['crlookup', 'crlookup.version'], mine\n"
        "assert not [m for m in ('sqlite3', 'click', 'rich', 'whoosh') if m in sys.modules]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_public_names_are_there_and_documented():
    """Every name of crlookup.__all__ resolves (imported on first use) and says what it is;
    each Library method a command is returns one of the result types, which has to_dict()."""
    import inspect

    for name in crlookup.__all__:
        value = getattr(crlookup, name)
        assert name == "__version__" or inspect.getdoc(value), name
    results = {
        "RuleLookup",
        "Citations",
        "Parallel",
        "Search",
        "CardResults",
        "Definitions",
        "EditionDiff",
        "History",
        "Asked",
        "CardLookup",
        "EditionList",
        "Unresolved",
    }
    assert all(callable(getattr(_result(n), "to_dict", None)) for n in results)
    commands = ("rule", "refs", "parallel", "search", "define", "diff", "history", "ask", "card")
    hints = {
        m: inspect.signature(getattr(crlookup.Library, m)).return_annotation
        for m in (*commands, "list_editions")
    }
    returned = {name for hint in hints.values() for name in hint.split(" | ")}
    assert returned == results


def _result(name: str):
    """A result type, from the public names or crlookup.api (those of `editions`), or the
    card search's."""
    from crlookup import api
    from crlookup.library import cards

    return getattr(crlookup, name, None) or getattr(api, name, None) or getattr(cards, name)


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest chain of imports between crlookup's own modules (the graph has no cycles)."""
    import functools

    @functools.cache
    def longest(module: str) -> tuple[str, ...]:
        below = [longest(m) for m in sorted(graph[module])]
        return (module, *max(below, key=len, default=()))

    return list(max((longest(m) for m in sorted(graph)), key=len))


def test_the_longest_chain_finder():
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert longest_chain(graph) == ["d", "a", "b", "c"]


def test_no_layer_is_a_tall_stack():
    """Counting imports inside functions, file by file. Within a layer, modules stand side by
    side: no chain of a layer's own modules is over 5 high (issue 44: ask's stages were 7,
    each running the one below it; the front ends' 7 are the browser's app, widgets and
    views over the views of the commands). In all, at most 15 floors (issue 28: 19; then 13,
    the ask stack; the front ends split by command now stand above the API)."""
    graph = import_graph()
    most = {"ui": 7}  # the browser: app -> widgets -> views -> (render) card -> text
    for layer in {_layer(m) for m in graph}:
        own = {m: {x for x in imported if _layer(x) == layer}
               for m, imported in graph.items() if _layer(m) == layer}  # fmt: skip
        chain = longest_chain(own)
        assert len(chain) <= most.get(layer, 5), " -> ".join(chain)
    chain = longest_chain(graph)
    assert len(chain) <= 15, " -> ".join(chain)


def test_the_ask_stages_stand_side_by_side():
    """Issue 44: from the ask package down, at most 9 modules (were 11): the pipeline runs
    the stages, none runs the next."""
    graph = import_graph()

    def longest_from(module: str) -> list[str]:
        below = [longest_from(m) for m in sorted(graph[module])]
        return [module, *max(below, key=len, default=[])]

    chain = longest_from("crlookup.features.ask")
    assert len(chain) <= 9, " -> ".join(chain)


def test_at_most_12_modules_at_the_top():
    """The rest live in packages whose names say their role."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert packages == ["builder", "core", "features", "library", "sources", "ui"]
    for name in packages:  # each says what it is for
        assert (PACKAGE / name / "__init__.py").read_text(encoding="utf-8").startswith('"""')


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else parts[-1]


def test_the_layers_hold():
    """Reading goes down (ui -> api -> bilingual -> features -> library -> core); the ground
    imports nothing above it; no feature imports the builder, bilingual or the API; the
    builder writes with the parsers, the library's files and the features that make what it
    stores (ask's lexicons, update's counts of changes), never the API; a front end (the
    command line, its views, the browser, the server) reads only through the API."""
    graph = import_graph()
    allowed = {
        "core": {"core"},
        "sources": {"core", "sources"},
        "library": {"core", "library"},
        "features": {"core", "library", "features"},
        "bilingual": {"core", "library", "features"},
        "builder": {"core", "sources", "library", "features", "builder", "version"},
        "api": {"core", "library", "features", "bilingual", "builder", "version"},
        "ui": {"core", "api", "ui", "version", "crlookup"},
    }
    for module, imported in graph.items():
        layer = _layer(module)
        if layer in allowed:
            wrong = sorted(m for m in imported if _layer(m) not in allowed[layer])
            assert not wrong, (module, wrong)
    assert {_layer(m) for m in graph} <= {*allowed, "version", "crlookup"}
    builder = {m for m in graph if _layer(m) == "builder"}  # what the builder uses of features
    used = {f for m in builder for f in graph[m] if _layer(f) == "features"}
    assert used <= {
        "crlookup.features.diff",  # update: what changed
        "crlookup.features.card_rules",  # the lexicons stage: the rules behind each card
        "crlookup.features.ask.embedding",  # the lexicons stage: entry vectors
        "crlookup.features.ask.lexicon",
        "crlookup.features.ask.prepare",  # the lexicons stage: ask's lexicons
    }, used
