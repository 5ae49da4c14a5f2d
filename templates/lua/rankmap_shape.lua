-- SPDX-License-Identifier: Apache-2.0
-- rankmap_shape.lua - shape a Slurm job's request from its --parallel-layout
-- (rankmap's SPANK option): whole nodes, one task per GPU, the node count
-- the layout needs, and --switches (topology/tree) or --segment
-- (topology/block) sized so that each pipeline replica can stay on one leaf
-- switch or NVLink block, and, where a pipeline must cross blocks,
-- --consolidate-segments (Slurm 25.11+). Loaded by job_submit.lua
-- (slurmctld) and cli_filter.lua (sbatch/salloc/srun) from the directory
-- of slurm.conf.
--
-- Edit SITE for your cluster. Nothing here talks to the network or the
-- disk; the functions only compute.
local M = {}

M.SITE = {
	gpus_per_node = 8,
	-- "tree": leaf switches of leaf_nodes nodes (req_switch/--switches);
	-- "block": NVLink blocks of block_nodes nodes (--segment, Slurm 23.11+)
	topology = "tree",
	leaf_nodes = 16,
	block_nodes = 18,
	-- GPUs one NVLink domain joins: gpus_per_node, or e.g. 72 for NVL72
	nvlink_gpus = 8,
	-- how long a job may wait for its switch count (seconds, tree only)
	switch_wait = 600,
	-- policy: refuse layouts that cannot be placed well
	refuse_tp_beyond_nvlink = true,
	-- refuse a pipeline replica that needs more leaves/blocks than this
	-- (nil: no limit)
	max_pipeline_domains = 1,
	-- block, a pipeline longer than a block (max_pipeline_domains > 1):
	-- ask for --consolidate-segments where the release has it (25.11+),
	-- so that the blocks its stages cross lie in one aggregated block
	-- (BlockSizes' next level) instead of anywhere in the fabric
	consolidate_segments = true,
	-- "gres/gpu" (Slurm 23.02+) or "gres:gpu" (22.05); nil: detect
	gpu_tres = nil,
	-- the rankmap command cli_filter.lua asks (`rankmap fit`) whether
	-- the plugin would refuse the request's layout at launch; nil: ask
	-- nothing, the plugin refuses at launch
	rankmap = "/usr/bin/rankmap",
}

local AXES = { "tp", "cp", "ep", "pp", "dp" }

-- parse("8x2x4") / parse("tp=8,pp=2,dp=auto") -> {tp=,cp=,ep=,pp=,dp=}
-- (dp may be "auto") or nil, why.
function M.parse(s)
	if type(s) ~= "string" or s == "" or #s > 200 then
		return nil, "no layout"
	end
	local l = { tp = 1, cp = 1, ep = 1, pp = 1, dp = 1 }
	local a, b, c = s:match("^(%d+)x(%d+)x(%d+)$")
	if a then
		l.tp, l.pp, l.dp = tonumber(a), tonumber(b), tonumber(c)
	else
		for part in (s .. ","):gmatch("([^,]*),") do
			local k, v = part:match("^%s*(%a+)%s*=%s*(%w+)%s*$")
			if not k or l[k:lower()] == nil then
				return nil, "cannot read '" .. part .. "'"
			end
			k = k:lower()
			if v == "auto" and k == "dp" then
				l.dp = "auto"
			elseif v:match("^%d+$") then
				l[k] = tonumber(v)
			else
				return nil, "cannot read '" .. part .. "'"
			end
		end
	end
	for _, k in ipairs(AXES) do
		if l[k] ~= "auto" and (l[k] < 1 or l[k] > 1048576) then
			return nil, k .. "=" .. l[k] .. " is out of range"
		end
	end
	return l
end

local function ceil_div(a, b) return math.floor((a + b - 1) / b) end

-- shape(layout, nodes_asked) -> {nodes=, tasks_per_node=, tasks=,
-- switches=, segment=, consolidate=} or nil, reason. nodes_asked (or nil)
-- resolves dp=auto.
function M.shape(l, nodes_asked, site)
	site = site or M.SITE
	local g = site.gpus_per_node
	-- GPUs of one replica; EP is carved out of DP (docs/layouts.md), so
	-- it does not multiply the world
	local mp = l.tp * l.cp * l.pp
	local world
	if l.dp == "auto" then
		if not nodes_asked then
			return nil, "dp=auto needs a node count (-N)"
		end
		world = math.floor(nodes_asked * g / mp) * mp
		if world == 0 then
			return nil, "one replica needs " .. mp .. " GPUs, more than " .. nodes_asked .. " nodes hold"
		end
	else
		world = mp * l.dp
	end
	if world % g ~= 0 then
		return nil, "the layout's " .. world .. " GPUs are not whole nodes of " .. g .. " GPUs"
	end
	if site.refuse_tp_beyond_nvlink and l.tp > site.nvlink_gpus then
		return nil, "TP=" .. l.tp .. " needs an NVLink domain of " .. l.tp ..
			" GPUs; this site's have " .. site.nvlink_gpus
	end
	local r = { nodes = world / g, tasks_per_node = g, tasks = world }
	local rep = ceil_div(mp, g)                 -- nodes of one replica
	local dom = site.topology == "block" and site.block_nodes or site.leaf_nodes
	local what = site.topology == "block" and "NVLink block" or "leaf switch"
	local span = ceil_div(rep, dom)
	if site.max_pipeline_domains and span > site.max_pipeline_domains then
		return nil, "one pipeline replica needs " .. rep .. " nodes, more than " ..
			site.max_pipeline_domains .. " " .. what .. "(s) of " .. dom ..
			" nodes hold (site policy)"
	end
	if site.topology == "block" then
		-- one replica (else one TP group) per segment: each pipeline
		-- stays in a block, and Slurm may still use partly busy blocks
		local unit = rep <= dom and rep or ceil_div(l.tp, g)
		if unit > dom then
			return nil, "TP=" .. l.tp .. " spans " .. unit .. " nodes; NVLink blocks have " .. dom
		end
		if r.nodes % unit == 0 then r.segment = unit end
		-- TP inside a block, PP across blocks: the segments are TP
		-- groups and each stage hands its activations to the next over
		-- the fabric between blocks, every micro-batch, on the critical
		-- path. --consolidate-segments puts all segments in one
		-- aggregated block; --spread-segments would do the opposite
		-- (each segment base blocks of its own: stages scattered over as
		-- many blocks as segments), so it is never asked for.
		if r.segment and rep > dom and r.nodes > unit and site.consolidate_segments then
			r.consolidate = true
		end
	else
		-- leaves holding whole replicas
		local per = rep <= dom and math.floor(dom / rep) * rep or dom
		r.switches = ceil_div(r.nodes, per)
	end
	return r
end

-- The release's job flag for --consolidate-segments (Slurm 25.11+, in
-- lua since 25.11.x), or nil where it has none (22.05, 24.11).
function M.consolidate_flag()
	return slurm.CONSOLIDATE_SEGMENTS
end

function M.gpu_tres(site)
	site = site or M.SITE
	if site.gpu_tres then return site.gpu_tres end
	-- get_qos_priority came with the TRES names of newer releases; 22.05
	-- has neither (tested on 22.05, 24.11 and 26.05)
	return slurm.get_qos_priority and "gres/gpu" or "gres:gpu"
end

return M
