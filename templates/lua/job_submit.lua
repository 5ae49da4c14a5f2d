-- SPDX-License-Identifier: Apache-2.0
-- job_submit.lua - slurmctld's job_submit/lua (JobSubmitPlugins=lua):
-- jobs that ask for --parallel-layout get the request their layout needs
-- (rankmap_shape.lua, beside this file: edit its SITE), or are refused with
-- the reason when the site's policy says the layout cannot be placed well.
-- Jobs without the option are not touched.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local shape = dofile(dir .. "rankmap_shape.lua")

local OPT = "_SLURM_SPANK_OPTION_rankmap_parallel_layout="
local NO_VAL = 4294967294

local function layout_of(job_desc)
	local env = job_desc.spank_job_env
	if type(env) ~= "table" then return nil end
	for _, v in pairs(env) do
		if type(v) == "string" and v:sub(1, #OPT) == OPT then
			return v:sub(#OPT + 1)
		end
	end
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	local s = layout_of(job_desc)
	if not s then return slurm.SUCCESS end
	local l, why = shape.parse(s)
	if not l then
		slurm.log_user("rankmap: --parallel-layout=%s: %s", s, why)
		return slurm.ERROR
	end
	local asked = job_desc.min_nodes ~= NO_VAL and job_desc.min_nodes or nil
	local r
	r, why = shape.shape(l, asked)
	if not r then
		slurm.log_user("rankmap: --parallel-layout=%s refused by the site policy: %s", s, why)
		return slurm.ERROR
	end
	job_desc.min_nodes = r.nodes
	job_desc.max_nodes = r.nodes
	job_desc.num_tasks = r.tasks
	job_desc.ntasks_per_node = r.tasks_per_node
	job_desc.shared = 0          -- whole nodes
	job_desc.tres_per_node = shape.gpu_tres() .. ":" .. r.tasks_per_node
	if r.switches then
		job_desc.req_switch = r.switches
		job_desc.wait4switch = shape.SITE.switch_wait
	end
	-- block: job_submit/lua can set the segment itself from 25.11 on (for
	-- every client, slurmrestd too); before, cli_filter.lua does. A
	-- segment the user chose is left alone, and then so are its flags.
	local cflag = shape.consolidate_flag()
	local seg = ""
	if r.segment and cflag then
		if (job_desc.segment_size or 0) == 0 then job_desc.segment_size = r.segment end
		if job_desc.segment_size == r.segment then
			seg = ", segment=" .. r.segment
			local f = job_desc.bitflags or 0
			-- no bit operators in Lua 5.1; the flag is one power of two
			if r.consolidate and math.floor(f / cflag) % 2 == 0 then
				job_desc.bitflags = f + cflag
				seg = seg .. " consolidated"
			end
		end
	end
	slurm.log_info("rankmap: job of uid %d, layout %s: %d nodes x %d tasks%s%s", submit_uid, s,
		r.nodes, r.tasks_per_node, r.switches and (", switches=" .. r.switches) or "", seg)
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
