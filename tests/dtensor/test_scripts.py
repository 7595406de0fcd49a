"""Tests of the GPU-session scripts that run without torch or a GPU: the case generator, the oracle's case
reading and placement strings, gpu_summary.py on made-up step records, and gpu_check.sh's arguments.

    cd tests/dtensor && python3 -m unittest -v test_scripts      (ctest: "dtensor: scripts ...")
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(ROOT, "scripts")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


oracle = load("dtensor_oracle", os.path.join(SCRIPTS, "dtensor_oracle.py"))
torch_here = importlib.util.find_spec("torch") is not None


def run(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=120)


class GenCases(unittest.TestCase):
    def test_committed_file_is_current(self):
        r = run(sys.executable, os.path.join(HERE, "gen_cases.py"), "--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_check_notices_a_stale_file(self):
        with tempfile.TemporaryDirectory() as d:
            stale = os.path.join(d, "cases.json")
            with open(os.path.join(HERE, "cases.json")) as f:
                text = f.read()
            with open(stale, "w") as f:
                f.write(text.replace("Shard(dim=1)", "Shard(dim=0)", 1))
            r = run(sys.executable, os.path.join(HERE, "gen_cases.py"), "--check", "-o", stale)
            self.assertEqual(r.returncode, 1)
            self.assertIn("is not what tests/dtensor/gen_cases.py writes", r.stdout)

    def test_cases_cover_the_brief(self):
        with open(os.path.join(HERE, "cases.json")) as f:
            c = json.load(f)
        layouts = c["layouts"]
        self.assertEqual(sorted({len(x["shape"]) for x in layouts}), [1, 2, 3, 4])   # tensor ranks 1-4
        self.assertEqual(sorted({len(x["mesh"]) for x in layouts}), [1, 2, 3])        # meshes 1-3-D
        kinds = {oracle.parse_placement(p)[0] for x in layouts for p in x["placements"]}
        self.assertEqual(kinds, {"replicate", "shard", "strided", "partial"})
        ops = {oracle.parse_placement(p)[1] for x in layouts for p in x["placements"] if p.startswith("Partial")}
        self.assertEqual(ops, {"sum", "avg", "max", "min", "product"})
        self.assertTrue(any(x["shard_order"] for x in layouts))
        self.assertTrue(any(x["src"]["shard_order"] or x["dst"]["shard_order"] for x in c["redistributes"]))
        self.assertTrue(any(x["shape"][0] % x["mesh"][0] for x in layouts))          # uneven sizes
        families = {x["op"] for x in c["rules"]}
        self.assertGreaterEqual(len(families), 12)


class OracleScript(unittest.TestCase):
    def test_placement_strings(self):
        self.assertEqual(oracle.parse_placement("Replicate()"), ("replicate",))
        self.assertEqual(oracle.parse_placement("Shard(dim=2)"), ("shard", 2))
        self.assertEqual(oracle.parse_placement("_StridedShard(dim=0, sf=3)"), ("strided", 0, 3))
        self.assertEqual(oracle.parse_placement("_StridedShard(dim=1, split_factor=2)"), ("strided", 1, 2))
        self.assertEqual(oracle.parse_placement("Partial(avg)"), ("partial", "avg"))
        for bad in ["Shard(0)", "Partial(mean)", "R", "Shard(dim=-1)"]:
            with self.assertRaises(ValueError):
                oracle.parse_placement(bad)

    def test_placement_text_ignores_the_version_repr(self):
        class Shard:
            dim = 1
            def is_shard(self): return True
            def is_replicate(self): return False
            def is_partial(self): return False

        class _StridedShard(Shard):
            dim, split_factor = 0, 2

        class Partial:
            reduce_op = "max"
            def is_shard(self): return False
            def is_replicate(self): return False
            def is_partial(self): return True

        self.assertEqual(oracle.placement_text(Shard()), "Shard(dim=1)")
        self.assertEqual(oracle.placement_text(_StridedShard()), "_StridedShard(dim=0, sf=2)")
        self.assertEqual(oracle.placement_text(Partial()), "Partial(max)")

    def test_case_checks(self):
        with open(os.path.join(HERE, "cases.json")) as f:
            c = json.load(f)
        oracle.check_cases(c)
        c["layouts"][3]["placements"].append("Replicate()")
        with self.assertRaisesRegex(ValueError, "placements for a 1-dim mesh"):
            oracle.check_cases(c)

    def test_dry_run_and_arguments(self):
        script = os.path.join(SCRIPTS, "dtensor_oracle.py")
        r = run(sys.executable, script, "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("placement strings parse", r.stdout)
        self.assertEqual(run(sys.executable, script).returncode, 2)  # no -o
        r = run(sys.executable, script, "--dry-run", "--cases", os.path.join(HERE, "missing.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing.json", r.stderr)

    @unittest.skipIf(torch_here, "torch is installed here")
    def test_without_torch_it_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            r = run(sys.executable, os.path.join(SCRIPTS, "dtensor_oracle.py"), "-o", os.path.join(d, "o.json"))
            self.assertEqual(r.returncode, 3)
            self.assertIn("cannot use DTensor here", r.stderr)

    def test_time_budget_leaves_every_case_answered(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "oracle.json")
            code = ("import sys, runpy; sys.path.insert(0, %r); import fake_torch; "
                    "sys.argv = ['dtensor_oracle.py', '-o', %r, '--budget', '0.001']; "
                    "runpy.run_path(%r, run_name='__main__')" % (HERE, out, os.path.join(SCRIPTS, "dtensor_oracle.py")))
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                doc = json.load(f)
        with open(os.path.join(HERE, "cases.json")) as f:
            rules = len(json.load(f)["rules"])
        self.assertEqual(doc["tally"]["rules"], {"error": 0, "skipped": rules})
        self.assertEqual(doc["rules"]["rule aten.mm.default on 4: S(0), R"], {"skipped": "time budget"})

    def run_with_fake_torch(self, variant):
        """Every line of the oracle against tests/dtensor/fake_torch.py (this PyTorch's API shapes, or older
        ones'): every case answered in the oracle format, and no answer a Python error of the script's own."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "oracle.json")
            code = ("import sys, runpy; sys.path.insert(0, %r); import fake_torch; "
                    "sys.argv = ['dtensor_oracle.py', '-o', %r]; "
                    "runpy.run_path(%r, run_name='__main__')" % (HERE, out, os.path.join(SCRIPTS, "dtensor_oracle.py")))
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, FAKE_TORCH_VARIANT=variant))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(out) as f:
                doc = json.load(f)
        with open(os.path.join(HERE, "cases.json")) as f:
            cases = json.load(f)
        self.assertEqual(doc["format"], "shardscope-dtensor-oracle/1")
        for kind in ("layouts", "redistributes", "rules"):
            self.assertEqual(set(doc[kind]), {c["id"] for c in cases[kind]})
            self.assertEqual(doc["tally"][kind], {"error": 0, "skipped": 0})
        for cid, a in doc["layouts"].items():
            n = 1
            for s in next(c for c in cases["layouts"] if c["id"] == cid)["mesh"]:
                n *= s
            self.assertEqual(len(a["ranks"]), n, cid)
        self.assertTrue(all(isinstance(a["runs"], bool) and isinstance(a["steps"], list)
                            for a in doc["redistributes"].values()))
        self.assertTrue(any(not a["runs"] for a in doc["redistributes"].values()))  # S -> P refused
        self.assertEqual(sum(a["redistributed"] for a in doc["rules"].values()), 2)  # fake softmax of P(sum)
        return doc

    def test_every_path_runs_on_a_fake_dtensor(self):
        doc = self.run_with_fake_torch("new")
        self.assertEqual({a["method"] for a in doc["rules"].values()}, {"propagate_op_sharding"})

    def test_every_fallback_runs_on_an_older_fake_dtensor(self):
        doc = self.run_with_fake_torch("old")
        self.assertEqual({a["method"] for a in doc["rules"].values()}, {"dispatch"})

    def test_coordinates_are_row_major(self):
        self.assertEqual([oracle.coord_of(r, [2, 3]) for r in (0, 1, 3, 5)], [[0, 0], [0, 1], [1, 0], [1, 2]])
        self.assertEqual(oracle.contiguous_stride([2, 0, 3]), (3, 3, 1))


