#!/usr/bin/env python3
"""Regenerate one program family of volmnt's message catalogue from a source checkout.

    scripts/formats/extract.py FAMILY SOURCE_DIR [--version V] [--out FILE]

FAMILY is a file under src/diagnose/formats/ (without .yaml); its header says which language,
which paths and which print calls to read (`lang`, `paths`, `exclude`, `calls`, `prefixes`,
`suffixes`: what a call prints after its format, as errors.Wrapf's ': %v' for the error it wraps).
SOURCE_DIR is a checkout of the program at the version to pin (a git work tree, an exported
snapshot, or an unpacked Debian source package). The family file is rewritten with every format
string found: where it is (`at: file:line`), the string with its verbs (`fmt`), and its meaning
(`means`). Meanings written by hand (`by: hand`) are kept for every format string whose text is
unchanged, so a new release is one command:

    scripts/formats/extract.py ceph-csi ~/src/ceph-csi --version v3.13.0

A format string found for the first time gets a default meaning from its shape, marked
`by: shape`: `wraps` when it ends in a verb that carries another program's message (`...: %v`,
`... Output: %s`), else `symptom` (it says that the operation failed, not why). Entries of the
old file whose string is gone are dropped (a hand meaning that is dropped is printed on stderr).

What counts as a format string: the first string-literal argument of a call the family names in
`calls` (Go: fmt.Errorf, klog.Errorf, status.Errorf, errors.Wrapf, recorder.Eventf, ...; C:
printk, pr_err, xfs_warn, _(...) ...), with adjacent literals joined (C) or `+` concatenations of
literals joined (Go); in C also every literal of an array the family names in `tables` (message
tables printed by index, such as open-iscsi's iscsi_err_msgs), in Go the string constants whose
names match a regex of `tables` (the scheduler's ErrReason...), and the messages of a com_err
error table (`ec CODE, "message"` in a .et file named in `paths`). `lang: cpp` reads C++ the
same way and, for the streams named in `streams` (cerr, cout), each `<<` chain as one message
with `%s` for what is not a literal. Strings with fewer than two words of letters are left out
(paths, bare verbs). Nothing here runs or builds the program.

`lang` is go, c, cpp, js, python or rust, or a list of them (a driver with a Python controller
and a Go node plugin): each file is read by the language of its ending. JavaScript: `new
GrpcError(code, `...`)`, `throw new Error(...)`, `logger.error(...)`; a template's `${...}` and a
non-literal operand of `+` are written `%v`. Python: `raise SomeError("...".format(...))`,
f-strings, `"..." % args`, `logger.error(...)`; `{...}` placeholders are written `%v`. Rust:
macros named with their `!` (`error!`, `anyhow!`, a driver's own `failure!`), functions as
`Status::internal` or `internal`, `#[snafu(display("..."))]` as `display`; an argument
`format!(...)` gives its string; `{}` / `{:?}` / `{name}` are written `%v`. Pseudo-calls:
`return` (Go: the string values of return statements, `return false, "volume is faulted"`), `=`
(Python: a string assigned to an UPPER_CASE name at module or class level, a messages module's
constants) and `%` (Python: a `"..." % args` or `"...".format()` expression assigned or
returned, printed later).
"""
import argparse
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMATS = os.path.join(REPO, "src", "diagnose", "formats")


# --- Go ---------------------------------------------------------------------------------------

