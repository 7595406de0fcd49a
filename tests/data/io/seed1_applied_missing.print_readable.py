class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0", primals_2: "bf16[16, 32, 1, 64][2048, 64, 64, 1]cuda:0", primals_3: "i64[128][1]cuda:0"):
         # File: /work/falcon/modeling_falcon.py:291 in forward, code: key_cache[:, cache_position] = key_states
        index_put: "bf16[4, 128, 1, 64][8192, 64, 64, 1]cuda:0" = torch.ops.aten.index_put.default(primals_1, [None, primals_3], primals_2);  primals_1 = primals_2 = primals_3 = None
        return (index_put,)
