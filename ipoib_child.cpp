// SPDX-License-Identifier: GPL-2.0
// ipoib_child.cpp - P_Key child interfaces (RFC 4391 §4: one IPoIB link per P_Key): a Port's
// list of children made through sysfs create_child or `ip link add ... type ipoib`, each a
// full Interface with its own QP, CQs, rings, groups and paths on the parent's port, and the
// child side of Interface: finding its P_Key in the port's table (IBA 10.9.2).
//
// Semantics follow the in-tree driver: create_child takes a P_Key ("%i" syntax), ORs in the
// full-member bit, names the child <parent>.<pkey as written, 4 hex digits>, refuses the
// invalid P_Key (-EINVAL) and a second sysfs child with the same P_Key or the parent's
// (-ENOTUNIQ); delete_child removes only sysfs children (-ENODEV if none has the P_Key).
// Netlink children may share a P_Key; without IFLA_IPOIB_PKEY they take the parent's.
// Differences: duplicates and deletion compare P_Keys with the full-member bit set (in-tree
// compares the value as written with the stored one, so "1" and "0x8001" never match), and a
// sysfs child is created in its parent's network namespace (in-tree: always init_net).
//
// Every entry point runs with rtnl held (sysfs stores take it with trylock, see kapi/link.c),
// so children are registered/unregistered with register_netdevice/unregister_netdevice and
// a deletion tears the child down synchronously; Port::teardown runs without rtnl.
#include "ipoib_device.h"

