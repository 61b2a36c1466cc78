// SPDX-License-Identifier: GPL-2.0
// ipoib_cm_wire.h - connected-mode wire logic as pure functions (no kernel calls,
// host-compilable, for KUnit): RFC 4755 §6 private data, the project's capability block
// after it (docs/design.md §4 item 5), service IDs (RFC 4755 §3.5 and the Linux value), the
// connection MTU (RFC 4755 §5.1) and crossing-REQ arbitration (RFC 4755 §3.3).
// Linked into the KUnit module only until the CM implementation calls it.
#pragma once

#include "core/ipoib_addr.h"	// kEncapLen, kHwAddrLen (header-only use: ipoib_addr.cpp is not needed)

namespace ipoib::cm {

using kstd::u8;
using kstd::u16;
using kstd::u32;
using kstd::u64;
using kstd::usize;

// ---- RFC 4755 §6 private data: Reserved(8) | UD QPN(24), Receive MTU(32), big-endian.
inline constexpr usize kPrivDataLen = 8;
inline constexpr u32 kMaxCmMtu = 65520;			// the largest IPoIB-CM MTU we (and Linux) use
inline constexpr u32 kMaxRecvMtu = kMaxCmMtu + u32(kEncapLen);	// 65524, what Linux advertises
// Smallest Receive MTU accepted: the IPv6 minimum link MTU (RFC 8200 §5, 1280) plus the
// encapsulation header. RFC 4755 §5 lets one connection carry IPv6, and §5.1 makes the
// smaller Receive MTU binding for both directions, so a smaller value would give a
// connection IPv6 cannot use: such a peer is refused CM and reached over UD instead.
inline constexpr u32 kMinRecvMtu = 1280 + u32(kEncapLen);

struct PrivData {
	u32 ud_qpn = 0;		// the sender's UD QPN (24 bits)
	u32 recv_mtu = 0;	// the sender's Receive MTU, encapsulation header included
};

// Writes the 8 octets; the reserved octet is 0 and the QPN is masked to 24 bits (§6).
void priv_data_encode(u8 out[kPrivDataLen], const PrivData &pd);

enum class PrivDataResult {
	Ok,		// out is valid (recv_mtu clamped to kMaxRecvMtu when larger)
	Short,		// fewer than 8 octets (e.g. a REJ from ib_cm itself or from Linux)
	BadQpn,		// QPN 0, 1 (special QPs) or 0xFFFFFF (multicast) is not a UD QPN
	MtuTooSmall,	// below kMinRecvMtu
};
// Parses the first 8 octets of a buffer of any length (p may be NULL when len is 0).
// The reserved octet is ignored on receive (§6). A Receive MTU above kMaxRecvMtu is
// clamped: it only says the peer accepts more than we ever send (§5.1: the smaller wins).
PrivDataResult priv_data_parse(const u8 *p, usize len, PrivData &out);

// A QPN usable as a UD QPN: 24 bits, not QP0/QP1 (IBA special QPs), not the multicast QPN.
bool is_ud_qpn(u32 qpn);

// ---- Capability block, right after the 8 RFC octets (docs/design.md §4 item 5):
// magic(32) "IPCM" | version(8) | reserved(8) | flags(16), big-endian. Peers that do not
// know it ignore trailing private data; a later version may only append fields and define
// new flag bits, so any version >= 1 is read as version 1 and unknown bits are dropped.
inline constexpr usize kCapLen = 8;
inline constexpr usize kCmPrivDataLen = kPrivDataLen + kCapLen;	// fits REQ/REP/REJ (92/196/148)
inline constexpr u32 kCapMagic = 0x4950434d;	// "IPCM"
inline constexpr u8 kCapVersion = 1;
inline constexpr u16 kCapBidir = 0x0001;	// receives on every QP, may send over accepted connections
// "Send me TCP/UDP without the L4 checksum" (docs/connected.md §9b): the announcer restores
// CHECKSUM_PARTIAL from the headers of a packet marked kEncapCsumMark. Used on a connection
// only when both ends announce it (csum_free_allowed).
inline constexpr u16 kCapCsumFree = 0x0002;
inline constexpr u16 kCapKnown = kCapBidir | kCapCsumFree;

struct Caps {
	bool present = false;	// a valid block was found
	u8 version = 0;		// as received (may exceed kCapVersion)
	u16 flags = 0;		// known bits only
};

// Writes the RFC octets and the capability block (kCmPrivDataLen octets).
void cm_priv_data_encode(u8 out[kCmPrivDataLen], const PrivData &pd, u16 cap_flags);
// Reads the block from a whole private-data buffer (starting at the RFC octets). Absent,
// truncated, wrong magic or version 0 give present = false, flags = 0; never fails.
Caps caps_parse(const u8 *p, usize len);
// One connection carries both directions only when both sides advertise kCapBidir.
bool bidirectional_allowed(const Caps &local, const Caps &peer);
// A connection carries packets without their L4 checksum only when both sides announce
// kCapCsumFree: a peer that does not (Linux, cm_csum_free=0) would take the unfilled
// checksum for a corrupt packet, or worse, pass the mark on as RFC 4391 §6 junk.
bool csum_free_allowed(const Caps &local, const Caps &peer);

// ---- The checksum mark: RFC 4391 §6 leaves octets 2-3 of the encapsulation header
// reserved (0 on send, ignored on receive). Towards a peer that negotiated kCapCsumFree we
// write kEncapCsumMark there for a CHECKSUM_PARTIAL TCP/UDP packet whose checksum field
// holds only the pseudo-header sum. The whole 16-bit field must equal the mark: any other
// value is the RFC's reserved field and means nothing.
inline constexpr u16 kEncapCsumMark = 0x4353;	// "CS"
void encap_mark_csum(u8 hdr[kEncapLen]);
bool encap_csum_marked(const u8 hdr[kEncapLen]);
// What a receive does with a packet's checksum state.
enum class RxCsum {
	Verify,		// no mark: the stack verifies the checksum as for any packet
	Restore,	// marked on a negotiated connection: restore CHECKSUM_PARTIAL
	// marked on a connection (or UD) that did not negotiate it: RFC 4391 §6 says ignore
	// the reserved bits, so the packet goes up as Verify would send it (the stack checks
	// its checksum and drops it if unfilled, in its own TcpInCsumErrors/UdpInCsumErrors);
	// counted, as no peer of ours sends it.
	UnexpectedMark,
};
RxCsum rx_csum(const u8 hdr[kEncapLen], bool negotiated);
// The send side: a CHECKSUM_PARTIAL packet is left unfilled (and marked) only towards a
// negotiated peer and only when its checksum field is the one the receiver's
// skb_checksum_setup restores: csum_start is the transport header right after the IPv4
// header (options included; not a fragment) or the fixed IPv6 header, the protocol there is
// TCP with the field at offset 16 or UDP at offset 6 (decided on the offset alone, a
// tunnel's partial inner checksum would be marked and the receiver "restore" the outer
// one). Anything else is checksummed before posting. pkt: the packet from its encapsulation
// header, headlen octets of it readable; csum_start: from pkt.
enum class TxCsum { AsIs, Mark, Fill };
TxCsum tx_csum(bool partial, u32 csum_start, u16 csum_offset, const u8 *pkt, u32 headlen, bool negotiated);
inline constexpr u16 kTcpCsumOffset = 16;	// RFC 9293 §3.1
inline constexpr u16 kUdpCsumOffset = 6;	// RFC 768
// Octets 2-3 as sent (RFC 4391 §6: reserved, zero on send): the mark for Mark, zero for AsIs
// and Fill, whatever the sender wrote there (a raw socket cannot forge the mark).
void encap_set_csum(u8 hdr[kEncapLen], TxCsum how);

// ---- Service IDs.
inline constexpr u64 kSidLinux = 0x1000000000000000ull;	// Linux, FreeBSD, WinOFED (ipoib_cm.c:61)
inline constexpr u64 kSidRfc = 0x0100000000000000ull;	// RFC 4755 §3.5: 0x01|Type 0|0(24)|QPN(24)
enum class SidKind { Linux, Rfc };
inline constexpr usize kConnectAttempts = 2;

u64 service_id(SidKind kind, u32 ud_qpn);
// The service ID of connect attempt n (0: Linux value, 1: RFC value; docs/design.md §4 item 4,
// as illumos does); false when n >= kConnectAttempts or the QPN is not a UD QPN.
bool connect_service_id(usize attempt, u32 ud_qpn, u64 &sid);
// Recognises an incoming service ID: one of the two prefixes, the 32 bits between prefix and
// QPN zero (§3.5 Type and Reserved), a UD QPN in the low 24 bits.
bool service_id_parse(u64 sid, SidKind &kind, u32 &ud_qpn);

// ---- RFC 4755 §5.1: both peers use the smaller Receive MTU; the IPoIB MTU is that minus the
// 4-octet encapsulation header. 0 when either value cannot carry a packet.
u32 connection_mtu(u32 local_recv_mtu, u32 peer_recv_mtu);

// ---- RFC 4755 §3.3 crossing REQs: compare the two 20-octet link addresses with the flag bits
// zeroed (octet 0), most significant octet first. If the local address is numerically smaller,
// the remote REQ is accepted (it survives); otherwise it is rejected ("Consumer Reject") and the
// local REQ survives. Applied only between bidirectional-capable peers (docs/protocol.md §5 item 6).
enum class Survivor { Local, Remote };
Survivor crossing_req_survivor(const u8 local[kHwAddrLen], const u8 remote[kHwAddrLen]);

// ---- Identity proof of a passive connection (docs/security.md "Who may carry our traffic").
// A bidirectional passive connection carries our packets only once its peer proved that it
// receives at the address its REQ claimed: we send a probe over UD to that address (through
// our own SA path record for the GID), and the genuine peer echoes the probe's nonce over its
// own connection whose remote QPN is the one the probe names, i.e. over the connection under
// proof. Both travel with the ethertype below (IEEE 802 Local Experimental Ethertype 1),
// consumed by the driver's receive paths, never delivered to the stack. Only a peer that
// announced kCapBidir is sent a probe.
// Message: magic(32) "IPCM" | version(8) | type(8) | reserved(16) | nonce(64) |
// reserved(8) QPN(24) | GID(128), big-endian, 36 octets after the encapsulation header.
inline constexpr u16 kIdentEthertype = 0x88b5;
inline constexpr usize kIdentLen = 36;
enum class IdentType : u8 {
	Probe = 1,	// verifier -> claimed address, UD: qpn = the verifier's connection under
			// proof, gid = the verifier's port GID (the prover finds its peer entry by it)
	Echo = 2,	// prover -> verifier over the connection under proof: qpn as in the probe
};
struct IdentMsg {
	IdentType type = IdentType::Probe;
	u64 nonce = 0;
	u32 qpn = 0;
	u8 gid[16] = {};
};
void ident_encode(u8 out[kIdentLen], const IdentMsg &m);
// False for anything shorter than kIdentLen, another magic, version 0, an unknown type, a QPN
// outside 24 bits or 0/1; trailing octets (a later version's fields) are ignored.
bool ident_parse(const u8 *p, usize len, IdentMsg &out);

// ---- REJs by reason (IBA 12.6.7.2 "REJ reason codes"; docs/connected.md §6): the codes connected
// mode meets each get a counter of their own, sent and received, the rest one "other". 1 No
// QP, 2 No EEC, 3 No Resources (Linux's and ib_cm's own refusals), 5 Unsupported request and
// 26 Invalid MTU (bad private data), 8 Invalid Service ID (the RFC service-ID retry), 28
// Consumer Reject (RFC 4755 §3.3 crossings, and Linux's refusals).
enum class RejCode : u8 { NoQp, NoEec, NoResources, Unsupported, InvalidServiceId, InvalidMtu, Consumer, Other };
inline constexpr usize kRejCodeCount = 8;
RejCode rej_code(u32 reason);

} // namespace ipoib::cm