GO_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<nl>\n)
  | (?P<punct>\.\.\.|[(){}\[\],;.+*&|!=<>:%^/-])
  | (?P<ws>[ \t\r]+)
    """,
    re.S | re.X,
)


def go_unquote(tok):
    if tok.startswith("`"):
        return tok[1:-1]
    body = tok[1:-1]
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            if n == "x" and i + 3 < len(body) + 1:
                try:
                    out.append(chr(int(body[i + 2:i + 4], 16)))
                    i += 4
                    continue
                except ValueError:
                    pass
            if n in "uU":
                width = 4 if n == "u" else 8
                try:
                    out.append(chr(int(body[i + 2:i + 2 + width], 16)))
                    i += 2 + width
                    continue
                except ValueError:
                    pass
        out.append(c)
        i += 1
    return "".join(out)


def go_tokens(text):
    line = 1
    for m in GO_TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group(kind)
        if kind in ("ws",):
            continue
        if kind == "comment" or kind == "raw":
            yield (kind, tok, line)
            line += tok.count("\n")
            continue
        if kind == "nl":
            line += 1
            continue
        yield (kind, tok, line)


class ConstStr(str):
    """A format that a call names by a constant: a literal argument of the same call wins."""


def go_consts(text):
    """{name: value} of the string constants a Go file declares (`const X = "..."`, and each
    `X = "..."` or `X string = "..."` of a `const ( ... )` block)."""
    toks = [t for t in go_tokens(text) if t[0] != "comment"]
    out, i = {}, 0
    while i < len(toks):
        if toks[i][1] != "const":
            i += 1
            continue
        block = i + 1 < len(toks) and toks[i + 1][1] == "("
        j = i + 2 if block else i + 1
        depth = 1 if block else 0
        while j < len(toks):
            t = toks[j][1]
            if block and t == ")" and depth == 1:
                break
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
            # NAME [string] = "lit" [+ "lit"...], ending the line (the next token on a new line).
            if toks[j][0] == "ident" and depth == (1 if block else 0) and (j == 0 or toks[j - 1][2] < toks[j][2] or toks[j - 1][1] in ("(", "const")):
                k = j + 1
                if k < len(toks) and toks[k][1] == "string":
                    k += 1
                if k < len(toks) and toks[k][1] == "=":
                    k += 1
                    lits = []
                    while k < len(toks) and toks[k][0] in ("str", "raw"):
                        lits.append(go_unquote(toks[k][1]))
                        k += 1
                        if k < len(toks) and toks[k][1] == "+" and k + 1 < len(toks) and toks[k + 1][0] in ("str", "raw"):
                            k += 1
                            continue
                        break
                    if lits and (k >= len(toks) or toks[k][2] > toks[k - 1][2] or toks[k][1] in (")", ";")):
                        out[toks[j][1]] = "".join(lits)
            if not block and toks[j][2] > toks[i][2]:
                break
            j += 1
        i = j + 1
    return out


def go_calls(text, names, consts=None):
    """(line, callee, [first string literal of each argument]) for calls to `names`. An argument
    that is only the name of a string constant in `consts` (`VolumeOperationAlreadyExists`,
    `util.ErrFmt`) counts as its literal."""
    consts = consts or {}
    toks = [t for t in go_tokens(text) if t[0] != "comment"]
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident":
            continue
        # `status.Errorf` is named as such or as `Errorf`; the qualifier is kept for `grpc`.
        qual = toks[i - 2][1] + "." + tok if i >= 2 and toks[i - 1][1] == "." else tok
        if tok == "return" and "return" in names:
            out.append((line, "return", go_returned(toks, i + 1)))
            continue
        if tok not in names and qual not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        # Skip declarations (`func Errorf(`).
        if i > 0 and toks[i - 1][1] == "func":
            continue
        # Arguments at depth 1, each as the joined literals of a `"a" + "b"` expression.
        depth, j, args, cur, cur_lits, pure = 0, i + 1, [], [], [], True

        def arg_value():
            if cur_lits and pure:
                return "".join(cur_lits)
            # A constant's name alone (`Fmt` or `pkg.Fmt`) stands for its value.
            if (len(cur) == 1 or (len(cur) == 3 and cur[1] == ".")) and cur[-1] in consts:
                return ConstStr(consts[cur[-1]])
            return None

        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
                if depth > 1:
                    pure = False
                    cur.append(t)
            elif t in ")]}":
                depth -= 1
                if depth == 0:
                    args.append(arg_value())
                    break
                cur.append(t)
            elif t == "," and depth == 1:
                args.append(arg_value())
                cur, cur_lits, pure = [], [], True
            elif depth == 1:
                cur.append(t)
                if k in ("str", "raw"):
                    cur_lits.append(go_unquote(t))
                elif t != "+":
                    pure = False
            else:
                cur.append(t)
            j += 1
        out.append((line, qual, args))
    return out


def go_returned(toks, j):
    """The literal strings of a return statement's values (`return false, "volume is faulted"`),
    for families that name `return` among their calls: messages a function hands back as a
    plain string for its caller to print."""
    args, lits, pure, depth = [], [], True, 0
    while j < len(toks):
        k, t, line = toks[j]
        if depth == 0 and t in ("}", ";"):
            break
        if t in "([{":
            depth += 1
            pure = False
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            args.append("".join(lits) if lits and pure else None)
            lits, pure = [], True
        elif depth == 0:
            if k in ("str", "raw"):
                lits.append(go_unquote(t))
            elif t != "+":
                pure = False
        # the statement ends with its line, unless the line ends in an operator or is in brackets
        if depth == 0 and j + 1 < len(toks) and toks[j + 1][2] > line and t not in (",", "+", "&&", "||"):
            break
        j += 1
    args.append("".join(lits) if lits and pure else None)
    return args


# --- C ----------------------------------------------------------------------------------------

C_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>L?"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<pp>\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<nl>\n)
  | (?P<punct>->|\.\.\.|[(){}\[\],;.+*&|!=<>:%^/?~-])
  | (?P<ws>[ \t\r\f\v]+|\\\n)
    """,
    re.S | re.X,
)


def c_unquote(tok):
    body = tok[tok.index('"') + 1:-1]
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v", "?": "?"}
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            if m:
                out.append(chr(int(m.group(0), 8)))
                i += 1 + len(m.group(0))
                continue
        out.append(c)
        i += 1
    return "".join(out)


def c_tokens(text):
    line = 1
    for m in C_TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group(kind)
        n = tok.count("\n")
        if kind not in ("ws", "comment", "nl", "pp"):
            yield (kind, tok, line)
        line += n


