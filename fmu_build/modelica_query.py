"""Questions to the parse tree of one class, for error messages that point into the user's file: where a
name is referenced, which declarations bind a literal of the wrong type, which variables have no equation.

Every answer carries the line and column of the source (1-based); the tree is the one of
:func:`fmu_build.modelica_parse.parse_tree`, read fresh (only an error path asks).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fmu_build.modelica_parse import class_definitions, parse_tree, read_text

BUILTIN_TYPES = ("Real", "Integer", "Boolean", "String")


@dataclass
class Declaration:
    """One declared component of a class."""

    name: str
    type: str
    prefixes: str          # e.g. "parameter", "input", "" (the type prefix words as written)
    line: int
    column: int
    binding: str | None    # the text of the declaration equation's expression, if any
    binding_line: int = 0
    binding_column: int = 0
    path: Path | None = None   # the file, set by the caller that knows it


@dataclass
class ClassBody:
    """The declarations, extends clauses and equations (names each one references) of a class."""

    declarations: list[Declaration] = field(default_factory=list)
    extends: list[tuple[str, int, int]] = field(default_factory=list)
    equations: list[tuple[set[str], int, int]] = field(default_factory=list)
    short_base: str | None = None


def _nodes(ctx):
    """Every rule context below ``ctx`` (itself included), depth first."""
    stack = [ctx]
    while stack:
        node = stack.pop()
        if hasattr(node, "getRuleIndex"):
            yield node
            stack.extend(reversed(node.children or []))


def _kind(ctx) -> str:
    return type(ctx).__name__[:-len("Context")]


def _place(ctx) -> tuple[int, int]:
    return ctx.start.line, ctx.start.column + 1


def file_tree(path: Path):
    """The parse tree of a whole file."""
    return parse_tree(read_text(path), path)


def definition(path: Path, class_name: str, tree=None):
    """The class_definition context of ``class_name`` (a full name) in the file ``path``, or None."""
    tree = tree if tree is not None else file_tree(path)
    best = None
    for name, ctx in class_definitions(tree):
        if (class_name == name or class_name.endswith("." + name)) and (best is None or len(name) > len(best[0])):
            best = (name, ctx)
    return best[1] if best else None


def references(ctx, name: str) -> list[tuple[int, int]]:
    """Places where the type or component reference ``name`` is written inside ``ctx``."""
    found = []
    for node in _nodes(ctx):
        if _kind(node) in ("Type_specifier", "Component_reference", "Name") and node.getText().lstrip(".") == name:
            found.append(_place(node))
    return found


def body(ctx) -> ClassBody:
    """Declarations, extends clauses and equations of one class (not of the classes nested in it)."""
    result = ClassBody()
    specifier = ctx.class_specifier()
    if _kind(specifier) == "Class_spec_base":
        result.short_base = specifier.component_reference().getText()
        return result
    composition = specifier.composition() if hasattr(specifier, "composition") else None
    if composition is None:
        return result
    for elements in composition.element_list():
        for element in elements.element():
            if element.extends_clause() is not None:
                result.extends.append((element.extends_clause().component_reference().getText(),
                                       *_place(element.extends_clause())))
            holder = element.regular_element() or element.replaceable_element()
            if holder is not None and holder.component_clause() is not None:
                result.declarations += _declarations(holder.component_clause())
    for section in composition.equation_section():
        if section.INITIAL() is not None:
            continue
        for equation in section.equation_block().equation():
            names = {n.getText().split(".")[0].split("[")[0] for n in _nodes(equation)
                     if _kind(n) == "Component_reference"}
            result.equations.append((names, *_place(equation)))
    return result


def _declarations(clause) -> list[Declaration]:
    prefixes = " ".join(child.getText() for child in (clause.type_prefix().children or []))
    type_name = clause.type_specifier().getText()
    found = []
    for component in clause.component_list().component_declaration():
        declaration = component.declaration()
        binding, where = None, (0, 0)
        modification = declaration.modification()
        expression = getattr(modification, "expression", lambda: None)() if modification is not None else None
        if expression is not None:
            binding, where = expression.getText(), _place(expression)
        ident = declaration.IDENT().symbol
        found.append(Declaration(ident.text, type_name, prefixes, ident.line, ident.column + 1, binding, *where))
    return found


def literal_type(text: str) -> str | None:
    """The type of a literal expression's text (Boolean, String, Integer, Real), or None if not a literal."""
    if text in ("true", "false"):
        return "Boolean"
    if text.startswith('"') and text.endswith('"'):
        return "String"
    for kind, convert in (("Integer", int), ("Real", float)):
        try:
            convert(text.lstrip("+-"))
            return kind
        except ValueError:
            pass
    return None


def wrong_literal(declaration: Declaration) -> str | None:
    """The literal type of a built-in-typed declaration's binding when it cannot be assigned, else None."""
    if declaration.binding is None or declaration.type not in BUILTIN_TYPES:
        return None
    found = literal_type(declaration.binding)
    if found is None or found == declaration.type or (declaration.type == "Real" and found == "Integer"):
        return None
    return found


def without_equation(unknowns: list[Declaration], equations: list[tuple[set[str], int, int]]) -> list[Declaration]:
    """The unknowns left over by a maximum matching of equations to the unknowns each references."""
    match: dict[str, int] = {}

    def augment(k: int, seen: set[str]) -> bool:
        for name in equations[k][0]:
            if name in seen or name not in names:
                continue
            seen.add(name)
            if name not in match or augment(match[name], seen):
                match[name] = k
                return True
        return False

    names = {d.name for d in unknowns}
    for k in range(len(equations)):
        augment(k, set())
    return [d for d in unknowns if d.name not in match]
