"""An unbalanced model, told where: the class whose equations are short (or too many) and the variables
without an equation.

rumoca gives the counts of the whole flattened model. Modelica asks each non-partial model to be
balanced by itself, so the component classes are compiled alone, depth first, until the innermost
unbalanced one; its declarations and equations (inherited ones included) are read from the parse tree,
and a maximum matching of equations to the unknowns each names leaves the unknowns without one.
"""
from __future__ import annotations

from fmu_build import modelica_query as query
from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_NAME, ModelicaClass
from fmu_build.modelica_parse import ModelicaSourceError, relative
from fmu_build.rumoca_errors import compiles_balanced, counts, resolve

_NOT_UNKNOWN = ("parameter", "constant", "input")
_DEPTH = 8


def _definition(cls: ModelicaClass):
    try:
        return query.definition(cls.path, cls.name)
    except ModelicaSourceError:
        return None


def _component_classes(cls: ModelicaClass, body: query.ClassBody) -> list[tuple[str, ModelicaClass]]:
    """(component name, class) of the components of model or block type outside the project library."""
    found = []
    for declaration in body.declarations:
        if declaration.type in query.BUILTIN_TYPES:
            continue
        target = resolve(declaration.type, cls.name)
        if target is not None and target.kind in ("model", "block") and not target.name.startswith(LIBRARY_NAME + "."):
            found.append((declaration.name, target))
    return found


def _culprit(cls: ModelicaClass, message: str) -> tuple[ModelicaClass, list[str], str]:
    """The innermost unbalanced class (following short class definitions and components), the component
    path to it and rumoca's message for it."""
    path: list[str] = []
    for _ in range(_DEPTH):
        ctx = _definition(cls)
        if ctx is None:
            break
        body = query.body(ctx)
        if body.short_base:
            base = resolve(body.short_base, cls.name.rsplit(".", 1)[0])
            if base is None:
                break
            cls = base
            continue
        for component, target in _component_classes(cls, body):
            balanced, inner = compiles_balanced(target)
            if not balanced and "unbalanced" in inner:
                cls, message = target, inner
                path.append(component)
                break
        else:
            break
    return cls, path, message


def _collect(cls: ModelicaClass, depth: int = 0) -> tuple[list[query.Declaration], list]:
    """Unknowns and equations of ``cls`` with those of the classes it extends."""
    ctx = _definition(cls)
    if ctx is None or depth > _DEPTH:
        return [], []
    body = query.body(ctx)
    unknowns = []
    for declaration in body.declarations:
        declaration.path = cls.path
        if any(word in declaration.prefixes.split() for word in _NOT_UNKNOWN) or declaration.binding is not None:
            continue
        target = None if declaration.type in query.BUILTIN_TYPES else resolve(declaration.type, cls.name)
        if declaration.type in query.BUILTIN_TYPES or (target is not None and target.kind == "type"):
            unknowns.append(declaration)
    equations = list(body.equations)
    for base_name, _, _ in body.extends:
        base = resolve(base_name, cls.name.rsplit(".", 1)[0])
        if base is not None:
            more_unknowns, more_equations = _collect(base, depth + 1)
            unknowns += more_unknowns
            equations += more_equations
    return unknowns, equations


def unbalanced(cls: ModelicaClass, message: str) -> BuildError:
    """One line naming the unbalanced class, where, its counts and the unknowns without an equation."""
    culprit, path, inner = _culprit(cls, message)
    numbers = counts(inner) or counts(message)
    unknowns, equations = _collect(culprit)
    missing = query.without_equation(unknowns, equations)
    used = f" (component {'.'.join(path)} of {cls.name})" if path else ""
    told = f"{numbers[0]} equations for {numbers[1]} unknowns" if numbers else "unbalanced"
    if numbers and numbers[0] > numbers[1]:
        return BuildError(f"{culprit.where}: unbalanced model {culprit.name}{used}: {told} — expected as many "
                          "equations as unknowns (remove an equation, or declare the variable it determines)")
    if missing:
        first = missing[0]
        names = ", ".join(d.name for d in missing)
        return BuildError(f"{relative(first.path)}:{first.line}:{first.column}: unbalanced model {culprit.name}{used}: "
                          f"{told}; without an equation: {names} — expected one equation for each unknown")
    return BuildError(f"{culprit.where}: unbalanced model {culprit.name}{used}: {told} — expected one equation "
                      "for each unknown")