# Macros that expand to a string literal in the middle of a format (kernel log levels and the
# like): they are dropped, and the literals around them joined.
C_STRING_MACROS = {
    "KERN_EMERG", "KERN_ALERT", "KERN_CRIT", "KERN_ERR", "KERN_WARNING", "KERN_NOTICE",
    "KERN_INFO", "KERN_DEBUG", "KERN_DEFAULT", "KERN_CONT", "PRIu64", "PRId64", "PRIx64",
    "PRIu32", "PRId32", "PRIx32", "PRIu16", "PRIu8", "PRIi64", "PRIi32", "SCNu64",
}
# Macros whose literal value is known, substituted where they stand in a format.
C_MACRO_TEXT = {"DRV_NAME": "{driver}", "PROGNAME": "{program}"}


GETTEXT = ("_", "N_", "gettext", "P_")


UPPER = re.compile(r"[A-Z][A-Z0-9_]*$")


def c_calls(text, names, macros=None, first_arg=None):
    """(line, callee, [first string literal of each argument]) for calls to `names`. An argument
    that is not a plain literal but holds translated literals (`cond ? _("a") : _("b")`) gives
    one call per literal, each with that literal alone. An upper-case macro next to a literal
    (`RBD_DRV_NAME ": ..."`) is a string: its text from `macros`, else `%s`. `first_arg` keeps
    only the calls of a name whose first argument starts so (`cifs_dbg(VFS, ...)`)."""
    macros = {**C_MACRO_TEXT, **(macros or {})}
    first_arg = first_arg or {}
    toks = list(c_tokens(text))
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident" or tok not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        depth, j, args, lits, pure = 0, i + 1, [], [], True
        groups, gdepth = [], None          # the `_("...")` groups of the current argument
        alts = None                        # the groups of the first argument with no plain literal

        def end_arg():
            nonlocal alts
            if lits and pure:
                args.append("".join(lits))
            else:
                args.append(None)
                if alts is None and not any(args[:-1]) and groups:
                    alts = [g for g in groups if g[1]]

        first = []                         # the tokens of the first argument
        while j < len(toks):
            k, t, tl = toks[j]
            if len(args) == 0 and depth >= 1 and not (depth == 1 and t in ",)"):
                first.append(t)
            if t in "([{":
                depth += 1
                # `_("...")` inside the call: its literal is the argument's.
                if depth > 1 and toks[j - 1][1] in GETTEXT:
                    if gdepth is None:
                        gdepth = depth
                        groups.append((tl, []))
                elif depth > 1:
                    pure = False
            elif t in ")]}":
                if gdepth is not None and depth == gdepth:
                    gdepth = None
                depth -= 1
                if depth == 0:
                    end_arg()
                    break
            elif t == "," and depth == 1:
                end_arg()
                lits, pure, groups = [], True, []
            elif depth >= 1:
                if k == "str":
                    lits.append(c_unquote(t))
                    if gdepth is not None:
                        groups[-1][1].append(c_unquote(t))
                elif k == "ident" and t in C_STRING_MACROS:
                    pass
                elif k == "ident" and (t in macros or (
                        UPPER.match(t) and (toks[j - 1][0] == "str" or
                                            (j + 1 < len(toks) and toks[j + 1][0] == "str")))):
                    lits.append(macros.get(t, "%s"))
                    if gdepth is not None:
                        groups[-1][1].append(macros.get(t, "%s"))
                elif k == "ident" and t in GETTEXT:
                    pass
                elif depth == 1:
                    pure = False
            j += 1
        if tok in first_arg and not " ".join(first).startswith(first_arg[tok]):
            continue
        if alts and not any(args):
            for gl, g in alts:
                out.append((gl, tok, ["".join(g)]))
        else:
            out.append((line, tok, args))
    return out


def c_tables(text, names):
    """(line, table, [literal]) for every string literal in the initializer of an array named
    in `names` (`static char *iscsi_err_msgs[] = { "unknown error", ... }`): message tables
    that a program prints by index. Adjacent literals are joined."""
    out = []
    for m in re.finditer(r"\b(%s)\s*\[[^\]]*\]\s*=\s*\{" % "|".join(map(re.escape, names)), text):
        line0 = text.count("\n", 0, m.start()) + 1
        toks = list(c_tokens(text[m.end():]))
        depth, cur, cur_line = 1, [], None
        for k, t, l in toks:
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    break
            if k == "str":
                if not cur:
                    cur_line = line0 + l - 1
                cur.append(c_unquote(t))
            elif cur:
                out.append((cur_line, m.group(1), ["".join(cur)]))
                cur = []
        if cur:
            out.append((cur_line, m.group(1), ["".join(cur)]))
    return out


