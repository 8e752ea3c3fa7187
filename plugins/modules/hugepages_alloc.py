#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: hugepages_alloc
short_description: Allocate hugepages per NUMA node at runtime and verify the count
version_added: 0.1.0
description:
  - Sets the hugepage pool of each requested NUMA node and page size by
    writing C(/sys/devices/system/node/nodeN/hugepages/hugepages-<size>kB/nr_hugepages)
    (or the system-wide C(/sys/kernel/mm/hugepages/hugepages-<size>kB/nr_hugepages)
    when no node is given).
  - The kernel often gives fewer pages than asked on the first write. The
    module reads the pool back, compacts memory (C(/proc/sys/vm/compact_memory))
    and writes again, up to O(retries) times.
  - Fails when the kernel still gave fewer pages, stating requested and
    obtained pages per node and size. The pages obtained stay allocated and
    are returned in RV(pages); nothing is rolled back.
  - Before writing anything it refuses a size the host lacks, a NUMA node it
    does not have, a negative count, and requests larger than the node's
    (or the host's) memory.
  - Pools that already hold the requested count are not written.
author:
  - realtime.virt contributors (!UNKNOWN)
extends_documentation_fragment:
  - realtime.virt.attributes
  - realtime.virt.host_root
options:
  pages:
    description:
      - The wanted pools. Pools of sizes and nodes not listed are left alone.
    type: list
    elements: dict
    required: true
    suboptions:
      size:
        description: Page size, C(2M) or C(1G) (or the size in kB such as C(2048kB)).
        type: str
        required: true
      count:
        description: Number of pages wanted in the pool. C(0) frees the pool.
        type: int
        required: true
      node:
        description:
          - NUMA node id. Omit it to set the system-wide pool and let the
            kernel spread the pages over the nodes.
        type: int
  retries:
    description: How many times to compact memory and write again after a short allocation.
    type: int
    default: 5
  delay:
    description: Seconds to wait after compacting memory, before the next write.
    type: float
    default: 1.0
  compact:
    description: Write C(1) to C(/proc/sys/vm/compact_memory) between tries.
    type: bool
    default: true
  keep_in_use:
    description:
      - When a pool is lowered and the kernel keeps pages that are in use
        (it turns them into surplus pages and frees them once released), warn
        and succeed instead of failing. Pools that fell short while growing
        still fail.
      - The C(realtime.virt.hugepages) role sets it when it frees its pools
        (C(hugepages_state=absent)).
    type: bool
    default: false
    version_added: 0.2.0
notes:
  - 1G pages rarely allocate at runtime on a host that has run for a while;
    reserve them at boot with C(hugepagesz=1G hugepages=N) (the
    P(realtime.virt.hugepages#role) role hands these arguments to the rt_host role).
seealso:
  - name: Kernel documentation, HugeTLB pages
    description: The sysfs pool files, and how allocation at runtime and at boot differ.
    link: https://docs.kernel.org/admin-guide/mm/hugetlbpage.html
"""

EXAMPLES = r"""
- name: 512 2M pages on node 0 and 256 on node 1
  realtime.virt.hugepages_alloc:
    pages:
      - {size: 2M, count: 512, node: 0}
      - {size: 2M, count: 256, node: 1}

- name: 1024 2M pages anywhere, trying harder
  realtime.virt.hugepages_alloc:
    pages:
      - {size: 2M, count: 1024}
    retries: 10
    delay: 2
"""

RETURN = r"""
pages:
  description: One entry per requested pool, after the run (in check mode, what would be written).
  returned: always
  type: list
  elements: dict
  contains:
    node:
      description: NUMA node id, or C(null) for the system-wide pool.
      type: int
      sample: 0
    size:
      description: Page size label.
      type: str
      sample: 2M
    size_kb:
      description: Page size in kB.
      type: int
      sample: 2048
    requested:
      description: Pages requested.
      type: int
      sample: 512
    before:
      description: Pages in the pool before the run.
      type: int
      sample: 0
    obtained:
      description: Pages in the pool after the run, read back from the kernel (in check mode, the request).
      type: int
      sample: 512
    attempts:
      description: Writes needed (0 when the pool was already right or in check mode).
      type: int
      sample: 1
    in_use:
      description: Pages the kernel kept in a lowered pool because they are in use (only with O(keep_in_use)).
      type: int
      returned: when O(keep_in_use) let a lowered pool keep pages
      sample: 4
    ok:
      description: Whether the pool holds the requested count (or, with O(keep_in_use), only pages in use).
      type: bool
      sample: true
msg:
  description: Summary, or requested against obtained for every short pool when the module fails.
  returned: always
  type: str
  sample: "node 0 2M: requested 512, obtained 300 (was 0, 6 attempt(s))"
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.realtime.virt.plugins.module_utils._common.errors import ApplyError, OptionError
from ansible_collections.realtime.virt.plugins.module_utils._common.options import root_argument_spec
from ansible_collections.realtime.virt.plugins.module_utils._hugepages.apply import (
    HugepageAllocator,
    describe,
    keep_in_use,
    shortfall_message,
    state_text,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root_argument_spec(),
            pages=dict(type="list", elements="dict", required=True, options=dict(
                size=dict(type="str", required=True),
                count=dict(type="int", required=True),
                node=dict(type="int"),
            )),
            retries=dict(type="int", default=5),
            delay=dict(type="float", default=1.0),
            compact=dict(type="bool", default=True),
            keep_in_use=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["retries"] < 0 or params["delay"] < 0:
        module.fail_json(msg="hugepages_alloc: retries and delay must be >= 0 (got retries=%r, delay=%r)"
                         % (params["retries"], params["delay"]))
    pages = [dict((key, value) for key, value in item.items() if value is not None or key != "node")
             for item in params["pages"]]
    allocator = HugepageAllocator(params["root"], retries=params["retries"], delay=params["delay"],
                                  compact=params["compact"])
    try:
        plan = allocator.plan(pages)
    except OptionError as error:
        module.fail_json(msg="hugepages_alloc: %s" % error, changed=False, pages=[])

    changed = plan["changed"]
    diff = {"before": state_text(plan["targets"], "current"), "after": state_text(plan["targets"], "count"),
            "before_header": "nr_hugepages", "after_header": "nr_hugepages"}
    if module.check_mode or not changed:
        rows = [{"node": t["node"], "size": t["size"], "size_kb": t["size_kb"], "requested": t["count"],
                 "before": t["current"], "obtained": t["count"] if module.check_mode else t["current"],
                 "attempts": 0, "ok": module.check_mode or t["current"] == t["count"]} for t in plan["targets"]]
        result = dict(changed=changed, pages=rows,
                      msg="%s: %s" % ("would change" if changed else "unchanged",
                                      ", ".join("%s=%d" % (describe(t), t["count"]) for t in plan["targets"]) or "nothing requested"))
        if module._diff:
            result["diff"] = diff
        module.exit_json(**result)

    try:
        rows = allocator.apply(plan)
    except ApplyError as error:
        module.fail_json(msg="hugepages_alloc: %s" % error, changed=True)
    obtained = dict(((row["node"], row["size_kb"]), row["obtained"]) for row in rows)
    diff["after"] = "".join("%s nr_hugepages=%s\n" % (describe(t), obtained[(t["node"], t["size_kb"])]) for t in plan["targets"])
    result = dict(changed=any(row["obtained"] != row["before"] for row in rows) or changed, pages=rows)
    if module._diff:
        result["diff"] = diff
    if params["keep_in_use"]:
        for warning in keep_in_use(rows):
            module.warn(warning)
    if not all(row["ok"] for row in rows):
        module.fail_json(msg="hugepages_alloc: %s" % shortfall_message(rows), **result)
    result["msg"] = "allocated: %s" % ", ".join("%s=%d" % (describe(row), row["obtained"]) for row in rows)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
