-- SPDX-License-Identifier: Apache-2.0
-- cli_filter.lua - sbatch/salloc/srun's cli_filter/lua (CliFilterPlugins=lua):
-- a request whose --parallel-layout cannot fit its nodes and tasks is
-- refused before it waits in the queue, with the words the plugin would
-- use at launch (`rankmap fit`: the plugin's own checks, not a second
-- implementation); and the part of the shaping slurmctld's job_submit
-- cannot do: on a topology/block cluster (Slurm 23.11+) it sets --segment
-- so that whole pipeline replicas (else TP groups) of the layout land in
-- one NVLink block; job_submit.lua does the rest and enforces the policy.
-- The user can still override --segment on the command line.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local shape = dofile(dir .. "rankmap_shape.lua")

function slurm_cli_setup_defaults(options, early_pass)
	return slurm.SUCCESS
end

-- one word for sh -c
local function q(s)
	return "'" .. (tostring(s):gsub("'", "'\\''")) .. "'"
end

-- a count the user gave; Slurm reads unset ones as 0 or -2 (NO_VAL)
local function count(v)
	local n = tonumber(v)
	if n and n > 0 and n == math.floor(n) then return n end
end

-- The plugin's refusal of this request, or nil where it fits or its
-- shape is not known yet (no -N, no task count: the plugin checks at
-- launch). Only "does not fit" refuses: a rankmap that cannot run here
-- (exit 2, e.g. no site file on this host) lets the request through.
local function refusal(options, sp, s)
	local cli = shape.SITE.rankmap
	local lo, hi = (options["nodes"] or ""):match("^(%d+)%-?(%d*)$")
	if not cli or not lo or options["nodes"] == "1-0" or (hi ~= "" and hi ~= lo) then
		return nil
	end
	local cmd = q(cli) .. " fit --layout " .. q(s) .. " --nnodes " .. lo
	local tpn, nt = count(options["ntasks-per-node"]), count(options["ntasks"])
	if tpn then
		cmd = cmd .. " --ntasks-per-node " .. tpn
	elseif nt and nt > 1 then
		cmd = cmd .. " --ntasks " .. nt
	else
		return nil
	end
	local o = sp.rankmap["parallel-order"]
	if o and o ~= "" then cmd = cmd .. " --order " .. q(o) end
	local p = io.popen(cmd .. " 2>&1; echo \"rc=$?\"")
	if not p then return nil end
	local out = p:read("*a") or ""
	p:close()
	local msg, rc = out:match("^(.-)\n?rc=(%d+)\n?$")
	if rc ~= "1" then return nil end
	return (msg:gsub("^rankmap fit: ", ""):gsub("\n.*", ""))
end

function slurm_cli_pre_submit(options, pack_offset)
	local sp = options["spank"]              -- {plugin = {option = value}}
	local s = sp and sp.rankmap and sp.rankmap["parallel-layout"]
	if s then
		local why = refusal(options, sp, s)
		if why then
			slurm.log_error("rankmap: %s", why)
			return slurm.ERROR
		end
	end
	-- a step inside an allocation takes the allocation's shape
	if os.getenv("SLURM_JOB_ID") or shape.SITE.topology ~= "block" then
		return slurm.SUCCESS
	end
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
