"""docs/plan.schema.json against the plans shardscope writes: every sample, a generated LLaMA plan and every
sample re-written by `shardscope export --native` validate; plans that break the format's rules do not.

Run by ctest (tests/CMakeLists.txt) with Debian's python3 and python3-jsonschema; argv[1] is the shardscope
binary."""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("SHARDSCOPE_BINARY", "")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class PlanSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        schema = load(os.path.join(ROOT, "docs", "plan.schema.json"))
        jsonschema.Draft202012Validator.check_schema(schema)
        cls.validator = jsonschema.Draft202012Validator(schema)
        cls.samples = sorted(glob.glob(os.path.join(ROOT, "samples", "*.plan.json")))

    def assertValid(self, plan, what):
        errors = sorted(self.validator.iter_errors(plan), key=lambda e: list(e.absolute_path))
        self.assertEqual([], [f"{what}: /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:3]])

    def test_every_sample_validates(self):
        self.assertGreaterEqual(len(self.samples), 11)
        for path in self.samples:
            self.assertValid(load(path), os.path.basename(path))

    def test_what_the_writer_writes_validates(self):
        self.assertTrue(os.access(BINARY, os.X_OK), f"shardscope binary not found: {BINARY!r}")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "llama.plan.json")
            subprocess.run([BINARY, "gen", "--layers", "2", "-o", out], check=True, capture_output=True)
            self.assertValid(load(out), "gen --layers 2")
            for path in self.samples:
                out = os.path.join(tmp, os.path.basename(path))
                subprocess.run([BINARY, "export", path, "--native", out], check=True, capture_output=True)
                self.assertValid(load(out), "export --native " + os.path.basename(path))

    def test_plans_that_break_the_format_do_not_validate(self):
        base = load(self.samples[0])
        broken = []
        p = copy.deepcopy(base); del p["nodes"]; broken.append(("no nodes", p))
        p = copy.deepcopy(base); p["mesh"]["shape"] = [0, 4]; broken.append(("mesh dim 0", p))
        p = copy.deepcopy(base); p["version"] = 2; broken.append(("version 2", p))
        p = copy.deepcopy(base); p["nodes"][0]["name"] = 7; broken.append(("numeric name", p))
        p = copy.deepcopy(base); del p["nodes"][0]["op"]; broken.append(("node without op", p))
        for what, plan in broken:
            self.assertFalse(self.validator.is_valid(plan), what)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BINARY = sys.argv.pop(1)
    unittest.main(verbosity=2)
