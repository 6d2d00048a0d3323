"""The options document on the Python side: ``VideoLoader``'s loader keywords become one JSON document, checked
against the schema the JVM checks it against (``_options.SCHEMA``, generated from ``docs/options.schema.json``), with
the same rules and the same words (``dev.stoker.loader.OptionsValidator``). Nothing here knows an option's
default: a keyword not given is not in the document, and the JVM's defaults stand.
"""
import difflib
import json
import math
import numbers
import operator
import os
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._options import SCHEMA

_DEFS = "#/$defs/"


class OptionsError(ValueError):
    """A keyword or document value that the schema refuses; ``path`` is where in the document."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path


def _resolve(node: dict) -> dict:
    ref = node.get("$ref")
    return SCHEMA["$defs"][ref[len(_DEFS):]] if ref else node


def _keywords() -> Tuple[Dict[str, Tuple[str, dict]], Dict[str, Tuple[str, dict]]]:
    """keyword → (path, schema) for the values with a fixed place; keyword → (stage field, schema) for stages'."""
    fixed: Dict[str, Tuple[str, dict]] = {}

    def walk(node: dict, prefix: str):
        for key, child in node.get("properties", {}).items():
            path = prefix + key
            if "x-python" in child:
                fixed[child["x-python"]] = (path, child)
            else:
                walk(_resolve(child), path + ".")

    walk(SCHEMA, "")
    per_stage = {child["x-python"]: (field, child) for field, child in SCHEMA["$defs"]["stage"]["properties"].items()
                 if "x-python" in child}
    return fixed, per_stage


KEYWORDS, STAGE_KEYWORDS = _keywords()


def _json(value: Any) -> str:
    return json.dumps(value, default=repr)


def _plain(value: Any) -> Any:
    """A numpy or torch scalar as the Python value it holds (``np.int64(4)``, ``np.float32(0.5)``, ``torch.tensor(4)``):
    JSON writes only Python's. Anything else as it is."""
    if isinstance(value, (bool, int, float, str)) or value is None or getattr(value, "ndim", 0) != 0:
        return value
    dtype = getattr(value, "dtype", None)
    if dtype is not None and "bool" in str(dtype):
        return bool(value)
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, numbers.Real) or (dtype is not None and "float" in str(dtype)):
        return float(value)
    return value


def _problem(path: str, value: Any, expected: str) -> OptionsError:
    return OptionsError(path or "options", f"{_json(value)} (expected: {expected})")