def report(verdict, backend="gloo", node="", message="", sharded=1.0):
    err = {"stage": "sharded", "rank": 0, "node_index": 5, "node": node, "message": message} if node or message \
        else None
    code = {"match": 0, "mismatch": 1, "failed": 3}[verdict]
    return {"verdict": verdict, "exit_code": code, "backend": backend, "notes": ["ranks share GPUs"],
            "ranks": 8, "scale": 1, "reference_s": 0.5, "sharded_s": sharded, "batches": [{"rel_error": 1e-7}],
            "error": err}


class GpuSummary(unittest.TestCase):
    RUNS = {"seed1_fixed": report("match"), "seed1_shipped": report("failed", node="index_put", message="shape"),
            "autosp_seq_first": report("mismatch"), "autosp_seq_first_fixed": report("match"),
            "autosp_batch_first": report("match")}

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.work = os.path.join(self.dir, "work")
        os.makedirs(os.path.join(self.work, "runs"))
        self.steps = []

    def tearDown(self):
        shutil.rmtree(self.dir)

    def step(self, name, rc=0, status="done", seconds=1.5):
        self.steps.append({"step": name, "status": status, "seconds": seconds, "rc": rc, "note": ""})

    def write_run(self, name, rep):
        self.step(name, rc=rep["exit_code"])
        with open(os.path.join(self.work, "runs", name + ".json"), "w") as f:
            json.dump(rep, f)

    def summary(self, cpu_only=0):
        with open(os.path.join(self.work, "steps.jsonl"), "w") as f:
            for s in self.steps:
                f.write(json.dumps(s) + "\n")
        out = os.path.join(self.dir, "summary.json")
        r = run(sys.executable, os.path.join(SCRIPTS, "gpu_summary.py"), self.work, out, "--cpu-only", str(cpu_only))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return json.load(f)

    def full_gpu_session(self):
        for s in ("configure", "build", "fix_seed1"):
            self.step(s)
        for plan, rep in self.RUNS.items():
            self.write_run(plan + "_cuda", rep)
            self.write_run(plan + "_cpu", dict(rep, backend="gloo"))
        self.step("oracle")
        with open(os.path.join(self.dir, "oracle.json"), "w") as f:
            json.dump({"torch_version": "2.11.0", "layouts": {"a": {}}, "redistributes": {}, "rules": {}}, f)

    def test_a_good_session_passes(self):
        self.full_gpu_session()
        s = self.summary()
        self.assertTrue(s["pass"], [c for c in s["checks"] if not c["pass"]])
        self.assertEqual(len(s["gpu_vs_cpu"]), 5)
        self.assertTrue(all(p["agree"] for p in s["gpu_vs_cpu"]))
        shipped = next(c for c in s["checks"] if c["name"] == "seed1_shipped_cuda")
        self.assertIn("index_put", shipped["error"])
        self.assertEqual(s["oracle"]["answers"], {"layouts": 1, "redistributes": 0, "rules": 0})

    def test_a_wrong_verdict_fails_its_check_and_the_pairing(self):
        self.full_gpu_session()
        self.write_run("autosp_seq_first_cuda", report("match"))  # the bug went unseen on the GPU
        s = self.summary()
        self.assertFalse(s["pass"])
        bad = {c["name"] for c in s["checks"] if not c["pass"]}
        self.assertEqual(bad, {"autosp_seq_first_cuda", "gpu_matches_cpu"})

    def test_seed1_must_fail_at_index_put(self):
        self.full_gpu_session()
        self.write_run("seed1_shipped_cuda", report("failed", node="mm", message="out of memory"))
        s = self.summary()
        self.assertEqual({c["name"] for c in s["checks"] if not c["pass"]}, {"seed1_shipped_cuda"})

    def test_a_cut_session_reports_what_did_not_run(self):
        self.step("configure")
        self.step("build", rc=124, status="timeout")
        s = self.summary()
        self.assertFalse(s["pass"])
        checks = {c["name"]: c for c in s["checks"]}
        self.assertEqual(checks["build"]["detail"], "timeout (rc 124)")
        self.assertEqual(checks["seed1_fixed_cuda"]["detail"], "did not run")
        self.assertEqual(checks["dtensor_oracle"]["detail"], "did not run")

    def test_cpu_rehearsal(self):
        for s in ("configure", "build", "fix_seed1"):
            self.step(s)
        self.write_run("seed1_fixed_cuda", report("failed", backend="", message="this runner was built without CUDA"))
        for plan, rep in self.RUNS.items():
            self.write_run(plan + "_cpu", rep)
        self.step("oracle", rc=3)
        s = self.summary(cpu_only=1)
        self.assertTrue(s["pass"], [c for c in s["checks"] if not c["pass"]])
        self.assertEqual(s["gpu_vs_cpu"], [])


class GpuCheckArguments(unittest.TestCase):
    SCRIPT = os.path.join(SCRIPTS, "gpu_check.sh")

    def test_usage(self):
        for args in ([], ["/tmp/x", "--scale", "0"], ["/tmp/x", "--budget"], ["/tmp/x", "--bogus"], ["a", "b"]):
            r = run("bash", self.SCRIPT, *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage: scripts/gpu_check.sh OUTDIR", r.stderr)

    @unittest.skipIf(shutil.which("shellcheck") is None, "no shellcheck here")
    def test_shellcheck_clean(self):
        r = run("shellcheck", self.SCRIPT)
        self.assertEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
    unittest.main()