def c_streams(text, names):
    """(line, stream, [message]) for each C++ stream statement `std::cerr << "rbd: " << x <<
    " failed" << std::endl;` on a stream named in `names`: the literals joined (a `%` in them
    written `%%`), `std::endl` a newline, every other operand a `%s`."""
    toks = list(c_tokens(text))
    out = []
    i = 0
    while i < len(toks):
        kind, tok, line = toks[i]
        if not (kind == "ident" and tok in names and i + 2 < len(toks)
                and toks[i + 1][1] == "<" and toks[i + 2][1] == "<"):
            i += 1
            continue
        j, depth, parts, operand, has_lit = i + 3, 0, [], [], False

        def flush():
            nonlocal operand, has_lit
            if not operand:
                return
            texts = [t for k, t in operand]
            if all(k == "str" for k, t in operand):
                # A literal `%` is not a verb: written `%%` as in a printf format.
                parts.append("".join(c_unquote(t) for t in texts).replace("%", "%%"))
                has_lit = True
            elif texts[-1] == "endl":
                parts.append("\n")
            elif texts[-1] not in ("dendl", "flush"):
                parts.append("%s")
            operand = []

        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
                if depth < 0:
                    break
            if depth == 0 and t == ";":
                break
            if depth == 0 and t == "<" and j + 1 < len(toks) and toks[j + 1][1] == "<":
                flush()
                j += 2
                continue
            operand.append((k, t))
            j += 1
        flush()
        if has_lit:
            out.append((line, tok, ["".join(parts)]))
        i = j
    return out


def go_tables(text, patterns):
    """(line, name, [literal]) for each Go constant or variable whose name matches one of
    `patterns` (regexes) and whose value is a string literal: the messages a program keeps in
    named constants (`ErrReasonBindConflict ConflictReason = "node(s) didn't find ..."`)."""
    out = []
    for m in re.finditer(r'^[ \t]*(?:const[ \t]+|var[ \t]+)?([A-Za-z_]\w*)[ \t]+(?:[\w.]+[ \t]+)?=[ \t]*'
                         r'("(?:\\.|[^"\\\n])*"|`[^`]*`)[ \t]*(?://.*)?$', text, re.M):
        if any(re.fullmatch(p, m.group(1)) for p in patterns):
            out.append((text.count("\n", 0, m.start(2)) + 1, m.group(1), [go_unquote(m.group(2))]))
    return out


def et_entries(text):
    """(line, code, [message]) for each `ec CODE, "message"` of a com_err error table
    (compile_et's .et source: e2fsprogs' ext2_err.et.in); the codes are what com_err() prints."""
    out = []
    for m in re.finditer(r'^ec\s+(\w+),\s*\n?\s*("(?:\\.|[^"\\\n])*")', text, re.M):
        out.append((text.count("\n", 0, m.start(2)) + 1, m.group(1), [c_unquote(m.group(2))]))
    return out


# --- strings with `{...}` placeholders (JavaScript templates, Python .format/f-strings, Rust) ---

