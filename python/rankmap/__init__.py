# SPDX-License-Identifier: Apache-2.0
"""rankmap: read a rank map and check the framework built its groups.

    import rankmap
    m = rankmap.load(os.environ["RANKMAP_MAP"])
    ...  # the framework initialises its process groups
    rankmap.verify(m, tp=tp_ranks, dp=dp_ranks, pp=pp_ranks)

rankmap.verify raises rankmap.GroupMismatch with the first group that
differs, and rankmap.PlacementMismatch when the rank runs on another host
(or GPU) than the map's, so a job whose numbering disagrees with the plan,
or that reads another job's map, stops at step 0.
"""

from ._map import KINDS, Map, MapError, Rank, load
from ._verify import (GroupMismatch, PlacementMismatch, megatron_groups,
                      verify, verify_megatron)

__version__ = "0.1.0"
__all__ = ["Map", "MapError", "Rank", "GroupMismatch", "PlacementMismatch",
           "KINDS", "load", "verify", "verify_megatron", "megatron_groups"]
