# fmt: off
# flake8: noqa
# A self-made minifier repro in the shape of autoparallel's DeepSeek-V3 graphs: a Python preamble,
# a Triton kernel and its side-table registration, a stub class for subgraphs, lambda attributes, higher-order
# ops, dict literals, symbolic scalars and MoE ops. Hand-checked shapes in tests/core/test_io_fx_real.cpp.
import os
os.environ['TORCH_TRACE'] = '/tmp/trace/'

import torch
from torch import tensor, device
import triton
import triton.language as tl

import torch._inductor.config
torch._dynamo.config.capture_scalar_outputs = True
torch._inductor.config.aten_distributed_optimizations.collective_bucketing = True

isolate_fails_code_str = None

torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.reset_table()

@triton.jit
def _fill_kernel_0(
    out_ptr,
    n: tl.constexpr,  # items
):
    pid = tl.program_id(axis=0)
    tl.store(out_ptr + pid, pid)

torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.add_kernel(_fill_kernel_0)
torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.constant_args={0: {'n': 4}}

from torch.nn import *
# Stub for submodules referenced in backward graph
class GraphModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, *args, **kwargs):
        pass
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sdpa_score0 = lambda score, b, h, m, n, *args: score
        self.sdpa_mask0 = lambda b, h, m, n, *args: True
        self.fw_graph0 = GraphModule()
        self.joint_graph0 = GraphModule()
        self.mask_graph0 = GraphModule()

    def forward(self, u0, primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7):
        permute = torch.ops.aten.permute.default(primals_2, [1, 0])
        mm = torch.ops.aten.mm.default(primals_1, permute);  permute = None
        topk = torch.ops.aten.topk.default(mm, 1, -1, True, False);  mm = None
        getitem = topk[0]
        getitem_1 = topk[1];  topk = None
        view = torch.ops.aten.view.default(getitem_1, [-1]);  getitem_1 = None
        histc = torch.ops.aten.histc.default(view, 4, 0, 4)
        sort = torch.ops.aten.sort.stable(view, stable = True);  view = None
        getitem_2 = sort[1];  sort = None
        cumsum = torch.ops.aten.cumsum.default(histc, 0, dtype = torch.int32)
        select = torch.ops.aten.select.int(cumsum, 0, 3)
        _local_scalar_dense = torch.ops.aten._local_scalar_dense.default(select);  select = None
        ge = _local_scalar_dense >= 0
        _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression u1 >= 0 on node 'ge'");  ge = _assert_scalar = None
        index = torch.ops.aten.index.Tensor(primals_1, [getitem_2]);  getitem_2 = None
        all_to_all_single = torch.ops._c10d_functional.all_to_all_single.default(index, [_local_scalar_dense, u0], [4, 4], '0')
        wait_tensor = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  all_to_all_single = None
        sym_size_int = torch.ops.aten.sym_size.int(wait_tensor, 0)
        add = 0 + sym_size_int
        floordiv = add // 2;  add = None
        sym_sum = torch.sym_sum((1, _local_scalar_dense, u0))
        full = torch.ops.aten.full.default([sym_size_int, 16], 0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False);  sym_size_int = None
        _grouped_mm = torch.ops.aten._grouped_mm.default(index, primals_3, cumsum);  index = None
        triton_kernel_wrapper_functional_proxy = torch.ops.higher_order.triton_kernel_wrapper_functional(kernel_idx = 0, constant_args_idx = 0, grid = [(4, 1, 1)], tma_descriptor_metadata = {}, kwargs = {'out_ptr': cumsum, 'n_items': 4}, tensors_to_clone = ['out_ptr']);  cumsum = None
        getitem_3 = triton_kernel_wrapper_functional_proxy['out_ptr'];  triton_kernel_wrapper_functional_proxy = None
        sdpa_score0 = self.sdpa_score0
        sdpa_mask0 = self.sdpa_mask0
        flex_attention = torch.ops.higher_order.flex_attention(primals_4, primals_4, primals_4, sdpa_score0, (8, 8, primals_5, primals_6, primals_5, primals_6, None, None, None, None, 128, 128, sdpa_mask0), 0.25, {'BACKEND': 'AUTO', 'PRESCALE_QK': False, 'OUTPUT_LOGSUMEXP': True}, (), ());  sdpa_score0 = sdpa_mask0 = None
        getitem_4 = flex_attention[0]
        getitem_5 = flex_attention[1];  flex_attention = None
        fw_graph0 = self.fw_graph0
        joint_graph0 = self.joint_graph0
        mask_graph0 = self.mask_graph0
        flex_attention_backward = torch.ops.higher_order.flex_attention_backward(primals_4, primals_4, primals_4, getitem_4, getitem_5, getitem_4, None, fw_graph0, joint_graph0, (8, 8, primals_5, primals_6, primals_5, primals_6, None, None, None, None, 128, 128, mask_graph0), 0.25, {'BACKEND': 'AUTO', 'WRITE_DQ': True}, (), ());  fw_graph0 = joint_graph0 = mask_graph0 = None
        getitem_6 = flex_attention_backward[0];  flex_attention_backward = None
        _scaled_dot_product_cudnn_attention = torch.ops.aten._scaled_dot_product_cudnn_attention.default(getitem_6, primals_4, primals_4, None, True, 0.0, True)
        getitem_7 = _scaled_dot_product_cudnn_attention[0]
        getitem_8 = _scaled_dot_product_cudnn_attention[1];  _scaled_dot_product_cudnn_attention = None
        convert_element_type = torch.ops.prims.convert_element_type.default(getitem_7, torch.float32);  getitem_7 = None
        view_1 = torch.ops.aten.view.default(convert_element_type, [1, 2, 8, 8, 2]);  convert_element_type = None
        view_as_complex = torch.ops.aten.view_as_complex.default(view_1);  view_1 = None
        mul = torch.ops.aten.mul.Tensor(view_as_complex, primals_7);  view_as_complex = None
        view_as_real = torch.ops.aten.view_as_real.default(mul);  mul = None
        view_2 = torch.ops.aten.view.default(view_as_real, [1, 2, 8, 16]);  view_as_real = None
        constant_pad_nd = torch.ops.aten.constant_pad_nd.default(getitem_3, [0, 4], 0.0);  getitem_3 = None
        device_put = torch.ops.prims.device_put.default(histc, device(type='cpu'));  histc = None
        fma = torch.ops.prims.fma.default(getitem, getitem, getitem);  getitem = None
        return (_grouped_mm, view_2, floordiv, sym_sum, full, constant_pad_nd, device_put, fma, getitem_8, wait_tensor)

