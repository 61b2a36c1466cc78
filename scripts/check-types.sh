#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-types.sh - the type-size rule, beside the file-size rule (check-sizes.sh): a type has
# one job and few members, so a class that outgrows its peers cannot hide by being cut into
# files. A class of the core (the objects of sources.mk, the headers at the root and under
# core/) is flagged when
#   - its member functions are defined out of line in more than 2 .cpp files (its own, and
#     at most one more, e.g. a datapath beside its control path), or
#   - it has more than 40 members: data members plus member functions declared in its body.
# The 40: measured over the core's 112 classes and structs (scripts/check-types.sh -v), the
# median has 4 members, the 90th percentile 20, and the bulk ends at 31 (UdQp; then TxRing
# 27, McastTable 26, CmPeer 25). Above it there is a gap, then the six that carry more than
# one job: RcTxRing 43, cm::Conn 51, RecvRing 97, Connection 124, Interface 163, CmTable 178.
# 40 is twice the 90th percentile and sits in that gap: the biggest healthy class can grow by
# a quarter, and a class heading where those six went is flagged before it gets there.
# Counted: each data member (static ones too, not compile-time constants: static constexpr /
# static const), each member function declaration or in-class definition (constructors,
# destructors, operators, overloads one each); not types, enums, friends, using, and not the
# counters an X-macro expands to (Stats, CmIfStats, RcStats: one named list of u64s).
# A nested class (CmTable::RcOrder) is a class of its own.
#
# A ratchet: scripts/check-types.allow names each class that breaks the rule today with its
# counts as ceilings (.cpp files, data members, member functions). The gate fails when
#   - a class not listed breaks the rule;
#   - a listed class exceeds any of its ceilings;
#   - a listed class is below a ceiling, or no longer breaks the rule, or is gone: the list
#     must be lowered (or the line removed) in the same change. A failure, not a notice:
#     a notice scrolls by unread, and the slack it leaves would let the class grow back to
#     the old ceiling unseen; lowering a number is a one-line edit.
#
# Parsing relies on the core's style: class bodies are brace-balanced C++ with one
# declaration per statement; out-of-line definitions start at column 0 with the qualified
# name before the first '(' ("Ret Class::method(", "Class::Class(", "Class::~Class(",
# "Ret Outer::Inner::method(", "template <...> Ret Class::method("); namespaces open with
# "namespace N {" and close with "} // namespace". Run by `make check`.
#   scripts/check-types.sh [-v]    -v: every class's counts, biggest first
#   CHECK_TYPES_DEBUG=CLASS ...     each statement of CLASS's body as counted (F data, M function)
set -eu
cd "$(dirname "$0")/.."
verbose=0; [ "${1:-}" = -v ] && verbose=1
allow=scripts/check-types.allow
max_files=2
max_members=40

# The .cpp of every object sources.mk lists, then the headers of the core.
objs=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' sources.mk | sed -n 's/^ipoib-objs-[a-z]* *:= *//p')
cpps=
for o in $objs; do cpps="$cpps ${o%.o}.cpp"; done
hdrs=$(ls ipoib_*.h; find core -name '*.h' | sort)
[ -n "$cpps" ] || { echo "check-types: no objects found in sources.mk" >&2; exit 1; }
for f in $cpps $hdrs; do [ -f "$f" ] || { echo "check-types: $f missing" >&2; exit 1; }; done
[ -f "$allow" ] || { echo "check-types: $allow missing" >&2; exit 1; }

