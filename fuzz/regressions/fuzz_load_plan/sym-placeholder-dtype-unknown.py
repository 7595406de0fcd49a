import torch
from torch import device
from math import inf, nan

class <lambda>(torch.nn.Module):
    def forward(self, primals_1: "f32[512, 1792][1792, 1]cuda:0", primals_2: "bf16[4, 2048, 1792][3670016, 1792, 1]cuda:0", primals_3: "b8[4, 2048][2048, 1]cuda:0", primals_4: "Sym(s0)"):
         # File: /opt/torch/distributed/_functional_collectives.py:204 in all_gather_tensor, code: tensor = torch.ops._c10d_functional.all_gather_into_tensor(
        all_gather_into_tensor: "f32[1024, 1792][1792, 1]cuda:0" = torch.ops._c10d_functional.all_gather_into_tensor.default(primals_1, 2, '0');  primals_1 = None

         # File: /opt/torch/distributed/_functional_collectives.py:144 in wait_tensor, code: return torch.ops._c10d_functional.wait_tensor(tensor)  # type: ignore[attr-defined]
        wait_tensor: "f32[1024, 1792][1792, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None

        # No stacktrace found for following nodes
        _to_copy: "bf16[1024, 1792][1792, 1]cuda:0" = torch.ops.aten._to_copy.default(wait_tensor, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0));  wait_tensor = None
        view: "bf16[8192, 1792][1792, 1]cuda:0" = torch.ops.aten.view.default(primals_2, [8192, 1792]);  primals_2 = None
        permute: "bf16[1792, 1024][1, 1792]cuda:0" = torch.ops.aten.permute.default(_to_copy, [1, 0]);  _to_copy = None
        mm: "bf16[8192, 1024][1024, 1]cuda:0" = torch.ops.aten.mm.default(view, permute);  view = permute = None
        reduce_scatter_tensor: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.reduce_scatter_tensor.default(mm, 'sum', 2, '1');  mm = None
        wait_tensor_1: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        all_reduce: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.all_reduce.default(wait_tensor_1, 'avg', '1');  wait_tensor_1 = None
        wait_tensor_2: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_reduce);  all_reduce = None
        all_to_all_single: "pf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.all_to_all_single.default(wait_tensor_2, [2048, 2048], [2048, 2048], '2');  wait_tensor_2 = None
        wait_tensor_3: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  all_to_all_single = None
        var_mean = torch.ops.aten.var_mean.correction(wait_tensor_3, [1], correction = 0, keepdim = True)
        getitem: "bf16[4096, 1][1, 1]cuda:0" = var_mean[0]
        getitem_1: "bf16[4096, 1][1, 1]cuda:0" = operator.getitem(var_mean, 1);  var_mean = None
        add: "bf16[4096, g1][1, 1]cuda:0" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "bf16[4096, 1][1, 1]cuda:0" = torch.ops.aten.rsqrt.default(add);  add = None
        view_1: "b8[8192][1]cuda:0" = torch.ops.aten.view.default(primals_3, [-1]);  primals_3 = None
        masked_fill: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.masked_fill.Scalar(wait_tensor_3, view_1, -inf);  wait_tensor_3 = None
        clamp: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.clamp.default(masked_fill, -inf, inf);  masked_fill = None
        full: "f32[][]cuda:0" = torch.ops.aten.full.default([], nan, dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        mul: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.mul.Tensor(clamp, 0.7071067811865476);  clamp = None
        clone: "bf16[4096, 1024][1024, 1]cuda:0" = torch.ops.aten.clone.default(mul, memory_format = torch.contiguous_format);  mul = None
        split = torch.ops.aten.split.Tensor(clone, 2048, 0)
        getitem_2: "bf16[2048, 1024][1024, 1]cuda:0" = split[0]
        getitem_3: "bf16[2048, 1024][1024, 1]cuda:0" = split[1];  split = None
        sub: "bf16[2048, 1024][1024, 1]cuda:0" = torch.ops.aten.sub.Tensor(getitem_2, getitem_3);  getitem_2 = getitem_3 = None
        return (sub, rsqrt, getitem_1, full, clone, primals_4)
