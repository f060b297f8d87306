"""Parse one Modelica file into its class tree, with a real Modelica parser.

The parser is the ANTLR 4 grammar of the Modelica Language Specification's Appendix B that pymoca
ships (its generated lexer and parser; pymoca's own AST builder is not used: it builds expression
trees the class discovery does not need). rumoca, which compiles the models, exposes no parse tree
to Python (``rumoca.validate_source`` gives diagnostics only); its diagnostic supplies the wording of
a syntax error where it finds one at the same file.

A :class:`ParsedFile` holds the ``within`` clause and every class the file defines, nested ones and
short class definitions included, with their line and column. Results are kept in memory (keyed by
the file's size and modification time) and on disk (keyed by the sha256 of its bytes) under the
build cache, so listing a library a second time reads no grammar.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from fmu_build.errors import BuildError

_FORMAT = 1   # bump when ParsedFile's layout or what it records changes


class ModelicaSourceError(BuildError, ValueError):
    """A Modelica file that cannot be read or parsed: one line ``FILE:LINE:COLUMN: what — expected what``."""


def relative(path: Path | str) -> str:
    """``path`` relative to the working directory where it lies below it, else absolute; symbolic links
    resolved (the staging folder of :mod:`fmu_build.staging` names the real files)."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class ClassEntry:
    """One class definition in a file: its dotted name from the file's top, restriction and place."""

    name: str
    kind: str
    partial: bool
    short: bool
    line: int
    column: int
    experiment: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class ParsedFile:
    """The stored definition of one file: the ``within`` clause (None when there is none) and its classes."""

    path: Path
    within: str | None
    classes: tuple[ClassEntry, ...]


def read_text(path: Path) -> str:
    """The file as text; ModelicaSourceError naming the byte offset, line and column if it is not UTF-8."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        offset = error.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise ModelicaSourceError(
            f"{relative(path)}:{line}:{column}: not UTF-8 text (byte offset {offset}: 0x{data[offset]:02x}) — "
            "expected a UTF-8 encoded Modelica file (save it as UTF-8 in the editor)") from None


# ---- the parse ------------------------------------------------------------------------------------

def _grammar():
    try:
        from pymoca.generated.ModelicaLexer import ModelicaLexer
        from pymoca.generated.ModelicaParser import ModelicaParser
    except ImportError:   # pragma: no cover - a dependency
        raise BuildError("class discovery needs the pymoca package (its Modelica grammar): "
                         "pip install pymoca") from None
    return ModelicaLexer, ModelicaParser


def parse_tree(text: str, path: Path):
    """The ANTLR parse tree of a whole file (rule ``stored_definition``); ModelicaSourceError on a
    syntax error. SLL prediction first (fast), the full LL parse only where SLL gives up."""
    import antlr4
    from antlr4.error.ErrorListener import ErrorListener
    from antlr4.error.ErrorStrategy import BailErrorStrategy
    from antlr4.error.Errors import ParseCancellationException
    from antlr4.atn.PredictionMode import PredictionMode

    lexer_class, parser_class = _grammar()

    class _Raise(ErrorListener):
        def syntaxError(self, recognizer, offending, line, column, msg, e):   # noqa: N802 - ANTLR's name
            raise _syntax_error(path, text, line, column + 1, msg)

    def parser(sll: bool):
        lexer = lexer_class(antlr4.InputStream(text))
        lexer.removeErrorListeners()
        lexer.addErrorListener(_Raise())
        result = parser_class(antlr4.CommonTokenStream(lexer))
        result.removeErrorListeners()
        if sll:
            result._interp.predictionMode = PredictionMode.SLL
            result._errHandler = BailErrorStrategy()
        else:
            result.addErrorListener(_Raise())
        return result

    try:
        return parser(True).stored_definition()
    except ParseCancellationException:
        return parser(False).stored_definition()


def _syntax_error(path: Path, text: str, line: int, column: int, antlr_message: str) -> ModelicaSourceError:
    """The error at the place rumoca's own parser names (its wording), else at ANTLR's."""
    from fmu_build.diagnostics import rumoca_syntax_error

    found = rumoca_syntax_error(text, path)
    if found:
        return ModelicaSourceError(found)
    what, _, expected = antlr_message.partition(" expecting ")
    return ModelicaSourceError(f"{relative(path)}:{line}:{column}: Modelica syntax error: {what} — expected "
                               f"{expected or 'a valid Modelica construct'}")


def _experiment(annotation) -> tuple[tuple[str, float], ...]:
    """The numeric arguments of ``experiment(...)`` in a class's annotation (StartTime, StopTime, ...)."""
    if annotation is None or annotation.class_modification().argument_list() is None:
        return ()
    for argument in annotation.class_modification().argument_list().argument():
        modification = _element_modification(argument)
        if modification is None or modification.component_reference().getText() != "experiment":
            continue
        inner = modification.modification()
        if inner is None or not hasattr(inner, "class_modification") or inner.class_modification() is None:
            return ()
        values = []
        arguments = inner.class_modification().argument_list()
        for item in arguments.argument() if arguments is not None else []:
            field = _element_modification(item)
            assigned = field.modification() if field is not None else None
            if assigned is not None and type(assigned).__name__ == "Modification_assignmentContext":
                try:
                    values.append((field.component_reference().getText(), float(assigned.expression().getText())))
                except ValueError:
                    pass   # not a number literal (an expression): the annotation's default applies
        return tuple(values)
    return ()


