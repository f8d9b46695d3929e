"""What the last realized plan computed, for tests of what backward plans keep and recompute."""
import glassgrad as gg


def forward_ops_of_last_plan() -> list:
    """The op names of the last plan's steps marked '(forward)': forward work a backward plan redid."""
    plan = str(gg._C.last_plan())
    return [line.split()[1] for line in plan.splitlines() if line.endswith("(forward)")]
