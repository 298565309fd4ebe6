#!/usr/bin/env python3
"""Lists the functions in src/ longer than N lines (default 80), longest first.

STYLE asks for small functions (under about 80 lines); this shows which ones
are not, so a reader can check before a commit or plan a split.

    scripts/long-functions.py                 # every function in src/ over 80 lines
    scripts/long-functions.py -n 60           # over 60 lines
    scripts/long-functions.py src/store       # only these folders or files
    scripts/long-functions.py --check         # exit 1 when any is listed

Output: one line per function, "LINES  FILE:FIRST_LINE  NAME", where LINES
counts from the first line of the signature to the closing brace.

It is a heuristic, not a C++ parser: comments, string and character literals
are blanked out, then braces are matched. A `{` at namespace or class level
whose preceding text looks like a signature (has a parameter list, is not an
initializer after `=`, not a class, namespace or enum) opens a function; its
body, lambdas and local classes included, counts as one. Braced member
initializers of a constructor (`x_{0}`) are passed over. Lambdas bound to a
name at namespace level and macros that expand to functions are not counted.
"""
import argparse
import os
import re
import subprocess
import sys

SCOPE_RE = re.compile(r'\b(namespace|class|struct|union|enum)\b|extern\s+"C"')
CONTROL_RE = re.compile(r'^(if|for|while|switch|catch|do|else|return)\b')


def blank_comments_and_literals(text):
    """Replaces comments and literals with spaces, keeping every newline."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:j]))
            i = j
        elif c in '"\'':
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        elif c == '#' and (i == 0 or text[i - 1] == '\n' or text[:i].rsplit('\n', 1)[-1].strip() == ''):
            # Preprocessor lines (and their continuations) are not code here.
            j = i
            while True:
                k = text.find('\n', j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != '\\':
                    break
                j = k + 1
            out.append(re.sub(r'[^\n]', ' ', text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def matching_brace(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == '{':
            depth += 1
        elif code[k] == '}':
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def function_name(signature):
    """The name before the parameter list: the last identifier before the first
    `(` that is not inside a template argument list."""
    depth = 0
    for k, ch in enumerate(signature):
        if ch == '<':
            depth += 1
        elif ch == '>' and depth > 0:
            depth -= 1
        elif ch == '(' and depth == 0:
            m = re.search(r'([~\w:]+(?:operator\s*\S+?)?)\s*$', signature[:k])
            return m.group(1) if m else signature[:k].strip()
    return signature.strip()


def looks_like_function(signature):
    sig = ' '.join(signature.split())
    if '(' not in sig or ')' not in sig or CONTROL_RE.match(sig):
        return False
    before_params = sig.split('(', 1)[0]
    if '=' in before_params or SCOPE_RE.search(before_params):
        return False
    return True


def is_member_initializer(signature):
    """`Foo::Foo(int a) : x_(a), y_` before `{`: the brace initializes y_."""
    sig = ' '.join(signature.split())
    return re.search(r'\)\s*(noexcept\s*)?:[^:]', sig) is not None and re.search(r'\w\s*$', sig) is not None


def functions_in(code):
    """Yields (first_line, last_line, name) for each function body in code."""
    i, n = 0, len(code)
    start = 0  # where the text before the next `{` begins
    while i < n:
        c = code[i]
        if c in ';}':
            start = i + 1
        elif c == '{':
            signature = code[start:i]
            if SCOPE_RE.search(signature.split('(', 1)[0]) and '=' not in signature:
                start = i + 1  # descend into namespace, class or enum
            elif looks_like_function(signature) and is_member_initializer(signature):
                i = matching_brace(code, i) + 1
                continue
            else:
                end = matching_brace(code, i)
                if looks_like_function(signature):
                    lead = len(signature) - len(signature.lstrip())
                    first = code.count('\n', 0, start + lead) + 1
                    last = code.count('\n', 0, end) + 1
                    yield first, last, function_name(signature)
                i = end + 1
                start = i
                continue
        i += 1


def source_files(paths):
    tracked = subprocess.run(['git', 'ls-files', '--', *paths], capture_output=True, text=True,
                             check=True).stdout.split()
    return [f for f in tracked if f.endswith(('.cpp', '.cc', '.h', '.hpp'))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('paths', nargs='*', default=['src'], help='folders or files (default src)')
    parser.add_argument('-n', '--lines', type=int, default=80, help='list functions longer than this')
    parser.add_argument('--check', action='store_true', help='exit 1 when any function is listed')
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

    long_ones = []
    for path in source_files(args.paths):
        with open(path, encoding='utf-8', errors='replace') as f:
            code = blank_comments_and_literals(f.read())
        for first, last, name in functions_in(code):
            length = last - first + 1
            if length > args.lines:
                long_ones.append((length, f'{path}:{first}', name))
    long_ones.sort(key=lambda row: (-row[0], row[1]))
    for length, where, name in long_ones:
        print(f'{length:5d}  {where}  {name}')
    return 1 if args.check and long_ones else 0


if __name__ == '__main__':
    sys.exit(main())