# shellcheck disable=SC2086
awk -v dbg="${CHECK_TYPES_DEBUG:-}" -v allow="$allow" -v verbose=$verbose -v max_files=$max_files -v max_members=$max_members '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function nsname(   i, s) {	# the namespace path, "ipoib::" dropped
	s = ""
	for (i = 1; i <= nns; i++) s = s (s == "" ? "" : "::") ns[i]
	sub(/^ipoib(::|$)/, "", s)
	return s
}
function qual(a, b) { return a == "" ? b : (b == "" ? a : a "::" b) }
function strip_tmpl(s,   t) {	# balanced <...> removed (template arguments)
	do { t = s; gsub(/<[^<>]*>/, "", s) } while (s != t)
	return s
}
function new_class(key, file) {
	if (!(key in cfile)) { order[++ncls] = key; cfile[key] = file; nf[key] = 0; nm[key] = 0 }
}
function classify(s, key,   h, r) { r = classify1(s, key); if (key == dbg) print r "\t" trim(s) > "/dev/stderr" }
function classify1(s, key,   h) {
	s = trim(s)
	while (match(s, /^(public|private|protected)[ \t]*:([^:]|$)/)) s = trim(substr(s, RLENGTH))
	if (s == "" || s == ";") return
	if (s ~ /^(friend|using|typedef|static_assert|enum|class|struct|union)([^A-Za-z_0-9]|$)/) return
	if (s ~ /^[A-Z_][A-Z_0-9]*[ \t]*\(/ && s !~ /;$/) return	# an X-macro expansion
	sub(/^template[ \t]*/, "", s); if (s ~ /^</) { s = strip_tmpl(s); s = trim(s) }
	if (s ~ /(^|[^A-Za-z_0-9])operator([^A-Za-z_0-9]|$)/) { nm[key]++; return "M" }
	h = strip_tmpl(s)
	sub(/[={].*/, "", h)
	if (h ~ /\(/ && h !~ /^[^(]*\([ \t]*[*&]/) { nm[key]++; return "M" }	# not a pointer to a function
	if (h ~ /^(static[ \t]+)?(inline[ \t]+)?(constexpr|const)[ \t]/ && h ~ /(^|[ \t])(static|constexpr)[ \t]/) return
	nf[key]++; return "F"
}
FNR == 1 { nns = 0; depth = 0; ncs = 0; incomment = 0; cont = 0; stmt = ""; top = "" }
{
	line = $0
	if (cont) { cont = (line ~ /\\$/); next }		# a macro continued
	if (incomment) { if (!sub(/.*\*\//, "", line)) next; incomment = 0 }
	if (line ~ /^[ \t]*#/) { cont = (line ~ /\\$/); next }	# preprocessor
	gsub(/\\./, "", line)
	gsub(/"[^"]*"/, "\"\"", line)
	gsub(/'"'"'[^'"'"']*'"'"'/, "0", line)
	gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", line)
	sub(/\/\/.*/, "", line)
	if (sub(/\/\*.*/, "", line)) incomment = 1

	# namespaces: "namespace N {" and "} // namespace" (the comment is gone by now)
	if (line ~ /^[ \t]*namespace[ \t]*[A-Za-z_:]*[ \t]*\{[ \t]*$/) {
		n = line; sub(/^[ \t]*namespace[ \t]*/, "", n); sub(/[ \t]*\{.*/, "", n)
		if (n == "") n = "(" FILENAME ")"
		ns[++nns] = n; nsdepth[nns] = depth; depth++
		next
	}
	if (nns > 0 && ncs == 0 && line ~ /^\}[ \t]*$/ && depth == nsdepth[nns] + 1) { nns--; depth--; next }

	# an out-of-line member definition: column 0, the qualified name just before the first (
	if (ncs == 0 && FILENAME ~ /\.cpp$/ && line ~ /^[A-Za-z_~]/) {
		h = line
		if (h ~ /^template[ \t]*</) { sub(/^template[ \t]*/, "", h); h = strip_tmpl(h) }
		p = index(h, "(")
		if (p > 0) {
			h = substr(h, 1, p - 1)
			sub(/[ \t]*operator.*$/, "operator", h)
			sub(/[ \t]+$/, "", h)
			n = split(h, w, /[ \t*&]+/); q = w[n]
			if (q ~ /::/ && q ~ /^[A-Za-z_][A-Za-z_0-9:~]*$/) {
				sub(/::[^:]*$/, "", q)
				# innermost namespace first: "Conn" in ipoib::cm is cm::Conn
				key = ""; base = nsname()
				while (1) {
					if (qual(base, q) in cfile) { key = qual(base, q); break }
					if (base == "") break
					if (!sub(/::[^:]*$/, "", base)) base = ""
				}
				if (key == "") key = qual(nsname(), q)
				deffile[key, FILENAME] = 1
			}
		}
	}

	# characters: braces, class bodies and their statements
	L = length(line)
	for (i = 1; i <= L; i++) {
		c = substr(line, i, 1)
		inbody = (ncs > 0 && depth == cdepth[ncs])
		outside = (ncs == 0 || depth < cdepth[ncs])
		if (c == "{") {
			t = trim(inbody ? stmt : top)
			while (match(t, /^(public|private|protected)[ \t]*:([^:]|$)/)) t = trim(substr(t, RLENGTH))
			u = t; sub(/^template[ \t]*/, "", u); if (u ~ /^</) u = trim(strip_tmpl(u))
			if ((inbody || outside) && u ~ /^(class|struct|union)[ \t]+[A-Za-z_]/ && strip_tmpl(u) !~ /[;()=]/) {
				n = u; sub(/^(class|struct|union)[ \t]+/, "", n); sub(/[^A-Za-z_0-9].*/, "", n)
				key = inbody ? cls[ncs] "::" n : qual(nsname(), n)
				if (!inbody && depth > (nns > 0 ? nsdepth[nns] + 1 : 0)) key = key " (local, " FILENAME ":" FNR ")"
				new_class(key, FILENAME)
				depth++; cls[++ncs] = key; cdepth[ncs] = depth; stmt = ""; top = ""
				continue
			}
			if (inbody) {
				isbody[depth + 1] = (t ~ /\(/ && t ~ /(\)|[^A-Za-z_0-9](const|noexcept|override|final))[ \t]*$/)
				stmt = stmt c
			}
			top = ""
			depth++
		} else if (c == "}") {
			depth--; top = ""
			if (ncs > 0 && depth < cdepth[ncs]) { ncs--; stmt = ""; continue }
			if (ncs > 0 && depth == cdepth[ncs]) {
				stmt = stmt c
				if (isbody[depth + 1]) { classify(stmt, cls[ncs]); stmt = "" }
			}
		} else if (inbody) {
			stmt = stmt c
			if (c == ";") { classify(stmt, cls[ncs]); stmt = "" }
		} else if (outside) {
			top = (c == ";") ? "" : top c
		}
	}
	if (ncs > 0 && depth == cdepth[ncs]) stmt = stmt " "
	else top = top " "
}
END {
	# the out-of-line definitions, .cpp files per class
	for (k in deffile) { split(k, a, SUBSEP); if (!(a[1] in cfile)) { order[++ncls] = a[1]; cfile[a[1]] = "?"; nf[a[1]] = 0; nm[a[1]] = 0 } ndef[a[1]]++; dl[a[1]] = dl[a[1]] " " a[2] }
	while ((getline l < allow) > 0) {
		if (l ~ /^[ \t]*(#|$)/) continue
		n = split(l, w, /[ \t]+/)
		if (n != 4) { print "check-types: " allow ": \"" l "\": want CLASS CPP_FILES FIELDS METHODS" > "/dev/stderr"; bad = 1; continue }
		lf[w[1]] = w[2]; lfd[w[1]] = w[3]; lmt[w[1]] = w[4]; nlisted++
	}
	for (i = 1; i <= ncls; i++) {
		k = order[i]; files = ndef[k] + 0; mem = nf[k] + nm[k]
		broke = (files > max_files || mem > max_members)
		if (verbose) printf "%4d members (%3d fields, %3d methods) %2d .cpp  %s  [%s]\n", mem, nf[k], nm[k], files, k, cfile[k] | "sort -rn"
		if (!(k in lf)) {
			if (files > max_files) { print "check-types: " k " (" cfile[k] ") has member functions defined in " files " .cpp files (limit " max_files "):" dl[k] ": give each part its own type" > "/dev/stderr"; bad = 1 }
			if (mem > max_members) { print "check-types: " k " (" cfile[k] ") has " mem " members, " nf[k] " data and " nm[k] " functions (limit " max_members "): split it into types with one job each" > "/dev/stderr"; bad = 1 }
			continue
		}
		seen[k] = 1
		if (files > lf[k] || nf[k] > lfd[k] || nm[k] > lmt[k]) {
			print "check-types: " k " grew past its ceiling in " allow ": " files " .cpp files, " nf[k] " data members, " nm[k] " member functions (ceilings " lf[k] ", " lfd[k] ", " lmt[k] "): split it, do not raise the ceiling" > "/dev/stderr"; bad = 1
		} else if (!broke) {
			print "check-types: " k " is within the rule now (" files " .cpp files, " mem " members): remove its line from " allow > "/dev/stderr"; bad = 1
		} else if (files < lf[k] || nf[k] < lfd[k] || nm[k] < lmt[k]) {
			print "check-types: " k " shrank below its ceiling: lower its line in " allow " to \"" k " " files " " nf[k] " " nm[k] "\"" > "/dev/stderr"; bad = 1
		}
	}
	for (k in lf) if (!(k in seen)) { print "check-types: " k " is listed in " allow " but not found: remove its line" > "/dev/stderr"; bad = 1 }
	if (verbose) close("sort -rn")
	if (!bad) printf "check-types: %d classes, each defined in <= %d .cpp files with <= %d members, but the %d listed in %s (at their ceilings)\n", ncls, max_files, max_members, nlisted, allow
	exit bad
}' $hdrs $cpps