def brace_to_verbs(s, dollar=False):
    """A string whose placeholders are braces, written with printf verbs like the rest of the
    catalogue: each `{...}` (JavaScript: `${...}`) becomes `%v`, `{{`/`}}` become braces and a
    literal `%` becomes `%%`."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "%":
            out.append("%%")
            i += 1
        elif not dollar and s.startswith("{{", i):
            out.append("{")
            i += 2
        elif not dollar and s.startswith("}}", i):
            out.append("}")
            i += 2
        elif (s.startswith("${", i) if dollar else c == "{"):
            depth, j = 0, i + (1 if dollar else 0)
            while j < len(s):
                if s[j] == "{":
                    depth += 1
                elif s[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= len(s):
                out.append(s[i:])
                break
            out.append("%v")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


# --- JavaScript -------------------------------------------------------------------------------

JS_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "in", "of", "=>"}


def js_tokens(text):
    """(kind, value, line): kind is ident, str (value already unquoted; templates with `${...}`
    as `%v`), punct or num. Comments and regular expression literals are skipped."""
    i, line, n, prev = 0, 1, len(text), None
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r\f\v":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c in "'\"":
            j, buf = i + 1, []
            while j < n and text[j] != c and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n:
                    e = text[j + 1]
                    buf.append({"n": "\n", "t": "\t", "r": "\r"}.get(e, "" if e == "\n" else e))
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            prev = ("str", "".join(buf), line)
            yield prev
            i = j + 1
        elif c == "`":
            j, buf, start = i + 1, [], line
            while j < n and text[j] != "`":
                if text[j] == "\\" and j + 1 < n:
                    e = text[j + 1]
                    buf.append({"n": "\n", "t": "\t", "r": "\r"}.get(e, e))
                    j += 2
                    continue
                if text.startswith("${", j):
                    depth, k = 0, j + 1
                    while k < n:
                        if text[k] == "{":
                            depth += 1
                        elif text[k] == "}":
                            depth -= 1
                            if depth == 0:
                                break
                        elif text[k] == "`":  # a template inside the placeholder
                            k = text.find("`", k + 1)
                            if k < 0:
                                k = n
                        k += 1
                    buf.append("\x00")
                    j = k + 1
                    continue
                buf.append(text[j])
                j += 1
            line += text.count("\n", i, j)
            body = "".join(buf).replace("%", "%%").replace("\x00", "%v")
            prev = ("tmpl", body, start)
            yield prev
            i = j + 1
        elif c == "/" and (prev is None or prev[1] in JS_REGEX_BEFORE):
            j, cls = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    cls = True
                elif text[j] == "]":
                    cls = False
                elif text[j] == "/" and not cls:
                    break
                j += 1
            j += 1
            while j < n and (text[j].isalnum()):
                j += 1
            prev = ("regex", text[i:j], line)
            i = j
        elif c.isalpha() or c in "_$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            prev = ("ident", text[i:j], line)
            yield prev
            i = j
        elif c.isdigit():
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            prev = ("num", text[i:j], line)
            yield prev
            i = j
        else:
            t = text[i:i + 2] if text[i:i + 2] in ("=>", "&&", "||", "?.", "==", "!=", "<=", ">=") else c
            prev = ("punct", t, line)
            yield prev
            i += len(t)


def js_calls(text, names):
    """(line, callee, [argument texts]) for calls to `names` (`new GrpcError(...)`,
    `throw new Error(...)`, `logger.error(...)`). An argument is the joined text of its string
    literals and templates; other operands of a `+` become `%v` (`"no such device: " + dev`)."""
    toks = list(js_tokens(text))
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident":
            continue
        qual = toks[i - 2][1] + "." + tok if i >= 2 and toks[i - 1][1] in (".", "?.") else tok
        if tok not in names and qual not in names:
            continue
        if i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        if i > 0 and toks[i - 1][1] in ("function", "class"):
            continue
        depth, j, args, terms, cur, has_lit = 0, i + 1, [], [], [], False

        def term_end():
            nonlocal cur
            if cur:
                terms.append(cur[0][1] if len(cur) == 1 and cur[0][0] in ("str", "tmpl") else None)
            cur = []

        def arg_end():
            nonlocal terms
            term_end()
            if any(t is not None for t in terms):
                fmt = "".join(t if t is not None else "%v" for t in terms)
                # a plain string's own `%` stays as written: loggers format printf-style
                args.append(fmt)
            else:
                args.append(None)
            terms = []

        while j < len(toks):
            k, t, _ = toks[j]
            if t in "([{" and k == "punct":
                depth += 1
                if depth > 1:
                    cur.append((k, t))
            elif t in ")]}" and k == "punct":
                depth -= 1
                if depth == 0:
                    arg_end()
                    break
                cur.append((k, t))
            elif t == "," and depth == 1:
                arg_end()
            elif t == "+" and depth == 1:
                term_end()
            elif depth >= 1:
                cur.append((k, t))
            j += 1
        out.append((line, qual, args))
    return out


# --- Python -----------------------------------------------------------------------------------

PY_VERB = re.compile(r"%(\([A-Za-z0-9_]+\))?[-+#0]*\d*(\.\d+)?[sdifrxXeEgGc]")


def py_text(node, ast):
    """The format text of an argument expression, or None: a string; an f-string (`{...}` as
    `%v`); `"...".format(...)` (its `{...}` as `%v`); `"..." % args` (printf verbs kept); `+` of
    these, other operands as `%v`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        s = node.value
        # a bare string with `{0}` / `{}` / `{name}` and no printf verb is a .format template
        if re.search(r"\{[A-Za-z0-9_]*(![rsa])?(:[^{}]*)?\}", s) and not PY_VERB.search(s):
            return brace_to_verbs(s)
        return re.sub(r"%\([A-Za-z0-9_]+\)", "%", s)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value).replace("%", "%%"))
            else:
                parts.append("%v")
        return "".join(parts)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)):
        return brace_to_verbs(node.func.value.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            return re.sub(r"%\([A-Za-z0-9_]+\)", "%", left.value)
        return py_text(left, ast)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        l, r = py_text(node.left, ast), py_text(node.right, ast)
        if l is None and r is None:
            return None
        return (l if l is not None else "%v") + (r if r is not None else "%v")
    return None


def py_calls(text, names):
    """(line, callee, [argument texts]) for calls to `names` (`raise SomeError("...")`,
    `logger.error(...)`), and, when `=` is among `names`, module- or class-level assignments of a
    string to an UPPER_CASE name (a messages module: `HOST_NOT_FOUND = "Host for node: {0} ..."`),
    and, when `%` is, format expressions assigned or returned (`message = "..." % args`)."""
    import ast
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                tok, qual = f.id, f.id
            elif isinstance(f, ast.Attribute):
                tok = f.attr
                v = f.value
                base = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else ""
                qual = base + "." + tok if base else tok
            else:
                continue
            if tok not in names and qual not in names:
                continue
            args = [py_text(a, ast) for a in node.args] + [
                py_text(k.value, ast) for k in node.keywords if k.arg in ("msg", "message", "details")]
            out.append((node.lineno, qual, args))
    if "%" in names:
        # a format expression (`"..." % args`, `"...".format(...)`) assigned to a variable or
        # returned, to be printed later (`message = "Failed to resolve %s ..." % name`)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.Return)) and node.value is not None:
                v = node.value
                if ((isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mod)) or
                        (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                         and v.func.attr == "format")):
                    t = py_text(v, ast)
                    if t is not None:
                        out.append((v.lineno, "%", [t]))
    if "=" in names:
        for scope in [tree] + [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            for node in scope.body:
                if (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Name)
                        and re.fullmatch(r"[A-Z][A-Z0-9_]*", node.targets[0].id)):
                    t = py_text(node.value, ast)
                    if t is not None:
                        out.append((node.lineno, "=", [t]))
    return out


