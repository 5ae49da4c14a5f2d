# SPDX-License-Identifier: Apache-2.0
"""The rankmap Python package (python/) against maps the CLI plans, the
test-side Megatron/DeviceMesh rules (tests/frameworks/megatron_ref.py),
and a real gloo job for rankmap.torch.new_groups."""
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("RM_ROOT", os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "frameworks"))
import megatron_ref  # noqa: E402
import rankmap  # noqa: E402
import rankmap.torch as rt  # noqa: E402

RANKMAP = os.environ.get("RANKMAP", os.path.join(ROOT, "build/asan/rankmap"))
TMP = tempfile.mkdtemp()
atexit.register(shutil.rmtree, TMP, True)


def plan(layout, order, world, fmt="json"):
    gpn = 8 if world % 8 == 0 else world
    nodes = "n[1-%d]" % (world // gpn) if world > gpn else "n1"
    path = os.path.join(TMP, "%s-%s.%s" % (layout, order, fmt))
    subprocess.run([RANKMAP, "plan", "--layout", layout, "--order", order,
                    "--nodes", nodes, "--gpus-per-node", str(gpn),
                    "--format", fmt, "-o", path], check=True,
                   stderr=subprocess.DEVNULL)
    return path


COMBINED = {"tp-pp": "tp-pp", "dp-cp": "dp-cp", "tp-cp": "tp-cp",
            "tp-dp": "tp-dp", "tp-dp-cp": "tp-dp-cp", "etp-ep": "etp-ep",
            "etp-ep-pp": "etp-ep-pp", "embedding": "embedding", "ep": "ep",
            "etp": "etp", "edp": "edp", "tp": "tp", "cp": "cp", "dp": "dp",
            "pp": "pp"}


class Groups(unittest.TestCase):
    CASES = [  # tp, cp, ep, etp, pp, dp, order
        (2, 1, 2, None, 2, 4, "megatron"), (2, 2, 4, 1, 2, 2, "megatron"),
        (1, 2, 2, None, 2, 2, "megatron"), (2, 1, 1, None, 2, 4, "llama3"),
        (4, 1, 2, 2, 2, 2, "llama3"), (2, 2, 1, None, 2, 2, "megatron"),
        (1, 1, 4, 2, 1, 8, "megatron"), (2, 1, 1, None, 4, 2, "megatron"),
    ]

    def test_every_kind_as_megatron_builds_it(self):
        for tp, cp, ep, etp, pp, dp, order in self.CASES:
            layout = "tp=%d,cp=%d,ep=%d%s,pp=%d,dp=%d" % (
                tp, cp, ep, "" if etp is None else ",etp=%d" % etp, pp, dp)
            world = tp * cp * pp * dp
            ref = megatron_ref.megatron(world, tp, pp, cp, ep, etp, {
                "megatron": "tp-cp-ep-dp-pp",
                "llama3": "tp-cp-ep-pp-dp"}[order])
            m = rankmap.load(plan(layout, order, world))
            for kind, rk in COMBINED.items():
                with self.subTest(layout=layout, order=order, kind=kind):
                    self.assertEqual(m.groups(kind), ref[rk])

    def test_json_and_yaml_read_alike(self):
        a = rankmap.load(plan("tp=2,ep=2,pp=2,dp=4", "megatron", 16))
        b = rankmap.load(plan("tp=2,ep=2,pp=2,dp=4", "megatron", 16, "yaml"))
        self.assertEqual(a.axes, b.axes)
        for k in ("tp", "dp", "ep", "mp"):
            self.assertEqual(a.groups(k), b.groups(k))
        self.assertEqual(a.groups("mp"), a.groups("tp-pp"))

    def test_bad_file(self):
        p = os.path.join(TMP, "bad.json")
        with open(p, "w") as f:
            json.dump({"schema": "something-else"}, f)
        with self.assertRaises(rankmap.MapError):
            rankmap.load(p)


class Verify(unittest.TestCase):
    def setUp(self):
        self.m = rankmap.load(plan("tp=2,pp=2,dp=4", "megatron", 16))

    def test_matching_groups_pass(self):
        for r in range(16):
            got = rankmap.verify(self.m, rank=r, tp=self.m.group("tp", r),
                                 dp=self.m.group("dp", r),
                                 pp=self.m.group("pp", r),
                                 mp=self.m.group("tp-pp", r),
                                 embedding=self.m.group("embedding", r))
            self.assertEqual(got, ["tp", "dp", "pp", "tp-pp", "embedding"])

    def test_other_numbering_stops_at_first_differing_group(self):
        # The framework numbered llama3-style (pp before dp).
        ref = megatron_ref.megatron(16, 2, 2, 1, 1, None, "tp-cp-ep-pp-dp")
        with self.assertRaises(rankmap.GroupMismatch) as c:
            rankmap.verify(self.m, tp=ref["tp"], dp=ref["dp"], pp=ref["pp"])
        e = c.exception
        self.assertEqual(e.kind, "dp")            # tp agrees, dp is first
        self.assertEqual(e.expected, [0, 2, 4, 6])
        self.assertEqual(e.got, [0, 4, 8, 12])
        self.assertIn("order megatron", str(e))

    def test_one_rank_view(self):
        self.assertEqual(rankmap.verify(self.m, rank=5, tp=[4, 5],
                                        dp_cp=[1, 3, 5, 7]), ["tp", "dp-cp"])
        with self.assertRaises(rankmap.GroupMismatch) as c:
            rankmap.verify(self.m, rank=5, tp=[4, 5], pp=[5, 9],
                           dp_cp=[1, 5, 9, 13])
        self.assertEqual(c.exception.kind, "pp")
        self.assertEqual(c.exception.expected, [5, 13])
        self.assertEqual(c.exception.got, [5, 9])

    def test_place(self):
        # rank 5 of this map's 2 nodes of 8 GPUs (issue 37: verify compared
        # groups only, so another allocation's map passed)
        r = self.m.ranks[5]
        self.assertEqual(rankmap.verify(self.m, rank=5, host=r.host,
                                        gpu=r.local_gpu, tp=[4, 5]),
                         ["host", "gpu", "tp"])
        other = [h for h in self.m.nodes if h != r.host][0]
        with self.assertRaises(rankmap.PlacementMismatch) as c:
            rankmap.verify(self.m, rank=5, host=other, tp=[4, 5])
        self.assertEqual((c.exception.expected, c.exception.got),
                         (r.host, other))
        with self.assertRaises(rankmap.PlacementMismatch) as c:
            rankmap.verify(self.m, rank=5, gpu=(r.local_gpu + 1) % 8)
        self.assertEqual(c.exception.kind, "GPU")
        # inside a Slurm task the node's name is the default host
        os.environ["SLURMD_NODENAME"] = "elsewhere"
        try:
            with self.assertRaises(rankmap.PlacementMismatch):
                rankmap.verify(self.m, rank=5, tp=[4, 5])
        finally:
            del os.environ["SLURMD_NODENAME"]
        with self.assertRaises(ValueError):
            rankmap.verify(self.m, rank=99, host=r.host)

    def test_needs_a_rank(self):
        os.environ.pop("RANK", None)
        with self.assertRaises(ValueError):
            rankmap.verify(self.m, tp=[0, 1])


class Mesh(unittest.TestCase):
    def test_hsdp_mesh_is_torchtitans(self):
        for tp, cp, pp, rep, shard in [(2, 1, 2, 2, 2), (1, 2, 1, 2, 4),
                                       (2, 2, 2, 1, 2)]:
            world = tp * cp * pp * rep * shard
            layout = "tp=%d,cp=%d,pp=%d,dp_replicate=%d,dp_shard=%d" % (
                tp, cp, pp, rep, shard)
            m = rankmap.load(plan(layout, "torchtitan", world))
            shape, names = rt.mesh_shape(m)
            self.assertEqual(names, ("pp", "dp_replicate", "dp_shard", "cp",
                                     "tp"))
            self.assertEqual(shape, (pp, rep, shard, cp, tp))
            ref = megatron_ref.device_mesh(list(shape), list(names))
            for n in names:
                self.assertEqual(m.groups(n), ref[n], (layout, n))

    def test_megatron_order_mesh(self):
        m = rankmap.load(plan("tp=2,cp=2,pp=2,dp=2", "megatron", 16))
        self.assertEqual(rt.mesh_shape(m), ((2, 2, 2, 2),
                                            ("pp", "dp", "cp", "tp")))
        m = rankmap.load(plan("tp=2,pp=2,dp=4", "llama3", 16))
        self.assertEqual(rt.mesh_shape(m)[1], ("dp", "pp", "cp", "tp"))

    def test_device_mesh_on_this_torch(self):
        import torch
        m = rankmap.load(plan("tp=2,pp=2,dp=2", "torchtitan", 8))
        try:
            from torch.distributed.device_mesh import DeviceMesh  # noqa
        except ImportError:
            with self.assertRaises(rt.Unsupported) as c:
                rt.device_mesh(m)
            self.assertIn(torch.__version__, str(c.exception))
            self.assertIn("new_groups", str(c.exception))
        else:
            self.skipTest("this torch has DeviceMesh (needs a job)")


def _gloo_worker(rank, world, port, path, out):
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=world)
    m = rankmap.load(path)
    pgs = rt.new_groups(m, kinds=["tp", "dp", "pp", "tp-pp"])
    res = {}
    for kind, pg in pgs.items():
        t = torch.tensor([float(rank)])
        dist.all_reduce(t, group=pg)
        res[kind] = (t.item(), rt.process_group_ranks(pg))
    rankmap.verify(m, tp=pgs["tp"], dp=pgs["dp"], pp=pgs["pp"],
                   mp=pgs["tp-pp"])
    with open("%s.%d" % (out, rank), "w") as f:
        json.dump(res, f)
    dist.destroy_process_group()


class Gloo(unittest.TestCase):
    def test_new_groups_in_a_real_job(self):
        import torch.multiprocessing as mp
        path = plan("tp=2,pp=1,dp=2", "megatron", 4)
        m = rankmap.load(path)
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        out = os.path.join(TMP, "gloo")
        mp.spawn(_gloo_worker, args=(4, port, path, out), nprocs=4)
        for r in range(4):
            with open("%s.%d" % (out, r)) as f:
                res = json.load(f)
            for kind, (total, ranks) in res.items():
                g = m.group(kind, r)
                self.assertEqual(ranks, g, (r, kind))
                self.assertEqual(total, float(sum(g)), (r, kind))


class Install(unittest.TestCase):
    def test_pip_install_and_import(self):
        target = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, target, True)
        p = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                            "--no-deps", "--no-index", "--no-build-isolation",
                            "--target", target,
                            os.path.join(ROOT, "python")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-800:])
        q = subprocess.run([sys.executable, "-c",
                            "import rankmap, rankmap.torch; "
                            "print(rankmap.__file__)"],
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=target),
                           cwd=target)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertTrue(q.stdout.startswith(target), q.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
