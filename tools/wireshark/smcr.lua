-- smcr.lua: SMC-Rv2 LLC messages for Wireshark/tshark 4.0, in both byte orders.
--
--   tshark -X lua_script:tools/wireshark/smcr.lua -r FILE
--
-- SMC-Rv2 LLC messages (type byte 0x21..0x29, RFC 7609 as extended by IBM's SMC v2
-- document) carry a 16-bit length, and ADD LINK a 16-bit rkey count. Linux writes both in
-- its CPU byte order (little-endian on x86, net/smc/smc_llc.c: length_v2, num_rkeys);
-- Wireshark's packet-smc.c reads them big-endian, so tshark 4.0 shows Linux's CONFIRM LINK
-- and ADD LINK as broken RPC-over-RDMA and CONFIRM/DELETE RKEY as bare data, while it
-- reads stacks that write network order (s390, z/OS). This script decodes both.
--
-- Which byte order: the one in which the length field equals the bytes the RDMA SEND
-- carries. A length that reads the same both ways (0x0808 = an ADD LINK with 124 rkey
-- pairs, 0x0404 = a DELETE RKEY with 255 rkeys) is decided by the ADD LINK rkey count, the
-- other 16-bit field, when exactly one order makes the pairs fill the message; otherwise
-- the order is shown as ambiguous (nothing in the message depends on it) and read as
-- little-endian. A message whose length matches neither order is taken only on a QP that
-- already carried an SMC-Rv2 LLC message earlier in the capture, and is marked malformed.
--
-- The fields are those of Wireshark's own smc.* ones, under the prefix smcr_v2llc.
-- (smc.add.link.sender.mac -> smcr_v2llc.add.link.sender.mac), with the same types and
-- bases; a Lua script cannot re-register an existing abbreviation. v1 LLC and CDC messages stay Wireshark's (smc.*).
--
-- Precedence over the other InfiniBand payload heuristics: tshark tries the heuristics of
-- "infiniband.payload" in the reverse order of registration, and a script given with -X is
-- registered after every built-in one, so this one is tried first. But a heuristic that
-- matches a packet moves to the front of the list (epan/packet.c), so after each CDC
-- message Wireshark's SMC heuristic would come first again and take the next big-endian
-- v2 message, and RPC-over-RDMA (which accepts most SENDs whose bytes 12..15 read 0..4)
-- could get ahead too. There is no Lua call to disable or reorder a heuristic in 4.0.
-- So this heuristic also answers for the packets Wireshark's SMC heuristic takes (v1 LLC
-- and CDC: byte 1 is 44, type 0x01..0x09 or 0xFE, 44 bytes): it hands them to that list
-- itself (DissectorTable.try_heuristics, where this one steps aside), so Wireshark's
-- dissector decodes them as before, and then puts itself back at the front by matching a
-- one-byte probe that every other heuristic declines. Switch this off with the preference
-- smcr_v2llc.keep_first (the order then is whatever the last match left).
--
-- Only single-packet SENDs (RC SEND Only) are read: Linux posts each LLC message as one
-- SEND; a v2 message longer than the path MTU would be split, and is not reassembled here.

local proto = Proto("smcr_v2llc", "SMC-Rv2 LLC (Linux little-endian or network order)")

local V2_TYPES = {
	[0x21] = "Confirm Link (v2)",
	[0x22] = "Add Link (v2)",
	[0x23] = "Add Link Continuation (v2)",
	[0x24] = "Delete Link (v2)",
	[0x25] = "Request Add Link (v2)",
	[0x26] = "Confirm Rkey (v2)",
	[0x27] = "Test Link (v2)",
	[0x28] = "Confirm Rkey Continuation (v2)",
	[0x29] = "Delete Rkey (v2)",
}
local LLC_TYPES = {
	[1] = "CONFIRM_LINK", [2] = "ADD_LINK", [3] = "ADD_LINK_CONT", [4] = "DELETE_LINK",
	[5] = "REQUEST_ADD_LINK", [6] = "CONFIRM_RKEY", [7] = "TEST_LINK", [8] = "CONFIRM_RKEY_CONT",
	[9] = "DELETE_RKEY",
}
local ORDERS = { [0] = "little-endian (Linux on x86)", [1] = "big-endian (network order)" }
local MTUS = { [1] = "256", [2] = "512", [3] = "1024", [4] = "2048", [5] = "4096" }
local DEL_REASONS = {
	[0x00000000] = "ok",
	[0x00010000] = "lost path",
	[0x00020000] = "operator initiated termination",
	[0x00030000] = "program initiated termination",
	[0x00040000] = "LLC protocol violation",
	[0x00050000] = "asymmetric link no longer needed",
	[0x00100000] = "unknown link id",
	[0x00200000] = "unknown link group",
}

