class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0", primals_2: "bf16[16, 32, 1, 64][2048, 64, 64, 1]cuda:0", primals_3: "i64[128][1]cuda:0"):
         # No stacktrace found for following nodes
        permute: "bf16[32, 16, 1, 64][64, 2048, 64, 1]cuda:0" = torch.ops.aten.permute.default(primals_2, [1, 0, 2, 3]);  primals_2 = None
        all_gather_into_tensor: "bf16[128, 16, 1, 64][1024, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.all_gather_into_tensor.default(permute, 4, '1');  permute = None
        wait_tensor: "bf16[128, 16, 1, 64][1024, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_gather_into_tensor);  all_gather_into_tensor = None
        permute_1: "bf16[16, 128, 1, 64][64, 1024, 64, 1]cuda:0" = torch.ops.aten.permute.default(wait_tensor, [1, 0, 2, 3]);  wait_tensor = None
        split = torch.ops.aten.split.Tensor(permute_1, 4);  permute_1 = None
        getitem: "bf16[4, 128, 1, 64][64, 1024, 64, 1]cuda:0" = split[0];  split = None
         # File: /work/falcon/modeling_falcon.py:291 in forward, code: key_cache[:, cache_position] = key_states
        index_put: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops.aten.index_put.default(primals_1, [None, primals_3], getitem);  primals_1 = primals_3 = getitem = None
        reduce_scatter_tensor: "bf16[1, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.reduce_scatter_tensor.default(index_put, 'sum', 4, '1')
        wait_tensor_1: "bf16[1, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(reduce_scatter_tensor);  reduce_scatter_tensor = None
        all_reduce: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.all_reduce.default(index_put, 'sum', '0');  index_put = None
        wait_tensor_2: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops._c10d_functional.wait_tensor.default(all_reduce);  all_reduce = None
        return (wait_tensor_1, wait_tensor_2)