# --- Rust -------------------------------------------------------------------------------------

def rust_tokens(text):
    """(kind, value, line): ident, str (unquoted, raw strings too), punct (`::` kept whole), num."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            line += text.count("\n", i, j)
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]):
            m = re.match(r'b?r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j
            yield ("str", text[i + m.end():j], line)
            line += text.count("\n", i, j)
            i = j + len(close)
        elif c == '"' or (c == "b" and text.startswith('b"', i)):
            j, buf, start = i + (2 if c == "b" else 1), [], line
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    e = text[j + 1]
                    if e == "\n":  # a line continuation skips the next line's indentation
                        j += 2
                        while j < n and text[j] in " \t\r\n":
                            j += 1
                        continue
                    buf.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(e, e))
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            line += text.count("\n", i, j)
            yield ("str", "".join(buf), start)
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            i += m.end() if m else 1  # a char literal, or a lifetime's quote
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield ("ident", text[i:j], line)
            i = j
        elif c.isdigit():
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            yield ("num", text[i:j], line)
            i = j
        else:
            t = "::" if text.startswith("::", i) else c
            yield ("punct", t, line)
            i += len(t)


RUST_FORMAT_MACROS = {"format", "format_args", "anyhow", "eyre"}


def rust_calls(text, names):
    """(line, callee, [argument texts]) for macro calls (`error!(...)`, named with their `!`),
    function calls (`Status::internal(...)`, named `Status::internal` or `internal`) and attribute
    calls (`#[snafu(display("..."))]`: `display`). An argument that is a `format!(...)` gives that
    macro's format string. `{}`/`{:?}`/`{name}` are written `%v`."""
    toks = list(rust_tokens(text))
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind != "ident":
            continue
        j0 = i + 1
        name = tok
        if j0 < len(toks) and toks[j0][1] == "!":
            name, j0 = tok + "!", j0 + 1
        qual = toks[i - 2][1] + "::" + name if i >= 2 and toks[i - 1][1] == "::" else name
        if name not in names and qual not in names:
            continue
        if j0 >= len(toks) or toks[j0][1] not in ("(", "[", "{"):
            continue
        if i > 0 and toks[i - 1][1] in ("fn", "macro_rules"):
            continue
        depth, j, args, lits, pure = 0, j0, [], [], True
        while j < len(toks):
            k, t, _ = toks[j]
            # `"...".to_string()` (or `.into()`, `.to_owned()`) is still that string
            if depth == 1 and t == "." and j + 3 < len(toks) and toks[j + 1][1] in ("to_string", "into", "to_owned") \
                    and toks[j + 2][1] == "(" and toks[j + 3][1] == ")":
                j += 4
                continue
            if k == "punct" and t in "([{":
                depth += 1
                # `format!(` (or `anyhow!(`) at the start of an argument: its string is the argument's
                if depth == 2 and j >= 2 and toks[j - 1][1] == "!" and toks[j - 2][1] in RUST_FORMAT_MACROS \
                        and not lits and j + 1 < len(toks) and toks[j + 1][0] == "str":
                    lits.append(toks[j + 1][1])
                    depth_skip = depth
                    j += 2
                    while j < len(toks) and depth >= depth_skip:
                        if toks[j][0] == "punct" and toks[j][1] in "([{":
                            depth += 1
                        elif toks[j][0] == "punct" and toks[j][1] in ")]}":
                            depth -= 1
                        j += 1
                    continue
                if depth > 1:
                    pure = False
            elif k == "punct" and t in ")]}":
                depth -= 1
                if depth == 0:
                    args.append(brace_to_verbs("".join(lits)) if lits and pure else None)
                    break
            elif k == "punct" and t == "," and depth == 1:
                args.append(brace_to_verbs("".join(lits)) if lits and pure else None)
                lits, pure = [], True
            elif depth == 1:
                if k == "str":
                    lits.append(t)
                elif k == "ident" and t in RUST_FORMAT_MACROS and j + 1 < len(toks) and toks[j + 1][1] == "!":
                    pass  # the `(` after `!` takes the macro's string
                elif k == "punct" and t == "!" and toks[j - 1][1] in RUST_FORMAT_MACROS:
                    pass
                elif not (k == "punct" and t == "&"):
                    pure = False
            j += 1
        out.append((line, qual, args))
    return out


# --- what is kept -----------------------------------------------------------------------------

WORD = re.compile(r"[A-Za-z]{2,}")
VERB = re.compile(r"%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|L|q|j|z|t)?[a-zA-Z%]")


def is_message(s):
    """Two words of letters outside the verbs, and not a path or a flag's name."""
    # A verb before `()` is a function's name, as good as a word: "%s() failed: %m".
    bare = VERB.sub(" ", re.sub(r"%s\(\)", " call ", s))
    words = WORD.findall(bare)
    if len(words) < 2:
        return False
    if re.fullmatch(r"[\w./{}%-]+", s.strip()) and "/" in s:
        return False
    return True


