-- routerd's load test in pktgen-dpdk (bench/pktgen.sh). pktgen serves its
-- Lua socket (-G); bench/pktgen.sh loads this file through it (dofile),
-- then sends one call a line and reads the line printed back.
--
-- Port 0 replays the pcap given with -s 0:FILE: bench/pkt_gen's own frames
-- (UDP to random addresses in random prefixes of the loaded table, 4096
-- flows by source address and port, a fixed size or IMIX), addressed to routerd's
-- port0. Port 1 receives what routerd forwards. Both are memif clients
-- of routerd (or of testpmd io, the setup's I/O limit).
--
--   rt_trial(RATE_PPS, SECONDS, FRAME_BYTES, OUT)
--     offers RATE_PPS (0: pktgen's full rate) for SECONDS and writes a line
--     to the file OUT (the socket's print goes to pktgen's console, not
--     back to the socket), in bench/pkt_gen's format: "result rate_pps R offered O sent S
--     received X seconds T frame_bytes B lat_n 0 ...". pktgen paces by a
--     share of the link's speed for the pcap's mean frame, so the rate is
--     set from FRAME_BYTES (with the FCS) and the link speed, and the rate
--     reported is the one measured from pktgen's own port counters.
--     pktgen counts only what the port took: a frame the memif ring
--     refused is retried, never counted, so "offered" is what was sent.
--     Latency is bench/pkt_gen's (timestamps in the payload); this
--     reports none.

local tx, rx = 0, 1

local function link_mbps(port)
	local s = pktgen.linkState(port)[port] or ""
	return tonumber(string.match(s, "<UP%-(%d+)%-")) or 10000
end

local function counters()
	local st = pktgen.portStats("0,1", "port")
	return st[tx].opackets, st[rx].ipackets
end

function rt_trial(rate_pps, seconds, frame_bytes, out)
	local wire_bits = (frame_bytes + 20) * 8
	local full_pps = link_mbps(tx) * 1e6 / wire_bits
	local pct = 100
	if rate_pps > 0 then
		pct = math.min(100, 100 * rate_pps / full_pps)
	end
	pktgen.set(tostring(tx), "rate", pct)
	-- pktgen refreshes the counters it reports once a second: read them
	-- after a refresh, before the start and after the stop
	pktgen.delay(1100)
	local o0, i0 = counters()
	pktgen.start(tostring(tx))
	pktgen.delay(math.floor(seconds * 1000))
	pktgen.stop(tostring(tx))
	pktgen.delay(1500)
	local o1, i1 = counters()
	local sent, got = o1 - o0, i1 - i0
	local f = io.open(out .. ".tmp", "w")
	f:write(string.format("result rate_pps %.0f offered %d sent %d received %d seconds %.3f " ..
		"frame_bytes %.1f lat_n 0 lat_min_ns 0 lat_p50_ns 0 lat_p99_ns 0 lat_max_ns 0\n",
		sent / seconds, sent, sent, got, seconds, frame_bytes))
	f:close()
	os.rename(out .. ".tmp", out)
end

-- ready once both links are up
for _ = 1, 100 do
	if string.match(pktgen.linkState(tx)[tx] or "", "UP") and
	   string.match(pktgen.linkState(rx)[rx] or "", "UP") then break end
	pktgen.delay(100)
end
pktgen.pcap(tostring(tx), "on")
