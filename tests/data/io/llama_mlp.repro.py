
import torch
from torch import tensor, device
import torch.fx as fx
from torch._dynamo.testing import rand_strided
from math import inf
import torch._inductor.inductor_prims

import torch._dynamo.config
import torch._inductor.config
import torch._functorch.config
import torch.fx.experimental._config
torch._inductor.config.triton.cudagraphs = False
torch._functorch.config.unlift_effect_tokens = True



isolate_fails_code_str = None



# torch version: 2.5.1+cu124
# torch cuda version: 12.4
# torch git version: a8d6afb511a69687bbb2b7e88a3cf67917e1697e


# CUDA Info: 
# nvcc: NVIDIA (R) Cuda compiler driver 
# Copyright (c) 2005-2024 NVIDIA Corporation 
# Built on Tue_Feb_27_16:19:38_PST_2024 
# Cuda compilation tools, release 12.4, V12.4.99 
# Build cuda_12.4.r12.4/compiler.33961263_0 

# GPU Hardware Info: 
# NVIDIA H100 80GB HBM3 : 8 


from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()

    
    
    def forward(self, primals_289, primals_290, primals_291, primals_292, tangents_1):
        view = torch.ops.aten.view.default(primals_292, [512, 2048]);  primals_292 = None
        t = torch.ops.aten.t.default(primals_289)
        mm = torch.ops.aten.mm.default(view, t);  t = None
        view_1 = torch.ops.aten.view.default(mm, [4, 128, 1792]);  mm = None
        convert_element_type = torch.ops.prims.convert_element_type.default(view_1, torch.float32)
        sigmoid = torch.ops.aten.sigmoid.default(convert_element_type)
        mul = torch.ops.aten.mul.Tensor(convert_element_type, sigmoid);  convert_element_type = sigmoid = None
        convert_element_type_1 = torch.ops.prims.convert_element_type.default(mul, torch.bfloat16);  mul = None
        t_1 = torch.ops.aten.t.default(primals_290)
        mm_1 = torch.ops.aten.mm.default(view, t_1);  t_1 = None
        view_2 = torch.ops.aten.view.default(mm_1, [4, 128, 1792]);  mm_1 = None
        mul_1 = torch.ops.aten.mul.Tensor(convert_element_type_1, view_2)
        view_3 = torch.ops.aten.view.default(mul_1, [512, 1792]);  mul_1 = None
        t_2 = torch.ops.aten.t.default(primals_291)
        mm_2 = torch.ops.aten.mm.default(view_3, t_2);  t_2 = None
        view_4 = torch.ops.aten.view.default(mm_2, [4, 128, 2048]);  mm_2 = None
        sum_1 = torch.ops.aten.sum.default(view_4);  view_4 = None
        expand = torch.ops.aten.expand.default(tangents_1, [4, 128, 2048]);  tangents_1 = None
        view_5 = torch.ops.aten.view.default(expand, [512, 2048]);  expand = None
        t_3 = torch.ops.aten.t.default(view_5)
        mm_3 = torch.ops.aten.mm.default(t_3, view_3);  t_3 = view_3 = None
        t_4 = torch.ops.aten.t.default(mm_3);  mm_3 = None
        _foreach_norm = torch.ops.aten._foreach_norm.Scalar([t_4], 2)
        getitem = _foreach_norm[0];  _foreach_norm = None
        return [sum_1, t_4, getitem, None, None]
        
def load_args(reader):
    buf0 = reader.storage(None, 7340032, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf0, (1792, 2048), dtype=torch.bfloat16, is_leaf=True)  # primals_289
    buf1 = reader.storage(None, 7340032, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf1, (1792, 2048), dtype=torch.bfloat16, is_leaf=True)  # primals_290
    buf2 = reader.storage(None, 7340032, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf2, (2048, 1792), dtype=torch.bfloat16, is_leaf=True)  # primals_291
    buf3 = reader.storage(None, 2097152, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf3, (4, 128, 2048), dtype=torch.bfloat16, is_leaf=True)  # primals_292
    buf4 = reader.storage(None, 2, device=device(type='cuda', index=0), dtype_hint=torch.bfloat16)
    reader.tensor(buf4, (), dtype=torch.bfloat16, is_leaf=True)  # tangents_1
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', check_str=None)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, tracing_mode='real', check_str=None)
        # mod(*args)