FAILURE_WORDS = re.compile(
    r"fail|error|unable|cannot|can't|could not|couldn't|\bnot\b|invalid|denied|timed? ?out|refused|"
    r"missing|unsupported|no such|\bno\b|exceed|conflict|retry", re.I)


def default_meaning(fmt, info_call=False):
    """`info` for a progress call's string that names no failure (`info_calls`); else `wraps`
    when the string ends in a verb that carries another message, else `symptom`."""
    if info_call and not FAILURE_WORDS.search(VERB.sub(" ", fmt)):
        return "info"
    s = fmt.rstrip().rstrip(".\n")
    if re.search(r"(:|=|Output|output|error|err|desc|because|reason)\s*['\"\[(]?%[-+ #0]*[vsqw]['\"\])]?$", s):
        return "wraps"
    if re.search(r"%[vw]$", s):
        return "wraps"
    # `%m` is strerror(errno): the errno family's text, read on its own.
    if re.search(r"(:|error|err)\s*['\"\[(]?%m['\"\])]?$", s):
        return "wraps"
    return "symptom"


def walk(root, paths, exclude, exts, defaults=()):
    """Files under `paths` ending in `exts`; `exclude` is matched against the path from the root,
    `defaults` (tests, vendor, generated code) against the path from the listed path, so a
    family may list a directory under vendor/ that it means to read."""
    for p in paths:
        base = os.path.join(root, p)
        if os.path.isfile(base):
            yield base
            continue
        for d, dirs, files in os.walk(base):
            rel = os.path.relpath(d, root)
            below = os.path.relpath(d, base)
            below = "" if below == "." else below
            dirs[:] = sorted(x for x in dirs
                             if not any(re.search(e, os.path.join(rel, x) + "/") for e in exclude)
                             and not any(re.search(e, os.path.join(below, x) + "/") for e in defaults))
            for f in sorted(files):
                full = os.path.join(d, f)
                relf = os.path.relpath(full, root)
                if not f.endswith(exts):
                    continue
                if any(re.search(e, relf) for e in exclude):
                    continue
                if any(re.search(e, os.path.join(below, f)) for e in defaults):
                    continue
                yield full


# lang -> (file endings, paths always skipped (tests, vendored and generated code), reader)
LANGS = {
    "go": ((".go",), [r"_test\.go$", r"(^|/)vendor/", r"(^|/)testdata/", r"(^|/)test/", r"(^|/)e2e/",
                      r"zz_generated", r"\.pb\.go$", r"(^|/)hack/"], go_calls),
    "c": ((".c", ".h"), [r"(^|/)tests?/", r"(^|/)po/", r"(^|/)Documentation/"], c_calls),
    "cpp": ((".cc", ".cpp", ".cxx", ".c", ".h", ".hpp"), [r"(^|/)tests?/", r"(^|/)po/", r"(^|/)doc/"],
            c_calls),
    "js": ((".js", ".mjs", ".cjs"), [r"(^|/)node_modules/", r"(^|/)tests?/", r"(^|/)__tests__/",
                                     r"\.(test|spec)\.js$", r"\.min\.js$"], js_calls),
    "python": ((".py",), [r"(^|/)tests?/", r"(^|/)test_[^/]*\.py$", r"_test\.py$", r"(^|/)conftest\.py$"],
               py_calls),
    "rust": ((".rs",), [r"(^|/)tests?/", r"(^|/)benches/", r"(^|/)examples/", r"(^|/)target/"], rust_calls),
}