def check(node: dict, value: Any, path: str) -> Any:
    """``value`` checked against ``node`` (a schema) at ``path``; returns it, or the value an alias stands for."""
    schema = _resolve(node)
    value = _plain(value)
    if "oneOf" in schema:
        for alternative in schema["oneOf"]:
            try:
                return check(alternative, value, path)
            except OptionsError:
                pass
        raise _problem(path, value, schema.get("x-expected", ""))
    kind = schema.get("type")
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = {"integer": is_number and (isinstance(value, int) or (math.isfinite(value) and value == int(value))),
          "number": is_number and math.isfinite(value), "boolean": isinstance(value, bool), "string": isinstance(value, str),
          "object": isinstance(value, Mapping)}.get(kind, True)
    if not ok:
        raise _problem(path, value, {"integer": "an integer", "number": "a finite number", "boolean": "true or false",
                                     "string": "a string"}.get(kind, "an object"))
    if "enum" in schema:
        for v in schema["enum"]:
            if v.lower() == value.lower():
                return v
        for alias, meant in schema.get("x-aliases", {}).items():
            if alias.lower() == value.lower():
                return meant
        raise _problem(path, value, "one of " + ", ".join(list(schema["enum"]) + list(schema.get("x-aliases", {}))))
    if is_number and schema.get("format") in ("int32", "int64"):
        bits = 32 if schema["format"] == "int32" else 64
        if not -2 ** (bits - 1) <= value < 2 ** (bits - 1):   # what the JVM's record holds
            raise _problem(path, value, f"an integer of {bits} bits")
    if is_number:
        low, high = schema.get("minimum"), schema.get("maximum")
        above = schema.get("exclusiveMinimum")
        if above is not None and value <= above:
            raise _problem(path, value, f"above {above}" + (f", at most {high}" if high is not None else ""))
        if (low is not None and value < low) or (high is not None and value > high):
            raise _problem(path, value, f"{low}..{high}" if low is not None and high is not None
                           else f"{low}+" if low is not None else f"at most {high}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        raise _problem(path, value, schema.get("x-expected", "a value matching " + schema["pattern"]))
    if isinstance(value, Mapping):
        properties = schema.get("properties", {})
        anything = schema.get("additionalProperties")
        checked = {}
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            field = properties.get(key)
            if field is None and isinstance(anything, dict):
                field = anything
            if field is None:
                raise OptionsError(where, f"not an option (expected: one of {', '.join(properties)})")
            checked[key] = check(field, inner, where)
        return checked
    return value


def check_document(document: Mapping) -> dict:
    """A whole document checked, enumerated values in their canonical spelling."""
    return check(SCHEMA, dict(document), "")


def _put(document: dict, path: str, value: Any) -> None:
    keys = path.split(".")
    node = document
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value


def _merge(base: dict, over: Mapping) -> dict:
    """``over`` laid onto ``base`` group by group, as the JVM lays a document over its defaults."""
    merged = dict(base)
    for key, value in over.items():
        if key != "failureBudget" and isinstance(merged.get(key), dict) and isinstance(value, Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def unknown_keyword(keyword: str, also: List[str]) -> TypeError:
    close = difflib.get_close_matches(keyword, list(KEYWORDS) + list(STAGE_KEYWORDS) + also, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return TypeError(f"VideoLoader() got an unexpected keyword argument {keyword!r}{hint}")


def document(keywords: Mapping[str, Any], options: Optional[Mapping] = None) -> dict:
    """The document the loader keywords (and an ``options`` document under them) describe, checked; a bad value is a
    ``ValueError`` naming the keyword and the path; an unknown keyword a ``TypeError``, as Python's own."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options={options!r}: expected a dict, an options document (docs/options.schema.json)")
    doc: dict = {}
    for keyword, value in keywords.items():
        if value is None:   # None is "not given": the JVM's default stands
            if keyword not in KEYWORDS and keyword not in STAGE_KEYWORDS:
                raise unknown_keyword(keyword, [])
            continue
        if keyword in STAGE_KEYWORDS:
            field, node = STAGE_KEYWORDS[keyword]
            if not isinstance(value, Mapping):
                raise ValueError(f"{keyword}={value!r}: expected a dict of stage to value, e.g. {{'decode': 3}}")
            for stage, v in value.items():
                path = f"config.stages.{stage}.{field}"
                _put(doc, path, _checked(keyword, node, v, path, shown=value))
            continue
        if keyword not in KEYWORDS:
            raise unknown_keyword(keyword, [])
        path, node = KEYWORDS[keyword]
        if keyword == "quarantine" and value is not None:
            value = os.path.abspath(os.fspath(value))
        _put(doc, path, _checked(keyword, node, value, path))
    merged = _merge(dict(options or {}), doc)
    try:
        return check_document(merged)
    except OptionsError as e:
        raise ValueError(f"options: {e}") from None


def _checked(keyword: str, node: dict, value: Any, path: str, shown: Any = None) -> Any:
    try:
        return check(node, value, path)
    except OptionsError as e:
        raise ValueError(f"{keyword}={value if shown is None else shown!r}: {e}") from None


def describe() -> str:
    """The loader keywords, their defaults and meanings, as ``help(VideoLoader)`` shows them."""
    lines = []
    for keyword, (path, node) in KEYWORDS.items():
        default = node.get("default")
        shown = "" if default is None else f" (default {default!r})"
        lines.append(f"    {keyword}{shown} [{path}]: {node['description']}")
    for keyword, (field, node) in STAGE_KEYWORDS.items():
        lines.append(f"    {keyword} [config.stages.STAGE.{field}]: {node['description']} A dict by stage, e.g. "
                     f"{{'decode': 3}}.")
    return "\n".join(lines)


def to_json(doc: Mapping) -> str:
    return json.dumps(doc, separators=(",", ":"), sort_keys=True, allow_nan=False)