local LLC_LEN = 44
local V2_MAX_LEN = 8192 -- SMC_WR_BUF_V2_SIZE
local ADD_LINK_PAIRS_OFF = 72

local f = {
	llc_msg = ProtoField.uint8("smcr_v2llc.llc_msg", "LLC Message", base.HEX, V2_TYPES),
	llc_version = ProtoField.uint8("smcr_v2llc.llc_version", "LLC Version", base.DEC, nil, 0xF0),
	llc_type = ProtoField.uint8("smcr_v2llc.llc_type", "LLC Type", base.DEC, LLC_TYPES, 0x0F),
	length = ProtoField.uint16("smcr_v2llc.length", "SMC Length", base.DEC),
	byte_order = ProtoField.uint8("smcr_v2llc.byte_order", "Byte order of the 16-bit fields", base.DEC, ORDERS),
	byte_order_ambiguous = ProtoField.bool("smcr_v2llc.byte_order.ambiguous",
		"Both byte orders read the same (nothing depends on it)"),
	flags = ProtoField.uint8("smcr_v2llc.flags", "Flags", base.HEX),
	response = ProtoField.bool("smcr_v2llc.flags.response", "Response", 8, nil, 0x80),

	cl_no_rmbe_eyec = ProtoField.bool("smcr_v2llc.confirm.link.no_rmbe_eyec", "RMBEs have no eye catcher", 8, nil, 0x03),
	cl_mac = ProtoField.ether("smcr_v2llc.confirm.link.sender.mac", "Sender MAC Address"),
	cl_gid = ProtoField.ipv6("smcr_v2llc.confirm.link.sender.gid", "Sender GID"),
	cl_qpn = ProtoField.uint24("smcr_v2llc.confirm.link.sender.qp.number", "Sender QP Number", base.HEX),
	cl_link = ProtoField.uint8("smcr_v2llc.confirm.link.number", "Link Number", base.HEX),
	cl_uid = ProtoField.uint32("smcr_v2llc.confirm.link.sender.link.userid", "Sender Link User ID", base.HEX),
	cl_max_links = ProtoField.uint8("smcr_v2llc.confirm.link.max.links", "Max Links", base.HEX),
	cl_max_conns = ProtoField.uint8("smcr_v2llc.confirm.link.max.conns", "Max Connections (v2.1)", base.HEX),

	al_rejected = ProtoField.bool("smcr_v2llc.add.link.response.rejected", "Add Link Rejected", 8, nil, 0x40),
	al_mac = ProtoField.ether("smcr_v2llc.add.link.sender.mac", "Sender MAC Address"),
	al_gid = ProtoField.ipv6("smcr_v2llc.add.link.sender.gid", "Sender GID"),
	al_qpn = ProtoField.uint24("smcr_v2llc.add.link.sender.qp.number", "Sender QP Number", base.HEX),
	al_link = ProtoField.uint8("smcr_v2llc.add.link.link.number", "Link Number", base.HEX),
	al_mtu = ProtoField.uint8("smcr_v2llc.add.link.qp.mtu.value", "QP MTU Value", base.DEC, MTUS, 0x0F),
	al_psn = ProtoField.uint24("smcr_v2llc.add.link.initial.psn", "Initial PSN", base.HEX),
	al_direct = ProtoField.bool("smcr_v2llc.add.link.direct_link", "Direct link attachment to peer", 8, nil, 0x80),
	al_target_gid = ProtoField.ipv6("smcr_v2llc.add.link.client_target_gid", "Client Target GID"),
	al_rkey_count = ProtoField.uint16("smcr_v2llc.add.link.rkey_count", "Number of Rkeys", base.DEC),
	al_rkey1 = ProtoField.uint32("smcr_v2llc.add.link.rmb.RTok.Rkey1", "RMB Rkey as known on this SMC Link", base.HEX),
	al_rkey2 = ProtoField.uint32("smcr_v2llc.add.link.rmb.RTok.Rkey2", "Equivalent RMB Rkey for the new SMC Link", base.HEX),
	al_virt = ProtoField.uint64("smcr_v2llc.add.link.rmb.RTok.virt", "RMB Virtual Address for the new SMC Link", base.HEX),

	alc_link = ProtoField.uint8("smcr_v2llc.add.link.cont.link.number", "Link Number", base.HEX),
	alc_count = ProtoField.uint8("smcr_v2llc.add.link.cont.rkey.number", "Number of Rkeys (remaining)", base.HEX),

	dl_all = ProtoField.bool("smcr_v2llc.delete.link.all", "Terminate All Links In The Link Group", 8, nil, 0x40),
	dl_orderly = ProtoField.bool("smcr_v2llc.delete.link.orderly", "Terminate Links Orderly", 8, nil, 0x20),
	dl_link = ProtoField.uint8("smcr_v2llc.delete.link.number", "Link Number", base.HEX),
	dl_reason = ProtoField.uint32("smcr_v2llc.delete.link.reason.code", "Reason Code", base.HEX, DEL_REASONS),

	ral_count = ProtoField.uint8("smcr_v2llc.request.add.link.gid.list.entry_count", "GID List Entry Count", base.DEC),
	ral_gid = ProtoField.ipv6("smcr_v2llc.request.add.link.gid.list.entry", "RoCEv2 GID List Entry"),

	cr_negative = ProtoField.bool("smcr_v2llc.confirm.rkey.negative.response", "Negative Response", 8, nil, 0x20),
	cr_retry = ProtoField.bool("smcr_v2llc.confirm.rkey.retry.rkey.set", "Retry Rkey Set", 8, nil, 0x10),
	cr_number = ProtoField.uint8("smcr_v2llc.confirm.rkey.number.qp", "Number of other QP", base.DEC),
	cr_rkey = ProtoField.uint32("smcr_v2llc.confirm.rkey.new.rkey", "New Rkey", base.HEX),
	cr_virt = ProtoField.uint64("smcr_v2llc.confirm.rkey.new.virt", "New RMB virtual address", base.HEX),
	cr_link = ProtoField.uint8("smcr_v2llc.confirm.rkey.link.number", "Link Number", base.HEX),

	tl_data = ProtoField.bytes("smcr_v2llc.test.link.user_data", "User Data"),

	dr_negative = ProtoField.bool("smcr_v2llc.delete.rkey.negative.response", "Negative Response", 8, nil, 0x20),
	dr_count = ProtoField.uint8("smcr_v2llc.delete.rkey.count", "Rkey Count", base.DEC),
	dr_invalid = ProtoField.uint8("smcr_v2llc.delete.rkey.count.invalid", "Invalid Rkey Count", base.DEC),
	dr_rkey = ProtoField.uint32("smcr_v2llc.delete.rkey.deleted", "RMB Rkey to be deleted", base.HEX),
}
local field_list = {}
for _, v in pairs(f) do field_list[#field_list + 1] = v end
proto.fields = field_list

local ex = {
	length = ProtoExpert.new("smcr_v2llc.length.bad", "Length matches the message in neither byte order",
		expert.group.MALFORMED, expert.severity.ERROR),
	count = ProtoExpert.new("smcr_v2llc.count.bad", "Count does not fit the message length",
		expert.group.MALFORMED, expert.severity.ERROR),
	cut = ProtoExpert.new("smcr_v2llc.cut", "Message cut by the capture's snap length",
		expert.group.UNDECODED, expert.severity.NOTE),
	unhandled = ProtoExpert.new("smcr_v2llc.type.unhandled", "Linux has no v2 receive handler for this type",
		expert.group.PROTOCOL, expert.severity.NOTE),
}
proto.experts = { ex.length, ex.count, ex.cut, ex.unhandled }

proto.prefs.keep_first = Pref.bool("Keep this heuristic first", true,
	"Hand v1 LLC and CDC messages to Wireshark's SMC dissector from here, so that its heuristic never "
	.. "moves ahead of this one and takes big-endian v2 messages")
proto.prefs.claim_bad_lengths = Pref.bool("Show bad lengths on SMC-R QPs", true,
	"Decode (as malformed) a v2 LLC type whose length matches neither byte order, on a QP that already "
	.. "carried an SMC-Rv2 LLC message")

local f_opcode = Field.new("infiniband.bth.opcode")
local f_destqp = Field.new("infiniband.bth.destqp")
local RC_SEND_ONLY = 4

-- QPs that carried a valid v2 LLC message: key -> first frame number (so that re-dissecting
-- a frame gives the same answer).
local smcr_qps = {}
function proto.init() smcr_qps = {} end

local function qp_key(pinfo)
	local qp = f_destqp()
	return tostring(pinfo.dst) .. "/" .. (qp and tostring(qp.value) or "?")
end

-- Items are added through this, which stops at the captured bytes (a snap length may cut
-- a long message) instead of raising an error.
local Msg = {}
Msg.__index = Msg

local function new_msg(tvb, tree, le)
	return setmetatable({ tvb = tvb, tree = tree, le = le, cap = tvb:len(), cut = false }, Msg)
end

function Msg:has(off, len)
	if off + len <= self.cap then return true end
	self.cut = true
	return false
end

function Msg:add(tree, field, off, len)
	if not self:has(off, len) then return nil end
	return tree:add(field, self.tvb(off, len))
end

-- A 16-bit field in the message's byte order.
function Msg:add16(tree, field, off)
	if not self:has(off, 2) then return nil end
	if self.le then return tree:add_le(field, self.tvb(off, 2)) end
	return tree:add(field, self.tvb(off, 2))
end

function Msg:u8(off) return self:has(off, 1) and self.tvb(off, 1):uint() or 0 end
function Msg:u16(off)
	if not self:has(off, 2) then return 0 end
	return self.le and self.tvb(off, 2):le_uint() or self.tvb(off, 2):uint()
end

local function bit_set(v, mask) return math.floor(v / mask) % 2 == 1 end

local function rkey_pairs(m, tree, off, n, first)
	for i = 0, n - 1 do
		local o = off + 16 * i
		if not m:has(o, 16) then return end
		local t = tree:add(m.tvb(o, 16), string.format("RToken pair %d", first + i))
		t:add(f.al_rkey1, m.tvb(o, 4))
		t:add(f.al_rkey2, m.tvb(o + 4, 4))
		t:add(f.al_virt, m.tvb(o + 8, 8))
	end
end

local function rtoken(m, tree, off, label, with_link)
	local len = with_link and 13 or 12
	if not m:has(off, len) then return end
	local t = tree:add(m.tvb(off, len), label)
	if with_link then
		t:add(f.cr_link, m.tvb(off, 1))
		off = off + 1
	end
	t:add(f.cr_rkey, m.tvb(off, 4))
	t:add(f.cr_virt, m.tvb(off + 4, 8))
end

local dissect_type = {}

dissect_type[1] = function(m, tree) -- CONFIRM LINK
	m:add(tree, f.cl_mac, 4, 6)
	m:add(tree, f.cl_gid, 10, 16)
	m:add(tree, f.cl_qpn, 26, 3)
	m:add(tree, f.cl_link, 29, 1)
	m:add(tree, f.cl_uid, 30, 4)
	m:add(tree, f.cl_max_links, 34, 1)
	m:add(tree, f.cl_max_conns, 35, 1)
end

dissect_type[2] = function(m, tree, len, pinfo) -- ADD LINK
	m:add(tree, f.al_mac, 4, 6)
	m:add(tree, f.al_gid, 12, 16)
	m:add(tree, f.al_qpn, 28, 3)
	m:add(tree, f.al_link, 31, 1)
	m:add(tree, f.al_mtu, 32, 1)
	m:add(tree, f.al_psn, 33, 3)
	if len <= LLC_LEN then return end -- rejects and client suggestions have no extension
	if not m:has(LLC_LEN, 1) then return end
	local ext = tree:add(m.tvb(LLC_LEN, math.min(len, m.cap) - LLC_LEN), "SMC-Rv2 extension")
	if len < ADD_LINK_PAIRS_OFF then
		ext:add_proto_expert_info(ex.count, string.format("%d bytes: an extension needs at least %d",
			len, ADD_LINK_PAIRS_OFF))
		return
	end
	m:add(ext, f.al_direct, 44, 1)
	m:add(ext, f.al_target_gid, 46, 16)
	local count_item = m:add16(ext, f.al_rkey_count, 70)
	local n = m:u16(70)
	local room = len - ADD_LINK_PAIRS_OFF
	if n * 16 ~= room and count_item then
		count_item:add_proto_expert_info(ex.count, string.format("%d rkey pairs need %d bytes after offset %d, "
			.. "the message has %d", n, 16 * n, ADD_LINK_PAIRS_OFF, room))
	end
	rkey_pairs(m, ext, ADD_LINK_PAIRS_OFF, math.min(n, math.floor(room / 16)), 1)
end

dissect_type[3] = function(m, tree) -- ADD LINK CONTINUATION (Linux sends it as v1 only)
	m:add(tree, f.alc_link, 4, 1)
	m:add(tree, f.alc_count, 5, 1)
	rkey_pairs(m, tree, 8, math.min(m:u8(5), 2), 1)
end

dissect_type[4] = function(m, tree) -- DELETE LINK
	m:add(tree, f.dl_link, 4, 1)
	m:add(tree, f.dl_reason, 5, 4)
end

dissect_type[5] = function(m, tree, len) -- REQUEST ADD LINK
	local item = m:add(tree, f.ral_count, 24, 1)
	local n = m:u8(24)
	if 28 + 16 * n > len and item then
		item:add_proto_expert_info(ex.count, string.format("%d GIDs need %d bytes, the message has %d",
			n, 28 + 16 * n, len))
	end
	for i = 0, math.min(n, math.floor((len - 28) / 16)) - 1 do
		m:add(tree, f.ral_gid, 28 + 16 * i, 16)
	end
end

dissect_type[6] = function(m, tree) -- CONFIRM RKEY
	m:add(tree, f.cr_number, 4, 1)
	rtoken(m, tree, 5, "Rkey on this link", false)
	for i = 0, math.min(m:u8(4), 2) - 1 do
		rtoken(m, tree, 17 + 13 * i, string.format("Rkey on other link %d", i + 1), true)
	end
end

dissect_type[7] = function(m, tree) -- TEST LINK
	m:add(tree, f.tl_data, 4, 16)
end

dissect_type[8] = function(m, tree) -- CONFIRM RKEY CONTINUATION (Linux sends it as v1 only)
	m:add(tree, f.cr_number, 4, 1)
	for i = 0, math.min(m:u8(4), 3) - 1 do
		rtoken(m, tree, 5 + 13 * i, string.format("Rkey on other link %d", i + 1), true)
	end
end

dissect_type[9] = function(m, tree, len, pinfo, flags) -- DELETE RKEY
	local item = m:add(tree, f.dr_count, 4, 1)
	if bit_set(flags, 0x80) then m:add(tree, f.dr_invalid, 5, 1) end
	local n = m:u8(4)
	-- Linux answers with the requester's count but 44 bytes and the rkeys zeroed
	-- (smc_llc_rmt_delete_rkey): only a request must hold all its rkeys
	if 8 + 4 * n > len and not bit_set(flags, 0x80) and item then
		item:add_proto_expert_info(ex.count, string.format("%d rkeys need %d bytes, the message has %d",
			n, 8 + 4 * n, len))
	end
	for i = 0, math.min(n, math.floor((len - 8) / 4)) - 1 do
		m:add(tree, f.dr_rkey, 8 + 4 * i, 4)
	end
end

local FLAG_FIELDS = {
	[1] = { f.cl_no_rmbe_eyec },
	[2] = { f.al_rejected },
	[4] = { f.dl_all, f.dl_orderly },
	[6] = { f.cr_negative, f.cr_retry },
	[8] = { f.cr_negative, f.cr_retry },
	[9] = { f.dr_negative },
}

-- The byte order in which the message's 16-bit fields make sense, or nil.
-- Returns le (boolean), ambiguous (boolean).
local function byte_order(tvb, len)
	local le_len, be_len = tvb(1, 2):le_uint(), tvb(1, 2):uint()
	local le_ok, be_ok = le_len == len, be_len == len
	if not le_ok and not be_ok then return nil end
	if le_ok and be_ok then
		if tvb(0, 1):uint() == 0x22 and len >= ADD_LINK_PAIRS_OFF and tvb:len() >= ADD_LINK_PAIRS_OFF then
			local room = len - ADD_LINK_PAIRS_OFF
			local fit_le = tvb(70, 2):le_uint() * 16 == room
			local fit_be = tvb(70, 2):uint() * 16 == room
			if fit_le ~= fit_be then return fit_le, false end
		end
		return true, true
	end
	return le_ok, false
end

local function dissect_v2(tvb, pinfo, tree, le, ambiguous)
	local len = tvb:reported_len()
	local raw = tvb(0, 1):uint()
	local t = raw % 16
	local flags = tvb(3, 1):uint()
	local resp = bit_set(flags, 0x80)

	pinfo.cols.protocol = "SMC-Rv2"
	pinfo.cols.info:append("[SMC-Rv2] " .. V2_TYPES[raw] .. (resp and "(Resp)" or ""))

	local root = tree:add(proto, tvb(0, math.min(len, tvb:len())))
	local m = new_msg(tvb, root, le ~= false)
	root:append_text(string.format(", %s%s", V2_TYPES[raw], resp and " (Resp)" or ""))
	local msg = root:add(f.llc_msg, tvb(0, 1))
	msg:add(f.llc_version, tvb(0, 1))
	msg:add(f.llc_type, tvb(0, 1))
	local len_item = m:add16(root, f.length, 1)
	if le == nil then
		len_item:add_proto_expert_info(ex.length, string.format(
			"reads %d little-endian, %d big-endian; the SEND carries %d bytes",
			tvb(1, 2):le_uint(), tvb(1, 2):uint(), len))
	else
		root:add(f.byte_order, le and 0 or 1):set_generated()
		if ambiguous then root:add(f.byte_order_ambiguous, true):set_generated() end
	end
	local fl = root:add(f.flags, tvb(3, 1))
	fl:add(f.response, tvb(3, 1))
	for _, ff in ipairs(FLAG_FIELDS[t] or {}) do fl:add(ff, tvb(3, 1)) end
	if t == 3 or t == 8 then root:add_proto_expert_info(ex.unhandled) end
	if le ~= nil then dissect_type[t](m, root, len, pinfo, flags) end
	if m.cut then root:add_proto_expert_info(ex.cut) end
	return true
end

local function is_v2_llc_type(b) return V2_TYPES[b] ~= nil end

-- What Wireshark's SMC heuristic takes (packet-smc.c, v1 check): 44 bytes, byte 1 = 44,
-- type 0x01..0x09 or 0xFE (CDC).
local function is_smc_v1(tvb)
	if tvb:reported_len() ~= LLC_LEN or tvb:len() < 2 then return false end
	local b0 = tvb(0, 1):uint()
	return tvb(1, 1):uint() == LLC_LEN and ((b0 >= 1 and b0 <= 9) or b0 == 0xFE)
end

local stepping_aside, probing = false, false

-- Hand the packet to the heuristic list (Wireshark's SMC dissector takes it), then match a
-- one-byte probe so that this heuristic is the first of the list again.
local function delegate(tvb, pinfo, tree)
	stepping_aside = true
	local ok, taken = pcall(DissectorTable.try_heuristics, "infiniband.payload", tvb, pinfo, tree)
	stepping_aside = false
	probing = true
	local ok2, err2 = pcall(DissectorTable.try_heuristics, "infiniband.payload", tvb(0, 1):tvb(), pinfo, tree)
	probing = false
	if not ok then error(taken) end
	if not ok2 then error(err2) end
	return taken
end

local function heuristic(tvb, pinfo, tree)
	if probing then return true end
	if stepping_aside then return false end
	local len = tvb:reported_len()
	if len < 2 or tvb:len() < 2 then return false end
	if proto.prefs.keep_first and is_smc_v1(tvb) then return delegate(tvb, pinfo, tree) end
	-- the opcode is only there when a tree is built (not in the first pass of tshark -2,
	-- for one): without it the other checks alone decide
	local op = f_opcode()
	if op and op.value ~= RC_SEND_ONLY then return false end
	if len < LLC_LEN or len > V2_MAX_LEN or tvb:len() < 4 or not is_v2_llc_type(tvb(0, 1):uint()) then
		return false
	end
	local le, ambiguous = byte_order(tvb, len)
	local key = qp_key(pinfo)
	if le == nil then
		local first = smcr_qps[key]
		if not (proto.prefs.claim_bad_lengths and first and first < pinfo.number) then return false end
		return dissect_v2(tvb, pinfo, tree, nil, false)
	end
	if not smcr_qps[key] or smcr_qps[key] > pinfo.number then smcr_qps[key] = pinfo.number end
	return dissect_v2(tvb, pinfo, tree, le, ambiguous)
end

proto:register_heuristic("infiniband.payload", heuristic)
