-- SPDX-License-Identifier: Apache-2.0
-- cli_filter.lua - sbatch/salloc/srun's cli_filter/lua (CliFilterPlugins=lua):
-- the part of the shaping slurmctld's job_submit cannot do. On a
-- topology/block cluster (Slurm 23.11+) it sets --segment so that whole
-- pipeline replicas (else TP groups) of the --parallel-layout land in one
-- NVLink block; job_submit.lua does the rest and enforces the policy. The
-- user can still override --segment on the command line.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local shape = dofile(dir .. "rankmap_shape.lua")

function slurm_cli_setup_defaults(options, early_pass)
	return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, pack_offset)
	-- a step inside an allocation takes the allocation's shape
	if os.getenv("SLURM_JOB_ID") or shape.SITE.topology ~= "block" then
		return slurm.SUCCESS
	end
	local sp = options["spank"]              -- {plugin = {option = value}}
	local s = sp and sp.rankmap and sp.rankmap["parallel-layout"]
	local l = s and shape.parse(s)
	if not l then return slurm.SUCCESS end    -- job_submit.lua says why
	-- "-N4" reads "4" or "4-4"; "1-0" is Slurm's "not given"
	local n = options["nodes"]
	local asked = n and n ~= "1-0" and tonumber(n:match("^(%d+)")) or nil
	local r = shape.shape(l, asked)
	local seg = options["segment"]
	if r and r.segment and (seg == nil or seg == "" or seg == "unset" or seg == "0") then
		options["segment"] = tostring(r.segment)
	end
	return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, job_id, step_id)
	return slurm.SUCCESS
end
