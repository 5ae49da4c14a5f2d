# SPDX-License-Identifier: Apache-2.0
# bash completion for rankmap(1): commands, then each command's options
# (the lists follow `rankmap help CMD`; tests/pkg/t_install.sh compares).
_rankmap()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmds="plan check fit node explain suggest calibrate site help"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$cmds -V --version --help" -- "$cur"))
		return
	fi
	# An option that takes a value completes to that value alone.
	local values=
	case $prev in
	--site|--topology|--nodes-file|--map|--assignment|-o|--output|\
	--hwloc-xml|--nccl-topo|--megatron-log|--nemo-log|--torchtitan-log|--mlperf-log|\
	--nccl-tests|--nccl-check)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--format)
		# each command's own list (its --help, and what it accepts)
		case ${COMP_WORDS[1]} in
		check) values="text json html svg" ;;
		node) values="text json env" ;;
		site) values="text json" ;;
		plan) values="text json yaml csv env hostfile deepspeed-hostfile html svg" ;;
		*) values="text json" ;;
		esac ;;
	--order) values="megatron llama3 torchtitan nest" ;;
	# a bare --baseline may be followed by the next option
	--baseline) [[ $cur == -* ]] || values="slurm sorted switch-rank" ;;
	--model) values="llama3-8b llama3-70b llama3-405b gpt3-175b" ;;
	--hw) values="a100-sxm-80gb h100-sxm-80gb h200 gb200-nvl72" ;;
	esac
	if [ -n "$values" ]; then
		COMPREPLY=($(compgen -W "$values" -- "$cur"))
		return
	fi
	local opts
	case ${COMP_WORDS[1]} in
	plan) opts="--layout --order --nodes --nodes-file --topology --partition --site
		--no-site-config --gpus-per-node --allow-missing --baseline -o --output --format --rank
		--task --slurm-task --master-port" ;;
	check) opts="--map --assignment --layout --order --gpus-per-node
		--topology --partition --site --no-site-config --nodes --nodes-file
		--allow-missing --baseline --format" ;;
	fit) opts="--layout --order --nnodes --ntasks-per-node --ntasks --site
		--no-site-config" ;;
	node) opts="--hwloc-xml --site --format --ranks --nccl-topo --timing" ;;
	explain) opts="--model --layout --gpus --hw --batch --seq --micro-batch
		--schedule --recompute --sharding --tokens --set --format --nodes
		--nodes-file --topology --partition --site --no-site-config
		--gpus-per-node --order --allow-missing --baseline --map
		--assignment" ;;
	suggest) opts="--model --gpus --hw --top --batch --seq --recompute
		--sharding --max-cp --max-mb --around --schedules --set --format" ;;
	calibrate) opts="--hw -o --output --model --megatron-log --nemo-log --torchtitan-log --mlperf-log
		--nccl-tests --nccl-check --fit --layout --batch --seq --micro-batch
		--schedule --recompute --sharding --set" ;;
	site)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "validate import" -- "$cur"))
		elif [[ $cur == -* && ${COMP_WORDS[2]} == import ]]; then
			COMPREPLY=($(compgen -W "--ibnetdiscover --scontrol --aws --gcp --oci
				--nvidia-smi --hosts --out --name --gpus-per-node
				--against" -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--topology --format" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
	esac
	COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
}
complete -F _rankmap rankmap
