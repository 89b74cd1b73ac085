"""The code keeps the shape docs/architecture.md promises (issue 25): modules of at most 400
lines and functions of at most 50 in app/ and bench/, no import cycle anywhere, and app/'s
layers in order (issue 41): base → ingest → search → features → web → cli, with no chain of
imports longer than nine modules (eight imports, issue 60)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from app.config import PROJECT_ROOT

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 50
MAX_IMPORT_CHAIN = 9  # modules, each importing the next: eight imports


def _modules(*roots: str) -> dict[str, Path]:
    found = {}
    for root in roots:
        for path in (PROJECT_ROOT / root).rglob("*.py"):
            parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def test_modules_and_functions_stay_short():
    too_long = []
    for name, path in _modules("app", "bench").items():
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > MAX_MODULE_LINES:
            too_long.append(f"{name}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {lines} lines")
    assert not too_long


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of the others, at any depth of its code (lazy ones too)."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    graph[name].add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names)
        graph[name] &= modules.keys()
        graph[name].discard(name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        for target in sorted(graph[name]):
            found = visit(target, [*path, name])
            if found:
                return found
        done.add(name)
        return None

    return next((found for name in sorted(graph) if (found := visit(name, []))), None)


def test_no_import_cycle():
    assert _cycle(_imports(_modules("app", "bench", "tests"))) is None


def test_the_cycle_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def _longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest chain of imports in the graph, each module importing the next (a module
    already in the chain is not entered again)."""
    longest: dict[str, list[str]] = {}

    def chain(name: str, path: tuple[str, ...]) -> list[str]:
        if name not in longest:
            tails = [chain(target, (*path, name)) for target in sorted(graph[name])
                     if target not in path]
            longest[name] = [name, *max(tails, key=len, default=[])]
        return longest[name]

    return max((chain(name, ()) for name in sorted(graph)), key=len, default=[])


def test_the_longest_import_chain_is_at_most_nine_modules():
    """A reader follows a module's imports down to the base in a few steps (issue 41); the
    migrations are Alembic's scripts, run apart from the app."""
    modules = {name: path for name, path in _modules("app").items()
               if not name.startswith("app.migrations")}
    chain = _longest_chain(_imports(modules))
    assert len(chain) <= MAX_IMPORT_CHAIN, f"{len(chain)} modules: {' > '.join(chain)}"


def test_the_chain_check_finds_the_longest_chain():
    graph = {"a": {"b", "d"}, "b": {"c"}, "c": {"e"}, "d": {"e"}, "e": set(), "f": {"a"}}
    assert _longest_chain(graph) == ["f", "a", "b", "c", "e"]
    ten = {f"m{i}": {f"m{i + 1}"} for i in range(9)} | {"m9": set()}
    assert len(_longest_chain(ten)) == 10 > MAX_IMPORT_CHAIN


# app/'s layers, lowest first: a module imports only from its own layer or those below it.
LAYERS = ("base", "ingest", "search", "features", "web", "cli")
# A package's modules share its layer, but a feature folder's routes (its `routes.py`), which
# are in the web layer; the modules at the top of app/ are placed one by one, so that a new
# one is given its layer here.
PACKAGE_LAYERS = {"app.meaning": "base",  # the sentence encoder: numpy and tokenizers only
                  "app.ingest": "ingest", "app.search": "search", "app.topics": "features",
                  "app.whats_new": "features", "app.map": "features", "app.people": "features",
                  "app.web": "web", "app.migrations": "cli"}
MODULE_LAYERS = {
    **dict.fromkeys(["app", "app.allocator", "app.cache", "app.config", "app.db", "app.faults",
                     "app.ids", "app.models", "app.paging", "app.schema", "app.tex", "app.words"],
                    "base"),
    # The facet table and keyphrase extraction are read by the engine (columns, reasons).
    **dict.fromkeys(["app.facets", "app.keyphrases"], "search"),
    **dict.fromkeys(["app.catalog", "app.enrich", "app.exports", "app.feature_parts",
                     "app.outputs", "app.paper_json", "app.series"], "features"),
    **dict.fromkeys(["app.cli", "app.main", "app.serving"], "cli"),
}


def _layer(name: str) -> str | None:
    if name in MODULE_LAYERS:
        return MODULE_LAYERS[name]
    package = next((package for package in PACKAGE_LAYERS
                    if name == package or name.startswith(package + ".")), None)
    if package is None:
        return None
    return "web" if name.endswith(".routes") else PACKAGE_LAYERS[package]


def _upward(graph: dict[str, set[str]], layer_of: Callable[[str], str | None]
            ) -> set[tuple[str, str]]:
    """The imports of a module from a layer above its own."""
    rank = {name: LAYERS.index(layer) for name in graph if (layer := layer_of(name))}
    return {(name, target) for name, targets in graph.items() for target in targets
            if rank[target] > rank[name]}


def test_every_app_module_has_a_layer():
    assert [name for name in sorted(_modules("app")) if _layer(name) is None] == []


def test_a_module_imports_only_from_its_layer_and_those_below():
    assert sorted(_upward(_imports(_modules("app")), _layer)) == []


