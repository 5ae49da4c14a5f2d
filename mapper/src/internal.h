/* SPDX-License-Identifier: Apache-2.0 */
/*
 * internal.h - everything librankmap's own files share, never installed.
 * Each part lives with the folder that owns it; this header only gathers
 * them for files that use several:
 *   util/util.h           errors, arrays, hostlist internals
 *   util/yaml.h           the checked YAML/JSON tree
 *   layout/layout_int.h   nesting positions, group kinds, coordinates
 *   fabric/fabric_int.h   the rm_fabric object
 * Internal names start with rmi_ and are hidden from the shared library.
 * Code outside mapper/src (the CLI, the plugin, nccl/) must not include
 * this or any header under mapper/src: tests/layers checks it.
 */
#ifndef RANKMAP_INTERNAL_H
#define RANKMAP_INTERNAL_H

#include "util/util.h"
#include "util/yaml.h"
#include "layout/layout_int.h"
#include "fabric/fabric_int.h"

#endif /* RANKMAP_INTERNAL_H */