def extract(header, root):
    langs = header["lang"] if isinstance(header["lang"], list) else [header["lang"]]
    # `name(ARG` in `calls`: only the calls whose first argument starts with ARG.
    names, first_arg = set(), {}
    for c in header["calls"]:
        name, _, arg = c.partition("(")
        names.add(name)
        if arg:
            first_arg[name] = arg
    exclude = header.get("exclude", [])
    defaults = [e for l in langs for e in LANGS[l][1]]
    exts = tuple(x for l in langs for x in LANGS[l][0])
    found = {}
    consts = {}
    if "go" in langs:
        # String constants of the paths read, by name; a name two packages give different
        # values is left out (which one a call means is not known here).
        for path in walk(root, header["paths"], exclude, (".go",), defaults):
            try:
                text = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            for name, value in go_consts(text).items():
                consts[name] = value if consts.get(name, value) == value else None
        consts = {k: v for k, v in consts.items() if v is not None}
    for path in walk(root, header["paths"], exclude, exts, defaults):
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        rel = os.path.relpath(path, root)
        prefix_for = header.get("prefixes", {})
        # the reader for the file's ending; a listed file without one is read as the first lang
        lang = next((l for l in langs if path.endswith(LANGS[l][0])), langs[0])
        if path.endswith((".et", ".et.in")):
            calls = et_entries(text)
        elif lang in ("c", "cpp"):
            calls = c_calls(text, names, header.get("macros"), first_arg)
            if lang == "cpp" and header.get("streams"):
                calls += c_streams(text, set(header["streams"]))
        elif lang == "go":
            calls = go_calls(text, names, consts)
        else:
            calls = LANGS[lang][2](text, names)
        # `tables`: arrays of messages printed by index (C), named message constants (Go).
        if lang == "c" and header.get("tables"):
            calls += c_tables(text, header["tables"])
        if lang == "go" and header.get("tables"):
            calls += go_tables(text, header["tables"])
        for line, callee, args in calls:
            # The first literal argument (a literal wins over a constant's value), unless it is
            # a one-word tag (an event reason such as "ClaimLost") followed by a literal that is
            # a message.
            lits = [a for a in args if a]
            lits = [a for a in lits if not isinstance(a, ConstStr)] or lits
            fmt = lits[0] if lits else None
            if fmt is None:
                continue
            if (len(lits) > 1 and re.fullmatch(r"[A-Za-z][\w.-]*", fmt)
                    and is_message(lits[1])):
                fmt = lits[1]
            fmt = fmt.rstrip("\n")
            if "\n" in fmt.strip("\n") and len(fmt) > 400:
                continue
            if not is_message(fmt):
                continue
            short = re.split(r"\.|::", callee)[-1]
            pre = prefix_for.get(callee, prefix_for.get(short))
            if pre is None:
                pre = file_prefix(header, rel)
            entry = {"at": f"{rel}:{line}", "fmt": fmt}
            if pre:
                entry["prefix"] = pre
            suffix_for = header.get("suffixes", {})
            suf = suffix_for.get(callee, suffix_for.get(short))
            if suf:
                entry["suffix"] = suf
            if callee in header.get("grpc", []):
                entry["grpc"] = True
            info_calls = header.get("info_calls", [])
            if callee in info_calls or short in info_calls:
                entry["_info"] = True
            key = (pre or "") + fmt + (suf or "")
            found.setdefault(key, entry)
    return list(found.values())


def file_prefix(header, rel):
    for pat, pre in header.get("file_prefixes", {}).items():
        if re.search(pat, rel):
            return pre
    return None


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return yaml.safe_load(f)


class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    style = "|" if "\n" in s else None
    if style is None and (s != s.strip() or any(c in s for c in ":#'\"{}[],&*!|>%@`") or s == ""):
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


Dumper.add_representer(str, _str)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family")
    ap.add_argument("source")
    ap.add_argument("--version", help="the version to record (default: the family's own)")
    ap.add_argument("--out", help="write here instead of src/diagnose/formats/FAMILY.yaml")
    a = ap.parse_args()
    path = os.path.join(FORMATS, a.family + ".yaml")
    old = load(path)
    if old is None:
        sys.exit(f"extract.py: no {path}: write its header first (see src/diagnose/formats/README.md)")
    header = {k: v for k, v in old.items() if k != "formats"}
    if a.version:
        header["version"] = a.version
    hand = {}
    for e in old.get("formats") or []:
        if e.get("by") == "hand":
            hand[(e.get("prefix") or "") + e["fmt"] + (e.get("suffix") or "")] = e
    entries = extract(header, os.path.abspath(a.source))
    seen = set()
    for e in entries:
        key = (e.get("prefix") or "") + e["fmt"] + (e.get("suffix") or "")
        seen.add(key)
        info_call = e.pop("_info", False)
        h = hand.get(key)
        if h:
            e["means"] = h["means"]
            e["by"] = "hand"
            for k in ("why", "note"):
                if k in h:
                    e[k] = h[k]
        else:
            e["means"] = default_meaning(e["fmt"] + (e.get("suffix") or ""), info_call)
            e["by"] = "shape"
    for k, h in hand.items():
        if k not in seen and h.get("composed") and os.path.exists(
                os.path.join(os.path.abspath(a.source), h["at"].rsplit(":", 1)[0])):
            # A message the code builds from pieces (a method joining a literal with a field,
            # two errors' texts): no call holds it whole, so a person wrote it; kept for as
            # long as its file is there.
            entries.append(h)
            continue
        if k not in seen:
            print(f"extract.py: {a.family}: hand meaning dropped, its string is gone: {h['fmt']!r} ({h['means']})",
                  file=sys.stderr)
    entries.sort(key=lambda e: (e["at"].rsplit(":", 1)[0], int(e["at"].rsplit(":", 1)[1])))
    header["formats"] = entries
    text = yaml.dump(header, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100000)
    comment = "".join(l + "\n" for l in (open(path).read().split("\n")) if l.startswith("#"))
    out = a.out or path
    with open(out, "w") as f:
        f.write(comment)
        f.write(text)
    by = {}
    for e in entries:
        by[e["by"]] = by.get(e["by"], 0) + 1
    print(f"{a.family} {header.get('version')}: {len(entries)} format strings ({', '.join(f'{v} {k}' for k, v in sorted(by.items()))}) -> {os.path.relpath(out)}")


if __name__ == "__main__":
    main()
