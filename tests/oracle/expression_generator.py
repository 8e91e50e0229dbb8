"""A seeded generator of well-typed Terraform expressions, for the differential test against
``terraform console`` (``test_differential_expressions.py``).

``generate(seed, count)`` gives ``count`` constant expressions (no references), each a random
composition of literals, operators, templates, conversions and calls of the registered
functions, typed so that most evaluate; some fail on purpose (an index out of range, a string
that is not a number, a regex that does not match), and then Terraform and tfphi must both
reject them. The pools hold the values where Terraform's semantics are easy to get wrong:
numbers at the edges of 512-bit binary precision, Unicode strings whose case mapping differs
between Go and Python, RE2 patterns with empty matches, sets of numbers and strings whose cty
order differs from their insertion order.
"""

from __future__ import annotations

import random

NUMBERS = [
    "0", "1", "2", "3", "7", "10", "100", "0.1", "0.2", "0.3", "1.1", "2.5", "0.5", "1000000", "0.0000001",
    "3.14159", "9007199254740993", "123456789012345678901234567890", "4294967296", "18446744073709551616",
    "0.000000000000000000001", "1.7976931348623157", "12345.6789", "99", "0.7", "1.005", "255", "65",
    "3e3", "2.5E2", "1e-7", "1e21", "1.5e+3", "1e400", "1e-400", "9.999999999999999e22",
]
STRINGS = [
    "", "a", "abc", "Hello World", "İSTANBUL", "istanbul", "straße", "ǅungla", "ΣΑΣ", "ὈΔΥΣΣΕΎΣ", "ﬁre",
    "e\\u0301", "\\u00e9", "👍🏽ok", "🇫🇷🇩🇪", "a\\u0308b", "ǰ", "ῼ", "Ⅷ", "ı", "\u212a", "ß", "ǈ", "héllo wörld",
    "  padded  ", "a,b,,c", "line1\\nline2", "tab\\tsep", "x-y_z", "10", "3.5", "true", "日本語テキスト", "ŉ",
    "ᾈ", "ΐ", "hello-world foo_bar", "AbC", "ǆ", "ⓐⓑ", "\u0130i", "ſ", "Ω\u2126", "x.y", "-7", "0.10",
]
WORDS = ["a", "b", "c", "x", "yy", "abc", "b", "a", "ß", "é", "Z", "10", "9", "1", "100", "", "İ"]
KEYS = ["a", "b", "c", "k1", "key", "z", "ä", "B", "_x", "A"]
REGEXES = [
    "a*?", "a*", "a+", "[a-z]+", "(?i)straße", "(?i)k", "\\\\d+", "[[:alpha:]]+", "[[:^space:]]+", "\\\\pL+",
    "\\\\p{Greek}+", "(?P<first>\\\\w)(\\\\w*)", "^", "$", "\\\\b", "x*", "(a|ab)(c|bcd)?", "[^a]", "\\\\s+", "(?s).",
    "\\\\Qa.b\\\\E", "\\\\x{41}", ".", "..", "(\\\\w)(\\\\d)?", "é", "(?U)a+", "[[:upper:]]", "\\\\W", "\\\\S+",
    "(?m)^\\\\w", "o", "l+", "\\\\.", "[,_-]", "(.)(.)", "\\\\p{Lu}", "[\\\\p{L}&&a]",
]
REPLACEMENTS = ["X", "", "$1", "${1}x", "[$0]", "$$", "<$first>", "$2$1", "-"]
FORMATS = [
    "%d", "%5d", "%-5d|", "%05d", "%+d", "%x", "%X", "%o", "%b", "%f", "%.2f", "%8.3f", "%e", "%.3e", "%g", "%G",
    "%s", "%q", "%v", "%#v", "%t", "%10s|", "%-10s|", "%.3s", "%%", "%s-%s", "%[2]s %[1]s", "%c", "%U", "%.0f", "%3.1f",
]
CIDRS = ["10.0.0.0/16", "192.168.1.0/24", "172.16.0.0/12", "10.1.2.3/8", "fd00::/8", "2001:db8::/32", "0.0.0.0/0"]
TIMES = ["2024-01-15T10:30:00Z", "2023-12-31T23:59:59+01:00", "2000-02-29T00:00:00Z", "1999-07-04T12:00:00.5-07:00"]
DATE_FORMATS = ["YYYY-MM-DD", "DD MMM YYYY hh:mm ZZZ", "EEEE, h:mmaa", "'Q'YYYY", "YY-M-D H:m:s", "EEE MMMM ZZZZZ"]
DURATIONS = ["1h", "-30m", "1.5h", "90s", "2h45m", "100ms"]

