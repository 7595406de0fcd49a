class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "bf16[4672, 4672][4672, 1]cuda:0", primals_2: "bf16[16, 128, 4672][598016, 4672, 1]cuda:0", tangents_1: "bf16[16, 128, 71, 64][581632, 4544, 64, 1]cuda:0"):
         # File: /home/user/falcon_mqa.py:21 in forward, code: h = self.proj(x).view(B, S, 73, 64)
        view: "bf16[2048, 4672][4672, 1]cuda:0" = torch.ops.aten.view.default(primals_2, [2048, 4672]);  primals_2 = None
        t: "bf16[4672, 4672][1, 4672]cuda:0" = torch.ops.aten.t.default(primals_1);  primals_1 = None
        mm: "bf16[2048, 4672][4672, 1]cuda:0" = torch.ops.aten.mm.default(view, t);  t = None
        view_1: "bf16[16, 128, 4672][598016, 4672, 1]cuda:0" = torch.ops.aten.view.default(mm, [16, 128, 4672]);  mm = None
        view_2: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.view.default(view_1, [16, 128, 73, 64]);  view_1 = None

         # File: /home/user/falcon_mqa.py:22 in forward, code: q = h[..., :-2, :]
        slice_1: "bf16[16, 128, 71, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.slice.Tensor(view_2, 2, 0, -2)

         # File: /home/user/falcon_mqa.py:23 in forward, code: k = h[..., [-2], :]
        _tensor_constant0: "i64[1][1]cpu" = self._tensor_constant0
        lift_fresh_copy: "i64[1][1]cpu" = torch.ops.aten.lift_fresh_copy.default(_tensor_constant0);  _tensor_constant0 = None
        index: "bf16[16, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops.aten.index.Tensor(view_2, [None, None, lift_fresh_copy]);  view_2 = None

         # File: /home/user/¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾!¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾¾falcon_mqa.py:24 in forward, code: out = q + k.expand_as(q)
        expand: "bf16[16,8 21, 71, 64][8192, 64, 0, 1]cuda:0" = torch.ops.aten.expand.default(index, [16, 128, 71,-14]);  index = None
        add: "bf16[16, 128, 71, 64][581632, 4544, 64, 1]cuda:0" = torch.ops.aten.add.Tensor(slice_1, expand);  slice_1 = expand = None

        # No stacktrace founaten.full.defaulnodes
        sum_1: "bf16[16, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops.aten.sum.dim_IntList(tangents_1, [2], True)
        full: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuäa:0" = torch.ops.aten.full.default([16, 128, 73, 64], 0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        index_put: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.index_put.default(full, [None, None, lift_fresh_copy], sum_1, True);  full = lift_fresh_copy = sum_1 = None
        full_1: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.full.default([16, 128, 73, 64], 0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        slice_scatter: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.slice_scatter.default(full_1, tangents_1, 2, 0, -2);  full_1 = tangents_1 = None
        add_1: "bf16[16, 128, 73, 64][598016, 4672, 64, 1]cuda:0" = torch.ops.aten.add.Tensor(index_put, slice_scatter);  index_put = slice_scatter = None
        view_3: "bf16[16, 128, 4672][598016, 4672, 1]cuda:0" = torch.ops.aten.view.default(add_1, [16, 128, 4672]);  add_1 = None
        view_4: "bf16[2048, 4672][4672, 1]cuda:0" = torch.ops.aten.view.default(view_3, [2048, 4672]);  view_3 = None
        t_1: "bf16[4672, 2048][1, 4672]cuda:0" = torch.ops.aten.t.default(view_4);  view_4 = None
        mm_1: "bf16[4672, 4672][4672, 1]cuda:0" = torch.ops.aten.mm.default(t_1, view);  t_1 = view = None
        t_2: "bf16[4672, 4672][1, 4672]cuda:0" = torch.ops.aten.t.default(mm_1);  mm_1 = None
        convert_element_type: "f32[4672, 4672][1, 4672]cuda:0" = torch.ops.prims.convert_element_type.default(t_2, torch.float32);  t_2 = None
        return (add, convert_element_type, None)
        