namespace ipoib {

// ---- Interface: the child's P_Key in the port's table ----

// True when pkey_ is in the table; moves a waiting QP to RTS with its index (a UD QP's P_Key
// index is fixed at INIT). Logs only on changes, so port events do not repeat lines.
bool Interface::pkey_check()
{
	u16 index = 0;
	if (kapi_ib_find_pkey(ib_, port_, pkey_, &index) != 0) {
		if (pkey_ok_ && qp_.ready())
			log_.warn("P_Key 0x%04x left the port's P_Key table: carrier off until it is back", pkey_);
		return false;
	}
	if (!qp_.ready()) {
		Status s = qp_.to_rts(port_, index);
		if (!kstd::ok(s)) {
			log_.warn("cannot bring up the UD QP with P_Key index %u: %d", index, kstd::to_errno(s));
			return false;
		}
		pkey_index_ = index;
		if (registered_)
			log_.info("P_Key 0x%04x is now in the port's table (index %u)", pkey_, index);
	} else if (!pkey_ok_) {
		log_.info("P_Key 0x%04x is back in the port's table", pkey_);
	}
	if (index != pkey_index_) {
		// The QP keeps the index it was initialised with, which now holds another P_Key (or
		// none): report the link down rather than send on the wrong partition.
		if (pkey_ok_)
			log_.warn("P_Key 0x%04x moved from index %u to %u: carrier off; recreate the child to follow it",
				  pkey_, pkey_index_, index);
		return false;
	}
	return true;
}

// ---- Port: the list of children ----

Status Port::add_child(u16 pkey, bool legacy, const char *name, kapi_netdev *adopt, Interface *&out)
{
	Interface &parent = *if_;
	kstd::MutexGuard g(children_lock_);
	if (dying_) {
		parent.log().warn("cannot add a child with P_Key 0x%04x: the port is going away", pkey);
		return Status::NoDevice;
	}
	if (legacy) {
		// create_child names children by P_Key and delete_child finds them by it.
		bool dup = pkey == parent.pkey();
		for (Child &c : children_)
			dup = dup || (c.legacy && c.pkey == pkey);
		if (dup) {
			parent.log().warn("create_child: P_Key 0x%04x is already used by %s", pkey,
					  pkey == parent.pkey() ? "this interface" : "a child");
			return Status::NotUnique;
		}
	}
	auto c = kstd::make_unique<Child>(Gfp::Kernel);
	auto ifc = kstd::make_unique<Interface>(Gfp::Kernel, dev_.ib(), num_);
	if (!c.ok() || !ifc.ok()) {
		parent.log().warn("cannot allocate a child with P_Key 0x%04x", pkey);
		return Status::NoMem;
	}
	IfConfig ic{name, cfg_.send_queue_size, cfg_.recv_queue_size};
	ic.pkey = pkey;
	ic.owner = this;
	ic.parent = parent.netdev();
	ic.adopt = adopt;
	ic.rtnl_held = true;
	Status s = ifc.value()->start(ic);
	if (!kstd::ok(s)) {
		ifc.value()->teardown(true);
		parent.log().warn("cannot create the child with P_Key 0x%04x: error %d", pkey, kstd::to_errno(s));
		return s;
	}
	Child *child = c.take().release();
	child->ifc = ifc.take();
	child->pkey = pkey;
	child->legacy = legacy;
	children_.push_back(*child);
	out = child->ifc.get();
	parent.log().info("created child %s (P_Key 0x%04x, %s)", out->name(), pkey, legacy ? "create_child" : "rtnl");
	return Status::Ok;
}

void Port::destroy_child(Child *c, bool rtnl_held)
{
	char name[KAPI_IFNAMSIZ] = {};
	StrView(c->ifc->name()).copy_to(name, sizeof(name));
	c->ifc->teardown(rtnl_held);
	if_->log().info("deleted child %s (P_Key 0x%04x)", name, c->pkey);
	delete c;
}

// Unbind/rmmod: children go before the parent's interface. New children are refused from
// here on; a concurrent dellink finds nothing to do (we own the child now) and our
// unregister_netdev waits for its rtnl section to end.
void Port::teardown_children()
{
	kstd::List<Child> doomed;
	{
		kstd::MutexGuard g(children_lock_);
		dying_ = true;
		while (Child *c = children_.pop_front())
			doomed.push_back(*c);
	}
	while (Child *c = doomed.pop_front())
		destroy_child(c, false);
}

Status Port::sysfs_child(bool create, StrView value)
{
	Interface &parent = *if_;
	const char *what = create ? "create_child" : "delete_child";
	u16 raw = 0;
	ParseError err;
	if (!kstd::ok(parse_child_pkey(value, create ? PkeyUse::Create : PkeyUse::Delete, raw, err))) {
		// The value is user input of unknown length: quote at most 16 bytes of it.
		StrView shown = value.substr(0, 16);
		while (!shown.empty() && (shown[shown.size() - 1] == '\n'))
			shown = shown.substr(0, shown.size() - 1);
		parent.log().warn("%s: invalid P_Key \"%.*s\": %s", what, int(shown.size()), shown.data(), err.what);
		return Status::Invalid;
	}
	const u16 pkey = pkey_full(raw);
	if (create) {
		char name[KAPI_IFNAMSIZ];
		if (!format_child_name(StrView(parent.name()), raw, name, sizeof(name)))
			return Status::Invalid;	// cannot happen: the buffer is IFNAMSIZ
		Interface *ifc = nullptr;
		return add_child(pkey, true, name, nullptr, ifc);
	}
	Child *victim = nullptr;
	{
		kstd::MutexGuard g(children_lock_);
		for (Child &c : children_)
			if (c.legacy && c.pkey == pkey) {
				victim = &c;
				break;
			}
		if (victim)
			children_.remove(*victim);
	}
	if (!victim) {
		parent.log().warn("delete_child: no child made by create_child has P_Key 0x%04x", pkey);
		return Status::NoDevice;
	}
	destroy_child(victim, true);
	return Status::Ok;
}

Status Port::newlink(kapi_netdev *dev, bool parent_is_child, const LinkArgs &args)
{
	Interface &parent = *if_;
	if (parent_is_child) {
		parent.log().warn("ip link add %s: a P_Key child cannot have children", kapi_netdev_name(dev));
		return Status::Invalid;
	}
	ParseError err;
	if (!kstd::ok(validate_link_args(args, err))) {
		parent.log().warn("ip link add %s type ipoib: %s", kapi_netdev_name(dev), err.what);
		return Status::Invalid;
	}
	const u16 pkey = pkey_full(args.has_pkey ? args.pkey : parent.pkey());
	Interface *ifc = nullptr;
	KSTD_TRY(add_child(pkey, false, nullptr, dev, ifc));
	if (args.has_umcast)
		ifc->set_umcast(args.umcast != 0);
	if (args.has_mode)	// registered by now, rtnl held: as `ip link set type ipoib mode`
		ifc->apply_mode(args.mode == kLinkModeConnected);
	return Status::Ok;
}

void Port::dellink(Interface *ifc)
{
	Child *victim = nullptr;
	{
		kstd::MutexGuard g(children_lock_);
		for (Child &c : children_)
			if (c.ifc.get() == ifc) {
				victim = &c;
				break;
			}
		if (victim)
			children_.remove(*victim);
	}
	// Not listed: Port::teardown owns it already and unregisters it once we drop rtnl.
	if (victim)
		destroy_child(victim, true);
}

// rtnl changelink on an interface: umcast and the mode may change (a child's P_Key is fixed
// at creation and ignored, like in-tree).
int Interface::changelink(LinkArgs l)
{
	l.has_pkey = false;
	ParseError err;
	if (!kstd::ok(validate_link_args(l, err))) {
		log_.warn("ip link set type ipoib: %s", err.what);
		return -KAPI_EINVAL;
	}
	if (l.has_umcast)
		set_umcast(l.umcast != 0);
	if (l.has_mode)
		apply_mode(l.mode == kLinkModeConnected);
	return 0;
}

// rtnl newlink with its parent looked up by the shim (nullptr when missing or not ours).
Status Port::newlink_checked(Port *port, kapi_netdev *parent, kapi_netdev *dev, bool parent_is_child,
			     bool has_link, const LinkArgs &args)
{
	if (!has_link) {
		kstd::log.warn("ip link add %s type ipoib: no parent given (link DEV)", kapi_netdev_name(dev));
		return Status::Invalid;
	}
	if (!port || !parent) {
		kstd::log.warn("ip link add %s type ipoib: the parent is not an ib_ipoib_cm interface",
			       kapi_netdev_name(dev));
		return Status::NoDevice;
	}
	return port->newlink(dev, parent_is_child, args);
}

} // namespace ipoib