# Root variables with defaults that Terraform converts to their declared types: the generator
# reads them as values of those types (a set(number) default iterates in cty's order).
DECLARATIONS = """\
variable "ports" {
  type    = set(number)
  default = [10, 9, 1, 100]
}
variable "names" {
  type    = set(string)
  default = ["b", "a", "B", "é", "10", "9"]
}
variable "nums" {
  type    = list(number)
  default = ["1", "2.5", 3, "0.1"]
}
variable "strs" {
  type    = list(string)
  default = [1, true, "x", 0.5]
}
variable "tags" {
  type    = map(string)
  default = { b = 1, a = true, "é" = "x" }
}
variable "counts" {
  type    = map(number)
  default = { z = "3", y = 1.5 }
}
variable "ratio" {
  type    = number
  default = "0.1"
}
variable "label" {
  type    = string
  default = 12.50
}
variable "flag" {
  type    = bool
  default = "true"
}
variable "objs" {
  type    = set(object({ name = string, port = number }))
  default = [{ name = "b", port = 2 }, { name = "a", port = "10" }, { name = "b", port = 1 }]
}
variable "opts" {
  type    = object({ a = string, b = optional(number, 5), c = optional(list(string)) })
  default = { a = 1 }
}
variable "anys" {
  type    = list(any)
  default = [1, "a", true]
}
"""
VARIABLES = {
    "set:number": ["var.ports"], "set:string": ["var.names"], "list:number": ["var.nums"], "list:string": ["var.strs", "var.anys"],
    "map:string": ["var.tags"], "map:number": ["var.counts"], "number": ["var.ratio"], "string": ["var.label"], "bool": ["var.flag"],
    "object": ["var.opts"],
}

JSON_TEXTS = ['{"a": [1, 2.5, "x"]}', '[1, 0.1, 1e3, -0]', '"\\u00e9"', 'null', '{"a": {"b": true}}', '1e400', '{"a": 1, "a": 2}', '[', '0.30000000000000004']
YAML_TEXTS = ["a: 1\\nb: [x, 2]", "- 0.1\\n- yes\\n- ~", "a: 1.5e+3", "x: 010", "x: 0x1F", "t: 2001-12-14", "- .inf", "a: [1, x", "? complex", "'quoted'"]
CSV_TEXTS = ["a,b\\n1,2\\n3,4", "a\\n", "a,a\\n1,2", "x,y\\n\"q,1\",2", "a,b\\n1"]
PATHS = ["/a/b/c.txt", "a/b/", "/", "", "foo", "../x/./y", "C:\\\\dir\\\\f"]

SCALARS = ("number", "string", "bool")
COLLECTIONS = ("list:string", "list:number", "set:string", "set:number", "map:string", "map:number", "tuple", "object")


def quote(text: str) -> str:
    """An HCL string literal of pool text (already escaped where it holds backslashes)."""
    return '"' + text.replace('"', '\\"').replace("${", "$${").replace("%{", "%%{") + '"'


