"""A module that defines a function named like a Python builtin (functional.py's max, sum, abs,
pow) must not call that name meaning the builtin: inside the module the name is the tensor op.
That is how Conv2D(..., padding='same') raised AttributeError on every call ("'int' object has
no attribute 'max'"). The check reads every module of the package, so a new shadowing function
(or a new call) is caught wherever it is added; call builtins.max(...) instead."""
import ast
import builtins
import os

import glassgrad

PACKAGE = os.path.dirname(glassgrad.__file__)


def _modules():
    for root, _, files in os.walk(PACKAGE):
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(root, f)


def _shadowed(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return {n for n in names if hasattr(builtins, n)}


def test_no_module_calls_a_builtin_it_shadows():
    problems = []
    for path in _modules():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        shadowed = _shadowed(tree)
        if not shadowed:
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in shadowed:
                    # Calling the module's own op on a tensor is fine when meant; the rule keeps
                    # it explicit: inside such a module, write builtins.<name> or x.<name>().
                    problems.append(f"{os.path.relpath(path, PACKAGE)}:{node.lineno}: {node.func.id}(...) calls "
                                    f"this module's {node.func.id}, not the builtin")
    assert not problems, "\n".join(sorted(set(problems)))


def test_the_check_sees_the_shadowing_it_guards_against():
    tree = ast.parse("def max(x):\n    return x\n\ndef pad(a, b):\n    return max(a - b, 0)\n")
    assert _shadowed(tree) == {"max"}
