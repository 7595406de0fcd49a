"""A stand-in for the slice of PyTorch's DTensor API that scripts/dtensor_oracle.py calls, for machines without
PyTorch 2.x (this project's build machines). Importing it puts modules named torch, torch.distributed, ... into
sys.modules.

It exists to run every line of the oracle script on machines without the real thing: a typo
in a code path would otherwise turn every answer of that session into an "error". Its answers are simple
(torch.chunk shards, one transform per differing mesh dim, outputs that follow the first input) and are never
compared with core: test_scripts.py only checks that every case gets an answer and none is a Python error.
"""
import os
import sys
import types

__version__ = "0.0-fake"
# FAKE_TORCH_VARIANT=old: the shapes of older releases' internals, to run the oracle's fallbacks (layouts with a
# shard order through the private coordinate-taking function, a 4-argument planner, no propagate_op_sharding).
OLD = os.environ.get("FAKE_TORCH_VARIANT") == "old"


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


# ---- torch ----
class Size(tuple):
    pass


class _Tensor:
    def __init__(self, shape, dtype=None):
        self.shape = tuple(shape)
        self.dtype = dtype

    def reshape(self, shape):
        return _Tensor(shape, self.dtype)

    def to(self, dtype):
        return _Tensor(self.shape, dtype)


float32, int64 = "float32", "int64"
# The other dtypes the case file names (the oracle's DTYPES): only their names matter here.
bfloat16, float8_e4m3fn, float8_e5m2, float8_e8m0fnu = "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"


def zeros(shape, dtype=float32):
    return _Tensor(shape, dtype)


randn = zeros


def arange(n):
    return _Tensor((n,), int64)


class _Op:
    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        return _dispatch_call(self, args, kwargs)


class _Namespace:
    """torch.ops.aten._softmax.default -> _Op("aten._softmax.default")."""

    def __init__(self, path=()):
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        path = self._path + (name,)
        return _Op(".".join(path)) if len(path) == 3 else _Namespace(path)


torch = _module("torch", __version__=__version__, Size=Size, float32=float32, int64=int64, bfloat16=bfloat16,
                float8_e4m3fn=float8_e4m3fn, float8_e5m2=float8_e5m2, float8_e8m0fnu=float8_e8m0fnu, zeros=zeros,
                randn=randn, arange=arange, ops=_Namespace(), __path__=[])
torch.utils = _module("torch.utils", cmake_prefix_path="/nonexistent")

# ---- torch.distributed ----
_world = {"init": False, "rank": 0, "size": 1}


def init_process_group(backend, store=None, rank=0, world_size=1):
    assert backend == "fake" and isinstance(store, FakeStore)
    _world.update(init=True, rank=rank, size=world_size)


def destroy_process_group():
    _world["init"] = False


dist = _module("torch.distributed", __path__=[], init_process_group=init_process_group,
               destroy_process_group=destroy_process_group, is_initialized=lambda: _world["init"])
torch.distributed = dist


class FakeStore:
    pass


_module("torch.testing", __path__=[])
_module("torch.testing._internal", __path__=[])
_module("torch.testing._internal.distributed", __path__=[])
_module("torch.testing._internal.distributed.fake_pg", FakeStore=FakeStore)


class DeviceMesh:
    def __init__(self, device_type, mesh):
        assert _world["init"], "no process group"
        self.shape = mesh.shape
        n = 1
        for s in self.shape:
            n *= s
        assert n == _world["size"], "mesh size %d, world size %d" % (n, _world["size"])

    def get_coordinate(self):
        r, coord = _world["rank"], []
        for s in reversed(self.shape):
            coord.append(r % s)
            r //= s
        return list(reversed(coord))


_module("torch.distributed.device_mesh", DeviceMesh=DeviceMesh)


# ---- placements ----
class Placement:
    def is_shard(self):
        return False

    def is_replicate(self):
        return False

    def is_partial(self):
        return False

    def __eq__(self, other):
        return repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))


class Shard(Placement):
    def __init__(self, dim):
        self.dim = dim

    def is_shard(self):
        return True

    def __repr__(self):
        return "Shard(dim=%d)" % self.dim


class _StridedShard(Shard):
    def __init__(self, dim, split_factor=1):
        super().__init__(dim)
        self.split_factor = split_factor

    def __repr__(self):
        return "_StridedShard(dim=%d, split_factor=%d)" % (self.dim, self.split_factor)


class Replicate(Placement):
    def is_replicate(self):
        return True

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def is_partial(self):
        return True

    def __repr__(self):
        return "Partial(%s)" % self.reduce_op


placement_types = _module("torch.distributed.tensor.placement_types", Shard=Shard, Replicate=Replicate,
                          Partial=Partial, _StridedShard=_StridedShard)