def test_a_feature_folders_routes_are_in_the_web_layer():
    assert [_layer("app.map.routes"), _layer("app.map.layout"), _layer("app.people.routes"),
            _layer("app.people")] == ["web", "features", "web", "features"]


def test_the_layer_check_finds_an_import_from_above():
    layers = {"app.words": "base", "app.search.words.analysis": "search", "app.web.pages": "web"}
    graph = {"app.words": {"app.search.words.analysis"}, "app.search.words.analysis": {"app.words"},
             "app.web.pages": {"app.search.words.analysis"}}
    assert _upward(graph, layers.get) == {("app.words", "app.search.words.analysis")}


def _word_lists(path: Path) -> list[str]:
    """The module-level names bound to a list of more than 20 words split from a string."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            for call in ast.walk(node.value):
                if (isinstance(call, ast.Attribute) and call.attr == "split"
                        and isinstance(call.value, ast.Constant)
                        and isinstance(call.value.value, str)
                        and len(call.value.value.split()) > 20):
                    found.extend(ast.unparse(target) for target in node.targets)
    return found


def test_word_lists_live_in_one_base_module():
    modules = _modules("app")
    lists = {name: _word_lists(path) for name, path in modules.items()}
    assert {name for name, found in lists.items() if found} == {"app.words"}
    assert _imports(modules)["app.words"] == set()


def test_bench_imports_nothing_from_tests():
    """Benchmarks run without the suite; what both need lives in bench/ (or app/)."""
    graph = _imports(_modules("bench", "tests"))
    assert [(name, sorted(graph[name])) for name in sorted(graph) if name.startswith("bench")
            and any(target.startswith("tests") for target in graph[name])] == []


def _raising_404(tree: ast.Module) -> set[str]:
    """The module's functions that raise a 404 (a nested function's, its outer one's)."""
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(isinstance(call, ast.Call) and getattr(call.func, "id", "") == "HTTPException"
                    and call.args and getattr(call.args[0], "value", None) == 404
                    for call in ast.walk(node))}


def _dependencies(tree: ast.AST) -> set[str]:
    """The functions a module names in Depends(...), or whose call makes the dependency."""
    named = [call.args[0] for call in ast.walk(tree)
             if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Depends"
             and call.args]
    return {getattr(arg.func if isinstance(arg, ast.Call) else arg, "id", "") for arg in named}


def _called_outside_depends(tree: ast.AST, names: set[str]) -> set[str]:
    """The functions of web/deps.py among `names` that a module calls other than to make a
    dependency (imported by name, or called as `deps.name`)."""
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "app.web.deps"
                for alias in node.names if alias.name in names}
    made = {id(call.args[0]) for call in ast.walk(tree) if isinstance(call, ast.Call)
            and getattr(call.func, "id", "") == "Depends" and call.args}
    return {name for call in ast.walk(tree) if isinstance(call, ast.Call) and id(call) not in made
            and ((name := getattr(call.func, "id", "")) in imported
                 or isinstance(call.func, ast.Attribute) and call.func.attr in names
                 and getattr(call.func.value, "id", "") == "deps" and (name := call.func.attr))}


def test_404s_are_raised_only_in_lookup_dependencies():
    """A route renders what its dependencies looked up; what is not there is a 404 from the
    lookup in web/deps.py (issue 41), so every route of a kind answers it alike."""
    trees = {name: ast.parse(path.read_text(encoding="utf-8"))
             for name, path in _modules("app").items()}
    raising = {name: found for name, tree in trees.items() if (found := _raising_404(tree))}
    assert list(raising) == ["app.web.deps"]
    assert raising["app.web.deps"] <= set().union(*map(_dependencies, trees.values()))
    # ... and a route does not call a lookup itself, outside Depends
    assert {name: called for name, tree in trees.items() if name != "app.web.deps"
            and (called := _called_outside_depends(tree, raising["app.web.deps"]))} == {}


def test_the_404_check_finds_a_lookup_called_in_a_route():
    tree = ast.parse("from app.web.deps import sitemap_chunk, topic_named\n"
                     "def page(topic: str, found: Annotated[T, Depends(deps._series)]):\n"
                     "    topic_named(topic)\n"
                     "    deps._paper(topic)\n"
                     "    _series(topic)\n"  # a function of its own of the same name
                     "chunk = Depends(sitemap_chunk(pages, 10))\n")
    assert _called_outside_depends(tree, {"topic_named", "_series", "_paper", "sitemap_chunk"}
                                   ) == {"topic_named", "_paper"}


def test_one_name_per_thing():
    """No two modules of app/ share a file name (a feature folder's routes.py aside), and no
    two define a public class of one name (issue 60): `results.py` meant two things."""
    files = [path for path in (PROJECT_ROOT / "app").rglob("*.py")
             if "migrations" not in path.parts and path.name not in ("__init__.py",
                                                                      "routes.py")]
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(path.name, []).append(str(path))
    classes: dict[str, list[str]] = {}
    for path in (PROJECT_ROOT / "app").rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes.setdefault(node.name, []).append(str(path))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}
    assert {name: paths for name, paths in classes.items() if len(paths) > 1} == {}