def load_args(reader):
    reader.symint(4)  # u0
    buf0 = reader.storage(None, 256, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf0, (8, 16), dtype=torch.bfloat16, is_leaf=True)  # primals_1
    buf1 = reader.storage(None, 128, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf1, (4, 16), dtype=torch.bfloat16, is_leaf=True)  # primals_2
    buf2 = reader.storage(None, 4096, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf2, (4, 16, 32), dtype=torch.bfloat16, is_leaf=True)  # primals_3
    buf3 = reader.storage(None, 512, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf3, (1, 2, 8, 16), dtype=torch.bfloat16, is_leaf=True)  # primals_4
    buf4 = reader.storage(None, 4, device=device(type='cuda', index=0), dtype_hint=torch.int32)
    reader.tensor(buf4, (1, 1, 1), dtype=torch.int32, is_leaf=True)  # primals_5
    buf5 = reader.storage(None, 4, device=device(type='cuda', index=0), dtype_hint=torch.int32)
    reader.tensor(buf5, (1, 1, 1, 1), dtype=torch.int32, is_leaf=True)  # primals_6
    buf6 = reader.storage(None, 512, device=device(type='cuda', index=0), dtype_hint=torch.complex64)
    reader.tensor(buf6, (8, 8), dtype=torch.complex64, is_leaf=True)  # primals_7
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)

# Helper functions for overlap simulator
def get_pg_config():
    return {'0': {'size': 2, 'rank': 0}}
