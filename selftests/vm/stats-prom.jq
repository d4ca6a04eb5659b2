# SPDX-License-Identifier: GPL-2.0
# From `gpupath stats -j`, every sample `gpupath stats --prometheus` must
# print, one per line: NAME{LABELS} VALUE SCALE, where the Prometheus value
# times SCALE must equal VALUE (durations: ns in JSON, seconds in Prometheus).
def lab($k; $v): "\($k)=\"\($v)\"";
def line($name; $labels; $v; $scale): "\($name){\($labels | join(","))} \($v) \($scale)";
(.providers[] |
	[lab("provider"; .id), lab("pci_dev"; .pci_dev), lab("type"; .type)] as $L |
	line("gpupath_provider_memory_bytes"; $L; .size; 1),
	line("gpupath_provider_allocated_bytes"; $L; .allocated; 1),
	line("gpupath_provider_available_bytes"; $L; .available; 1),
	line("gpupath_provider_direct_ios_total"; $L; .stats.direct_ios; 1),
	line("gpupath_provider_direct_bytes_total"; $L; .stats.direct_bytes; 1),
	line("gpupath_provider_errors_total"; $L; .stats.errors; 1),
	line("gpupath_provider_user_limit_bytes"; $L; .user_limit; 1),
	line("gpupath_provider_cgroup_limit_bytes"; $L; .cgroup_limit; 1),
	(.usage[] | line("gpupath_provider_held_bytes";
		$L + [if .cgroup_id then lab("cgroup"; if .cgroup == "" then "id:\(.cgroup_id)"
			else .cgroup end) else lab("uid"; .uid) end]; .bytes; 1)),
	(.stats.refused | to_entries[] |
		line("gpupath_provider_refused_ios_total"; $L + [lab("reason"; .key)]; .value.ios; 1),
		line("gpupath_provider_refused_bytes_total"; $L + [lab("reason"; .key)]; .value.bytes; 1))),
(.volumes[] |
	[lab("volume"; .name)] as $L |
	line("gpupath_volume_size_bytes"; $L; .size; 1),
	line("gpupath_volume_paths"; $L; .paths; 1),
	line("gpupath_volume_usable_paths"; $L; .usable; 1),
	line("gpupath_volume_openers"; $L; .open; 1),
	line("gpupath_volume_ios_total"; $L; .stats.ios; 1),
	line("gpupath_volume_bytes_total"; $L; .stats.bytes; 1),
	line("gpupath_volume_errors_total"; $L; .stats.errors; 1),
	line("gpupath_volume_retries_total"; $L; .stats.retries; 1),
	line("gpupath_volume_queued_total"; $L; .stats.queued; 1),
	line("gpupath_volume_refused_total"; $L; .stats.refused; 1),
	line("gpupath_volume_failovers_total"; $L; .stats.failovers; 1),
	line("gpupath_volume_failover_last_seconds"; $L; .stats.failover_last_ns; 1e9),
	line("gpupath_volume_failover_max_seconds"; $L; .stats.failover_max_ns; 1e9),
	line("gpupath_volume_inflight_ios"; $L; .stats.inflight; 1),
	(.path_list[] |
		($L + [lab("path"; .id), lab("device"; .device), lab("rail"; .rail),
		       lab("transport"; .transport)]) as $P |
		line("gpupath_path_ios_total"; $P; .stats.ios; 1),
		line("gpupath_path_bytes_total"; $P; .stats.bytes; 1),
		line("gpupath_path_errors_total"; $P; .stats.errors; 1),
		line("gpupath_path_direct_ios_total"; $P; .stats.direct_ios; 1),
		line("gpupath_path_inflight_ios"; $P; .stats.inflight; 1),
		line("gpupath_path_latency_seconds"; $P; .stats.latency_ns; 1e9),
		line("gpupath_path_info"; $P + [lab("controller"; .controller),
			lab("dma_dev"; .dma_dev // ""), lab("state"; .state), lab("health"; .health),
			lab("link"; .link), lab("ana"; .ana), lab("reason"; .reason)]; 1; 1))),
(.portals[] | .name as $name | .connections[] |
	[lab("portal"; $name), lab("rail"; .rail), lab("traddr"; .traddr),
	 lab("subsysnqn"; .subsysnqn)] as $L |
	line("gpupath_portal_connection_info"; $L + [lab("state"; .state),
		lab("controller"; .controller // "")]; 1; 1),
	line("gpupath_portal_connection_failed_attempts"; $L; .attempts; 1)),
(.qos[] | .name as $name | .applied[] |
	[lab("class"; $name), lab("device"; .device), lab("setting"; .setting)] as $L |
	line("gpupath_qos_setting_info"; $L + [lab("result"; .result), lab("error"; .error // "")];
		1; 1),
	line("gpupath_qos_setting_value"; $L; .value; 1)),
(.cgroups[] |
	[lab("cgroup"; if .other then "other" elif .cgroup == "" then "id:\(.id)"
		else .cgroup end)] as $L |
	line("gpupath_cgroup_direct_ios_total"; $L; .direct_ios; 1),
	line("gpupath_cgroup_direct_bytes_total"; $L; .direct_bytes; 1),
	line("gpupath_cgroup_errors_total"; $L; .errors; 1),
	line("gpupath_cgroup_host_ios_total"; $L; .host_ios; 1),
	line("gpupath_cgroup_host_bytes_total"; $L; .host_bytes; 1),
	(.refused | to_entries[] |
		line("gpupath_cgroup_refused_ios_total"; $L + [lab("reason"; .key)]; .value.ios; 1),
		line("gpupath_cgroup_refused_bytes_total"; $L + [lab("reason"; .key)]; .value.bytes; 1)))