class ExpressionGenerator:
    """Random well-typed expressions; ``expression()`` picks a kind, ``of(kind, depth)`` builds one."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def pick(self, items):
        return self.random.choice(items)

    def chance(self, p: float) -> bool:
        return self.random.random() < p

    def expression(self) -> str:
        if self.chance(0.12):
            return self.rare_call(self.random.randint(1, 2))
        kind = self.pick(SCALARS * 3 + COLLECTIONS)
        return self.of(kind, self.random.randint(1, 3))

    def rare_call(self, depth: int) -> str:
        """A call of one of the functions the typed builders below do not reach."""
        d = depth - 1
        calls = [
            lambda: f"chunklist({self.list_of('string', d)}, {self.pick(['1', '2', '3', '0'])})",
            lambda: f"matchkeys({self.list_of('string', d)}, {self.list_of('string', d)}, {self.list_of('string', d)})",
            lambda: f"transpose({{a = {self.list_of('string', d)}, b = {self.list_of('string', d)}}})",
            lambda: f"setproduct({self.set_of('string', d)}, {self.list_of('number', d)})",
            lambda: f"nonsensitive(sensitive({self.anything(d)}))",
            lambda: f"jsondecode({quote(self.pick(JSON_TEXTS))})",
            lambda: f"yamldecode({quote(self.pick(YAML_TEXTS))})",
            lambda: f"csvdecode({quote(self.pick(CSV_TEXTS))})",
            lambda: f"base64decode({self.pick([f'base64encode({self.string(d)})', quote('SGk='), quote('not base64'), quote('w6k=')])})",
            lambda: f"textencodebase64({self.string(d)}, {quote(self.pick(['UTF-8', 'UTF-16LE', 'ISO-8859-1', 'CP1252', 'nope']))})",
            lambda: f"textdecodebase64({quote(self.pick(['SABpAA==', 'SGk=', 'w6k=']))}, {quote(self.pick(['UTF-16LE', 'UTF-8', 'ISO-8859-1']))})",
            lambda: f"uuidv5({quote(self.pick(['dns', 'url', 'oid', 'x500', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'nope']))}, {self.string(d)})",
            lambda: f"cidrsubnets({quote(self.pick(CIDRS))}, {', '.join(self.pick(['1', '2', '4', '8']) for _ in range(self.random.randint(1, 4)))})",
            lambda: f"timecmp({quote(self.pick(TIMES))}, {quote(self.pick(TIMES))})",
            lambda: f"{self.pick(['basename', 'dirname'])}({quote(self.pick(PATHS))})",
            lambda: f"coalesce({', '.join(self.pick([self.string(d), 'null', quote('')]) for _ in range(self.random.randint(1, 3)))})",
            lambda: f"coalesce({', '.join(self.pick([self.number(d), 'null']) for _ in range(self.random.randint(1, 3)))})",
            lambda: f"element({self.set_of('string', d)}, 0)",
            lambda: f"ephemeralasnull({self.anything(d)})",
            lambda: f"issensitive({self.anything(d)})",
            lambda: f"tomap({self.object(d)})",
            lambda: f"tolist({self.tuple(d)})",
            lambda: f"toset({self.tuple(d)})",
            lambda: f"keys({self.pick([self.object(d), self.map_of('string', d)])})",
            lambda: f"values({self.pick([self.object(d), self.map_of('number', d)])})",
            lambda: f"reverse({self.pick([self.tuple(d), self.set_of('number', d)])})",
            lambda: f"slice({self.tuple(d)}, 0, {self.small_int(d)})",
            lambda: f"concat({self.tuple(d)}, {self.list_of('string', d)})",
            lambda: f"merge({self.object(d)}, {self.map_of('string', d)})",
            lambda: f"zipmap({self.list_of('string', d)}, {self.tuple(d)})",
            lambda: f"contains({self.tuple(d)}, {self.of(self.pick(SCALARS), d)})",
            lambda: f"length({self.pick([self.object(d), self.tuple(d)])})",
            lambda: f"flatten({self.pick([self.tuple(d), f'[{self.list_of(chr(110) + chr(117) + chr(109) + chr(98) + chr(101) + chr(114), d)}, {self.tuple(d)}]'])})",
            lambda: f"distinct({self.tuple(d)})",
            lambda: f"{self.pick(['list', 'map'])}({self.string(d)})",
            lambda: f"format({quote(self.pick(['%v', '%#v', '%q', '%s']))}, {self.anything(d)})",
        ]
        return self.pick(calls)()

    def of(self, kind: str, depth: int) -> str:
        if kind in VARIABLES and self.chance(0.08):
            return self.pick(VARIABLES[kind])
        builder = {
            "number": self.number, "int": self.small_int, "string": self.string, "bool": self.boolean,
            "tuple": self.tuple, "object": self.object, "any": self.anything,
        }.get(kind)
        if builder is not None:
            return builder(depth)
        shape, element = kind.split(":")
        return {"list": self.list_of, "set": self.set_of, "map": self.map_of}[shape](element, depth)

    def anything(self, depth: int) -> str:
        return self.of(self.pick(SCALARS * 2 + COLLECTIONS), depth)

    def conditional(self, kind: str, depth: int) -> str:
        return f"({self.boolean(depth - 1)} ? {self.of(kind, depth - 1)} : {self.of(kind, depth - 1)})"

    # --- numbers ---------------------------------------------------------------------------

    def small_int(self, depth: int) -> str:
        if depth <= 0 or self.chance(0.7):
            return str(self.random.randint(0, 5))
        return self.pick([f"length({self.list_of('string', depth - 1)})", f"floor({self.number(depth - 1)})"])

    def number(self, depth: int) -> str:
        if self.chance(0.03):
            return self.pick([f"[for p in var.ports : p][{self.random.randint(0, 3)}]", f"[for o in var.objs : o.port][{self.random.randint(0, 2)}]"])
        if depth <= 0 or self.chance(0.25):
            literal = self.pick(NUMBERS)
            return f"-{literal}" if self.chance(0.15) else literal
        d = depth - 1
        choice = self.random.randint(0, 17)
        if choice <= 4:
            return f"({self.number(d)} {self.pick(['+', '-', '*', '/', '%', '*', '/'])} {self.number(d)})"
        if choice == 5:
            return f"-{self.number(d)}"
        if choice == 6:
            return f"{self.pick(['abs', 'ceil', 'floor', 'signum'])}({self.number(d)})"
        if choice == 7:
            args = ", ".join(self.number(d) for _ in range(self.random.randint(1, 3)))
            return f"{self.pick(['max', 'min'])}({args})"
        if choice == 8:
            return f"pow({self.number(d)}, {self.random.randint(0, 4)})"
        if choice == 9:
            return f"length({self.pick([self.string(d), self.list_of('number', d), self.map_of('string', d), self.set_of('string', d)])})"
        if choice == 10:
            return f"[for p in {self.set_of('number', d)} : p][{self.random.randint(0, 3)}]"
        if choice == 11:
            return f"tonumber({self.pick([quote(self.pick(NUMBERS)), quote(self.pick(STRINGS)), self.number(d)])})"
        if choice == 12:
            return f"sum({self.list_of('number', d)})"
        if choice == 13:
            return f"parseint({quote(self.pick(['ff', '-101', '777', 'zz', '10', 'FF', '1_0', '123456789012345678901']))}, {self.pick(['16', '2', '8', '10', '36'])})"
        if choice == 14:
            return f"element({self.list_of('number', d)}, {self.small_int(d)})"
        if choice == 15:
            return f"log({self.pick(['8', '100', '1', '0.5', '1024'])}, {self.pick(['2', '10', '16'])})"
        if choice == 16:
            return f"index({self.list_of('string', d)}, {self.word()})"
        return self.conditional("number", depth)

    # --- strings ---------------------------------------------------------------------------

    def word(self) -> str:
        return quote(self.pick(WORDS))

    def string(self, depth: int) -> str:
        if depth <= 0 or self.chance(0.2):
            return quote(self.pick(STRINGS))
        d = depth - 1
        choice = self.random.randint(0, 22)
        if choice <= 1:
            return f"{self.pick(['upper', 'lower', 'title', 'strrev', 'trimspace', 'chomp'])}({self.string(d)})"
        if choice == 2:
            return f'"{self.pick(["", "x", "é "])}${{{self.of(self.pick(SCALARS), d)}}}{self.pick(["", "!", "-y"])}"'
        if choice == 3:
            return f'"%{{if {self.boolean(d)}}}yes%{{else}}no${{{self.number(d)}}}%{{endif}}"'
        if choice == 4:
            return f'"%{{for i, x in {self.list_of("string", d)}}}${{i}}=${{x}},%{{endfor}}"'
        if choice == 5:
            return f"substr({self.string(d)}, {self.pick(['0', '1', '2', '-1', '-3', '5'])}, {self.pick(['1', '2', '-1', '0', '3', '10'])})"
        if choice == 6:
            verb = self.pick(FORMATS)
            count = verb.count("%") - 2 * verb.count("%%")
            args = [self.pick([self.number(d), self.string(d), self.boolean(d)]) for _ in range(max(count, 0))]
            if "%[2]" in verb:
                args = [self.string(d), self.string(d)]
            return f"format({', '.join([quote(verb)] + args)})"
        if choice == 7:
            return f"replace({self.string(d)}, {quote('/' + self.pick(REGEXES) + '/')}, {quote(self.pick(REPLACEMENTS))})"
        if choice == 8:
            return f"replace({self.string(d)}, {self.word()}, {self.word()})"
        if choice == 9:
            return f"regex({quote(self.pick(REGEXES))}, {self.string(d)})" if self.chance(0.3) else f"join(\"|\", flatten([regexall({quote(self.pick(REGEXES))}, {self.string(d)})]))"
        if choice == 10:
            separator = quote(self.pick([",", "", "-"]))
            return f"join({separator}, {self.pick([self.list_of('string', d), self.set_of('string', d)])})"
        if choice == 11:
            return f"tostring({self.pick([self.number(d), self.string(d), self.boolean(d)])})"
        if choice == 12:
            return f"jsonencode({self.anything(d)})"
        if choice == 13:
            return f"{self.pick(['trimprefix', 'trimsuffix', 'trim'])}({self.string(d)}, {self.word()})"
        if choice == 14:
            return f"element({self.list_of('string', d)}, {self.small_int(d)})"
        if choice == 15:
            return f"lookup({self.map_of('string', d)}, {quote(self.pick(KEYS))}, {self.string(d)})"
        if choice == 16:
            return f"{self.pick(['base64encode', 'md5', 'sha1', 'sha256', 'base64sha256', 'urlencode', 'sha512', 'base64sha512'])}({self.string(d)})"
        if choice == 17:
            cidr = quote(self.pick(CIDRS))
            return self.pick([f"cidrhost({cidr}, {self.small_int(d)})", f"cidrsubnet({cidr}, {self.pick(['4', '8', '2'])}, {self.small_int(d)})", f"cidrnetmask({cidr})"])
        if choice == 18:
            return f"formatdate({quote(self.pick(DATE_FORMATS))}, {quote(self.pick(TIMES))})" if self.chance(0.5) else f"timeadd({quote(self.pick(TIMES))}, {quote(self.pick(DURATIONS))})"
        if choice == 19:
            return f"indent({self.small_int(d)}, {self.string(d)})"
        if choice == 20:
            return f"[for s in {self.set_of('string', d)} : s][{self.random.randint(0, 2)}]"
        if choice == 21:
            return f"one({self.pick(['[' + self.string(d) + ']', '[]', self.set_of('string', d)])})"
        return self.conditional("string", depth)

    # --- bools -----------------------------------------------------------------------------

    def boolean(self, depth: int) -> str:
        if depth <= 0 or self.chance(0.2):
            return self.pick(["true", "false"])
        d = depth - 1
        choice = self.random.randint(0, 10)
        if choice <= 1:
            return f"({self.number(d)} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {self.number(d)})"
        if choice == 2:
            kind = self.pick(SCALARS + COLLECTIONS)
            return f"({self.of(kind, d)} {self.pick(['==', '!='])} {self.of(self.pick([kind, self.pick(SCALARS + COLLECTIONS)]), d)})"
        if choice == 3:
            return f"({self.boolean(d)} {self.pick(['&&', '||'])} {self.boolean(d)})"
        if choice == 4:
            return f"!{self.boolean(d)}"
        if choice == 5:
            return f"contains({self.pick([self.list_of('string', d), self.set_of('string', d)])}, {self.word()})"
        if choice == 6:
            return f"{self.pick(['startswith', 'endswith', 'strcontains'])}({self.string(d)}, {self.word()})"
        if choice == 7:
            return f"can(regex({quote(self.pick(REGEXES))}, {self.string(d)}))"
        if choice == 8:
            return f"{self.pick(['alltrue', 'anytrue'])}([{', '.join(self.boolean(d) for _ in range(self.random.randint(0, 3)))}])"
        if choice == 9:
            argument = self.pick([quote("true"), quote("false"), quote("yes"), "null", self.boolean(d)])
            return f"tobool({argument})"
        return self.conditional("bool", depth)

    # --- collections -----------------------------------------------------------------------

    def items(self, element: str, depth: int, low: int = 0, high: int = 4) -> list[str]:
        return [self.of(element, depth) for _ in range(self.random.randint(low, high))]

    def list_of(self, element: str, depth: int) -> str:
        if depth <= 0 or self.chance(0.3):
            return f"[{', '.join(self.items(element, 0))}]"
        d = depth - 1
        choice = self.random.randint(0, 12)
        if choice == 0:
            return f"tolist([{', '.join(self.items(element, d))}])"
        if choice == 1:
            return f"sort({self.list_of('string', d)})" if element == "string" else f"reverse({self.list_of(element, d)})"
        if choice == 2:
            return f"concat({self.list_of(element, d)}, {self.list_of(element, d)})"
        if choice == 3:
            return f"distinct({self.list_of(element, d)})"
        if choice == 4:
            return f"slice({self.list_of(element, d)}, {self.small_int(d)}, {self.small_int(d)})"
        if choice == 5:
            return f"flatten([{self.list_of(element, d)}, [{self.list_of(element, d)}]])"
        if choice == 6:
            return f"tolist({self.set_of(element, d)})"
        if choice == 7:
            return f"[for x in {self.pick([self.list_of(element, d), self.set_of(element, d)])} : x]"
        if choice == 8:
            return f"values({self.map_of(element, d)})"
        if choice == 9 and element == "string":
            return self.pick([f"split({self.word()}, {self.string(d)})", f"keys({self.map_of('number', d)})", f"compact({self.list_of('string', d)})",
                              f"formatlist(\"%s_%s\", {self.list_of('string', d)}, {self.word()})", f"regexall({quote(self.pick(REGEXES))}, {self.string(d)})"])
        if choice == 9:
            return self.pick([f"range({self.small_int(d)})", f"range({self.number(0)}, {self.number(0)}, {self.pick(['1', '0.5', '-1', '2'])})"])
        if choice == 10:
            return f"coalescelist({self.list_of(element, d)}, {self.list_of(element, d)})"
        if choice == 11:
            return f"[for k, v in {self.map_of(element, d)} : v]"
        return self.conditional(f"list:{element}", depth)

    def set_of(self, element: str, depth: int) -> str:
        if depth <= 0 or self.chance(0.4):
            return f"toset([{', '.join(self.items(element, 0))}])"
        d = depth - 1
        choice = self.random.randint(0, 5)
        if choice == 0:
            return f"toset({self.list_of(element, d)})"
        if choice == 1:
            return f"setunion({self.set_of(element, d)}, {self.set_of(element, d)})"
        if choice == 2:
            return f"setintersection({self.set_of(element, d)}, {self.set_of(element, d)})"
        if choice == 3:
            return f"setsubtract({self.set_of(element, d)}, {self.set_of(element, d)})"
        if choice == 4:
            return f"toset([for x in {self.set_of(element, d)} : x])"
        return self.conditional(f"set:{element}", depth)

    def map_of(self, element: str, depth: int) -> str:
        keys = self.random.sample(KEYS, self.random.randint(0, 3))
        literal = "{" + ", ".join(f"{quote(k)} = {self.of(element, max(depth - 1, 0))}" for k in keys) + "}"
        if depth <= 0 or self.chance(0.3):
            return literal
        d = depth - 1
        choice = self.random.randint(0, 5)
        if choice == 0:
            return f"tomap({literal})"
        if choice == 1:
            return f"merge({self.map_of(element, d)}, {self.map_of(element, d)})"
        if choice == 2:
            return f"zipmap({self.list_of('string', d)}, {self.list_of(element, d)})"
        if choice == 3:
            return f"{{for k, v in {self.map_of(element, d)} : k => v}}"
        if choice == 4:
            return f"{{for s in {self.set_of('string', d)} : s => {self.of(element, d)}}}"
        return self.conditional(f"map:{element}", depth)

    def tuple(self, depth: int) -> str:
        return f"[{', '.join(self.of(self.pick(SCALARS), max(depth - 1, 0)) for _ in range(self.random.randint(0, 3)))}]"

    def object(self, depth: int) -> str:
        keys = self.random.sample(KEYS, self.random.randint(0, 3))
        return "{" + ", ".join(f"{k if k.isascii() else quote(k)} = {self.anything(max(depth - 1, 0))}" for k in keys) + "}"


def generate(seed: int, count: int) -> list[str]:
    """``count`` expressions from ``seed`` (the same seed gives the same expressions)."""
    generator = ExpressionGenerator(seed)
    return [generator.expression() for _ in range(count)]