# ---- layouts, specs, redistribute ----
def _compute_local_shape_and_global_offset(global_shape, mesh_shape, coord, placements, shard_order=None):
    shape, offset = list(global_shape), [0] * len(global_shape)
    for m, p in enumerate(placements):
        if p.is_shard():
            n, k = shape[p.dim], mesh_shape[m]
            chunk = -(-n // k) if n else 0
            start = min(coord[m] * chunk, n)
            shape[p.dim] = max(0, min(chunk, n - start))
            offset[p.dim] = offset[p.dim] + start if shape[p.dim] else global_shape[p.dim]
    return tuple(shape), tuple(offset)


if OLD:
    def compute_local_shape_and_global_offset(global_shape, mesh, placements):
        return _compute_local_shape_and_global_offset(global_shape, mesh.shape, mesh.get_coordinate(), placements)
else:
    def compute_local_shape_and_global_offset(global_shape, mesh, placements, shard_order=None):
        return _compute_local_shape_and_global_offset(global_shape, mesh.shape, mesh.get_coordinate(), placements,
                                                      shard_order)


_module("torch.distributed.tensor._utils", compute_local_shape_and_global_offset=compute_local_shape_and_global_offset,
        _compute_local_shape_and_global_offset=_compute_local_shape_and_global_offset)


class TensorMeta(tuple):
    def __new__(cls, shape, stride, dtype):
        return super().__new__(cls, (shape, stride, dtype))


class ShardOrderEntry(tuple):
    def __new__(cls, tensor_dim, mesh_dims):
        return super().__new__(cls, (tensor_dim, mesh_dims))


class DTensorSpec:
    def __init__(self, mesh, placements, tensor_meta=None, shard_order=None):
        self.mesh, self.placements, self.tensor_meta, self.shard_order = mesh, tuple(placements), tensor_meta, \
            shard_order


_module("torch.distributed.tensor._dtensor_spec", DTensorSpec=DTensorSpec, TensorMeta=TensorMeta,
        ShardOrderEntry=ShardOrderEntry)


class _TransformInfo:
    def __init__(self, mesh_dim, src_dst_placements):
        self.mesh_dim, self.src_dst_placements = mesh_dim, src_dst_placements


def _gen_transform_infos_non_cached(src_spec, dst_spec, use_graph_based_transform=None):
    return [_TransformInfo(m, (a, b)) for m, (a, b) in enumerate(zip(src_spec.placements, dst_spec.placements))
            if a != b]


if OLD:
    _new_planner = _gen_transform_infos_non_cached

    def _gen_transform_infos_non_cached(src_spec, dst_spec, src_shard_order, dst_shard_order):
        return _new_planner(src_spec, dst_spec)


def redistribute_local_tensor(local_tensor, current_spec, target_spec, *, async_op=False):
    for a, b in zip(current_spec.placements, target_spec.placements):
        if a.is_shard() and b.is_partial():
            raise RuntimeError("redistribute from %r to %r not supported yet" % (a, b))
    return local_tensor


_module("torch.distributed.tensor._redistribute", _gen_transform_infos_non_cached=_gen_transform_infos_non_cached,
        _gen_transform_infos=_gen_transform_infos_non_cached, redistribute_local_tensor=redistribute_local_tensor)


# ---- DTensor and its dispatcher ----
class DTensor:
    _op_dispatcher = None

    def __init__(self, spec):
        self._spec = spec
        self.placements = spec.placements

    @staticmethod
    def from_local(local, mesh, placements, run_check=True, shape=None, stride=None):
        return DTensor(DTensorSpec(mesh, placements, TensorMeta(shape, stride, local.dtype)))


class _OpInfo:
    def __init__(self, schema):
        self.schema = schema


class _OutputSharding:
    def __init__(self, spec):
        self.output_spec, self.needs_redistribute = spec, False


class _Propagator:
    def _propagate(self, schema):
        op, args = schema
        first = next(a for a in _flat(args) if isinstance(a, DTensor))
        out = _OutputSharding(DTensorSpec(first._spec.mesh, first.placements))
        if any(p.is_partial() for p in first.placements) and op.name == "aten._softmax.default":
            out.needs_redistribute = True
            out.output_spec = DTensorSpec(first._spec.mesh, [Replicate() for _ in first.placements])
        return out

    if not OLD:
        propagate_op_sharding = _propagate


class OpDispatcher:
    def __init__(self):
        self.sharding_propagator = _Propagator()

    def unwrap_to_op_info(self, op, args, kwargs):
        return _OpInfo((op, args))

    @staticmethod
    def redistribute_local_args(op_info, suggested_input_schema, use_val_from_redistribute_schema):
        pass


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat(a)
        else:
            yield a


def _dispatch_call(op, args, kwargs):
    sharding = DTensor._op_dispatcher.sharding_propagator._propagate((op, args))
    if sharding.needs_redistribute:
        OpDispatcher.redistribute_local_args(None, None, False)
        first = next(a for a in _flat(args) if isinstance(a, DTensor))
        sys.modules["torch.distributed.tensor._dispatch"].redistribute_local_tensor(None, first._spec, sharding.output_spec)
    return DTensor(sharding.output_spec)


DTensor._op_dispatcher = OpDispatcher()
_module("torch.distributed.tensor._dispatch", OpDispatcher=OpDispatcher, redistribute_local_tensor=redistribute_local_tensor)
dtensor = _module("torch.distributed.tensor", __path__=[], DTensor=DTensor, Shard=Shard, Replicate=Replicate,
                  Partial=Partial, placement_types=placement_types)
