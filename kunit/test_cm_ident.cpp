// SPDX-License-Identifier: GPL-2.0
// test_cm_ident.cpp - the identity proof of a bidirectional passive connection
// (docs/security.md): the probe/echo message (ipoib_cm_wire.cpp), the proof's timers and
// nonce check (IdProof), when an unproven connection holds xmit's own connect back
// (cm_proof_holds) and which connections may become a send path (cm_publishable).
#include "ktest.h"
#include "core/cm/ipoib_cm_send.h"
#include "core/cm/ipoib_cm_wire.h"
#include "kstd/new.h"

namespace ktest_cm_ident {

using namespace ipoib::cm;
using ipoib::IdProof;
using ipoib::cm_echo_verdict;
using ipoib::cm_proof_holds;
using ipoib::EchoVerdict;
using ipoib::cm_proof_start;
using ipoib::kCmProofHoldEveryMs;
using ipoib::ProofStart;
using ipoib::cm_publishable;
using ipoib::kCmProbeEveryMs;
using ipoib::kCmProbeMax;
using ipoib::kCmProofMs;
using kstd::u32;
using kstd::u64;
using kstd::u8;
using kstd::usize;

IdentMsg sample()
{
	IdentMsg m;
	m.type = IdentType::Probe;
	m.nonce = 0x0123456789abcdefull;
	m.qpn = 0x00a1b2;
	for (usize i = 0; i < 16; i++)
		m.gid[i] = u8(0xf0 + i);
	return m;
}

KTEST(cm_ident_msg, round_trip_and_layout)
{
	u8 b[kIdentLen];
	ident_encode(b, sample());
	const u8 head[20] = {'I', 'P', 'C', 'M', 1, 1, 0, 0, 0x01, 0x23, 0x45, 0x67,
			     0x89, 0xab, 0xcd, 0xef, 0x00, 0x00, 0xa1, 0xb2};
	for (usize i = 0; i < sizeof(head); i++)
		EXPECT_EQ(b[i], head[i]);
	EXPECT_EQ(b[20], 0xf0u);
	EXPECT_EQ(b[35], 0xffu);
	IdentMsg m;
	ASSERT_TRUE(ident_parse(b, sizeof(b), m));
	EXPECT_TRUE(m.type == IdentType::Probe);
	EXPECT_EQ(m.nonce, 0x0123456789abcdefull);
	EXPECT_EQ(m.qpn, 0x00a1b2u);
	EXPECT_EQ(m.gid[15], 0xffu);
	IdentMsg e = sample();
	e.type = IdentType::Echo;
	e.qpn = 0x12345678;	// masked to 24 bits on send
	ident_encode(b, e);
	EXPECT_EQ(b[16], 0u);
	ASSERT_TRUE(ident_parse(b, sizeof(b), m));
	EXPECT_TRUE(m.type == IdentType::Echo);
	EXPECT_EQ(m.qpn, 0x345678u);
}

KTEST(cm_ident_msg, malformed_refused)
{
	u8 b[kIdentLen + 4] = {};
	IdentMsg m;
	EXPECT_FALSE(ident_parse(nullptr, 0, m));
	ident_encode(b, sample());
	for (usize n = 0; n < kIdentLen; n++)
		EXPECT_FALSE(ident_parse(b, n, m));	// every truncation
	EXPECT_TRUE(ident_parse(b, kIdentLen + 4, m));	// a later version's trailing fields
	u8 c[kIdentLen];
	for (usize i = 0; i < kIdentLen; i++)
		c[i] = b[i];
	c[0] ^= 1;	// magic
	EXPECT_FALSE(ident_parse(c, sizeof(c), m));
	c[0] ^= 1;
	c[4] = 0;	// version 0
	EXPECT_FALSE(ident_parse(c, sizeof(c), m));
	c[4] = 7;	// a later version reads as this one
	EXPECT_TRUE(ident_parse(c, sizeof(c), m));
	const u8 types[] = {0, 3, 0xff};	// unknown types
	for (u8 t : types) {
		c[5] = t;
		EXPECT_FALSE(ident_parse(c, sizeof(c), m));
	}
	c[5] = 2;
	c[17] = c[18] = 0;
	for (u8 q = 0; q < 2; q++) {	// QP0 / QP1 are no connection
		c[19] = q;
		EXPECT_FALSE(ident_parse(c, sizeof(c), m));
	}
	c[19] = 2;
	EXPECT_TRUE(ident_parse(c, sizeof(c), m));
}

// A million random and mutated buffers: never a read past len (ASan on the host), and a
// message accepted only with the magic, a known type and a usable QPN.
KTEST(cm_ident_msg, fuzz)
{
	u64 x = 0x9e3779b97f4a7c15ull;
	auto rnd = [&x]() {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	u8 valid[kIdentLen];
	ident_encode(valid, sample());
	u32 accepted = 0;
	// 20,000 here, where the case also runs in the KASAN debug kernel under TCG (a million took
	// over 300 s there); the host-only suite `fuzz` gives ident_parse a million under ASan.
	for (u32 i = 0; i < 20000; i++) {
		const usize len = usize(rnd() % (kIdentLen + 8));
		u8 *b = new (kstd::Gfp::Kernel) u8[len ? len : 1];
		ASSERT_TRUE(b != nullptr);
		const bool mutate = i & 1;
		for (usize k = 0; k < len; k++)
			b[k] = mutate && k < kIdentLen ? valid[k] : u8(rnd());
		if (mutate && len)
			b[rnd() % len] ^= u8(1u << (rnd() % 8));
		IdentMsg m;
		if (ident_parse(b, len, m)) {
			accepted++;
			EXPECT_TRUE(len >= kIdentLen);
			EXPECT_TRUE(b[0] == 'I' && b[1] == 'P' && b[2] == 'C' && b[3] == 'M');
			EXPECT_TRUE(m.type == IdentType::Probe || m.type == IdentType::Echo);
			EXPECT_TRUE(m.qpn > 1 && m.qpn <= 0xffffff);
		}
		delete[] b;
	}
	EXPECT_TRUE(accepted > 0);	// the mutated half keeps many valid
}

KTEST(cm_ident_proof, echo_of_the_probe_nonce_proves)
{
	IdProof p;
	EXPECT_FALSE(p.open());
	EXPECT_TRUE(p.echo(5) == IdProof::Echo::NoProbe);
	p.begin(cm_proof_start(p, 0, 1000));
	EXPECT_TRUE(p.open());
	EXPECT_EQ(p.until, 1000 + u64(kCmProofMs));
	EXPECT_TRUE(p.echo(5) == IdProof::Echo::NoProbe);	// before the probe: nothing to match
	EXPECT_FALSE(p.probe_due(1500));			// no probe sent yet
	p.probe(1100, 0xfeed);
	EXPECT_TRUE(p.echo(0xfeee) == IdProof::Echo::Mismatch);
	EXPECT_TRUE(p.open());	// a wrong nonce does not fail the proof
	EXPECT_TRUE(p.echo(0xfeed) == IdProof::Echo::Match);
	p.close();
	EXPECT_FALSE(p.open());
	EXPECT_TRUE(p.echo(0xfeed) == IdProof::Echo::NoProbe);
	p.begin(cm_proof_start(p, 0, 0));
	p.probe(0, 0);	// a zero nonce is never "no probe"
	EXPECT_TRUE(p.nonce != 0);
}

KTEST(cm_ident_proof, probes_resent_then_deadline)
{
	IdProof p;
	p.begin(cm_proof_start(p, 0, 0));
	p.probe(10, 77);
	EXPECT_FALSE(p.probe_due(10 + kCmProbeEveryMs - 1));
	u32 sends = 1;
	for (u64 t = 10; t < kCmProofMs; t += 100) {
		if (p.probe_due(t)) {
			p.probed(t);
			sends++;
		}
	}
	EXPECT_EQ(sends, u32(kCmProbeMax));
	EXPECT_FALSE(p.expired(kCmProofMs - 1));
	EXPECT_TRUE(p.expired(kCmProofMs));
	EXPECT_FALSE(p.probe_due(kCmProofMs + 5000));
}

KTEST(cm_ident_proof, holds_xmit_only_while_open)
{
	IdProof p;
	EXPECT_FALSE(cm_proof_holds(true, p, 0));	// no proof
	p.begin(cm_proof_start(p, 0, 100));
	EXPECT_TRUE(cm_proof_holds(true, p, 100));
	EXPECT_FALSE(cm_proof_holds(false, p, 100));	// the connection is in teardown
	EXPECT_FALSE(cm_proof_holds(true, p, 100 + kCmProofMs));	// past its deadline
	// after a proof, a new unproven connection does not hold us back in the same window
	p.begin(cm_proof_start(p, 100 + kCmProofHoldEveryMs, 100 + kCmProofMs));
	EXPECT_FALSE(cm_proof_holds(true, p, 200 + kCmProofMs));
}

// A forger that sends a new REQ under the same identity while a proof runs must not keep
// the proof (and the hold on our own connect) open for ever: the first deadline stands.
KTEST(cm_ident_proof, superseding_req_keeps_the_deadline)
{
	IdProof p;
	u64 hold_next = 0;
	ProofStart s = cm_proof_start(p, hold_next, 1000);
	EXPECT_EQ(s.until, 1000 + u64(kCmProofMs));
	EXPECT_EQ(s.hold_until, s.until);	// the first proof holds xmit back
	EXPECT_EQ(s.hold_next, 1000 + u64(kCmProofHoldEveryMs));
	p.begin(s);
	hold_next = s.hold_next;
	p.probe(1010, 0x77);
	const u64 first = p.until;
	for (u64 t = 1500; t < first; t += 500) {	// a new REQ every 500 ms
		s = cm_proof_start(p, hold_next, t);
		p.begin(s);
		hold_next = s.hold_next;
		EXPECT_EQ(p.until, first);
		EXPECT_EQ(p.nonce, 0u);	// the new connection gets its own probe
		EXPECT_TRUE(cm_proof_holds(true, p, t));
	}
	EXPECT_TRUE(p.expired(first));
	EXPECT_FALSE(cm_proof_holds(true, p, first));
}

// The hold a proof puts on xmit's own connect: one per kCmProofHoldEveryMs per peer, however
// the proofs end (deadline, or the forger's connection torn down before it).
KTEST(cm_ident_proof, one_hold_per_window)
{
	IdProof p;
	ProofStart s = cm_proof_start(p, 0, 0);
	p.begin(s);
	u64 hold_next = s.hold_next;
	p.close();	// torn down at once (the forger's DREQ): no failure recorded
	s = cm_proof_start(p, hold_next, 100);
	p.begin(s);
	EXPECT_EQ(p.until, 100 + u64(kCmProofMs));	// a proof all the same
	EXPECT_FALSE(cm_proof_holds(true, p, 100));	// but no hold
	EXPECT_EQ(s.hold_next, hold_next);
	s = cm_proof_start(p, hold_next, 100 + kCmProofMs);	// the deadline passed: a new proof
	p.begin(s);
	EXPECT_EQ(p.until, 100 + 2 * u64(kCmProofMs));
	EXPECT_FALSE(cm_proof_holds(true, p, 100 + kCmProofMs));
	p.close();
	s = cm_proof_start(p, hold_next, kCmProofHoldEveryMs);	// the next window
	p.begin(s);
	EXPECT_TRUE(cm_proof_holds(true, p, kCmProofHoldEveryMs));
	EXPECT_EQ(s.hold_next, 2 * u64(kCmProofHoldEveryMs));
}

// An echo proves only the live connection under proof of an open interface; one that
// arrives while that connection or the interface is stopping proves nothing (it would make
// a connection in teardown the peer's and close the ones it replaces) and is counted.
KTEST(cm_ident_proof, echo_while_stopping_proves_nothing)
{
	using E = IdProof::Echo;
	EXPECT_TRUE(cm_echo_verdict(true, true, true, E::Match) == EchoVerdict::Proves);
	EXPECT_TRUE(cm_echo_verdict(true, false, true, E::Match) == EchoVerdict::Stopping);
	EXPECT_TRUE(cm_echo_verdict(false, true, true, E::Match) == EchoVerdict::Stopping);
	EXPECT_TRUE(cm_echo_verdict(false, false, false, E::Match) == EchoVerdict::Stopping);
	EXPECT_TRUE(cm_echo_verdict(true, true, false, E::Match) == EchoVerdict::Unexpected);
	EXPECT_TRUE(cm_echo_verdict(true, true, true, E::NoProbe) == EchoVerdict::Unexpected);
	EXPECT_TRUE(cm_echo_verdict(true, true, true, E::Mismatch) == EchoVerdict::Mismatch);
	EXPECT_TRUE(cm_echo_verdict(true, false, true, E::Mismatch) == EchoVerdict::Stopping);
}

KTEST(cm_ident_proof, only_ours_or_the_filed_passive_publish)
{
	int active = 0, proven = 0, unproven = 0;
	EXPECT_TRUE(cm_publishable(&active, true, &proven));
	EXPECT_TRUE(cm_publishable(&proven, false, &proven));
	EXPECT_FALSE(cm_publishable(&unproven, false, &proven));
	EXPECT_FALSE(cm_publishable(&unproven, false, static_cast<int *>(nullptr)));
}

KTEST_SUITE(cm_ident_msg, KTEST_CASE(cm_ident_msg, round_trip_and_layout), KTEST_CASE(cm_ident_msg, malformed_refused),
	    KTEST_CASE(cm_ident_msg, fuzz));
KTEST_SUITE(cm_ident_proof, KTEST_CASE(cm_ident_proof, echo_of_the_probe_nonce_proves),
	    KTEST_CASE(cm_ident_proof, probes_resent_then_deadline),
	    KTEST_CASE(cm_ident_proof, holds_xmit_only_while_open),
	    KTEST_CASE(cm_ident_proof, superseding_req_keeps_the_deadline),
	    KTEST_CASE(cm_ident_proof, one_hold_per_window),
	    KTEST_CASE(cm_ident_proof, echo_while_stopping_proves_nothing),
	    KTEST_CASE(cm_ident_proof, only_ours_or_the_filed_passive_publish));

} // namespace ktest_cm_ident
