"""A small CNN (Conv2d + ReLU + Conv2d + ReLU + Linear head) on a 1-D mesh of 8, data-parallel input, so the joint
graph holds convolution / convolution_backward (a tuple-valued node read through getitem)."""
import torch
from torch import nn
from torch.distributed.tensor.placement_types import Shard

from common import done, note, save_user_files, setup

B, C, HW, CLASSES = 32, 3, 16, 10


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(C, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, stride=2)
        self.head = nn.Linear(32 * (HW // 2) * (HW // 2), CLASSES)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.head(x.flatten(1))


def main():
    from autoparallel.api import AutoParallel

    mesh = setup((8,), ("dp",))
    with torch.device("meta"):
        model = SmallCNN()

    def input_fn():
        return torch.rand(B, C, HW, HW, device="cpu")

    with AutoParallel(model, input_fn, mesh) as autop:
        autop.add_input_constraints([(Shard(0),)])
        autop.add_output_constraints([(Shard(0),)])
        placement = autop.optimize_placement()
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=[8], dims=["dp"], input=[B, C, HW, HW])
    done()


main()