def _element_modification(argument):
    choice = argument.element_modification_or_replaceable()
    return choice.element_modification() if choice is not None else None


def _ident(specifier):
    """The class name's token of a class specifier (the first IDENT where the rule has several)."""
    ident = specifier.IDENT()
    return ident[0] if isinstance(ident, list) else ident


def class_definitions(tree):
    """(dotted name, class_definition context) of every class in a parse tree, depth first in file order."""
    def visit(definition, prefix):
        specifier = definition.class_specifier()
        name = _ident(specifier).getText()
        full = f"{prefix}.{name}" if prefix else name
        yield full, definition
        composition = specifier.composition() if hasattr(specifier, "composition") else None
        if composition is None:
            return
        for elements in composition.element_list():
            for element in elements.element():
                holder = element.regular_element() or element.replaceable_element()
                if holder is not None and holder.class_definition() is not None:
                    yield from visit(holder.class_definition(), full)

    for stored in tree.stored_definition_class():
        yield from visit(stored.class_definition(), "")


def _entry(name: str, definition) -> ClassEntry:
    specifier = definition.class_specifier()
    composition = specifier.composition() if hasattr(specifier, "composition") else None
    if composition is not None:
        annotation = composition.comp_annotation
    else:
        comment = specifier.comment() if hasattr(specifier, "comment") else None
        annotation = comment.annotation() if comment is not None else None
    restriction = definition.class_prefixes().class_type()   # its last word: 'expandable connector' -> connector
    kind = restriction.getChild(restriction.getChildCount() - 1).getText()
    ident = _ident(specifier)
    return ClassEntry(name, kind, definition.class_prefixes().PARTIAL() is not None,
                      type(specifier).__name__ in ("Class_spec_baseContext", "Class_spec_enumContext",
                                                   "Class_spec_derContext"),
                      ident.symbol.line, ident.symbol.column + 1, _experiment(annotation))


def _parse(path: Path, text: str) -> ParsedFile:
    tree = parse_tree(text, path)
    within = None
    if tree.WITHIN() is not None:
        within = tree.component_reference().getText() if tree.component_reference() is not None else ""
    return ParsedFile(path, within, tuple(_entry(name, d) for name, d in class_definitions(tree)))


# ---- caches ---------------------------------------------------------------------------------------

_memory: dict[tuple[str, int, int], ParsedFile] = {}


def _disk_cache() -> Path | None:
    from fmu_build.build import default_cache_dir

    try:
        return default_cache_dir() / "parsed"
    except (OSError, RuntimeError):   # no home directory
        return None


def _code_version() -> str:
    try:
        from importlib.metadata import version

        grammar = version("pymoca")
    except Exception:   # pragma: no cover
        grammar = "unknown"
    return f"{_FORMAT}:{grammar}:{hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]}"


def _load(entry: Path, path: Path) -> ParsedFile | None:
    try:
        data = json.loads(entry.read_text())
        return ParsedFile(path, data["within"], tuple(
            ClassEntry(**{**c, "experiment": tuple(tuple(p) for p in c["experiment"])}) for c in data["classes"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(entry: Path, parsed: ParsedFile) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", dir=entry.parent)
        with os.fdopen(handle, "w") as stream:
            json.dump({"within": parsed.within, "classes": [asdict(c) for c in parsed.classes]}, stream)
        os.replace(tmp, entry)
    except OSError:
        pass   # an unwritable cache only costs the next listing its speed


def parse_file(path: str | os.PathLike) -> ParsedFile:
    """The classes of one Modelica file (cached); ModelicaSourceError if it is not UTF-8 or does not parse."""
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key in _memory:
        return _memory[key]
    text = read_text(path)
    folder = _disk_cache()
    digest = hashlib.sha256((_code_version() + "\0" + text).encode()).hexdigest()
    entry = folder / digest[:2] / f"{digest}.json" if folder else None
    parsed = _load(entry, path) if entry and entry.is_file() else None
    if parsed is None:
        parsed = _parse(path, text)
        if entry:
            _store(entry, parsed)
    _memory[key] = parsed
    return parsed
