"""cmake/check_layers.cmake on small trees: it passes a tree that keeps the
rules, and names the file and the rule for each kind of break: an include of
a layer not used, a command that uses another command, and a read of the
environment below cli/."""
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "cmake", "check_layers.cmake")
LAYERS = "core: base:core render:core,base record:core,base,render matrix:core,base,render"
COMMANDS = "record,matrix"


class CheckLayers(unittest.TestCase):
    def check(self, files, layers=LAYERS):
        with tempfile.TemporaryDirectory() as src:
            for path, text in files.items():
                os.makedirs(os.path.join(src, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(src, path), "w") as f:
                    f.write(text)
            run = subprocess.run(["cmake", f"-DSOURCE_DIR={src}", f"-DLAYERS={layers}", f"-DCOMMANDS={COMMANDS}",
                                  "-P", SCRIPT], capture_output=True, text=True)
            return run.returncode, run.stderr

    def tree(self, **extra):
        files = {
            "core/a.h": "#pragma once\n",
            "base/environment.cpp": '#include <cstdlib>\nconst char* v = std::getenv("X");\n',
            "render/r.cpp": '#include "core/a.h"\n#include "base/b.h"\n',
            "record/rec.cpp": '#include "render/r.h"\n// as getenv() would\n',
            "cli/main.cpp": '#include "record/rec.h"\nconst char* v = getenv("Y");\n',
        }
        files.update(extra)
        return files

    def test_a_tree_that_keeps_the_rules_passes(self):
        code, err = self.check(self.tree())
        self.assertEqual(code, 0, err)

    def test_an_include_of_a_layer_not_used_fails(self):
        code, err = self.check(self.tree(**{"render/bad.cpp": '#include "record/rec.h"\n'}))
        self.assertNotEqual(code, 0)
        self.assertIn("src/render/bad.cpp includes record/rec.h: render may use only core, base", err)

    def test_a_command_that_uses_another_command_fails(self):
        code, err = self.check(self.tree(), layers=LAYERS.replace("matrix:core,base,render",
                                                                  "matrix:core,base,render,record"))
        self.assertNotEqual(code, 0)
        self.assertIn("the command matrix uses the command record", err)

    def test_reading_the_environment_below_cli_fails(self):
        for text in ['const char* v = std::getenv("HOME");\n', "for (char** e = environ; *e; ++e) {}\n",
                     '#include "base/environment.h"\n']:
            code, err = self.check(self.tree(**{"record/env.cpp": text}))
            self.assertNotEqual(code, 0, text)
            self.assertIn("src/record/env.cpp reads the environment", err)


if __name__ == "__main__":
    unittest.main()
